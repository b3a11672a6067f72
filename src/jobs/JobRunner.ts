import { SqlClient } from "@effect/sql"
import { Cause, Effect, Exit, Option, Ref } from "effect"
import { forPartner, type ServiceClockShape } from "../clock/ServiceClock.js"
import { EventBus, transaction } from "../events/Events.js"
import type { JobRegistry } from "./JobRegistry.js"
import type { Job, JobsRepo } from "./JobsRepo.js"
import { recordJobLag, recordJobOutcome } from "../observability/Metrics.js"

/** Failed attempts before a job is marked FAILED and left alone. */
export const attemptsMax = 5
/** Jobs one claim pass runs before it checks the clock and wakes again. */
export const batchMax = 50
/** Jobs one clock-advance drain runs at most (a job that keeps scheduling due jobs cannot stall an advance). */
export const drainJobsMax = 5_000
/** Delay before retry n (1-based) on the service clock: 30 s, 60 s, 120 s, ... capped at one hour. */
export const retryDelaySeconds = (attempt: number) => Math.min(30 * 2 ** Math.max(0, attempt - 1), 3_600)

const lastErrorMaxChars = 2_000

export interface RunnerDeps {
  readonly repo: JobsRepo
  readonly registry: JobRegistry
  readonly sql: SqlClient.SqlClient
  readonly bus: EventBus["Type"]
  readonly clock: ServiceClockShape
}

/**
 * Runs due jobs: each claimed with `FOR UPDATE SKIP LOCKED` and run in the claim's transaction; a failure is
 * recorded (retried with backoff, FAILED after `attemptsMax`). One claim pass at a time in this process, so that a
 * drain waits for a job the daemon is running. Returns `runDue`: every job due now (bounded by `drainJobsMax`).
 */
export const make = ({ bus, clock, registry, repo, sql }: RunnerDeps) =>
  Effect.gen(function*() {
    const passLock = yield* Effect.makeSemaphore(1)

    const recordFailure = (job: Job, error: string) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        const attempt = job.attempts + 1
        const failed = attempt >= attemptsMax
        const runAt = failed ? job.runAt : new Date(now.getTime() + retryDelaySeconds(attempt) * 1000)
        yield* repo.recordFailure({ job, attempt, error: error.slice(0, lastErrorMaxChars), failed, runAt, now })
        recordJobOutcome(job.kind, failed ? "failed" : "retry")
        yield* Effect.logWarning("job failed").pipe(
          Effect.annotateLogs({ jobId: job.id, kind: job.kind, attempt, final: failed, error: error.slice(0, 500) })
        )
      })

    /** Claims one due job (remembered in `claimed`) and runs it; false when nothing is due. */
    const claimAndRun = (kinds: ReadonlyArray<string>, claimed: Ref.Ref<Option.Option<Job>>) =>
      Effect.gen(function*() {
        // Due by each job's partner's own clock (docs/sandbox.md "A clock per partner").
        const due = yield* repo.claim({ now: yield* clock.instanceNow, kinds }, clock.partnersAhead)
        if (Option.isNone(due)) return false
        const job = due.value
        yield* Ref.set(claimed, due)
        const registered = (yield* registry.all).get(job.kind)
        if (registered === undefined) return yield* Effect.die(new Error(`no handler for job kind ${job.kind}`))
        const payload = yield* registered.decode(job.payload)
        return yield* forPartner(job.partnerId)(Effect.gen(function*() {
          recordJobLag((yield* clock.now).getTime() - job.runAt.getTime())
          yield* registered.handler(payload, job)
          yield* repo.markDone(job.id, yield* clock.now)
          return true
        }))
      })

    /** Claims one due job and runs it in the claim's transaction. False when nothing is due. */
    const runOne = Effect.gen(function*() {
      const kinds = yield* registry.kinds
      if (kinds.length === 0) return false
      const claimed = yield* Ref.make<Option.Option<Job>>(Option.none())
      const exit = yield* transaction(claimAndRun(kinds, claimed)).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(EventBus, bus),
        Effect.exit
      )
      if (Exit.isSuccess(exit)) {
        const job = yield* Ref.get(claimed)
        if (exit.value && Option.isSome(job)) recordJobOutcome(job.value.kind, "done")
        return exit.value
      }
      if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt
      const job = yield* Ref.get(claimed)
      if (Option.isNone(job)) return yield* Effect.failCause(exit.cause)
      yield* forPartner(job.value.partnerId)(recordFailure(job.value, Cause.pretty(exit.cause)))
      return true
    })

    /** Up to `limit` due jobs, one transaction each. */
    const runBatch = (limit: number) =>
      Effect.gen(function*() {
        let ran = 0
        while (ran < limit && (yield* runOne)) ran++
        return ran
      })

    const runDue: Effect.Effect<number> = passLock.withPermits(1)(Effect.gen(function*() {
      let total = 0
      while (total < drainJobsMax) {
        const ran = yield* runBatch(Math.min(batchMax, drainJobsMax - total))
        total += ran
        if (ran < batchMax) break
        yield* Effect.yieldNow()
      }
      return total
    })).pipe(
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.as(Effect.logError("jobs: claim pass failed", cause), 0)
      )
    )
    return runDue
  })
