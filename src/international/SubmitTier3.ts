import { Effect, Either, Option, Schema } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { Customer } from "../customers/Customer.js"
import { BadRequest } from "../api/ApiError.js"
import { Ids } from "../ids/Ids.js"
import { KycDocumentNotFound, type KycItem, KycPreviousTierNotApproved, KycTierAlreadyApproved, KycTierAwaitingDecision } from "../kyc/Api.js"
import { notThisCustomersDocument } from "../kyc/DocumentFields.js"
import { Documents } from "../kyc/Documents.js"
import { Kyc } from "../kyc/Kyc.js"
import * as Ledger from "../ledger/Ledger.js"
import { type Asset, parseDecimalString, toNumber } from "../money/Money.js"
import type { ExchangePrices } from "../rails/Exchange.js"
import { PayoutEnrolments } from "../rails/PayoutPartners.js"
import type { DestinationGroup } from "../reference/Groups.js"
import { usdtToFiat } from "../trading/Pricing.js"
import { InternationalFeeInsufficientBalance, type Tier3Submission } from "./Api.js"
import { type CustomerType, feeOf, type GroupPlan, planGroup, targetGroups, tierStatusOf, type ViewContext } from "./EnrolmentRules.js"
import type * as EnrolmentsRepo from "./EnrolmentsRepo.js"
import { type EnrolmentStore, statusView } from "./EnrolmentStore.js"
import { BusinessDetails, type Tier3Body, type ValidatedSubmission, validateSubmission, violationMessage } from "./Tier3.js"

/**
 * The Tier 3 submission (`Enrolments.submitTier3`), in the customer's actor: the body validated against the held
 * content and the customer's uploads, the open re-verification's items, a plan per destination group, the first
 * sends' fees funded and reserved, a send per group to its payout partner, then tier 3's record. Its steps, in the
 * order they run.
 */

type SendPlan = Extract<GroupPlan, { _tag: "Send" }>
type Fee = { readonly currency: Asset; readonly amount: bigint }

/** The held business content of the newest Tier 3 record, if it is a business's. */
const heldBusiness = (details: Readonly<Record<string, unknown>> | undefined) =>
  details?.customerType === "BUSINESS" ? Option.getOrUndefined(Schema.decodeUnknownOption(BusinessDetails)(details.business)) : undefined

const feeUsdt = (group: DestinationGroup, customerType: CustomerType) => parseDecimalString("USDT", feeOf(group, customerType).amount)

/**
 * What an open re-verification asks of this submission (an individual's address proof, a destination country), and
 * the items the submission re-submits.
 */
const reverificationItems = (outstanding: ReadonlyArray<KycItem>, submission: ValidatedSubmission) =>
  Effect.gen(function*() {
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
    return { satisfied, closesItems: outstanding.some((item) => satisfied.includes(item)) }
  })

/** What the submission does to each target group, and whether it opts in to a new country of an approved group. */
const planSubmission = (submission: ValidatedSubmission, rows: ReadonlyArray<EnrolmentsRepo.EnrolmentRow>) => {
  const rowOf = (group: DestinationGroup) => rows.find((row) => row.groupKey === group.key)
  const plans = targetGroups(submission.destinationCountry).map((group) => planGroup(group, rowOf(group)))
  const sends = plans.filter((plan): plan is SendPlan => plan._tag === "Send")
  const newCountry = submission.destinationCountry !== undefined &&
    plans.some((plan) => plan._tag === "Record" && !(rowOf(plan.group)?.optedInCountries ?? []).includes(submission.destinationCountry!))
  return { rowOf, plans, sends, charged: sends.filter((plan) => plan.first), newCountry }
}

/** A submission that would change nothing: every target group awaiting its decision, or approved. */
const refuseUnchanged = (submission: ValidatedSubmission, plans: ReadonlyArray<GroupPlan>) => {
  const awaiting = plans.filter((plan) => plan._tag === "Awaiting").map((plan) => plan.group.key)
  if (awaiting.length > 0) {
    return new KycTierAwaitingDecision({
      message: `Tier 3 is awaiting the payout partner's decision for ${awaiting.join(" and ")}; wait for kyc.status_updated`
    })
  }
  return new KycTierAlreadyApproved({
    message: submission.destinationCountry === undefined
      ? "Tier 3 is approved in every destination group; send a destinationCountry to opt in to another country"
      : `Tier 3 is already approved for ${submission.destinationCountry}`
  })
}

/** Tier 3's record content: the submission's, with the groups it was sent to. */
const detailsOf = (submission: ValidatedSubmission, sends: ReadonlyArray<SendPlan>) => {
  const content = submission.customerType === "BUSINESS"
    ? { business: submission.business }
    : {
      dateOfBirth: submission.individual.dateOfBirth,
      address: submission.individual.address,
      ...(submission.individual.addressProofUrl === undefined ? {} : { addressProofUrl: submission.individual.addressProofUrl })
    }
  return {
    customerType: submission.customerType,
    ...(submission.destinationCountry === undefined ? {} : { destinationCountry: submission.destinationCountry }),
    groups: sends.map((plan) => plan.group.key),
    ...content
  }
}

/** The countries with the submission's destination country added (once). */
const optInOf = (destinationCountry: string | undefined) => (countries: ReadonlyArray<string>) =>
  destinationCountry === undefined || countries.includes(destinationCountry) ? countries : [...countries, destinationCountry]

/** What one send needs besides the customer: the submission's shared values. */
interface SendContext {
  readonly customer: Customer
  readonly submission: ValidatedSubmission
  readonly kycId: string
  readonly details: Readonly<Record<string, unknown>>
  readonly context: ViewContext
  readonly payer: "PARTNER" | "CUSTOMER"
  readonly now: Date
}

/** A group's row for its send: PENDING, the next attempt, the fee held on a first send. */
const sendRow = (
  send: SendContext,
  plan: SendPlan,
  existing: EnrolmentsRepo.EnrolmentRow | undefined,
  id: string,
  fee: Fee | undefined
): EnrolmentsRepo.NewEnrolmentRow => {
  const { customer, now } = send
  const customerType = send.submission.customerType
  const usdt = feeUsdt(plan.group, customerType)
  return {
    id,
    partnerId: customer.partnerId,
    customerId: customer.id,
    groupKey: plan.group.key,
    status: "PENDING",
    reason: null,
    customerType,
    optedInCountries: optInOf(send.submission.destinationCountry)(existing?.optedInCountries ?? []),
    kycId: send.kycId,
    created: existing?.created ?? false,
    attempt: (existing?.attempt ?? 0) + 1,
    feeStatus: plan.first ? "HELD" : existing?.feeStatus ?? "NONE",
    feePaidBy: plan.first ? send.payer : existing?.feePaidBy ?? null,
    feeUsdt: plan.first ? usdt : existing?.feeUsdt ?? usdt,
    feeAmount: plan.first ? fee?.amount ?? usdt : existing?.feeAmount ?? null,
    feeCurrency: plan.first ? fee?.currency ?? "USDT" : existing?.feeCurrency ?? null,
    feeReservationId: null,
    enabledAt: existing?.enabledAt ?? null,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now
  }
}

export const make = (store: EnrolmentStore) =>
  Effect.gen(function*() {
    const { repo, save } = store
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const ledger = yield* Ledger.Ledger
    const kyc = yield* Kyc
    const documents = yield* Documents
    const enrolments = yield* PayoutEnrolments

    /** Which source pays the first-send fees, or the refusal. */
    const fundFees = (customer: Customer, fees: ReadonlyArray<bigint>, prices: Option.Option<ExchangePrices>) =>
      Effect.gen(function*() {
        const total = fees.reduce((a, b) => a + b, 0n)
        const fiat = customer.currency as Asset
        const balances = yield* ledger.balances(customer.id)
        const availableOf = (asset: Asset) => balances.find((row) => row.currency === asset)?.available ?? 0n
        if (availableOf("USDT") >= total) return fees.map((amount): Fee => ({ currency: "USDT", amount }))
        const local = Option.map(prices, (p) => fees.map((fee) => usdtToFiat(fee, fiat, p.buyRate, "up")))
        if (Option.isSome(local) && availableOf(fiat) >= local.value.reduce((a, b) => a + b, 0n)) {
          return local.value.map((amount): Fee => ({ currency: fiat, amount }))
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

    /** The body checked against the held business content and today's rules, then its documents among the uploads. */
    const validate = (customerId: string, body: Tier3Body, held: Readonly<Record<string, unknown>> | undefined, now: Date) =>
      Effect.gen(function*() {
        const validated = validateSubmission(body, { customerId, held: heldBusiness(held), now })
        if (Either.isLeft(validated)) {
          const message = violationMessage(validated.left)
          return yield* validated.left.code === "BAD_REQUEST" ? new BadRequest({ message }) : new KycDocumentNotFound({ message })
        }
        yield* checkDocuments(customerId, validated.right.documents)
        return validated.right
      })

    /** The fee of a charged send reserved on the customer's balance, its id kept on the row. */
    const reserveFee = (customer: Customer, row: EnrolmentsRepo.EnrolmentRow, eventId: string, fee: Fee) =>
      Effect.gen(function*() {
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
        yield* repo.update({ ...row, feeReservationId: reservation.id })
      })

    /** One group's send: its row and event, its fee reserved (customer-paid first send), the payout partner's send. */
    const sendGroup = (send: SendContext, plan: SendPlan, existing: EnrolmentsRepo.EnrolmentRow | undefined, fee: Fee | undefined) =>
      Effect.gen(function*() {
        const { customer, submission } = send
        const id = existing?.id ?? (yield* ids.uuid)
        const { eventId, row } = yield* save(customer, sendRow(send, plan, existing, id, fee), existing === undefined, send.context)
        if (fee !== undefined) yield* reserveFee(customer, row, eventId, fee)
        yield* enrolments.enrol({
          partnerId: customer.partnerId,
          customerId: customer.id,
          enrolmentId: row.id,
          attempt: row.attempt,
          group: row.groupKey,
          customerType: submission.customerType,
          destinationCountry: submission.destinationCountry ?? null,
          profile: {
            kycId: send.kycId,
            firstName: customer.firstName,
            lastName: customer.lastName,
            email: customer.email,
            country: customer.country,
            ...send.details
          },
          resend: existing !== undefined && existing.attempt > 0
        })
      })

    /** Each group's plan, in the groups' order: a send, a new country recorded on an approved group, or nothing. */
    const applyPlans = (
      send: SendContext,
      planned: ReturnType<typeof planSubmission>,
      funding: ReadonlyArray<Fee | undefined>
    ) =>
      Effect.gen(function*() {
        const { customer, submission } = send
        for (const plan of planned.plans) {
          const existing = planned.rowOf(plan.group)
          if (plan._tag === "Awaiting") continue
          if (plan._tag === "Record") {
            if (existing !== undefined && planned.newCountry && plan.group.countries.includes(submission.destinationCountry ?? "")) {
              const optedInCountries = optInOf(submission.destinationCountry)(existing.optedInCountries)
              yield* save(customer, { ...existing, optedInCountries, updatedAt: send.now }, false, send.context)
            }
            continue
          }
          const fundingIndex = planned.charged.indexOf(plan)
          yield* sendGroup(send, plan, existing, fundingIndex >= 0 ? funding[fundingIndex] : undefined)
        }
      })

    /**
     * Tier 3's record, written after the groups with the status they add up to: a submission moves groups only to
     * PENDING (or leaves them), so tier 3 never reaches REVIEW, APPROVED or REJECTED here and no event is due.
     */
    const recordTier = (send: SendContext) =>
      Effect.gen(function*() {
        const { customer } = send
        const after = yield* repo.ofCustomer(customer.id)
        const tier = tierStatusOf(after) ?? { status: "PENDING" as const, reason: null }
        const record = yield* kyc.insertTier3({
          id: send.kycId,
          partnerId: customer.partnerId,
          customerId: customer.id,
          status: tier.status,
          rejectionReason: tier.reason,
          details: send.details
        })
        return { status: tier.status, record, international: statusView(after, send.context) } satisfies Tier3Submission
      })

    /** The submission, in the customer's actor (`prices`: the live rate, read before the lock). */
    const submitLocked = (customer: Customer, body: Tier3Body, prices: Option.Option<ExchangePrices>) =>
      Effect.gen(function*() {
        if ((yield* kyc.tierStatus(customer.id, 2)) !== "APPROVED") {
          return yield* new KycPreviousTierNotApproved({ message: "Tier 2 must be approved before Tier 3 is submitted" })
        }
        const now = yield* clock.now
        const { context: before, latest, rows } = yield* store.contextOf(customer)
        const submission = yield* validate(customer.id, body, latest?.details, now)
        const { closesItems, satisfied } = yield* reverificationItems(yield* kyc.outstandingItems(customer.id), submission)
        const planned = planSubmission(submission, rows)
        if (planned.sends.length === 0 && !planned.newCountry && !closesItems) return yield* refuseUnchanged(submission, planned.plans)

        const payer = before.partnerPays ? "PARTNER" as const : "CUSTOMER" as const
        const funding = payer === "CUSTOMER"
          ? yield* fundFees(customer, planned.charged.map((plan) => feeUsdt(plan.group, submission.customerType)), prices)
          : planned.charged.map(() => undefined)
        const kycId = yield* ids.uuid
        const send: SendContext = {
          customer,
          submission,
          kycId,
          details: detailsOf(submission, planned.sends),
          context: { ...before, customerType: submission.customerType },
          payer,
          now
        }
        yield* applyPlans(send, planned, funding)
        yield* kyc.satisfyItems(customer.id, satisfied)
        return yield* recordTier(send)
      })

    return submitLocked
  })
