import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { earliestDueSql } from "../clock/ServiceClock.js"
import { carriedInsert, repository } from "../db/Rows.js"

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

/** Rows of each advanced partner one claim considers (the first unlocked one is taken; others may be running elsewhere). */
const aheadCandidates = 8

const columns = "id, kind, partner_id, customer_id, run_at, payload, status, attempts, last_error, created_at, updated_at"

const ClaimRequest = Schema.Struct({ now: Schema.DateFromSelf, kinds: Schema.Array(Schema.String) })

/** A claim of one due job (locked until the caller's transaction ends). */
export type ClaimQuery = typeof ClaimRequest.Type

/** What a failed attempt writes (`recordFailure`): only while the row is still the attempt's (pending, same count). */
export interface FailureRecord {
  readonly job: Job
  readonly attempt: number
  readonly error: string
  readonly failed: boolean
  readonly runAt: Date
  readonly now: Date
}

/** What a new job is: what to do, for whom, when. */
const NewJobFields = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  partnerId: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  runAt: Schema.DateFromSelf,
  payload: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** A new job's row as a journal statement writes it (`insertCarried`): pending, no attempt yet. */
const CarriedJobRow = Schema.Struct({
  ...NewJobFields.fields,
  status: Schema.Literal("PENDING"),
  attempts: Schema.Literal(0),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})

/** Statements of `jobs`. A row that does not decode (or a RETURNING without its row) is a defect. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insertJob = SqlSchema.single({
    Request: Schema.Struct({ ...NewJobFields.fields, now: Schema.DateFromSelf }),
    Result: Job,
    execute: (job) =>
      sql`
        INSERT INTO jobs (id, kind, partner_id, customer_id, run_at, payload, status, attempts, created_at, updated_at)
        VALUES (${job.id}, ${job.kind}, ${job.partnerId}, ${job.customerId}, ${job.runAt},
                ${JSON.stringify(job.payload)}::jsonb, 'PENDING', 0, ${job.now}, ${job.now})
        RETURNING ${sql.literal(columns)}`
  })
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

  /** The earliest unlocked due job: by the instance's clock, then (`partnersAhead`) by advanced partners' own. */
  const claim = (query: ClaimQuery, partnersAhead: Effect.Effect<boolean>) =>
    Effect.gen(function*() {
      const plain = yield* claimDue(query)
      return Option.isSome(plain) || !(yield* partnersAhead) ? plain : yield* claimDueAhead(query)
    })

  const markDone = (id: string, now: Date) =>
    sql`
      UPDATE jobs SET status = 'DONE', attempts = attempts + 1, updated_at = ${now}
      WHERE id = ${id}`

  const recordFailure = ({ attempt, error, failed, job, now, runAt }: FailureRecord) =>
    sql`
      UPDATE jobs SET attempts = ${attempt}, last_error = ${error},
             status = ${failed ? "FAILED" : "PENDING"}, run_at = ${runAt}, updated_at = ${now}
      WHERE id = ${job.id} AND status = 'PENDING' AND attempts = ${job.attempts}`

  /** A new job written by a journal statement (src/ledger/Ledger.ts `Carried`): the CTE `carried_jobs`. */
  const insertCarried = carriedInsert(sql, "jobs", CarriedJobRow)

  return repository({
    insert: (job: Parameters<typeof insertJob>[0]) => insertJob(job),
    insertCarried,
    claim,
    earliestDue: (kinds: ReadonlyArray<string>, partnersAhead: boolean) =>
      Effect.map(earliestDue({ kinds, partnersAhead }), (row) => Option.fromNullable(row.runAt)),
    find: (id: string) => findJob(id),
    findDue: (query: Parameters<typeof findDue>[0]) => findDue(query),
    findRunAt: (query: Parameters<typeof findRunAt>[0]) => findRunAt(query),
    markDone,
    recordFailure
  } as const)
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class JobsRepo extends Effect.Service<JobsRepo>()("JobsRepo", { effect: make }) {}
