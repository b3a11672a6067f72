import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Layer, Schema } from "effect"
import { Api } from "../../src/Api.js"
import { withCustomer } from "../../src/api/Ids.js"
import { Enrolments } from "../../src/international/Enrolments.js"
import { type JobDescription, Jobs } from "../../src/jobs/Jobs.js"
import { type EnrolmentDecision, type EnrolmentRequest, PayoutEnrolments } from "../../src/rails/PayoutPartners.js"
import { findDestinationGroup } from "../../src/reference/Groups.js"
import { type OperationSource, postAction } from "../../src/sandbox/Operations.js"
import { RailPolicies } from "../RailPolicies.js"

/**
 * The simulated payout partners' enrolment desk (sandbox), behind the `PayoutEnrolments` port: each send of a
 * customer's Tier 3 details to a group's partner (Meridian Payouts for `americas_europe`, Silk Road Pay for `china`)
 * is answered per the partner's `payout` rail policy by a job on the service clock (`auto`), or left PENDING for a
 * sandbox control (`manual`). Magic postal codes decide the answer on the `auto` rail whatever the policy's outcome
 * (docs/international.md "Sandbox: the payout partners"): the individual's `address.postalCode`, or the business's
 * `business.profile.address.postalCode`.
 */
export const decisionJobKind = "payout.enrolment_decision"

export const Decision = Schema.Literal("approve", "review", "reject", "refuse")
export type Decision = typeof Decision.Type

export const DecisionJob = Schema.Struct({
  enrolmentId: Schema.String,
  attempt: Schema.Number,
  group: Schema.String,
  decision: Decision,
  reason: Schema.NullOr(Schema.String)
})
export type DecisionJob = typeof DecisionJob.Type

/** The reasons the simulated partners give. */
export const reasons = {
  refuse: "The payout partner could not create the customer: the identity details could not be matched",
  reject: "The payout partner rejected the application: the address could not be verified",
  policy: "The payout partner rejected the application (sandbox payout rail policy: failure)"
} as const

/** Magic postal codes (any group, individual or business): the decision they force on the auto rail. */
export const magicPostalCodes: ReadonlyArray<readonly [string, Decision]> = [
  ["00001", "refuse"],
  ["00002", "review"],
  ["00003", "reject"]
]

const postalCodeOf = (profile: Readonly<Record<string, unknown>>): string | undefined => {
  const business = profile.business as { readonly profile?: { readonly address?: { readonly postalCode?: unknown } } } | undefined
  const address = (business?.profile?.address ?? profile.address) as { readonly postalCode?: unknown } | undefined
  return typeof address?.postalCode === "string" ? address.postalCode : undefined
}

/** The decision the auto rail gives a request: a magic postal code's, else the policy outcome's. */
export const decisionFor = (request: EnrolmentRequest, outcome: "success" | "failure"): { readonly decision: Decision; readonly reason: string | null } => {
  const postalCode = postalCodeOf(request.profile)
  const magic = magicPostalCodes.find(([code]) => code === postalCode)?.[1]
  if (magic === "refuse") return { decision: "refuse", reason: reasons.refuse }
  if (magic === "reject") return { decision: "reject", reason: reasons.reject }
  if (magic === "review") return { decision: "review", reason: null }
  return outcome === "success" ? { decision: "approve", reason: null } : { decision: "reject", reason: reasons.policy }
}

export const toDecision = (decision: Decision, reason: string | null): EnrolmentDecision => {
  switch (decision) {
    case "approve":
      return { _tag: "Approved" }
    case "review":
      return { _tag: "Review" }
    case "reject":
      return { _tag: "Rejected", reason: reason ?? reasons.reject }
    case "refuse":
      return { _tag: "Refused", reason: reason ?? reasons.refuse }
  }
}

export const layer = Layer.effect(
  PayoutEnrolments,
  Effect.gen(function*() {
    const jobs = yield* Jobs
    const policies = yield* RailPolicies
    return PayoutEnrolments.of({
      enrol: (request) =>
        Effect.gen(function*() {
          const policy = yield* policies.policyFor(request.partnerId, "payout")
          if (policy.mode === "manual") return
          const { decision, reason } = decisionFor(request, policy.outcome)
          yield* jobs.schedule({
            kind: decisionJobKind,
            partnerId: request.partnerId,
            customerId: request.customerId,
            delaySeconds: policy.delaySeconds,
            payload: { enrolmentId: request.enrolmentId, attempt: request.attempt, group: request.group, decision, reason } satisfies DecisionJob
          })
        }).pipe(Effect.orDie)
    })
  })
)

const describeDecision = (job: DecisionJob): JobDescription => ({
  description: `${findDestinationGroup(job.group)?.payoutPartnerName ?? "the payout partner"} answers the ${job.group} enrolment: ${job.decision}`,
  resourceId: job.enrolmentId
})

/** The partners' answers: a job per send, run on the service clock, settling through `Enrolments.decide`. */
export const outcomesLayer = Layer.effectDiscard(Effect.gen(function*() {
  const jobs = yield* Jobs
  const enrolments = yield* Enrolments
  yield* jobs.register(decisionJobKind, DecisionJob, (payload, job) =>
    enrolments.decide(job.partnerId, payload.enrolmentId, payload.attempt, toDecision(payload.decision, payload.reason)).pipe(
      // The operator answered first (a sandbox control): the partner's later answer has nothing left to decide.
      Effect.catchTag("InternationalGroupStateConflict", () => Effect.void)
    ), { describe: describeDecision })
}))

/**
 * The payout rail's pending operations for `GET /sandbox/operations`: enrolments awaiting the partner (PENDING, or
 * REVIEW after the partner created the customer), with the controls that decide them. `dueAt`: the decision job's
 * run time under the auto policy; null under manual or in REVIEW.
 */
export const enrolmentKind = "international_enrolment"

export const operationSources = Effect.gen(function*() {
  const sources: Array<OperationSource> = []
  const enrolments = yield* Enrolments
  const jobs = yield* Jobs
  sources.push({
    kind: enrolmentKind,
    rail: "payout",
    pending: (query) =>
      Effect.gen(function*() {
        const rows = yield* enrolments.awaiting(query)
        const due = yield* jobs.pendingRunAt(query.partnerId, decisionJobKind, "enrolmentId", rows.map((row) => row.id))
        return rows.map((row) => {
          const path = `/customers/${row.customerId}/international/${row.groupKey}`
          const partner = findDestinationGroup(row.groupKey)?.payoutPartnerName ?? row.groupKey
          const actions = [
            postAction("approve", "Approve", `${path}/approve`),
            ...(row.status === "PENDING" ? [postAction("review", "Create and review", `${path}/review`)] : []),
            postAction("reject", "Reject", `${path}/reject`, { reason: "required" }),
            ...(row.status === "PENDING" && !row.created ? [postAction("refuse", "Refuse to create (no fee)", `${path}/refuse`)] : [])
          ]
          return {
            id: row.id,
            kind: enrolmentKind,
            rail: "payout" as const,
            customerId: row.customerId,
            status: row.status,
            reference: null,
            summary: `${row.customerType === "BUSINESS" ? "Business" : "Individual"} enrolment with ${partner} (${row.groupKey})` +
              (row.status === "REVIEW" ? ", under review" : ""),
            createdAt: row.createdAt,
            dueAt: row.status === "PENDING" ? due.get(row.id) ?? null : null,
            actions
          }
        })
      }).pipe(Effect.orDie)
  })
  return sources
})

/** The partners' decisions by hand: `POST /sandbox/customers/{id}/international/{group}/approve | review | reject | refuse`. */
export const SandboxInternationalHttp = HttpApiBuilder.group(Api, "sandboxInternational", (handlers) =>
  Effect.gen(function*() {
    const enrolments = yield* Enrolments
    const decide = (customerId: string, group: Parameters<typeof enrolments.decideGroup>[2], decision: EnrolmentDecision) =>
      withCustomer(customerId, (partnerId, id) => enrolments.decideGroup(partnerId, id, group, decision))
    return handlers
      .handle("approve", ({ path }) => decide(path.customerId, path.group, { _tag: "Approved" }))
      .handle("review", ({ path }) => decide(path.customerId, path.group, { _tag: "Review" }))
      .handle("reject", ({ path, payload }) => decide(path.customerId, path.group, { _tag: "Rejected", reason: payload.reason }))
      .handle("refuse", ({ path }) => decide(path.customerId, path.group, { _tag: "Refused", reason: reasons.refuse }))
  }))
