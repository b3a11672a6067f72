import { SqlClient, SqlError, SqlSchema } from "@effect/sql"
import { Cause, Context, Duration, Effect, Exit, Layer, Option, ParseResult, Queue, Ref, Schema } from "effect"
import { earliestDueSql, forInstance, forPartner, ServiceClock } from "../clock/ServiceClock.js"
import { EventBus, transaction } from "../events/Events.js"
import { Ids } from "../ids/Ids.js"
import { orDieOnRow } from "../db/Rows.js"

/**
 * Durable scheduled jobs: "do X for this customer at time T on the service clock". A job is a row written in
 * the caller's transaction (so it commits, or not, with the state change that asked for it). The daemon claims
 * due jobs with `FOR UPDATE SKIP LOCKED` (several processes may share the table) and runs each handler inside
 * the same transaction that holds the claim: a crash rolls both back and the job runs again later.
 */
export const JobStatus = Schema.Literal("PENDING", "DONE", "FAILED")
export type JobStatus = typeof JobStatus.Type

/** A row of `jobs`; the payload is decoded by the schema its kind registered. */
export const Job = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  partnerId: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  runAt: Schema.DateFromSelf,
  payload: Schema.Unknown,
  status: JobStatus,
  /** Attempts made before this one. */
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export interface Job extends Schema.Schema.Type<typeof Job> {}

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

/** Failed attempts before a job is marked FAILED and left alone. */
export const attemptsMax = 5
/** Jobs one claim pass runs before it checks the clock and wakes again. */
export const batchMax = 50
/** Jobs one clock-advance drain runs at most (a job that keeps scheduling due jobs cannot stall an advance). */
export const drainJobsMax = 5_000
/** Delay before retry n (1-based) on the service clock: 30 s, 60 s, 120 s, ... capped at one hour. */
export const retryDelaySeconds = (attempt: number) => Math.min(30 * 2 ** Math.max(0, attempt - 1), 3_600)
/** Rows of each advanced partner one claim considers (the first unlocked one is taken; others may be running elsewhere). */
const aheadCandidates = 8
/** Longest real-time idle wait between checks: covers a wake-up that arrived before the scheduling commit. */
const idlePollMs = 1_000
const lastErrorMaxChars = 2_000

export interface JobsShape {
  /** Writes a job in the current transaction (if any) and wakes the daemon. */
  readonly schedule: (job: NewJob) => Effect.Effect<Job, SqlError.SqlError>
  /** Registers the handler of a kind (and how to describe its jobs); called while layers are built. One per kind. */
  readonly register: <A, I>(
    kind: string,
    payload: Schema.Schema<A, I>,
    handler: JobHandler<A>,
    options?: RegisterOptions<A>
  ) => Effect.Effect<void>
  readonly get: (id: string) => Effect.Effect<Option.Option<Job>, SqlError.SqlError>
  /** Runs every job due now (bounded by `drainJobsMax`); returns how many ran (succeeded or failed). */
  readonly runDue: Effect.Effect<number>
  /** When the next registered, pending job is due, if any, on the instance's clock (its partner's offset taken off). */
  readonly nextDueAt: Effect.Effect<Option.Option<Date>, SqlError.SqlError>
  /** Completes when a job was scheduled in this process since the last call. */
  readonly awaitScheduled: Effect.Effect<void>
  /**
   * The partner's pending jobs of registered kinds due by `until` (what a clock advance to `until` runs), soonest
   * first (run_at, then id), after `after`; at most `limit`, each described.
   */
  readonly duePage: (query: {
    readonly partnerId: string
    readonly until: Date
    readonly after?: DueKey | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<DescribedJob>, SqlError.SqlError>
  /**
   * When the partner's earliest pending job of `kind` whose payload field `field` is each of `values` runs
   * (values without one are absent): how a rail tells when it answers an operation by itself.
   */
  readonly pendingRunAt: (
    partnerId: string,
    kind: string,
    field: string,
    values: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, Date>, SqlError.SqlError>
}

export class Jobs extends Context.Tag("Jobs")<Jobs, JobsShape>() {}

interface Registered {
  readonly decode: (input: unknown) => Effect.Effect<unknown, ParseResult.ParseError>
  readonly handler: JobHandler<unknown>
  readonly describe: (job: Job) => JobDescription | undefined
}

const columns = "id, kind, partner_id, customer_id, run_at, payload, status, attempts, last_error, created_at, updated_at"

export const layer = Layer.effect(
  Jobs,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const bus = yield* EventBus
    const handlers = yield* Ref.make<ReadonlyMap<string, Registered>>(new Map())
    const scheduled = yield* Queue.sliding<void>(1)
    // One claim pass at a time in this process, so that a drain waits for a job the daemon is running.
    const passLock = yield* Effect.makeSemaphore(1)

    const insertJob = SqlSchema.single({
      Request: Schema.Struct({
        id: Schema.String,
        kind: Schema.String,
        partnerId: Schema.String,
        customerId: Schema.NullOr(Schema.String),
        runAt: Schema.DateFromSelf,
        payload: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
        now: Schema.DateFromSelf
      }),
      Result: Job,
      execute: (job) =>
        sql`
          INSERT INTO jobs (id, kind, partner_id, customer_id, run_at, payload, status, attempts, created_at, updated_at)
          VALUES (${job.id}, ${job.kind}, ${job.partnerId}, ${job.customerId}, ${job.runAt},
                  ${JSON.stringify(job.payload)}::jsonb, 'PENDING', 0, ${job.now}, ${job.now})
          RETURNING ${sql.literal(columns)}`
    })
    const ClaimRequest = Schema.Struct({ now: Schema.DateFromSelf, kinds: Schema.Array(Schema.String) })
    /** Due on the instance's clock, so on every partner's (a partner's clock is never behind it). */
    const claimDue = SqlSchema.findOne({
      Request: ClaimRequest,
      Result: Job,
      execute: ({ kinds, now }) =>
        sql`
          SELECT ${sql.literal(columns)} FROM jobs
          WHERE status = 'PENDING' AND run_at <= ${now} AND kind IN ${sql.in(kinds)}
          ORDER BY run_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED`
    })
    /** Due only on the clock of a partner that advanced its own (docs/sandbox.md "A clock per partner"). */
    const claimDueAhead = SqlSchema.findOne({
      Request: ClaimRequest,
      Result: Job,
      execute: ({ kinds, now }) =>
        // Each advanced partner's earliest few through its (partner, run_at) index, then the earliest unlocked one.
        sql`
          SELECT ${sql.literal(columns)} FROM jobs
          WHERE status = 'PENDING' AND id IN (
            SELECT c.id FROM partner_clock_offsets o CROSS JOIN LATERAL (
              SELECT id FROM jobs
              WHERE partner_id = o.partner_id AND status = 'PENDING' AND kind IN ${sql.in(kinds)}
                AND run_at <= ${now}::timestamptz + o.offset_ms * interval '1 millisecond'
              ORDER BY run_at, seq LIMIT ${aheadCandidates}
            ) c
          )
          ORDER BY run_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED`
    })
    const earliestDue = SqlSchema.single({
      Request: Schema.Struct({ kinds: Schema.Array(Schema.String), partnersAhead: Schema.Boolean }),
      Result: Schema.Struct({ runAt: Schema.NullOr(Schema.DateFromSelf) }),
      execute: ({ kinds, partnersAhead }) =>
        sql`SELECT ${
          earliestDueSql(sql, { table: "jobs", column: "run_at", pending: sql`status = 'PENDING' AND kind IN ${sql.in(kinds)}`, partnersAhead })
        } AS run_at`
    })
    const findJob = SqlSchema.findOne({
      Request: Schema.String,
      Result: Job,
      execute: (id) => sql`SELECT ${sql.literal(columns)} FROM jobs WHERE id = ${id}`
    })
    /** A row that does not decode (or a RETURNING without its row) is a broken invariant: a defect. */
    const schedule = (job: NewJob) =>
      Effect.gen(function*() {
        // On the job's partner's clock, whoever schedules it: its run_at is read against that clock.
        const now = yield* forPartner(job.partnerId)(clock.now)
        const delaySeconds = job.delaySeconds ?? 0
        if (!Number.isFinite(delaySeconds) || delaySeconds < 0) {
          return yield* Effect.die(new Error(`Jobs.schedule: delaySeconds must be >= 0, got ${delaySeconds}`))
        }
        const runAt = job.runAt ?? new Date(now.getTime() + delaySeconds * 1000)
        const row = yield* orDieOnRow(insertJob({
          id: yield* ids.uuid,
          kind: job.kind,
          partnerId: job.partnerId,
          customerId: job.customerId ?? null,
          runAt,
          payload: job.payload,
          now
        }))
        yield* Queue.offer(scheduled, undefined)
        return row
      }).pipe(Effect.withSpan("Jobs.schedule"))

    const register = <A, I>(kind: string, payload: Schema.Schema<A, I>, handler: JobHandler<A>, options?: RegisterOptions<A>) =>
      Ref.update(handlers, (current) => {
        if (current.has(kind)) throw new Error(`Jobs.register: a handler for "${kind}" is already registered`)
        const next = new Map(current)
        const decodeSync = Schema.decodeUnknownOption(payload)
        const describe = options?.describe
        next.set(kind, {
          decode: Schema.decodeUnknown(payload),
          handler: handler as JobHandler<unknown>,
          describe: (job) => {
            if (describe === undefined) return undefined
            const decoded = decodeSync(job.payload)
            return Option.isSome(decoded) ? describe(decoded.value, job) : undefined
          }
        })
        return next
      })

    const registeredKinds = Effect.map(Ref.get(handlers), (map) => [...map.keys()])

    /** Claims one due job and runs it in the claim's transaction. None when nothing is due. */
    const runOne = Effect.gen(function*() {
      const kinds = yield* registeredKinds
      if (kinds.length === 0) return false
      const claimed = yield* Ref.make<Option.Option<Job>>(Option.none())
      const exit = yield* transaction(Effect.gen(function*() {
        // Due by each job's partner's own clock (docs/sandbox.md "A clock per partner").
        const now = yield* clock.instanceNow
        const plain = yield* orDieOnRow(claimDue({ now, kinds }))
        const due = Option.isSome(plain) || !(yield* clock.partnersAhead) ? plain : yield* orDieOnRow(claimDueAhead({ now, kinds }))
        if (Option.isNone(due)) return false
        const job = due.value
        yield* Ref.set(claimed, due)
        const registered = (yield* Ref.get(handlers)).get(job.kind)
        if (registered === undefined) return yield* Effect.die(new Error(`no handler for job kind ${job.kind}`))
        const payload = yield* registered.decode(job.payload)
        return yield* forPartner(job.partnerId)(Effect.gen(function*() {
          yield* registered.handler(payload, job)
          yield* sql`
            UPDATE jobs SET status = 'DONE', attempts = attempts + 1, updated_at = ${yield* clock.now}
            WHERE id = ${job.id}`
          return true
        }))
      })).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(EventBus, bus),
        Effect.exit
      )
      if (Exit.isSuccess(exit)) return exit.value
      if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt
      const job = yield* Ref.get(claimed)
      if (Option.isNone(job)) return yield* Effect.failCause(exit.cause)
      yield* forPartner(job.value.partnerId)(recordFailure(job.value, Cause.pretty(exit.cause)))
      return true
    })

    const recordFailure = (job: Job, error: string) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        const attempt = job.attempts + 1
        const failed = attempt >= attemptsMax
        const runAt = failed ? job.runAt : new Date(now.getTime() + retryDelaySeconds(attempt) * 1000)
        yield* sql`
          UPDATE jobs SET attempts = ${attempt}, last_error = ${error.slice(0, lastErrorMaxChars)},
                 status = ${failed ? "FAILED" : "PENDING"}, run_at = ${runAt}, updated_at = ${now}
          WHERE id = ${job.id} AND status = 'PENDING' AND attempts = ${job.attempts}`
        yield* Effect.logWarning("job failed").pipe(
          Effect.annotateLogs({ jobId: job.id, kind: job.kind, attempt, final: failed, error: error.slice(0, 500) })
        )
      })

    /** Up to `limit` due jobs, one transaction each. */
    const runBatch = (limit: number) =>
      Effect.gen(function*() {
        let ran = 0
        while (ran < limit && (yield* runOne)) ran++
        return ran
      })

    const runDue = passLock.withPermits(1)(Effect.gen(function*() {
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

    const nextDueAt = Effect.gen(function*() {
      const kinds = yield* registeredKinds
      if (kinds.length === 0) return Option.none<Date>()
      const { runAt } = yield* orDieOnRow(earliestDue({ kinds, partnersAhead: yield* clock.partnersAhead }))
      return Option.fromNullable(runAt)
    })

    const get = (id: string) => orDieOnRow(findJob(id))

    const findDue = SqlSchema.findAll({
      Request: Schema.Struct({
        partnerId: Schema.String,
        until: Schema.DateFromSelf,
        kinds: Schema.Array(Schema.String),
        afterAt: Schema.NullOr(Schema.DateFromSelf),
        afterId: Schema.NullOr(Schema.String),
        limit: Schema.Int
      }),
      Result: Job,
      execute: (query) =>
        sql`
          SELECT ${sql.literal(columns)} FROM jobs
          WHERE status = 'PENDING' AND partner_id = ${query.partnerId} AND run_at <= ${query.until}
            AND kind IN ${sql.in(query.kinds)}
            ${query.afterAt === null || query.afterId === null ? sql`` : sql`AND (run_at, id) > (${query.afterAt}, ${query.afterId}::uuid)`}
          ORDER BY run_at, id LIMIT ${query.limit}`
    })
    const duePage: JobsShape["duePage"] = (query) =>
      Effect.gen(function*() {
        const registered = yield* Ref.get(handlers)
        if (registered.size === 0) return []
        const rows = yield* orDieOnRow(findDue({
          partnerId: query.partnerId,
          until: query.until,
          kinds: [...registered.keys()],
          afterAt: query.after?.at ?? null,
          afterId: query.after?.id ?? null,
          limit: query.limit
        }))
        return rows.map((job): DescribedJob => ({
          job,
          ...(registered.get(job.kind)?.describe(job) ?? { description: `${job.kind} job`, resourceId: null })
        }))
      })

    const findRunAt = SqlSchema.findAll({
      Request: Schema.Struct({ partnerId: Schema.String, kind: Schema.String, field: Schema.String, values: Schema.Array(Schema.String) }),
      Result: Schema.Struct({ value: Schema.String, runAt: Schema.DateFromSelf }),
      execute: ({ field, kind, partnerId, values }) =>
        sql`
          SELECT payload ->> ${field} AS value, min(run_at) AS run_at FROM jobs
          WHERE status = 'PENDING' AND partner_id = ${partnerId} AND kind = ${kind}
            AND payload ->> ${field} IN ${sql.in(values)}
          GROUP BY 1`
    })
    const pendingRunAt: JobsShape["pendingRunAt"] = (partnerId, kind, field, values) =>
      values.length === 0
        ? Effect.succeed(new Map())
        : Effect.map(orDieOnRow(findRunAt({ partnerId, kind, field, values })), (rows) =>
          new Map(rows.map((row) => [row.value, row.runAt])))

    return Jobs.of({
      schedule,
      register,
      get,
      runDue,
      nextDueAt,
      awaitScheduled: Effect.asVoid(Queue.take(scheduled)),
      duePage,
      pendingRunAt
    })
  })
)

/**
 * The daemon: a fiber that runs due jobs, then sleeps until the next one is due on the service clock, a job is
 * scheduled, the clock is advanced, or a second passes (jobs scheduled by another process). It also registers a
 * clock drain, so that `POST /sandbox/clock/advance` answers only after every job due by then has run.
 */
export const daemonLayer = Layer.scopedDiscard(Effect.gen(function*() {
  const jobs = yield* Jobs
  const clock = yield* ServiceClock
  yield* clock.registerDrain(Effect.asVoid(jobs.runDue))
  const wait = Effect.gen(function*() {
    const next = yield* jobs.nextDueAt.pipe(Effect.orElseSucceed(() => Option.none<Date>()))
    const sleepers: Array<Effect.Effect<void>> = [jobs.awaitScheduled, Effect.sleep(Duration.millis(idlePollMs))]
    if (Option.isSome(next)) sleepers.push(clock.sleepUntil(next.value))
    yield* Effect.raceAll(sleepers)
  })
  yield* Effect.forkScoped(
    Effect.forever(Effect.zipRight(jobs.runDue, wait)).pipe(forInstance, Effect.annotateLogs({ fiber: "jobs" }))
  )
}))
