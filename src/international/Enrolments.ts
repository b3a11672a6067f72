import * as Command from "../observability/Command.js"
import { Effect, Option } from "effect"
import { CustomerId, PartnerId, storedId } from "../api/Ids.js"
import { Customers } from "../customers/Customers.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { BadRequest, type CustomerForbidden } from "../api/ApiError.js"
import { isUuid } from "../ids/Ids.js"
import type {
  KycDocumentNotFound,
  KycPreviousTierNotApproved,
  KycTierAlreadyApproved,
  KycTierAwaitingDecision
} from "../kyc/Api.js"
import { Documents } from "../kyc/Documents.js"
import { Kyc } from "../kyc/Kyc.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import type { CustomerBusy } from "../ledger/Errors.js"
import * as Ledger from "../ledger/Ledger.js"
import type { PayoutRailUnavailable } from "../rails/Errors.js"
import { Exchange } from "../rails/Exchange.js"
import type { EnrolmentDecision } from "../rails/PayoutPartners.js"
import type { DestinationGroupKey } from "../reference/Groups.js"
import type { GroupStatus, InternationalFeeInsufficientBalance, InternationalGroupStateConflict } from "./Api.js"
import * as EnrolmentDecisions from "./EnrolmentDecisions.js"
import * as EnrolmentsRepo from "./EnrolmentsRepo.js"
import * as EnrolmentStore from "./EnrolmentStore.js"
import * as InternationalRepo from "./InternationalRepo.js"
import * as SubmitTier3 from "./SubmitTier3.js"
import type { Tier3Body } from "./Tier3.js"

/**
 * International verification (docs/contract.md "International verification", "International group status", "Registration
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
export { eventTypes } from "./EnrolmentStore.js"

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

export class Enrolments extends Effect.Service<Enrolments>()("Enrolments", {
  effect: Effect.gen(function*() {
    const repo = yield* EnrolmentsRepo.EnrolmentsRepo
    const actors = yield* CustomerActors
    const customers = yield* Customers
    const exchange = yield* Exchange
    const store = yield* EnrolmentStore.make(repo)
    const submitLocked = yield* SubmitTier3.make(store)
    const decisions = yield* EnrolmentDecisions.make(store)

    /** A Tier 3 submission: sent per destination group to its payout partner (src/international/SubmitTier3.ts). */
    const submitTier3 = Command.fn("Enrolments.submitTier3")(function*(partnerId: PartnerId, customerId: CustomerId, body: Tier3Body) {
      const owned = yield* customers.getOwned(partnerId, customerId)
      // Outside the transaction: the live rate, in case USDT does not cover a fee (no network under the lock).
      const prices = yield* exchange.prices(partnerId, owned.currency).pipe(Effect.option)
      return yield* actors.run(partnerId, owned.id, (customer) => submitLocked(customer, body, prices))
    })

    /** The customer's status in every destination group. */
    const status = Command.fn("Enrolments.status")((partnerId: PartnerId, customerId: CustomerId) =>
      Effect.flatMap(customers.getOwned(partnerId, customerId), store.currentStatus)
    )

    /** Sends a REJECTED or NEEDS_ATTENTION group's newest Tier 3 content to its payout partner again. */
    const resend = Command.fn("Enrolments.resend")((partnerId: PartnerId, customerId: CustomerId, group: DestinationGroupKey) =>
      actors.run(partnerId, customerId, (customer) => decisions.resend(customer, group))
    )

    /** Marks a group NEEDS_ATTENTION with the partner's reason (a send not answered yet is withdrawn). */
    const reject = Command.fn("Enrolments.reject")(
      (partnerId: PartnerId, customerId: CustomerId, group: DestinationGroupKey, reason: string) =>
        actors.run(partnerId, customerId, (customer) => decisions.reject(customer, group, reason))
    )

    /**
     * The payout partner's decision on one of the partner's enrolments, by our enrolment id: the settlement entry
     * point. `attempt` is the send it answers (a job's); an answer to an older send changes nothing. A decision the
     * enrolment's status does not allow: 400 INTERNATIONAL_GROUP_STATE_CONFLICT.
     */
    const decide = Command.fn("Enrolments.decide")(
      function*(partnerId: string, enrolmentId: string, attempt: number, decision: EnrolmentDecision) {
        if (!isUuid(enrolmentId)) return yield* new BadRequest({ message: "enrolmentId: must be a uuid" })
        const found = yield* repo.forPartner(partnerId, enrolmentId.toLowerCase())
        if (Option.isNone(found)) return yield* new BadRequest({ message: "enrolmentId: no enrolment with this id" })
        yield* actors.run(storedId(PartnerId, found.value.partnerId), storedId(CustomerId, found.value.customerId), (customer) =>
          Effect.gen(function*() {
            const rows = yield* repo.ofCustomer(customer.id)
            const row = rows.find((candidate) => candidate.id === found.value.id)
            // A later send (re-submission, re-send) or a reject superseded the one this answers: nothing to decide.
            if (row === undefined || row.attempt !== attempt) return
            yield* decisions.applyDecision(customer, row, decision, false)
          }))
      }
    )

    /** The same by hand (sandbox control): the customer's enrolment in `group`, whatever its attempt. */
    const decideGroup = Command.fn("Enrolments.decideGroup")(
      (partnerId: PartnerId, customerId: CustomerId, group: DestinationGroupKey, decision: EnrolmentDecision) =>
        actors.run(partnerId, customerId, (customer) =>
          Effect.gen(function*() {
            const row = yield* store.rowOfGroup(customer.id, group)
            if (row === undefined) {
              return yield* EnrolmentDecisions.conflict(`The customer has no ${group} enrolment (NOT_STARTED): nothing to decide`)
            }
            yield* decisions.applyDecision(customer, row, decision, true)
            return yield* store.currentStatus(customer)
          }))
    )

    /** The customer's status in a group (NOT_STARTED without an enrolment): global send's gate, in its transaction. */
    const groupStatus = Command.fn("Enrolments.groupStatus")((customerId: string, group: DestinationGroupKey) =>
      Effect.map(store.rowOfGroup(customerId, group), (row): GroupStatus => row?.status ?? "NOT_STARTED")
    )

    /** The partner's enrolments awaiting the payout partner (PENDING or REVIEW), newest first. */
    const awaiting = Command.fn("Enrolments.awaiting")((query: CreatedPageQuery) => repo.awaiting(query))

    return { submitTier3, status, resend, reject, decide, decideGroup, groupStatus, awaiting } as const
  }),
  dependencies: [EnrolmentsRepo.EnrolmentsRepo.Default, InternationalRepo.InternationalRepo.Default, Customers.Default, Kyc.Default, Documents.Default, CustomerActors.Default, Ledger.Ledger.Default]
}) {}

export const layer = Enrolments.Default
