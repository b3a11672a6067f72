import { SqlClient } from "@effect/sql"
import { Chunk, Duration, Effect, Queue, Schedule } from "effect"
import { catchSqlDefect } from "../db/Rows.js"
import { adjustUnrecorded, type DispatchState, learnDue, type Outcome } from "./DispatchState.js"
import type { WebhookSender } from "./WebhookSender.js"
import type { WebhooksRepo } from "./WebhooksRepo.js"

/** Outcomes written per statement at most. */
const recordBatchMax = 256
/** How long the writer waits for more outcomes before a statement (they free no slot by being written sooner). */
const recordLingerMs = 2
/** A failed write of outcomes is tried again this many times before their rows are left to their leases. */
const recordRetries = 3

export interface OutcomeWriterDeps {
  readonly state: DispatchState
  readonly repo: WebhooksRepo
  readonly sql: SqlClient.SqlClient
  readonly sender: WebhookSender
}

/**
 * The dispatcher's writer of outcomes: an attempt's outcome is queued when its answer arrives, and a fiber records
 * the queued outcomes many per statement, each only while its lease is the claimer's. An outcome is never lost
 * silently: until it is written the row stays leased (at-least-once), and an outcome never written is counted as an
 * attempt by the claim that takes the row again (`WebhooksRepo.outcomeLostError`). On shutdown (after the writer and the
 * attempts have stopped, so build this before the attempts' FiberSet), whatever is still queued is written.
 * Returns `offer`, which queues an outcome.
 */
export const make = ({ repo, sender, sql, state }: OutcomeWriterDeps) =>
  Effect.gen(function*() {
    const outcomes = yield* Queue.unbounded<Outcome>()
    const write = (outcomesBatch: ReadonlyArray<Outcome>) => {
      const batch = outcomesBatch.map((outcome) => outcome.record)
      return repo.recordAttempts(batch).pipe(
        // The repository's database error is a defect: retried here as a failure.
        catchSqlDefect(Effect.fail),
        Effect.retry({ times: recordRetries, schedule: Schedule.exponential(Duration.millis(50)) }),
        Effect.flatMap((recorded) =>
          recorded.size === batch.length ? Effect.void : Effect.forEach(
            batch.filter((record) => !recorded.has(record.eventId)),
            (record) =>
              Effect.logWarning("webhook attempt finished after its lease was taken over; result not recorded").pipe(
                Effect.annotateLogs({ eventId: record.eventId })
              ),
            { discard: true }
          )
        ),
        // The rows stay leased: they are claimed and sent again when their leases end (at-least-once).
        Effect.catchAllCause((cause) => Effect.logError("recording webhook attempts failed", cause)),
        Effect.ensuring(Effect.sync(() => {
          for (const outcome of outcomesBatch) {
            adjustUnrecorded(state, outcome.partnerId, -1)
            learnDue(state, outcome)
          }
        })),
        Effect.zipRight(sender.wake),
        Effect.provideService(SqlClient.SqlClient, sql),
        // A write under way finishes even on shutdown: its outcomes are not written twice nor lost.
        Effect.uninterruptible
      )
    }
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Queue.takeAll(outcomes), (rest) => rest.length === 0 ? Effect.void : write(Chunk.toReadonlyArray(rest)))
    )
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const first = yield* Queue.takeBetween(outcomes, 1, recordBatchMax)
      // Outcomes arrive one answer at a time: a short wait gathers the answers close behind into the same statement.
      const rest = first.length < recordBatchMax
        ? yield* Effect.zipRight(Effect.sleep(recordLingerMs), Queue.takeUpTo(outcomes, recordBatchMax - first.length))
        : Chunk.empty()
      yield* write(Chunk.toReadonlyArray(Chunk.appendAll(first, rest)))
    })))
    return (outcome: Outcome) => Queue.offer(outcomes, outcome)
  })
