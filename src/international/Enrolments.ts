import { Context, Effect, Either, Layer, Option, Schema } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { Outbox } from "../events/Events.js"
import { BadRequest, type CustomerForbidden } from "../api/ApiError.js"
import { Ids, isUuid } from "../ids/Ids.js"
import {
  KycDocumentNotFound,
  type KycItem,
  KycPreviousTierNotApproved,
  KycTierAlreadyApproved,
  KycTierAwaitingDecision
} from "../kyc/Api.js"
import { notThisCustomersDocument } from "../kyc/DocumentFields.js"
import { Documents } from "../kyc/Documents.js"
import { Kyc } from "../kyc/Kyc.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import type { CustomerBusy } from "../ledger/Errors.js"
import * as Ledger from "../ledger/Ledger.js"
import { type Asset, parseDecimalString, toNumber } from "../money/Money.js"
import type { PayoutRailUnavailable } from "../rails/Errors.js"
import { Exchange, type ExchangePrices } from "../rails/Exchange.js"
import { type EnrolmentDecision, PayoutEnrolments } from "../rails/PayoutPartners.js"
import { type DestinationGroup, type DestinationGroupKey, destinationGroups, findDestinationGroup } from "../reference/Groups.js"
import { usdtToFiat } from "../trading/Pricing.js"
import {
  type GroupStatus,
  InternationalFeeInsufficientBalance,
  InternationalGroupStateConflict,
  type InternationalStatus,
  type Tier3Submission
} from "./Api.js"
import { type CustomerType, feeOf, type GroupPlan, groupView, planGroup, targetGroups, tierStatusOf, type ViewContext } from "./EnrolmentRules.js"
import * as EnrolmentsRepo from "./EnrolmentsRepo.js"
import * as InternationalRepo from "./InternationalRepo.js"
import { BusinessDetails, type Tier3Body, validateSubmission, violationMessage } from "./Tier3.js"

/**
 * International verification (SPEC.md "International verification", "International group status", "Registration
 * fee rules"; docs/international.md "Enrolment"). A Tier 3 submission is sent, per destination group, to the group's
 * payout partner through the `PayoutEnrolments` port; the partner's decision comes back through `decide`, the one
 * entry point for it (a simulator job, a sandbox control or a live adapter's callback). Every change runs as a
 * command of the customer's actor (one transaction, the customer row locked), writes the enrolment row whole, emits
 * `international.group_updated` (and `global_send.enabled` once per group, `kyc.status_updated` when tier 3 moves),
 * and keeps tier 3's KYC record in step.
 *
 * The registration fee: a first submission to a group reserves the group's fee (USDT, or if short the local
 * currency at the live buy rate) unless the partner pays it; the partner creating the customer posts it to
 * `fee_revenue` (a partner-paid fee: a house journal from `partner_receivable` to `fee_revenue`); a refusal voids it
 * and makes the group free from then on.
 */
export const eventTypes = {
  groupUpdated: "international.group_updated",
  enabled: "global_send.enabled"
} as const

export type TierSubmissionError =
  | BadRequest
  | CustomerForbidden
  | CustomerBusy
  | KycPreviousTierNotApproved
  | KycTierAwaitingDecision
  | KycTierAlreadyApproved
  | KycDocumentNotFound
  | InternationalFeeInsufficientBalance
  | PayoutRailUnavailable

export type DecisionError = BadRequest | CustomerForbidden | CustomerBusy | InternationalGroupStateConflict

export class Enrolments extends Context.Tag("Enrolments")<Enrolments, {
  readonly submitTier3: (partnerId: string, customerId: string, body: Tier3Body) => Effect.Effect<Tier3Submission, TierSubmissionError>
  readonly status: (partnerId: string, customerId: string) => Effect.Effect<InternationalStatus, CustomerForbidden>
  readonly resend: (
    partnerId: string,
    customerId: string,
    group: DestinationGroupKey
  ) => Effect.Effect<InternationalStatus, BadRequest | CustomerForbidden | CustomerBusy | PayoutRailUnavailable>
  readonly reject: (
    partnerId: string,
    customerId: string,
    group: DestinationGroupKey,
    reason: string
  ) => Effect.Effect<InternationalStatus, CustomerForbidden | CustomerBusy | InternationalGroupStateConflict>
  /**
   * The payout partner's decision on one of the partner's enrolments, by our enrolment id: the settlement entry
   * point. `attempt` is the send it answers (a job's); an answer to an older send changes nothing. A decision the
   * enrolment's status does not allow: 400 INTERNATIONAL_GROUP_STATE_CONFLICT.
   */
  readonly decide: (
    partnerId: string,
    enrolmentId: string,
    attempt: number,
    decision: EnrolmentDecision
  ) => Effect.Effect<void, DecisionError>
  /** The same by hand (sandbox control): the customer's enrolment in `group`, whatever its attempt. */
  readonly decideGroup: (
    partnerId: string,
    customerId: string,
    group: DestinationGroupKey,
    decision: EnrolmentDecision
  ) => Effect.Effect<InternationalStatus, DecisionError>
  /** The customer's status in a group (NOT_STARTED without an enrolment): global send's gate, in its transaction. */
  readonly groupStatus: (customerId: string, group: DestinationGroupKey) => Effect.Effect<GroupStatus>
  /** The partner's enrolments awaiting the payout partner (PENDING or REVIEW), newest first. */
  readonly awaiting: (query: CreatedPageQuery) => Effect.Effect<ReadonlyArray<EnrolmentsRepo.EnrolmentRow>>
}>() {}

/** The held business content of the newest Tier 3 record, if it is a business's. */
const heldBusiness = (details: Readonly<Record<string, unknown>> | undefined) =>
  details?.customerType === "BUSINESS" ? Option.getOrUndefined(Schema.decodeUnknownOption(BusinessDetails)(details.business)) : undefined

const conflict = (message: string) => new InternationalGroupStateConflict({ message })

export const layer = Layer.effect(
  Enrolments,
  Effect.gen(function*() {
    const repo = yield* EnrolmentsRepo.make
    const settings = yield* InternationalRepo.make
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    const actors = yield* CustomerActors
    const customers = yield* Customers
    const kyc = yield* Kyc
    const documents = yield* Documents
    const exchange = yield* Exchange
    const enrolments = yield* PayoutEnrolments

    const partnerPays = (partnerId: string) =>
      Effect.map(settings.find(partnerId), Option.match({ onNone: () => false, onSome: (row) => row.paysForCustomers })).pipe(Effect.orDie)

    /** Everything a view needs, read in the caller's transaction. */
    const contextOf = (customer: CustomerRow) =>
      Effect.gen(function*() {
        const rows = yield* repo.ofCustomer(customer.id).pipe(Effect.orDie)
        const latest = yield* kyc.latestTier3(customer.id)
        const context: ViewContext = {
          eligible: (yield* kyc.tierStatus(customer.id, 2)) === "APPROVED",
          customerType: latest?.details.customerType === "BUSINESS" ? "BUSINESS" : "INDIVIDUAL",
          partnerPays: yield* partnerPays(customer.partnerId)
        }
        return { rows, latest, context }
      })

    const statusView = (rows: ReadonlyArray<EnrolmentsRepo.EnrolmentRow>, context: ViewContext): InternationalStatus => {
      const groups = destinationGroups.map((group) => groupView(group, rows.find((row) => row.groupKey === group.key), context))
      return {
        eligible: context.eligible,
        customerType: context.customerType,
        groups,
        registrationFee: groups.find((group) => group.key === "americas_europe")!.registrationFee
      }
    }

    const currentStatus = (customer: CustomerRow) =>
      Effect.map(contextOf(customer), ({ context, rows }) => statusView(rows, context))

    /** Writes a row (new or changed) and its `international.group_updated` event; answers the row and the event id. */
    const save = (
      customer: CustomerRow,
      row: EnrolmentsRepo.NewEnrolmentRow,
      isNew: boolean,
      context: ViewContext
    ) =>
      Effect.gen(function*() {
        const saved = yield* (isNew ? repo.insert(row) : repo.update(row)).pipe(Effect.orDie)
        const group = findDestinationGroup(saved.groupKey)!
        const event = yield* outbox.record({
          partnerId: customer.partnerId,
          customerId: customer.id,
          type: eventTypes.groupUpdated,
          data: { customerId: customer.id, enrolmentId: saved.id, ...groupView(group, saved, context) }
        }).pipe(Effect.orDie)
        return { row: saved, eventId: event.envelope.id }
      })

    /** After enrolments changed: tier 3's record follows the groups. */
    const syncTier = (customerId: string) =>
      Effect.gen(function*() {
        const tier = tierStatusOf(yield* repo.ofCustomer(customerId).pipe(Effect.orDie))
        if (tier !== null) yield* kyc.syncTier3(customerId, tier.status, tier.reason)
      })

    // ---------------------------------------------------------------------------------------------------------------
    // The Tier 3 submission

    /** Which source pays the first-send fees, or the refusal. */
    const fundFees = (
      customer: CustomerRow,
      fees: ReadonlyArray<bigint>,
      prices: Option.Option<ExchangePrices>
    ) =>
      Effect.gen(function*() {
        const total = fees.reduce((a, b) => a + b, 0n)
        const fiat = customer.currency as Asset
        const balances = yield* ledger.balances(customer.id)
        const availableOf = (asset: Asset) => balances.find((row) => row.currency === asset)?.available ?? 0n
        if (availableOf("USDT") >= total) return fees.map((amount) => ({ currency: "USDT" as Asset, amount }))
        const local = Option.map(prices, (p) => fees.map((fee) => usdtToFiat(fee, fiat, p.buyRate, "up")))
        if (Option.isSome(local) && availableOf(fiat) >= local.value.reduce((a, b) => a + b, 0n)) {
          return local.value.map((amount) => ({ currency: fiat, amount }))
        }
        const feeLocal = Option.map(local, (amounts) => toNumber(fiat, amounts.reduce((a, b) => a + b, 0n)))
        return yield* new InternationalFeeInsufficientBalance({
          message: `The registration fee of ${toNumber("USDT", total)} USDT is covered neither by the customer's USDT balance ` +
            `(${toNumber("USDT", availableOf("USDT"))} available) nor by its ${fiat} balance` +
            (Option.isSome(feeLocal) ? ` (${feeLocal.value} ${fiat} needed at the live rate, ${toNumber(fiat, availableOf(fiat))} available)` : " (no live rate)") +
            ". Nothing was sent",
          details: { feeUsdt: toNumber("USDT", total), feeLocal: Option.getOrNull(feeLocal), localCurrency: fiat }
        })
      })

    /** The document ids of the content, each looked up among the customer's uploads (as Tier 2). */
    const checkDocuments = (customerId: string, references: ReadonlyArray<{ readonly field: string; readonly documentId: string }>) =>
      Effect.forEach(references, ({ documentId, field }) =>
        Effect.flatMap(documents.find(customerId, documentId), (document) =>
          document === undefined ? new KycDocumentNotFound({ message: `${field}: ${notThisCustomersDocument}` }) : Effect.void))

    const submitTier3 = (partnerId: string, customerId: string, body: Tier3Body) =>
      Effect.gen(function*() {
        const owned = yield* customers.getOwned(partnerId, customerId)
        // Outside the transaction: the live rate, in case USDT does not cover a fee (no network under the lock).
        const prices = yield* exchange.prices(partnerId, owned.currency).pipe(Effect.option)
        return yield* actors.run(partnerId, owned.id, (customer) =>
          Effect.gen(function*() {
            if ((yield* kyc.tierStatus(customer.id, 2)) !== "APPROVED") {
              return yield* new KycPreviousTierNotApproved({ message: "Tier 2 must be approved before Tier 3 is submitted" })
            }
            const now = yield* clock.now
            const { context: before, latest, rows } = yield* contextOf(customer)
            const validated = validateSubmission(body, { customerId: customer.id, held: heldBusiness(latest?.details), now })
            if (Either.isLeft(validated)) {
              const message = violationMessage(validated.left)
              return yield* validated.left.code === "BAD_REQUEST" ? new BadRequest({ message }) : new KycDocumentNotFound({ message })
            }
            const submission = validated.right
            yield* checkDocuments(customer.id, submission.documents)

            const outstanding = yield* kyc.outstandingItems(customer.id)
            // A business's registered address is evidenced by its formation document: only an individual sends a proof.
            if (outstanding.includes("ADDRESS_PROOF") && submission.customerType === "INDIVIDUAL" && submission.individual.addressProofUrl === undefined) {
              return yield* new BadRequest({ message: "addressProofUrl: is required by the open re-verification request (ADDRESS_PROOF)" })
            }
            if (outstanding.includes("COUNTRY") && submission.destinationCountry === undefined) {
              return yield* new BadRequest({ message: "destinationCountry: is required by the open re-verification request (COUNTRY)" })
            }
            const satisfied: Array<KycItem> = ["DATE_OF_BIRTH", "ADDRESS"]
            if (submission.destinationCountry !== undefined) satisfied.push("COUNTRY")
            if (submission.customerType === "BUSINESS" || submission.individual.addressProofUrl !== undefined) satisfied.push("ADDRESS_PROOF")
            const closesItems = outstanding.some((item) => satisfied.includes(item))

            const rowOf = (group: DestinationGroup) => rows.find((row) => row.groupKey === group.key)
            const plans = targetGroups(submission.destinationCountry).map((group) => planGroup(group, rowOf(group)))
            const sends = plans.filter((plan): plan is Extract<GroupPlan, { _tag: "Send" }> => plan._tag === "Send")
            const records = plans.filter((plan) => plan._tag === "Record")
            const newCountry = submission.destinationCountry !== undefined &&
              records.some((plan) => !(rowOf(plan.group)?.optedInCountries ?? []).includes(submission.destinationCountry!))
            if (sends.length === 0 && !newCountry && !closesItems) {
              const awaiting = plans.filter((plan) => plan._tag === "Awaiting").map((plan) => plan.group.key)
              if (awaiting.length > 0) {
                return yield* new KycTierAwaitingDecision({
                  message: `Tier 3 is awaiting the payout partner's decision for ${awaiting.join(" and ")}; wait for kyc.status_updated`
                })
              }
              return yield* new KycTierAlreadyApproved({
                message: submission.destinationCountry === undefined
                  ? "Tier 3 is approved in every destination group; send a destinationCountry to opt in to another country"
                  : `Tier 3 is already approved for ${submission.destinationCountry}`
              })
            }

            const customerType: CustomerType = submission.customerType
            const payer = before.partnerPays ? "PARTNER" as const : "CUSTOMER" as const
            const charged = sends.filter((plan) => plan.first)
            const feeUsdt = (group: DestinationGroup) => parseDecimalString("USDT", feeOf(group, customerType).amount)
            const funding = payer === "CUSTOMER"
              ? yield* fundFees(customer, charged.map((plan) => feeUsdt(plan.group)), prices)
              : charged.map(() => undefined)

            const kycId = yield* ids.uuid
            const content = submission.customerType === "BUSINESS"
              ? { business: submission.business }
              : {
                dateOfBirth: submission.individual.dateOfBirth,
                address: submission.individual.address,
                ...(submission.individual.addressProofUrl === undefined ? {} : { addressProofUrl: submission.individual.addressProofUrl })
              }
            const details = {
              customerType,
              ...(submission.destinationCountry === undefined ? {} : { destinationCountry: submission.destinationCountry }),
              groups: sends.map((plan) => plan.group.key),
              ...content
            }
            const context: ViewContext = { ...before, customerType }
            const optIn = (countries: ReadonlyArray<string>) =>
              submission.destinationCountry === undefined || countries.includes(submission.destinationCountry)
                ? countries
                : [...countries, submission.destinationCountry]

            for (const plan of plans) {
              const existing = rowOf(plan.group)
              if (plan._tag === "Awaiting") continue
              if (plan._tag === "Record") {
                if (existing !== undefined && newCountry && plan.group.countries.includes(submission.destinationCountry ?? "")) {
                  yield* save(customer, { ...existing, optedInCountries: optIn(existing.optedInCountries), updatedAt: now }, false, context)
                }
                continue
              }
              const fundingIndex = charged.indexOf(plan)
              const fee = fundingIndex >= 0 ? funding[fundingIndex] : undefined
              const id = existing?.id ?? (yield* ids.uuid)
              const draft: EnrolmentsRepo.NewEnrolmentRow = {
                id,
                partnerId: customer.partnerId,
                customerId: customer.id,
                groupKey: plan.group.key,
                status: "PENDING",
                reason: null,
                customerType,
                optedInCountries: optIn(existing?.optedInCountries ?? []),
                kycId,
                created: existing?.created ?? false,
                attempt: (existing?.attempt ?? 0) + 1,
                feeStatus: plan.first ? "HELD" : existing?.feeStatus ?? "NONE",
                feePaidBy: plan.first ? payer : existing?.feePaidBy ?? null,
                feeUsdt: plan.first ? feeUsdt(plan.group) : existing?.feeUsdt ?? feeUsdt(plan.group),
                feeAmount: plan.first ? fee?.amount ?? feeUsdt(plan.group) : existing?.feeAmount ?? null,
                feeCurrency: plan.first ? fee?.currency ?? "USDT" : existing?.feeCurrency ?? null,
                feeReservationId: null,
                enabledAt: existing?.enabledAt ?? null,
                createdAt: existing?.createdAt ?? now,
                updatedAt: now
              }
              const { eventId, row } = yield* save(customer, draft, existing === undefined, context)
              if (fee !== undefined) {
                const reservation = yield* ledger.reserve({
                  partnerId: customer.partnerId,
                  customerId: customer.id,
                  reason: "registration_fee",
                  resourceType: "international_enrolment",
                  resourceId: row.id,
                  eventId,
                  currency: fee.currency,
                  amount: fee.amount
                }).pipe(Effect.catchTag("InsufficientBalance", () => Effect.dieMessage("enrolments: a checked fee did not fit")))
                yield* repo.update({ ...row, feeReservationId: reservation.id }).pipe(Effect.orDie)
              }
              yield* enrolments.enrol({
                partnerId: customer.partnerId,
                customerId: customer.id,
                enrolmentId: row.id,
                attempt: row.attempt,
                group: row.groupKey,
                customerType,
                destinationCountry: submission.destinationCountry ?? null,
                profile: { kycId, firstName: customer.firstName, lastName: customer.lastName, email: customer.email, country: customer.country, ...details },
                resend: existing !== undefined && existing.attempt > 0
              })
            }
            yield* kyc.satisfyItems(customer.id, satisfied)
            const after = yield* repo.ofCustomer(customer.id).pipe(Effect.orDie)
            // Written after the groups, with the status they add up to: a submission moves groups only to PENDING
            // (or leaves them), so tier 3 never reaches REVIEW, APPROVED or REJECTED here and no event is due.
            const tier = tierStatusOf(after) ?? { status: "PENDING" as const, reason: null }
            const record = yield* kyc.insertTier3({
              id: kycId,
              partnerId: customer.partnerId,
              customerId: customer.id,
              status: tier.status,
              rejectionReason: tier.reason,
              details
            })
            return {
              status: tier.status,
              record,
              international: statusView(after, context)
            } satisfies Tier3Submission
          }))
      }).pipe(Effect.withSpan("Enrolments.submitTier3"))

    // ---------------------------------------------------------------------------------------------------------------
    // Decisions, re-send, reject

    /** Releases a fee held for a send that never reached creation (customer-paid: the reservation is voided). */
    const releaseHeldFee = (row: EnrolmentsRepo.EnrolmentRow, eventId: string) =>
      row.feeStatus === "HELD" && row.feeReservationId !== null
        ? Effect.asVoid(ledger.voidReservation({ reservationId: row.feeReservationId, reason: "registration_fee_release", eventId }))
        : Effect.void

    /** Takes the fee when the partner creates the customer: the reservation posted, or the partner's house journal. */
    const takeFee = (row: EnrolmentsRepo.EnrolmentRow, eventId: string) =>
      Effect.gen(function*() {
        if (row.feeStatus !== "HELD") return
        const currency = (row.feeCurrency ?? "USDT") as Asset
        const amount = row.feeAmount ?? row.feeUsdt
        if (row.feePaidBy === "CUSTOMER" && row.feeReservationId !== null) {
          yield* ledger.postReservation({
            reservationId: row.feeReservationId,
            reason: "registration_fee",
            eventId,
            destinations: [{ account: Ledger.house("fee_revenue", currency), amount }]
          })
        } else if (row.feePaidBy === "PARTNER" && amount > 0n) {
          yield* ledger.post({
            partnerId: row.partnerId,
            customerId: row.customerId,
            reason: "registration_fee",
            resourceType: "international_enrolment",
            resourceId: row.id,
            eventId,
            postings: [
              { account: Ledger.house("partner_receivable", currency), amount: -amount },
              { account: Ledger.house("fee_revenue", currency), amount }
            ]
          }).pipe(Effect.orDie)
        }
      })

    /** Applies a decision to a row (customer locked); a decision the status does not allow is a conflict. */
    const applyDecision = (customer: CustomerRow, row: EnrolmentsRepo.EnrolmentRow, decision: EnrolmentDecision, byHand: boolean) =>
      Effect.gen(function*() {
        const key = row.groupKey
        if (row.status !== "PENDING" && row.status !== "REVIEW") {
          return yield* conflict(`The ${key} enrolment is ${row.status}: only a PENDING or REVIEW enrolment can be decided`)
        }
        if (row.status === "REVIEW" && (decision._tag === "Review" || decision._tag === "Refused")) {
          return yield* conflict(`The ${key} enrolment is already under review: approve or reject it`)
        }
        let effective = decision
        if (decision._tag === "Refused" && row.created) {
          if (byHand) return yield* conflict(`The payout partner already created this customer for ${key}: reject it instead`)
          effective = { _tag: "Rejected", reason: decision.reason }
        }
        const now = yield* clock.now
        const firstCreation = !row.created && effective._tag !== "Refused"
        const { context, rows } = yield* contextOf(customer)
        const next: EnrolmentsRepo.NewEnrolmentRow = {
          ...row,
          status: effective._tag === "Approved" ? "APPROVED" : effective._tag === "Review" ? "REVIEW" : "REJECTED",
          reason: effective._tag === "Rejected" || effective._tag === "Refused" ? effective.reason : null,
          created: row.created || firstCreation,
          ...(firstCreation && row.feeStatus === "HELD" ? { feeStatus: "PAID" as const } : {}),
          ...(effective._tag === "Refused" && row.feeStatus !== "PAID"
            ? { feeStatus: "WAIVED" as const, feePaidBy: null, feeAmount: null, feeCurrency: null, feeReservationId: null }
            : {}),
          ...(effective._tag === "Approved" && row.enabledAt === null ? { enabledAt: now } : {}),
          updatedAt: now
        }
        const { eventId, row: saved } = yield* save(customer, next, false, { ...context, customerType: row.customerType })
        if (firstCreation) yield* takeFee(row, eventId)
        if (effective._tag === "Refused") yield* releaseHeldFee(row, eventId)
        if (effective._tag === "Approved" && row.enabledAt === null) {
          const approved = destinationGroups
            .filter((group) => group.key === key || rows.some((other) => other.groupKey === group.key && other.enabledAt !== null))
            .map((group) => group.key)
          yield* outbox.record({
            partnerId: customer.partnerId,
            customerId: customer.id,
            type: eventTypes.enabled,
            data: { customerId: customer.id, groups: approved, newGroups: [key] }
          }).pipe(Effect.orDie)
        }
        yield* syncTier(customer.id)
        return saved
      })

    const decide = (partnerId: string, enrolmentId: string, attempt: number, decision: EnrolmentDecision) =>
      Effect.gen(function*() {
        if (!isUuid(enrolmentId)) return yield* new BadRequest({ message: "enrolmentId: must be a uuid" })
        const found = yield* repo.forPartner(partnerId, enrolmentId.toLowerCase()).pipe(Effect.orDie)
        if (Option.isNone(found)) return yield* new BadRequest({ message: "enrolmentId: no enrolment with this id" })
        yield* actors.run(partnerId, found.value.customerId, (customer) =>
          Effect.gen(function*() {
            const rows = yield* repo.ofCustomer(customer.id).pipe(Effect.orDie)
            const row = rows.find((candidate) => candidate.id === found.value.id)
            // A later send (re-submission, re-send) or a reject superseded the one this answers: nothing to decide.
            if (row === undefined || row.attempt !== attempt) return
            yield* applyDecision(customer, row, decision, false)
          }))
      })

    const rowOfGroup = (customerId: string, group: DestinationGroupKey) =>
      Effect.map(repo.ofCustomer(customerId), (rows) => rows.find((row) => row.groupKey === group)).pipe(Effect.orDie)

    const decideGroup = (partnerId: string, customerId: string, group: DestinationGroupKey, decision: EnrolmentDecision) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const row = yield* rowOfGroup(customer.id, group)
          if (row === undefined) return yield* conflict(`The customer has no ${group} enrolment (NOT_STARTED): nothing to decide`)
          yield* applyDecision(customer, row, decision, true)
          return yield* currentStatus(customer)
        }))

    const resend = (partnerId: string, customerId: string, group: DestinationGroupKey) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const row = yield* rowOfGroup(customer.id, group)
          const latest = yield* kyc.latestTier3(customer.id)
          if (row === undefined || row.kycId === null || latest === undefined || (row.status !== "REJECTED" && row.status !== "NEEDS_ATTENTION")) {
            return yield* new BadRequest({
              message: `group: ${group} cannot be re-sent (${row?.status ?? "NOT_STARTED"}${row !== undefined && row.kycId === null ? ", never submitted" : ""}); ` +
                "only a REJECTED or NEEDS_ATTENTION group that was submitted before can be re-sent"
            })
          }
          if (row.feeStatus === "NONE") {
            // Its only send was withdrawn (international-reject) before the partner answered: a re-send would be a
            // free first send. The customer re-submits Tier 3 instead, which commits the fee as a first submission.
            return yield* new BadRequest({
              message: `group: ${group} cannot be re-sent (${row.status}, withdrawn before the payout partner answered); ` +
                "re-submit Tier 3 (POST .../kyc/tier3)"
            })
          }
          const now = yield* clock.now
          const { context } = yield* contextOf(customer)
          const { row: saved } = yield* save(customer, {
            ...row,
            status: "PENDING",
            reason: null,
            attempt: row.attempt + 1,
            updatedAt: now
          }, false, { ...context, customerType: row.customerType })
          const { groups: _groups, ...details } = latest.details
          yield* enrolments.enrol({
            partnerId: customer.partnerId,
            customerId: customer.id,
            enrolmentId: saved.id,
            attempt: saved.attempt,
            group,
            customerType: saved.customerType,
            // The group's own choice: the newest record's country may belong to another group.
            destinationCountry: saved.optedInCountries.at(-1) ?? null,
            profile: { kycId: latest.id, firstName: customer.firstName, lastName: customer.lastName, email: customer.email, country: customer.country, ...details },
            resend: true
          })
          yield* syncTier(customer.id)
          return yield* currentStatus(customer)
        }))

    const reject = (partnerId: string, customerId: string, group: DestinationGroupKey, reason: string) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const row = yield* rowOfGroup(customer.id, group)
          if (row?.status === "APPROVED") {
            return yield* conflict(`The ${group} group is APPROVED: only an unapproved group can be marked NEEDS_ATTENTION`)
          }
          const now = yield* clock.now
          const { context } = yield* contextOf(customer)
          if (row === undefined) {
            yield* save(customer, {
              id: yield* ids.uuid,
              partnerId: customer.partnerId,
              customerId: customer.id,
              groupKey: group,
              status: "NEEDS_ATTENTION",
              reason,
              customerType: context.customerType,
              optedInCountries: [],
              kycId: null,
              created: false,
              attempt: 0,
              feeStatus: "NONE",
              feePaidBy: null,
              feeUsdt: parseDecimalString("USDT", feeOf(findDestinationGroup(group)!, context.customerType).amount),
              feeAmount: null,
              feeCurrency: null,
              feeReservationId: null,
              enabledAt: null,
              createdAt: now,
              updatedAt: now
            }, true, context)
          } else {
            // A send the partner has not answered is withdrawn: its answer will find a newer attempt, and a fee held
            // for a first send is released (the customer was never created, so the next submission is a first one).
            const withdrawn = row.status === "PENDING"
            const releases = withdrawn && row.feeStatus === "HELD"
            const { eventId } = yield* save(customer, {
              ...row,
              status: "NEEDS_ATTENTION",
              reason,
              attempt: withdrawn ? row.attempt + 1 : row.attempt,
              ...(releases ? { feeStatus: "NONE" as const, feePaidBy: null, feeAmount: null, feeCurrency: null, feeReservationId: null } : {}),
              updatedAt: now
            }, false, { ...context, customerType: row.customerType })
            if (releases) yield* releaseHeldFee(row, eventId)
          }
          yield* syncTier(customer.id)
          return yield* currentStatus(customer)
        }))

    const status = (partnerId: string, customerId: string) =>
      Effect.flatMap(customers.getOwned(partnerId, customerId), currentStatus)

    const awaiting = (query: CreatedPageQuery) => repo.awaiting(query).pipe(Effect.orDie)

    const groupStatus = (customerId: string, group: DestinationGroupKey) =>
      Effect.map(rowOfGroup(customerId, group), (row): GroupStatus => row?.status ?? "NOT_STARTED")

    return Enrolments.of({ submitTier3, status, resend, reject, decide, decideGroup, groupStatus, awaiting })
  })
)
