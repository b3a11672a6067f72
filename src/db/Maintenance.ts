import * as Command from "../observability/Command.js"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import { catchSqlDefect } from "./Rows.js"

/**
 * What PostgreSQL's autovacuum does, for the embedded PGlite, which has none: PGlite runs PostgreSQL as a single
 * backend in the service's thread, with no autovacuum launcher or workers. Without it no table is ever analysed
 * (`pg_class.reltuples` stays -1: the planner guesses sizes from page counts and default selectivities) and none is
 * ever vacuumed (dead row versions of updated rows are only pruned page by page, index entries never, the visibility
 * map stays empty, nothing is frozen).
 *
 * A daemon on the service's one connection: every `checkIntervalMs` it reads the tables' activity counters
 * (`pg_stat_user_tables`, kept by PGlite's backend like any backend's) and runs, one table at a time and between
 * other statements (the pool of one connection queues them), `ANALYZE` or `VACUUM (ANALYZE)` of each table that
 * autovacuum would have picked with its default thresholds (`dueWork`). Prepared statements need nothing more:
 * ANALYZE changes the table's `pg_class` row, which invalidates the plans cached on it; they are planned again on
 * their next execution. Measured and explained in docs/performance.md "The embedded database as it fills".
 */

/** How often the daemon looks (autovacuum_naptime is 60 s; a sandbox fills faster than it ages). */
export const checkIntervalMs = 30_000

/** autovacuum's defaults: analyze after 50 + 10 % of the table's rows changed. */
export const analyzeThreshold = 50
export const analyzeScaleFactor = 0.1
/** vacuum after 50 + 20 % dead row versions... */
export const vacuumThreshold = 50
export const vacuumScaleFactor = 0.2
/** ...or 1000 + 20 % rows inserted since the last vacuum (sets the visibility map of insert-only tables). */
export const insertThreshold = 1000
export const insertScaleFactor = 0.2
/**
 * PGlite keeps no activity counters across a restart: a table that grew by more than this since its last
 * ANALYZE (pages now against `pg_class.relpages`) is analysed again even though its counters start from zero.
 */
export const growthFactor = 1.2
/**
 * The statistics target of the daemon's ANALYZE (PostgreSQL's default is 100): 3,000 rows sampled, 10 most common
 * values and histogram buckets per column, enough for the service's statements (keys, foreign keys, time ranges).
 */
export const statisticsTarget = 10

/** One table's size as last recorded and its activity since, as the daemon reads them. */
export interface TableActivity {
  readonly table: string
  /** `pg_class.reltuples`: -1 when never analysed or vacuumed. */
  readonly reltuples: number
  /** `pg_class.relpages` at the last ANALYZE / VACUUM. */
  readonly relpages: number
  /** The table's pages now. */
  readonly pages: number
  readonly modifiedSinceAnalyze: number
  readonly deadTuples: number
  readonly insertedSinceVacuum: number
}

export type Work = "analyze" | "vacuum"

/** What a table needs now, by autovacuum's rules (plus "never analysed" and "grew" for counters lost at a restart). */
export const dueWork = (t: TableActivity): Work | undefined => {
  const rows = Math.max(t.reltuples, 0)
  if (t.deadTuples > vacuumThreshold + vacuumScaleFactor * rows) return "vacuum"
  if (t.insertedSinceVacuum > insertThreshold + insertScaleFactor * rows) return "vacuum"
  if (t.pages > 0 && t.reltuples < 0) return "analyze"
  if (t.modifiedSinceAnalyze > analyzeThreshold + analyzeScaleFactor * rows) return "analyze"
  if (t.pages > growthFactor * t.relpages + 8) return "analyze"
  return undefined
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, "\"\"")}"`

export class PgliteMaintenance extends Effect.Service<PgliteMaintenance>()("PgliteMaintenance", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const activity = Command.fn("PgliteMaintenance.activity")(function*() {
      const rows = yield* sql<{
        schema: string; table: string; reltuples: number; relpages: number; pages: number
        modifiedSinceAnalyze: string; deadTuples: string; insertedSinceVacuum: string
      }>`
        SELECT s.schemaname AS schema, s.relname AS table, c.reltuples::float8 AS reltuples, c.relpages,
               (pg_relation_size(c.oid) / current_setting('block_size')::int)::int AS pages,
               s.n_mod_since_analyze::text AS modified_since_analyze, s.n_dead_tup::text AS dead_tuples,
               s.n_ins_since_vacuum::text AS inserted_since_vacuum
        FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
        ORDER BY s.relname`
      return rows.map((r): TableActivity & { readonly schema: string } => ({
        schema: r.schema,
        table: r.table,
        reltuples: Number(r.reltuples),
        relpages: Number(r.relpages),
        pages: Number(r.pages),
        modifiedSinceAnalyze: Number(r.modifiedSinceAnalyze),
        deadTuples: Number(r.deadTuples),
        insertedSinceVacuum: Number(r.insertedSinceVacuum)
      }))
    })

    /**
     * Analyses / vacuums every table that is due, one statement each; returns what it did. ANALYZE samples
     * 300 × the statistics target rows: at `statisticsTarget` instead of PostgreSQL's 100, a 20,000-row table takes
     * ~20–50 ms instead of ~300–500 ms of the one connection (docs/performance.md). The setting is the session's
     * (PGlite has one), set for the round and reset after it.
     */
    const runDue = Command.fn("PgliteMaintenance.runDue")(function*() {
      const due = (yield* activity()).flatMap((table) => {
        const work = dueWork(table)
        return work === undefined ? [] : [{ table, work }]
      })
      const done: Array<{ readonly table: string; readonly work: Work; readonly ms: number }> = []
      if (due.length === 0) return done
      yield* sql.unsafe(`SET default_statistics_target = ${statisticsTarget}`)
      yield* Effect.forEach(due, ({ table, work }) =>
        Effect.gen(function*() {
          const name = `${quoteIdent(table.schema)}.${quoteIdent(table.table)}`
          const [took] = yield* Effect.timed(sql.unsafe(work === "vacuum" ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`))
          done.push({ table: table.table, work, ms: Math.round(Duration.toMillis(took)) })
        }), { discard: true }).pipe(Effect.ensuring(Effect.ignore(sql.unsafe("RESET default_statistics_target"))))
      yield* Effect.logDebug(`embedded database maintenance: ${done.map((d) => `${d.work} ${d.table} ${d.ms} ms`).join(", ")}`)
      return done
    })

    return { activity, runDue } as const
  })
}) {}

/**
 * The daemon: `runDue` every `checkIntervalMs`, for as long as the database layer lives. A database error is
 * logged and the next round tries again.
 */
export const daemon = (intervalMs: number = checkIntervalMs) =>
  Effect.gen(function*() {
    const maintenance = yield* PgliteMaintenance
    const round = maintenance.runDue().pipe(
      catchSqlDefect((error) => Effect.logWarning("embedded database maintenance failed", error)),
      Effect.catchAll((error) => Effect.logWarning("embedded database maintenance failed", error))
    )
    yield* Effect.forkScoped(
      Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(intervalMs)), round)).pipe(
        Effect.annotateLogs({ fiber: "pglite-maintenance" })
      )
    )
  })

/** A database layer (PGlite's) with the maintenance service and its daemon on it. */
export const withMaintenance = <ROut extends SqlClient.SqlClient, E, R>(database: Layer.Layer<ROut, E, R>, intervalMs?: number) =>
  Layer.scopedDiscard(daemon(intervalMs)).pipe(
    Layer.provideMerge(PgliteMaintenance.Default),
    Layer.provideMerge(database)
  )
