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
 * template had it. A database whose schema no longer matches the template's (a test that altered a table, dropped a trigger,
 * created a function) is closed instead of reused: the fingerprint of its catalog is compared first.
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
  readonly fingerprint: string
  readonly tables: ReadonlyArray<string>
  /** Rows the migrations wrote, per table, as JSON. */
  readonly rows: ReadonlyArray<{ readonly table: string; readonly json: string }>
  readonly sequences: ReadonlyArray<{ readonly name: string; readonly last: string | null }>
  /** A statement naming the tables that hold at least one row. */
  readonly nonEmpty: string
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

/** Everything a test could change in the schema: schemas, relations and columns, constraints, indexes, triggers, functions, extensions. */
const fingerprintSql = `
SELECT md5(coalesce(string_agg(item, E'\\n' ORDER BY item), '')) AS fingerprint FROM (
  SELECT 'n ' || nspname AS item FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
  UNION ALL
  SELECT 'r ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
    || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), '')
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
  WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  UNION ALL
  SELECT 'k ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(c.oid)
  FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
  WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  UNION ALL
  SELECT 'i ' || pg_get_indexdef(i.indexrelid)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  UNION ALL
  SELECT 't ' || tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text || ' ' || pg_get_triggerdef(oid)
  FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL
  SELECT 'p ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc)
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  UNION ALL
  SELECT 'e ' || extname || ' ' || extversion FROM pg_extension
) items`

const fingerprintOf = async (db: PGlite): Promise<string> =>
  (await db.query<{ fingerprint: string }>(fingerprintSql)).rows[0]!.fingerprint

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
  return { fingerprint: await fingerprintOf(db), tables, rows, sequences, nonEmpty: nonEmpty === "" ? "SELECT NULL::text AS name WHERE false" : nonEmpty }
}

/** Back into the template's state; false (nothing done) when the schema is no longer the template's. */
const resetToTemplate = async (db: PGlite, state: TemplateState): Promise<boolean> => {
  await db.exec("DISCARD ALL")
  if (await fingerprintOf(db) !== state.fingerprint) return false
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
  let state: Promise<TemplateState> | undefined
  const discard = async (db: PGlite) => {
    open.delete(db)
    await db.close()
  }
  const fresh = async (): Promise<PGlite> => {
    const db = await openPgliteCopy(typeof template === "function" ? template() : template)
    open.add(db)
    state ??= readTemplateState(db)
    await state
    return db
  }
  return {
    take: async () => {
      for (let db = idle.pop(); db !== undefined; db = idle.pop()) {
        if (await resetToTemplate(db, await state!)) return db
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
