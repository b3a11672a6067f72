import { Effect, Layer, Option, Schema } from "effect"
import type { RailJob } from "../../src/rails/RailJob.js"
import { FundingCharges } from "../../src/funding/FundingCharges.js"
import { Ids } from "../../src/ids/Ids.js"
import { type JobDescription, Jobs } from "../../src/jobs/Jobs.js"
import { Bank, BankUnavailable, type CollectionOpened, type PayoutOutcome, type PayoutRequest } from "../../src/rails/Bank.js"
import { Withdrawals } from "../../src/withdrawals/Withdrawals.js"
import { RailPolicies } from "../RailPolicies.js"
import { bankingFor } from "./Banks.js"
import { nameEnquiry } from "./NameEnquiry.js"
import { bankReturnReason, planPayout, policyFailureReason } from "./Payouts.js"
import { issueCollectionAccount, serialDigits } from "./VirtualAccounts.js"

/**
 * The simulated bank behind the `Bank` port (sandbox). Outcomes follow the partner's `bank` rail policy: `auto`
 * schedules a job on the service clock that answers after `delaySeconds`; `manual` waits for a sandbox control
 * (`POST /sandbox/withdrawals/{id}/complete|fail|reverse`, `POST /sandbox/funding/charges/{id}/pay`). Magic account
 * numbers (NameEnquiry.ts) win over the policy's outcome. Every answer enters the domain through its settlement
 * entry point, exactly as a live adapter's callback would.
 */
export const payoutJobKind = "withdrawal.payout"
export const chargePaymentJobKind = "funding.charge_autopay"

const PayoutJob = Schema.Struct({
  withdrawalId: Schema.String,
  move: Schema.Literal("complete", "fail", "reverse"),
  reason: Schema.NullOr(Schema.String),
  /** After completing, the bank returns the funds this many seconds later (magic "payout reversed" account). */
  reverseAfterSeconds: Schema.NullOr(Schema.Number)
})
type PayoutJob = typeof PayoutJob.Type

const ChargePaymentJob = Schema.Struct({ chargeId: Schema.UUID })

export const layer = Layer.effect(
  Bank,
  Effect.gen(function*() {
    const jobs = yield* Jobs
    const policies = yield* RailPolicies
    const ids = yield* Ids

    /** The payer pays by itself only when the policy says so; otherwise a control call (or expiry) decides. */
    const collectionOpened = (charge: CollectionOpened) =>
      Effect.gen(function*() {
        const policy = yield* policies.policyFor(charge.partnerId, "bank")
        if (policy.mode !== "auto" || policy.outcome !== "success") return
        yield* jobs.schedule({
          kind: chargePaymentJobKind,
          partnerId: charge.partnerId,
          customerId: charge.customerId,
          delaySeconds: policy.delaySeconds,
          payload: { chargeId: charge.chargeId }
        })
      }).pipe(Effect.orDie)

    /** The payout's job (the withdrawal's journal writes it): its outcome after the policy's delay; none when manual. */
    const submitPayout = (payout: PayoutRequest) =>
      Effect.gen(function*() {
        const policy = yield* policies.policyFor(payout.partnerId, "bank")
        if (policy.mode === "manual") return Option.none<RailJob>()
        const plan = planPayout(payout.accountNumber, policy.outcome)
        const job: PayoutJob = plan._tag === "Fail"
          ? { withdrawalId: payout.payoutId, move: "fail", reason: plan.reason, reverseAfterSeconds: null }
          : { withdrawalId: payout.payoutId, move: "complete", reason: null, reverseAfterSeconds: plan.thenReverse ? policy.delaySeconds : null }
        return Option.some<RailJob>({
          kind: payoutJobKind,
          partnerId: payout.partnerId,
          customerId: payout.customerId,
          delaySeconds: policy.delaySeconds,
          payload: job
        })
      }).pipe(Effect.orDie)

    return Bank.of({
      banks: (country) => Effect.succeed((bankingFor(country)?.banks ?? []).map(({ code, name }) => ({ code, name }))),
      nameEnquiry: (country, bankCode, accountNumber) => {
        const result = nameEnquiry(country, bankCode, accountNumber)
        return result._tag === "BankUnavailable"
          ? Effect.fail(new BankUnavailable({ reason: "The bank did not answer the name enquiry" }))
          : Effect.succeed(result)
      },
      issueCollectionAccount: (request) =>
        Effect.suspend(() =>
          Effect.map(ids.bytes(serialDigits(request.country)), (random) => issueCollectionAccount(request.country, random))
        ),
      collectionOpened,
      submitPayout
    })
  })
)

/** What a payout job will do, for `GET /sandbox/clock/due`. */
const describePayout = (job: PayoutJob): JobDescription => ({
  description: job.move === "complete"
    ? `bank payout of withdrawal ${job.withdrawalId} completes`
    : job.move === "fail"
    ? `bank payout of withdrawal ${job.withdrawalId} fails: ${job.reason ?? policyFailureReason}`
    : `the bank returns withdrawal ${job.withdrawalId}: ${job.reason ?? bankReturnReason}`,
  resourceId: job.withdrawalId
})

const outcomeOf = (job: PayoutJob): PayoutOutcome =>
  job.move === "complete"
    ? { _tag: "Completed" }
    : job.move === "fail"
    ? { _tag: "Failed", reason: job.reason ?? "Payout rejected by the beneficiary bank" }
    : { _tag: "Returned", reason: job.reason ?? bankReturnReason }

/**
 * The simulated bank's answers, delivered by jobs to the domain's settlement entry points. Built after the domain
 * services (it needs them), while the `Bank` layer above is built before them.
 */
export const outcomesLayer = Layer.effectDiscard(Effect.gen(function*() {
  const jobs = yield* Jobs
  const withdrawals = yield* Withdrawals
  const charges = yield* FundingCharges

  yield* jobs.register(payoutJobKind, PayoutJob, (payload, job) =>
    withdrawals.settle(job.partnerId, payload.withdrawalId, outcomeOf(payload)).pipe(
      Effect.flatMap((withdrawal) =>
        payload.move === "complete" && payload.reverseAfterSeconds !== null
          ? jobs.schedule({
            kind: payoutJobKind,
            partnerId: job.partnerId,
            customerId: job.customerId,
            delaySeconds: payload.reverseAfterSeconds,
            payload: { withdrawalId: withdrawal.id, move: "reverse", reason: bankReturnReason, reverseAfterSeconds: null }
          })
          : Effect.void
      ),
      // The operator answered first (a sandbox control call): the bank's later answer has nothing left to move.
      Effect.catchTag("WithdrawalStateConflict", () => Effect.void)
    ), { describe: describePayout })

  yield* jobs.register(chargePaymentJobKind, ChargePaymentJob, ({ chargeId }, job) =>
    charges.settle(job.partnerId, chargeId, undefined).pipe(
      // Paid, expired or cancelled meanwhile: the payer's money has nowhere to go.
      Effect.catchTag("FundingChargeNotPending", () => Effect.void)
    ), {
    describe: ({ chargeId }) => ({ description: `the payer pays funding charge ${chargeId} (bank)`, resourceId: chargeId })
  })
}))
