import { Effect } from "effect"
import { Jobs } from "../../src/jobs/Jobs.js"
import { Kyc } from "../../src/kyc/Kyc.js"
import { type OperationSource, sandboxPath } from "../../src/sandbox/Operations.js"
import { documentCheckJobKind } from "./IdentitySimulator.js"

/**
 * The identity rail's pending operations for `GET /sandbox/operations`: KYC tiers awaiting a decision (the newest
 * record of a tier, PENDING or REVIEW). `dueAt` is the run time of the document check job (`kyc.tier2_check`) of a
 * PENDING Tier 2 under the auto policy; null otherwise (REVIEW always waits for the reviewer). The actions are
 * the reviewer's decision, `POST /sandbox/customers/{id}/kyc/{level}/decision`.
 */
export const kycReviewKind = "kyc_review"

export const operationSources = Effect.gen(function*() {
  const sources: Array<OperationSource> = []
  const kyc = yield* Kyc
  const jobs = yield* Jobs

  sources.push({
    kind: kycReviewKind,
    rail: "identity",
    pending: (query) =>
      Effect.gen(function*() {
        const rows = yield* kyc.awaitingDecision(query)
        const due = yield* jobs.pendingRunAt(query.partnerId, documentCheckJobKind, "recordId", rows.map((row) => row.record.id))
        return rows.map(({ record, reviewReason }) => {
          const path = sandboxPath(`/customers/${record.customerId}/kyc/${record.level}/decision`)
          const summary = record.status === "REVIEW"
            ? `Tier ${record.level} awaiting review${reviewReason === null ? "" : `: ${reviewReason}`}`
            : `Tier ${record.level} awaiting the identity check${record.idType === null ? "" : ` (${record.idType})`}`
          return {
            id: record.id,
            kind: kycReviewKind,
            rail: "identity" as const,
            customerId: record.customerId,
            status: record.status,
            reference: null,
            summary,
            createdAt: record.createdAt,
            dueAt: due.get(record.id) ?? null,
            actions: [
              { name: "approve", label: "Approve", method: "POST" as const, path, body: { status: "APPROVED" }, reason: "none" as const },
              { name: "reject", label: "Reject", method: "POST" as const, path, body: { status: "REJECTED" }, reason: "required" as const }
            ]
          }
        })
      }).pipe(Effect.orDie)
  })
  return sources
})
