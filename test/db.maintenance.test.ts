import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgliteLayer } from "../src/db/Database.js"
import { dueWork, PgliteMaintenance, type TableActivity } from "../src/db/Maintenance.js"
import { pgliteTemplate } from "./support/TestApp.js"

/**
 * The embedded database's maintenance (src/db/Maintenance.ts): PGlite has no autovacuum, so the service analyses and
 * vacuums what autovacuum would have. The rules as a function, then the service on a PGlite of the test's own (the
 * layer the service runs on, `pgliteLayer`): after enough writes a table is analysed (pg_class.reltuples, last_analyze),
 * after enough updates vacuumed (dead row versions gone), and a table nobody wrote to is left alone.
 */
const table = (overrides: Partial<TableActivity>): TableActivity => ({
  table: "t", reltuples: 1000, relpages: 10, pages: 10, modifiedSinceAnalyze: 0, deadTuples: 0, insertedSinceVacuum: 0, ...overrides
})

describe("what a table needs (autovacuum's rules)", () => {
  it("nothing while little changed", () => {
    expect(dueWork(table({ modifiedSinceAnalyze: 150, deadTuples: 250, insertedSinceVacuum: 1200 }))).toBeUndefined()
    expect(dueWork(table({ reltuples: -1, relpages: 0, pages: 0 }))).toBeUndefined() // never analysed, but empty
  })
  it("analyze after 50 + 10 % of the rows changed, when never analysed, or when it grew 20 % since (counters lost at a restart)", () => {
    expect(dueWork(table({ modifiedSinceAnalyze: 151 }))).toBe("analyze")
    expect(dueWork(table({ reltuples: -1, relpages: 0, pages: 1 }))).toBe("analyze")
    expect(dueWork(table({ pages: 21 }))).toBe("analyze")
    expect(dueWork(table({ pages: 20 }))).toBeUndefined()
  })
  it("vacuum after 50 + 20 % dead row versions or 1000 + 20 % inserts", () => {
    expect(dueWork(table({ deadTuples: 251 }))).toBe("vacuum")
    expect(dueWork(table({ insertedSinceVacuum: 1201 }))).toBe("vacuum")
  })
})

describe("the maintenance service on PGlite", () => {
  let runtime: ManagedRuntime.ManagedRuntime<PgliteMaintenance | SqlClient.SqlClient, unknown>
  const run = <A, E>(effect: Effect.Effect<A, E, PgliteMaintenance | SqlClient.SqlClient>) => runtime.runPromise(effect)
  const query = <T>(text: string) => run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T & object>(text)))
  /** Counters reach pg_stat_user_tables at most once a second unless forced (at the end of the next statement). */
  const flush = async () => {
    await query("SELECT pg_stat_force_next_flush()")
    await query("SELECT 1")
  }
  const runDue = async () => {
    await flush()
    return run(Effect.flatMap(PgliteMaintenance, (maintenance) => maintenance.runDue()))
  }
  const statsOf = async (name: string) =>
    (await flush(), await query<{ reltuples: number; lastAnalyze: Date | null; lastVacuum: Date | null; nDeadTup: string; nModSinceAnalyze: string }>(
      `SELECT c.reltuples::float8 AS reltuples, s.last_analyze, s.last_vacuum, s.n_dead_tup::text, s.n_mod_since_analyze::text
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = '${name}'`))[0]!

  beforeAll(async () => {
    const template = pgliteTemplate()
    runtime = ManagedRuntime.make(pgliteLayer({ loadDataDir: template }) as Layer.Layer<PgliteMaintenance | SqlClient.SqlClient, unknown>)
    await query("CREATE TABLE maintenance_probe (id int PRIMARY KEY, v int NOT NULL)")
    await query("CREATE TABLE maintenance_idle (id int PRIMARY KEY)")
    // The template's tables and these: whatever is due now is done, so that each step below sees only its own writes.
    await runDue()
  })
  afterAll(() => runtime?.dispose())

  it("analyses a table after enough rows were written, and leaves it alone while nothing changes", async () => {
    await query("INSERT INTO maintenance_probe SELECT g, 0 FROM generate_series(1, 200) g")
    expect(Number((await statsOf("maintenance_probe")).nModSinceAnalyze)).toBe(200)
    const done = await runDue()
    expect(done.map((d) => d.table)).toEqual(["maintenance_probe"])
    const after = await statsOf("maintenance_probe")
    expect(after.reltuples).toBe(200)
    expect(after.lastAnalyze).not.toBeNull()
    expect(Number(after.nModSinceAnalyze)).toBe(0)
    // The round's smaller statistics target is the session's only for the round.
    expect(await query("SHOW default_statistics_target")).toEqual([{ defaultStatisticsTarget: "100" }])
    expect(await runDue()).toEqual([])
    expect((await statsOf("maintenance_idle")).lastAnalyze).toBeNull()
  })

  it("vacuums a table whose updates left enough dead row versions", async () => {
    await query("UPDATE maintenance_probe SET v = v + 1")
    await query("UPDATE maintenance_probe SET v = v + 1")
    expect(Number((await statsOf("maintenance_probe")).nDeadTup)).toBeGreaterThan(90)
    const done = await runDue()
    expect(done.map((d) => `${d.work} ${d.table}`)).toEqual(["vacuum maintenance_probe"])
    const after = await statsOf("maintenance_probe")
    expect(after.lastVacuum).not.toBeNull()
    expect(Number(after.nDeadTup)).toBe(0)
  })
})
