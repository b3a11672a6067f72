import { Effect } from "effect"
import { Jobs } from "../../src/jobs/Jobs.js"
import { toNumber } from "../../src/money/Money.js"
import { type OperationSource, postAction } from "../../src/sandbox/Operations.js"
import { Sends } from "../../src/sends/Sends.js"
import { sendOutcomeJobKind } from "./ChainSimulator.js"

/**
 * The chain rail's pending operations for `GET /sandbox/operations`: sends the chain has not answered (PENDING).
 * `dueAt` is the run time of the job that answers by itself (`chain.send_outcome`); null under the manual policy.
 * Actions: confirm, and fail with each cause.
 */
export const sendKind = "send"

export const operationSources = Effect.gen(function*() {
  const sources: Array<OperationSource> = []
  const sends = yield* Sends
  const jobs = yield* Jobs

  sources.push({
    kind: sendKind,
    rail: "chain",
    pending: (query) =>
      Effect.gen(function*() {
        const rows = yield* sends.pending(query)
        const due = yield* jobs.pendingRunAt(query.partnerId, sendOutcomeJobKind, "sendId", rows.map((row) => row.id))
        return rows.map((row) => {
          const path = `/customers/${row.customerId}/sends/${encodeURIComponent(row.reference)}`
          return {
            id: row.id,
            kind: sendKind,
            rail: "chain" as const,
            customerId: row.customerId,
            status: row.status,
            reference: row.reference,
            summary: `${row.asset} ${toNumber(row.asset, row.amount)} on ${row.network} to ${row.toAddress}`,
            createdAt: row.createdAt,
            dueAt: due.get(row.id) ?? null,
            actions: [
              postAction("confirm", "Confirm (mined)", `${path}/confirm`),
              postAction("fail-rejected", "Fail: rejected before broadcast", `${path}/fail`, { body: { reason: "rejected" } }),
              postAction("fail-reverted", "Fail: reverted on chain", `${path}/fail`, { body: { reason: "reverted" } }),
              postAction("fail-dropped", "Fail: dropped from the mempool", `${path}/fail`, { body: { reason: "dropped" } }),
              postAction("fail-undeliverable", "Fail: undeliverable at the exchange", `${path}/fail`, { body: { reason: "undeliverable" } })
            ]
          }
        })
      }).pipe(Effect.orDie)
  })
  return sources
})
