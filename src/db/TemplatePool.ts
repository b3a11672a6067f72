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
 * listeners), every table holding rows truncated, the rows the migrations wrote put back, every sequence where the
 * template had it. A database whose schema changed since it was opened or last reset (a test that altered a table,
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
  readonly sequences: ReadonlyArray<{ readonly name: string; readonly last: string | null }>
  /** A statement naming the tables that hold at least one row. */
  readonly nonEmpty: string
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

/**
 * A stamp of the catalogs a test could change (schemas, relations, columns and defaults, constraints, indexes,
 * triggers, functions, types, extensions): per catalog, its rows and the newest transaction that wrote one. Any
 * CREATE, ALTER, DROP or CREATE OR REPLACE adds, removes or rewrites a row there, so the stamp moves; so does our own
 * TRUNCATE (new files for the tables), which is why a database's stamp is read again after each reset. About 1 ms,
 * where a fingerprint of the catalog's contents cost 15.
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
  const sequences = (await db.query<{ name: string; last: string | null }>(
    "SELECT sequencename AS name, last_value::text AS last FROM pg_sequences WHERE schemaname = 'public'"
  )).rows
  const nonEmpty = tables.map((table) => `SELECT ${literal(table)} AS name WHERE EXISTS (SELECT 1 FROM ${quoted(table)})`).join(" UNION ALL ")
  return { tables, rows, sequences, nonEmpty: nonEmpty === "" ? "SELECT NULL::text AS name WHERE false" : nonEmpty }
}

/**
 * Back into the template's state; false (nothing done) when the schema changed since the database was opened or
 * last reset (its catalog stamp then, `stamped`).
 */
const resetToTemplate = async (db: PGlite, state: TemplateState, stamped: string | undefined): Promise<boolean> => {
  await db.exec("DISCARD ALL")
  if (stamped === undefined || await catalogStamp(db) !== stamped) return false
  await db.transaction(async (tx) => {
    // Only the tables holding rows: a TRUNCATE gives each table it names new files, which costs PGlite's in-memory
    // file system more than the check (a service's test or scenario writes a few of the forty tables).
    const written = (await tx.query<{ name: string }>(state.nonEmpty)).rows.map((row) => row.name)
    if (written.length > 0) await tx.exec(`TRUNCATE ${written.map(quoted).join(", ")} RESTART IDENTITY CASCADE`)
    for (const { table, json } of state.rows) {
      await tx.query(`INSERT INTO ${quoted(table)} SELECT * FROM json_populate_recordset(NULL::${quoted(table)}, $1::json)`, [json])
    }
    for (const { name, last } of state.sequences) {
      await (last === null
        ? tx.exec(`ALTER SEQUENCE ${quoted(name)} RESTART`)
        : tx.query("SELECT setval($1::regclass, $2::bigint, true)", [quoted(name), last]))
    }
  })
  return true
}

/**
 * A pool over `template` (a data-dir tarball). At most `idleMax` databases wait between services (each holds its
 * WebAssembly memory); one given back beyond that is closed.
 */
export const makeDatabasePool = (template: Blob | (() => Blob), idleMax = 4): DatabasePool => {
  const idle: Array<PGlite> = []
  const open = new Set<PGlite>()
  /** Each database's catalog stamp when it was opened (a copy of the template) or last reset. */
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
        if (await resetToTemplate(db, await state!, stamps.get(db))) {
          stamps.set(db, await catalogStamp(db))
          return db
        }
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
