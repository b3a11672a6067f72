import * as Command from "../observability/Command.js"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Option, Queue, type Schema } from "effect"
import { forInstance, forPartner, ServiceClock } from "../clock/ServiceClock.js"
import { catchSqlDefect } from "../db/Rows.js"
import { noCarried } from "../ledger/Ledger.js"
import { EventBus } from "../events/Events.js"
import { Ids } from "../ids/Ids.js"
import * as JobRegistry from "./JobRegistry.js"
import * as JobRunner from "./JobRunner.js"
import * as JobsRepo from "./JobsRepo.js"
import type { Job } from "./JobsRepo.js"

/**
 * Durable scheduled jobs: "do X for this customer at time T on the service clock". A job is a row written in
 * the caller's transaction (so it commits, or not, with the state change that asked for it). The daemon claims
 * due jobs with `FOR UPDATE SKIP LOCKED` (several processes may share the table) and runs each handler inside
 * the same transaction that holds the claim: a crash rolls both back and the job runs again later.
 */
export { Job, JobStatus } from "./JobsRepo.js"
export { attemptsMax, batchMax, drainJobsMax, retryDelaySeconds } from "./JobRunner.js"

export interface NewJob {
  readonly kind: string
  readonly partnerId: string
  readonly customerId?: string | null | undefined
  /** When to run, on the service clock; `delaySeconds` from now when absent (0 = as soon as possible). */
  readonly runAt?: Date | undefined
  readonly delaySeconds?: number | undefined
  readonly payload: Record<string, unknown>
}

/** A handler runs inside the job's transaction; everything it writes commits together with "job done". */
export type JobHandler<A> = (payload: A, job: Job) => Effect.Effect<void, unknown, SqlClient.SqlClient | EventBus>

/** What a pending job will do, for people (`GET /sandbox/clock/due`): one line, and the resource it acts on. */
export interface JobDescription {
  readonly description: string
  readonly resourceId: string | null
}

export interface RegisterOptions<A> {
  /** Describes a job of this kind from its payload; without it a job reads `<kind> job`. */
  readonly describe?: ((payload: A, job: Job) => JobDescription) | undefined
}

/** A pending job with its description. */
export interface DescribedJob extends JobDescription {
  readonly job: Job
}

/** A position in the due order (run_at, then id): the list is read after it. */
export interface DueKey {
  readonly at: Date
  readonly id: string
}

/** The partner's pending jobs due by `until`, after `after`, at most `limit` (`Jobs.duePage`). */
export interface DueQuery {
  readonly partnerId: string
  readonly until: Date
  readonly after?: DueKey | undefined
  readonly limit: number
}

/** Longest real-time idle wait between checks: covers a wake-up that arrived before the scheduling commit. */
const idlePollMs = 1_000

/**
 * Jobs and their handlers. A handler is registered by the module that owns the kind, while its layer is built
 * (or later): registration order does not matter, since a job of a kind not registered yet is never claimed (it stays
 * pending, untouched), and registering a kind wakes the daemon, which then runs that kind's jobs already due.
 */
export class Jobs extends Effect.Service<Jobs>()("Jobs", {
  effect: Effect.gen(function*() {
    const repo = yield* JobsRepo.JobsRepo
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const bus = yield* EventBus
    const registry = yield* JobRegistry.make
    const scheduled = yield* Queue.sliding<void>(1)

    /** A new job's fields: its id, and its run time on its partner's clock, whoever schedules it. */
    const fieldsOf = (job: NewJob) =>
      Effect.gen(function*() {
        const now = yield* forPartner(job.partnerId)(clock.now)
        const delaySeconds = job.delaySeconds ?? 0
        if (!Number.isFinite(delaySeconds) || delaySeconds < 0) {
          return yield* Effect.die(new Error(`Jobs.schedule: delaySeconds must be >= 0, got ${delaySeconds}`))
        }
        return {
          id: yield* ids.uuid,
          kind: job.kind,
          partnerId: job.partnerId,
          customerId: job.customerId ?? null,
          runAt: job.runAt ?? new Date(now.getTime() + delaySeconds * 1000),
          payload: job.payload,
          now
        }
      })

    /**
     * Wakes the daemon for a new job due before its next poll (`idlePollMs`): a job due later is found by that poll,
     * long before it is due, so waking the daemon for it (a claim and a next-due read per job: about 1.5 ms of
     * service CPU a withdrawal on the automatic bank rail) would do nothing.
     */
    const wakeFor = (fields: { readonly runAt: Date; readonly now: Date }) =>
      fields.runAt.getTime() - fields.now.getTime() < idlePollMs ? Effect.asVoid(Queue.offer(scheduled, undefined)) : Effect.void

    /** Writes a job in the current transaction (if any) and wakes the daemon when it is due before the next poll. */
    const schedule = Command.fn("Jobs.schedule")(function*(job: NewJob) {
      const fields = yield* fieldsOf(job)
      const row = yield* repo.insert(fields)
      yield* wakeFor(fields)
      return row
    })

    /**
     * A job (or none) written by the command's journal statement instead of a statement of its own (a rail's job:
     * the payout or broadcast a withdrawal or send hands over, `Bank.submitPayout` and the others): the carried
     * insert to pass to the journal (`Ledger.carryAll`; nothing when there is no job), and `recorded`, to run after
     * the journal, which wakes the daemon as `schedule` does. A refused journal writes no job.
     */
    const carry = Command.fn("Jobs.carry")(function*(job: Option.Option<NewJob>) {
      if (Option.isNone(job)) return { carried: noCarried, recorded: Effect.void } as const
      const { now, ...fields } = yield* fieldsOf(job.value)
      const carried = repo.insertCarried({ ...fields, status: "PENDING", attempts: 0, createdAt: now, updatedAt: now })
      return { carried, recorded: wakeFor({ runAt: fields.runAt, now }) } as const
    })

    /**
     * Registers the handler of a kind (and how to describe its jobs). One per kind. Called while layers are built or
     * later: it wakes the daemon, so jobs of the kind that fell due before it was registered run now.
     */
    const register: <A, I>(
      kind: string,
      payload: Schema.Schema<A, I>,
      handler: JobHandler<A>,
      options?: RegisterOptions<A>
    ) => Effect.Effect<void> = Command.fn("Jobs.register")(function*(
      kind: string,
      payload: Schema.Schema<any, any>,
      handler: JobHandler<any>,
      options?: RegisterOptions<any>
    ) {
      yield* registry.register(kind, payload, handler, options)
      yield* Queue.offer(scheduled, undefined)
    })

    const get = Command.fn("Jobs.get")((id: string) => repo.find(id))

    /** Runs every job due now (bounded by `drainJobsMax`); returns how many ran (succeeded or failed). */
    const runDue = yield* JobRunner.make({ repo, registry, sql, bus, clock })

    /** When the next registered, pending job is due, if any, on the instance's clock (its partner's offset taken off). */
    const nextDueAt: Effect.Effect<Option.Option<Date>> = Effect.gen(function*() {
      const kinds = yield* registry.kinds
      if (kinds.length === 0) return Option.none<Date>()
      return yield* repo.earliestDue(kinds, yield* clock.partnersAhead)
    })

    /**
     * The partner's pending jobs of registered kinds due by `until` (what a clock advance to `until` runs), soonest
     * first (run_at, then id), after `after`; at most `limit`, each described.
     */
    const duePage = Command.fn("Jobs.duePage")(function*(query: DueQuery) {
      const registered = yield* registry.all
      if (registered.size === 0) return []
      const rows = yield* repo.findDue({
        partnerId: query.partnerId,
        until: query.until,
        kinds: [...registered.keys()],
        afterAt: query.after?.at ?? null,
        afterId: query.after?.id ?? null,
        limit: query.limit
      })
      return rows.map((job): DescribedJob => ({
        job,
        ...(registered.get(job.kind)?.describe(job) ?? { description: `${job.kind} job`, resourceId: null })
      }))
    })

    /**
     * When the partner's earliest pending job of `kind` whose payload field `field` is each of `values` runs
     * (values without one are absent): how a rail tells when it answers an operation by itself.
     */
    const pendingRunAt = Command.fn("Jobs.pendingRunAt")(
      (partnerId: string, kind: string, field: string, values: ReadonlyArray<string>) =>
        values.length === 0
          ? Effect.succeed<ReadonlyMap<string, Date>>(new Map())
          : Effect.map(repo.findRunAt({ partnerId, kind, field, values }), (rows): ReadonlyMap<string, Date> =>
            new Map(rows.map((row) => [row.value, row.runAt])))
    )

    return {
      schedule,
      carry,
      register,
      get,
      runDue,
      nextDueAt,
      /** Completes when a job was scheduled (or a kind registered) in this process since the last call. */
      awaitScheduled: Effect.asVoid(Queue.take(scheduled)),
      duePage,
      pendingRunAt
    } as const
  }),
  dependencies: [JobsRepo.JobsRepo.Default]
}) {}

export const layer = Jobs.Default

/**
 * The daemon: a fiber that runs due jobs, then sleeps until the next one is due on the service clock, a job is
 * scheduled (or a kind registered), the clock is advanced, or a second passes (jobs scheduled by another process).
 * A clock advance's own run of due jobs is `ClockAdvance` (src/clock/ClockAdvance.ts), which calls `Jobs.runDue`.
 */
const daemon = Effect.gen(function*() {
  const jobs = yield* Jobs
  const clock = yield* ServiceClock
  const wait = Effect.gen(function*() {
    // A database error (a defect of the repository) only leaves the next due time unknown: the poll covers it.
    const next = yield* jobs.nextDueAt.pipe(catchSqlDefect(() => Effect.succeed(Option.none<Date>())))
    const sleepers: Array<Effect.Effect<void>> = [jobs.awaitScheduled, Effect.sleep(Duration.millis(idlePollMs))]
    if (Option.isSome(next)) sleepers.push(clock.sleepUntil(next.value))
    yield* Effect.raceAll(sleepers)
  })
  yield* Effect.forkScoped(
    Effect.forever(Effect.zipRight(jobs.runDue, wait)).pipe(forInstance, Effect.annotateLogs({ fiber: "jobs" }))
  )
})

export const daemonLayer = Layer.scopedDiscard(daemon).pipe(Layer.provide(Jobs.Default))
