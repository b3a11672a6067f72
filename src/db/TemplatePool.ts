import type { PGlite } from "@electric-sql/pglite"
import { openPgliteCopy } from "./Database.js"

/**
 * In-memory PGlite databases in the state of one migrated template (migratedPgliteTemplate), reused. A new copy of
 * the template costs about 1 s of CPU (the tarball unpacked into PGlite's file system, a backend started); putting a
 * used one back into the template's state costs under 0.1 s. The scenario runner (one database per scenario running
 * at once) and the test apps of a test worker (test/support/TestApp.ts) take databases from a pool and give them
 * back when their service has closed.
 *
 * Back into the template's state: `DISCARD ALL` (the last service's prepared statements, session settings,
 * listeners), every table holding rows emptied, the rows the migrations wrote put back, every sequence where the
 * template had it. A database whose schema changed since it was opened (a test that altered a table,
 * dropped a trigger, created a function) is closed instead of reused: the stamp of its catalogs is compared first.
 * test/db.template-pool.test.ts checks both; test/scenario.runner.test.ts replays one seed on a fresh and a reused
 * database alike.
 */
export interface DatabasePool {
  /** A database in the template's state, for one service at a time. */
  readonly take: () => Promise<PGlite>
  /** Back after its service closed; it is reset (or closed, if its schema changed) before it is taken again. */
  readonly give: (db: PGlite) => void
  readonly close: () => Promise<void>
}

interface TemplateState {
  readonly tables: ReadonlyArray<string>
  /** Rows the migrations wrote, per table, as JSON. */
  readonly rows: ReadonlyArray<{ readonly table: string; readonly json: string }>
  readonly sequences: ReadonlyArray<{ readonly name: string; readonly last: string | null; readonly start: string }>
  /** A statement naming the tables that hold at least one row. */
  readonly nonEmpty: string
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

/**
 * A stamp of the catalogs a test could change (schemas, relations, columns and defaults, constraints, indexes,
 * triggers, functions, types, extensions): per catalog, its rows and the newest transaction that wrote one. Any
 * CREATE, ALTER, DROP or CREATE OR REPLACE adds, removes or rewrites a row there, so the stamp moves. A reset writes no
 * catalog row (DELETE, setval, VACUUM), so a database's stamp is read when it is opened and compared before each
 * reset. A few milliseconds, a fifteenth of what a fingerprint of the catalogs' contents cost.
 */
const catalogStampSql = `SELECT string_agg(name || ' ' || n || ' ' || newest, ', ' ORDER BY name) AS stamp FROM (${
  ["pg_namespace", "pg_class", "pg_attribute", "pg_attrdef", "pg_constraint", "pg_index", "pg_trigger", "pg_proc", "pg_type", "pg_extension"]
    .map((catalog) => `SELECT '${catalog}' AS name, count(*) AS n, coalesce(max(xmin::text::bigint), 0) AS newest FROM ${catalog}`)
    .join(" UNION ALL ")
}) catalogs`

const catalogStamp = async (db: PGlite): Promise<string> => (await db.query<{ stamp: string }>(catalogStampSql)).rows[0]!.stamp

const readTemplateState = async (db: PGlite): Promise<TemplateState> => {
  const tables = (await db.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
  )).rows.map((row) => row.name)
  const rows: Array<{ table: string; json: string }> = []
  for (const table of tables) {
    const [found] = (await db.query<{ json: string | null }>(`SELECT json_agg(t)::text AS json FROM ${quoted(table)} t`)).rows
    if (found?.json != null) rows.push({ table, json: found.json })
  }
  const sequences = (await db.query<{ name: string; last: string | null; start: string }>(
    "SELECT sequencename AS name, last_value::text AS last, start_value::text AS start FROM pg_sequences WHERE schemaname = 'public'"
  )).rows
  const nonEmpty = tables.map((table) => `SELECT ${literal(table)} AS name WHERE EXISTS (SELECT 1 FROM ${quoted(table)})`).join(" UNION ALL ")
  return { tables, rows, sequences, nonEmpty: nonEmpty === "" ? "SELECT NULL::text AS name WHERE false" : nonEmpty }
}

/**
 * Back into the template's state; false (nothing done) when the schema changed since the database was opened (its
 * catalog stamp then, `stamped`).
 */
const resetToTemplate = async (db: PGlite, state: TemplateState, stamped: string | undefined): Promise<boolean> => {
  await db.exec("DISCARD ALL")
  if (stamped === undefined || await catalogStamp(db) !== stamped) return false
  let deleted = 0
  await db.transaction(async (tx) => {
    // Only the tables holding rows (a service's test or scenario writes a few of the forty tables), emptied with
    // DELETE: a TRUNCATE gives each table and index it names new files, about 3 ms a table on PGlite's in-memory file
    // system (42 ms a reset, and a scenario run 14 % more CPU), where deleting a test's rows takes well under 1 ms.
    // Foreign keys and the ledger's append-only triggers are off for this transaction (`session_replication_role`
    // reverts at its end): every table holding rows is emptied, so nothing is left referring to a deleted row. The
    // sequences are put back below.
    const written = (await tx.query<{ name: string }>(state.nonEmpty)).rows.map((row) => row.name)
    if (written.length > 0) {
      const results = await tx.exec(`SET LOCAL session_replication_role = replica; ${written.map((table) => `DELETE FROM ${quoted(table)};`).join(" ")}`)
      for (const result of results) deleted += result.affectedRows ?? 0
    }
    for (const { table, json } of state.rows) {
      await tx.query(`INSERT INTO ${quoted(table)} SELECT * FROM json_populate_recordset(NULL::${quoted(table)}, $1::json)`, [json])
    }
    // Each sequence where the template had it, in one statement: `setval(..., false)` for one never drawn from (its
    // next value is its start), not ALTER SEQUENCE ... RESTART, which gives the sequence a new file like a TRUNCATE.
    if (state.sequences.length > 0) {
      await tx.query(
        `SELECT ${state.sequences.map(({ last }, i) => `setval($${2 * i + 1}::regclass, $${2 * i + 2}::bigint, ${last !== null})`).join(", ")}`,
        state.sequences.flatMap(({ last, name, start }) => [quoted(name), last ?? start])
      )
    }
  })
  // The deleted rows stay in the tables' pages until a VACUUM (PGlite runs no autovacuum): once a database has
  // deleted `vacuumAfter` rows since its last one, so that a database reused by a whole test worker's files does not
  // carry every earlier file's rows in its scans and indexes.
  const total = (deletedSinceVacuum.get(db) ?? 0) + deleted
  if (total >= vacuumAfter) {
    await db.exec("VACUUM")
    deletedSinceVacuum.set(db, 0)
  } else deletedSinceVacuum.set(db, total)
  return true
}

/** Rows a database deleted in its resets since its last VACUUM. */
const deletedSinceVacuum = new WeakMap<PGlite, number>()
/** A VACUUM after this many deleted rows (a test file writes tens to a few thousand). */
export const vacuumAfter = 20_000

/**
 * A pool over `template` (a data-dir tarball). At most `idleMax` databases wait between services (each holds its
 * WebAssembly memory); one given back beyond that is closed.
 */
export const makeDatabasePool = (template: Blob | (() => Blob), idleMax = 4): DatabasePool => {
  const idle: Array<PGlite> = []
  const open = new Set<PGlite>()
  /** Each database's catalog stamp when it was opened (a copy of the template); a reset leaves the catalogs as they were. */
  const stamps = new WeakMap<PGlite, string>()
  let state: Promise<TemplateState> | undefined
  const discard = async (db: PGlite) => {
    open.delete(db)
    await db.close()
  }
  const fresh = async (): Promise<PGlite> => {
    const db = await openPgliteCopy(typeof template === "function" ? template() : template)
    open.add(db)
    stamps.set(db, await catalogStamp(db))
    state ??= readTemplateState(db)
    await state
    return db
  }
  return {
    take: async () => {
      for (let db = idle.pop(); db !== undefined; db = idle.pop()) {
        // The stamp stays: a reset writes rows, sequences and, past vacuumAfter, a VACUUM's in-place statistics, none
        // of which the stamp counts (test/db.template-pool.test.ts resets a database twice, VACUUM included, and
        // takes the same one back each time).
        if (await resetToTemplate(db, await state!, stamps.get(db))) return db
        await discard(db)
      }
      return fresh()
    },
    give: (db) => {
      if (!open.has(db)) return
      if (idle.length < idleMax) idle.push(db)
      else void discard(db)
    },
    close: async () => {
      idle.length = 0
      await Promise.all([...open].map(discard))
    }
  }
}
