import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Layer, Option, Schema } from "effect"
import type { RailJob } from "../../src/rails/RailJob.js"
import { Api } from "../../src/Api.js"
import { Customers } from "../../src/customers/Customers.js"
import { GlobalSends } from "../../src/globalsend/GlobalSends.js"
import { withCustomer } from "../../src/api/Ids.js"
import { type JobDescription, Jobs } from "../../src/jobs/Jobs.js"
import { toNumber } from "../../src/money/Money.js"
import { type PayoutOutcome, type PayoutRequest, PayoutSubmissions } from "../../src/rails/PayoutPartners.js"
import { type OperationSource, postAction } from "../../src/sandbox/Operations.js"
import { RailPolicies } from "../RailPolicies.js"

/**
 * The simulated payout partners' payouts (sandbox), behind the `PayoutSubmissions` port: each cross-border global
 * send is answered per the partner's `payout` rail policy by a job on the service clock (`auto`, default 900 s), or
 * left PROCESSING for a sandbox control (`manual`). Magic beneficiary names decide the answer on the `auto` rail
 * whatever the policy's outcome (docs/global-send.md "Sandbox"). The domestic NG corridor pays out through the bank
 * rail (its withdrawal's magic accounts and controls apply).
 */
export const outcomeJobKind = "payout.global_send_outcome"

export const OutcomeJob = Schema.Struct({
  sendId: Schema.String,
  outcome: Schema.Literal("completed", "failed"),
  reason: Schema.NullOr(Schema.String)
})
export type OutcomeJob = typeof OutcomeJob.Type

/** Magic `beneficiary.accountName` values (case and spacing ignored) and the failure they force. */
export const magicNames: ReadonlyArray<readonly [string, string]> = [
  ["Closed Account", "The recipient's account is closed"],
  ["Name Mismatch", "The recipient's name does not match the account holder's"],
  ["Limit Exceeded", "The recipient's account cannot receive this amount (limit exceeded)"]
]

export const policyFailureReason = "The payout partner could not deliver the payout (sandbox payout rail policy: failure)"

const normalise = (name: string) => name.trim().replace(/\s+/g, " ").toLowerCase()

/** The outcome the auto rail gives a payout: a magic name's failure, else the policy's outcome. */
export const outcomeFor = (payout: PayoutRequest, outcome: "success" | "failure"): { readonly outcome: "completed" | "failed"; readonly reason: string | null } => {
  const name = payout.beneficiary.accountName
  const magic = typeof name === "string" ? magicNames.find(([magicName]) => normalise(magicName) === normalise(name)) : undefined
  if (magic !== undefined) return { outcome: "failed", reason: magic[1] }
  return outcome === "success" ? { outcome: "completed", reason: null } : { outcome: "failed", reason: policyFailureReason }
}

export const toOutcome = (job: OutcomeJob): PayoutOutcome =>
  job.outcome === "completed" ? { _tag: "Completed" } : { _tag: "Failed", reason: job.reason ?? policyFailureReason }

export const layer = Layer.effect(
  PayoutSubmissions,
  Effect.gen(function*() {
    const policies = yield* RailPolicies
    return PayoutSubmissions.of({
      submitPayout: (payout) =>
        Effect.gen(function*() {
          const policy = yield* policies.policyFor(payout.partnerId, "payout")
          if (policy.mode === "manual") return Option.none<RailJob>()
          const { outcome, reason } = outcomeFor(payout, policy.outcome)
          // The send's journal writes it (src/jobs/Jobs.ts `carry`).
          return Option.some<RailJob>({
            kind: outcomeJobKind,
            partnerId: payout.partnerId,
            customerId: payout.customerId,
            delaySeconds: policy.delaySeconds,
            payload: { sendId: payout.payoutId, outcome, reason } satisfies OutcomeJob
          })
        }).pipe(Effect.orDie)
    })
  })
)

const describeOutcome = (job: OutcomeJob): JobDescription => ({
  description: job.outcome === "completed"
    ? `the payout partner delivers global send ${job.sendId}`
    : `global send ${job.sendId} fails: ${job.reason ?? policyFailureReason}`,
  resourceId: job.sendId
})

/** The partners' answers: a job per payout, run on the service clock, settling through `GlobalSends.settle`. */
export const outcomesLayer = Layer.effectDiscard(Effect.gen(function*() {
  const jobs = yield* Jobs
  const globalSends = yield* GlobalSends
  yield* jobs.register(outcomeJobKind, OutcomeJob, (payload, job) =>
    globalSends.settle(job.partnerId, payload.sendId, toOutcome(payload)).pipe(
      // The operator answered first (a sandbox control): the partner's later answer has nothing left to move.
      Effect.catchTag("GlobalSendStateConflict", () => Effect.void),
      Effect.asVoid
    ), { describe: describeOutcome })
}))

/** Cross-border global sends awaiting the payout partner, for `GET /sandbox/operations` (rail `payout`). */
export const globalSendKind = "global_send"

export const operationSources = Effect.gen(function*() {
  const sources: Array<OperationSource> = []
  const globalSends = yield* GlobalSends
  const jobs = yield* Jobs
  sources.push({
    kind: globalSendKind,
    rail: "payout",
    pending: (query) =>
      Effect.gen(function*() {
        const rows = yield* globalSends.processing(query)
        const due = yield* jobs.pendingRunAt(query.partnerId, outcomeJobKind, "sendId", rows.map((row) => row.id))
        return rows.map((row) => {
          const path = `/customers/${row.customerId}/global-sends/${encodeURIComponent(row.reference)}`
          return {
            id: row.id,
            kind: globalSendKind,
            rail: "payout" as const,
            customerId: row.customerId,
            status: row.status,
            reference: row.reference,
            summary: `${row.asset} ${toNumber("USDT", row.assetAmount)} to ${row.destinationCurrency} via ${row.corridor}` +
              (typeof row.beneficiary.accountName === "string" ? ` (${row.beneficiary.accountName})` : ""),
            createdAt: row.createdAt,
            dueAt: due.get(row.id) ?? null,
            actions: [
              postAction("complete", "Complete (delivered)", `${path}/complete`),
              postAction("fail", "Fail", `${path}/fail`, { reason: "required" })
            ]
          }
        })
      }).pipe(Effect.orDie)
  })
  return sources
})

/** `POST /sandbox/customers/{id}/global-sends/{reference}/complete | fail { reason }`. */
export const SandboxGlobalSendsHttp = HttpApiBuilder.group(Api, "sandboxGlobalSends", (handlers) =>
  Effect.gen(function*() {
    const globalSends = yield* GlobalSends
    const customers = yield* Customers
    const owned = (customerId: string) => withCustomer(customerId, customers.getOwned)
    return handlers
      .handle("complete", ({ path }) =>
        Effect.flatMap(owned(path.customerId), (customer) => globalSends.settleByReference(customer, path.reference, { _tag: "Completed" })))
      .handle("fail", ({ path, payload }) =>
        Effect.flatMap(owned(path.customerId), (customer) =>
          globalSends.settleByReference(customer, path.reference, { _tag: "Failed", reason: payload.reason })))
  }))
