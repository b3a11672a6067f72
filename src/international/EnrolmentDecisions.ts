import { Effect } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { Customer } from "../customers/Customer.js"
import { Outbox } from "../events/Events.js"
import { BadRequest } from "../api/ApiError.js"
import { Ids } from "../ids/Ids.js"
import { Kyc } from "../kyc/Kyc.js"
import * as Ledger from "../ledger/Ledger.js"
import { type Asset, parseDecimalString } from "../money/Money.js"
import { type EnrolmentDecision, PayoutEnrolments } from "../rails/PayoutPartners.js"
import { type DestinationGroupKey, destinationGroups, findDestinationGroup } from "../reference/Groups.js"
import { InternationalGroupStateConflict } from "./Api.js"
import { feeOf, type ViewContext } from "./EnrolmentRules.js"
import type * as EnrolmentsRepo from "./EnrolmentsRepo.js"
import { type EnrolmentStore, eventTypes } from "./EnrolmentStore.js"

/**
 * What changes a group after its submission (src/international/Enrolments.ts), each in the customer's actor: the
 * payout partner's decision (and the fee it takes or releases), the partner's re-send of a refused group and its
 * reject (NEEDS_ATTENTION).
 */

type EnrolmentRow = EnrolmentsRepo.EnrolmentRow

export const conflict = (message: string) => new InternationalGroupStateConflict({ message })

/**
 * The decision to apply, or the conflict: only a PENDING or REVIEW enrolment is decided, a review is not reviewed
 * or refused again, and a refusal of a customer the partner already created is a rejection (by hand: a conflict).
 */
const effectiveDecision = (row: EnrolmentRow, decision: EnrolmentDecision, byHand: boolean) =>
  Effect.gen(function*() {
    const key = row.groupKey
    if (row.status !== "PENDING" && row.status !== "REVIEW") {
      return yield* conflict(`The ${key} enrolment is ${row.status}: only a PENDING or REVIEW enrolment can be decided`)
    }
    if (row.status === "REVIEW" && (decision._tag === "Review" || decision._tag === "Refused")) {
      return yield* conflict(`The ${key} enrolment is already under review: approve or reject it`)
    }
    if (decision._tag === "Refused" && row.created) {
      if (byHand) return yield* conflict(`The payout partner already created this customer for ${key}: reject it instead`)
      const rejected: EnrolmentDecision = { _tag: "Rejected", reason: decision.reason }
      return rejected
    }
    return decision
  })

/** The row after the decision: its status and reason, the creation and its fee, the first approval's time. */
const decidedRow = (row: EnrolmentRow, effective: EnrolmentDecision, firstCreation: boolean, now: Date): EnrolmentsRepo.NewEnrolmentRow => ({
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
})

/** A group the customer has no row in, marked NEEDS_ATTENTION by the partner: never sent, no fee owed yet. */
const needsAttentionRow = (
  customer: Customer,
  group: DestinationGroupKey,
  id: string,
  reason: string,
  context: ViewContext,
  now: Date
): EnrolmentsRepo.NewEnrolmentRow => ({
  id,
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
})

export const make = (store: EnrolmentStore) =>
  Effect.gen(function*() {
    const { contextOf, currentStatus, rowOfGroup, save, syncTier } = store
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    const kyc = yield* Kyc
    const enrolments = yield* PayoutEnrolments

    /** Releases a fee held for a send that never reached creation (customer-paid: the reservation is voided). */
    const releaseHeldFee = (row: EnrolmentRow, eventId: string) =>
      row.feeStatus === "HELD" && row.feeReservationId !== null
        ? Effect.asVoid(ledger.voidReservation({ reservationId: row.feeReservationId, reason: "registration_fee_release", eventId }))
        : Effect.void

    /** Takes the fee when the partner creates the customer: the reservation posted, or the partner's house journal. */
    const takeFee = (row: EnrolmentRow, eventId: string) =>
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

    /** The group's first approval: `global_send.enabled` with every group enabled so far. */
    const announceEnabled = (customer: Customer, key: DestinationGroupKey, rows: ReadonlyArray<EnrolmentRow>) => {
      const approved = destinationGroups
        .filter((group) => group.key === key || rows.some((other) => other.groupKey === group.key && other.enabledAt !== null))
        .map((group) => group.key)
      return outbox.record({
        partnerId: customer.partnerId,
        customerId: customer.id,
        type: eventTypes.enabled,
        data: { customerId: customer.id, groups: approved, newGroups: [key] }
      })
    }

    /** Applies a decision to a row (customer locked); a decision the status does not allow is a conflict. */
    const applyDecision = (customer: Customer, row: EnrolmentRow, decision: EnrolmentDecision, byHand: boolean) =>
      Effect.gen(function*() {
        const effective = yield* effectiveDecision(row, decision, byHand)
        const now = yield* clock.now
        const firstCreation = !row.created && effective._tag !== "Refused"
        const { context, rows } = yield* contextOf(customer)
        const next = decidedRow(row, effective, firstCreation, now)
        const { eventId, row: saved } = yield* save(customer, next, false, { ...context, customerType: row.customerType })
        if (firstCreation) yield* takeFee(row, eventId)
        if (effective._tag === "Refused") yield* releaseHeldFee(row, eventId)
        if (effective._tag === "Approved" && row.enabledAt === null) yield* announceEnabled(customer, row.groupKey, rows)
        yield* syncTier(customer.id)
        return saved
      })

    /** The re-send of a REJECTED or NEEDS_ATTENTION group, its newest Tier 3 content sent again (customer locked). */
    const resend = (customer: Customer, group: DestinationGroupKey) =>
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
      })

    /** The partner marks a group NEEDS_ATTENTION (customer locked); an APPROVED group cannot be. */
    const reject = (customer: Customer, group: DestinationGroupKey, reason: string) =>
      Effect.gen(function*() {
        const row = yield* rowOfGroup(customer.id, group)
        if (row?.status === "APPROVED") {
          return yield* conflict(`The ${group} group is APPROVED: only an unapproved group can be marked NEEDS_ATTENTION`)
        }
        const now = yield* clock.now
        const { context } = yield* contextOf(customer)
        if (row === undefined) {
          yield* save(customer, needsAttentionRow(customer, group, yield* ids.uuid, reason, context, now), true, context)
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
      })

    return { applyDecision, resend, reject } as const
  })
