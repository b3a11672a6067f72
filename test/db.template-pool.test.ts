import type { PGlite } from "@electric-sql/pglite"
import * as NodeFs from "node:fs"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { migratedPgliteTemplate, Tarball } from "../src/db/Database.js"
import { type DatabasePool, makeDatabasePool, vacuumAfter } from "../src/db/TemplatePool.js"

/**
 * The pool the scenario runner and the PGlite test apps take their databases from (src/db/TemplatePool.ts): a
 * database given back and taken again is in the template's state, or, when its schema changed, a new copy.
 */
let pool: DatabasePool
let template: Blob

beforeAll(async () => {
  const file = inject("pgliteTemplate")
  template = file ? new Tarball(NodeFs.readFileSync(file)) : await migratedPgliteTemplate()
  pool = makeDatabasePool(template, 1)
})
afterAll(async () => {
  await pool?.close()
})

const count = async (db: PGlite, sql: string) => Number((await db.query<{ n: number }>(sql)).rows[0]!.n)

/** What a fresh copy holds: rows per table, sequences, the clock's row. */
const snapshot = async (db: PGlite) => {
  const tables = (await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows
  const rows: Record<string, number> = {}
  for (const { name } of tables) rows[name] = await count(db, `SELECT count(*)::int AS n FROM "${name}"`)
  const sequences = (await db.query("SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1")).rows
  const clock = (await db.query("SELECT * FROM service_clock")).rows
  return { rows, sequences, clock }
}

describe("a database pool over the migrated template", () => {
  it("gives back a used database in the template's state: rows, sequences, prepared statements and settings gone", async () => {
    const db = await pool.take()
    const fresh = await snapshot(db)
    expect(fresh.clock).toHaveLength(1)
    expect(Object.keys(fresh.rows).length).toBeGreaterThan(20)

    // A service's leftovers: rows (customers' seq draws from its sequence), the clock moved, a prepared statement,
    // a session setting.
    await db.exec("UPDATE service_clock SET offset_ms = 3600000")
    await db.exec(`INSERT INTO partners (id, name, kyb_status, created_at, updated_at)
      VALUES ('00000000-0000-4000-8000-000000000001', 'p', 'APPROVED', now(), now())`)
    expect(await count(db, "SELECT count(*)::int AS n FROM partners")).toBe(1)
    const tables = Object.keys(fresh.rows)
    const sequences = (await db.query<{ name: string }>("SELECT sequencename AS name FROM pg_sequences WHERE schemaname = 'public'")).rows
    for (const { name } of sequences) await db.query(`SELECT nextval('"${name}"')`)
    await db.exec("PREPARE leftover AS SELECT 1")
    await db.exec("SET statement_timeout = '5s'")
    expect(await count(db, "SELECT count(*)::int AS n FROM pg_prepared_statements")).toBe(1)

    pool.give(db)
    const again = await pool.take()
    expect(again, "the same instance, reset").toBe(db)
    expect(await snapshot(again)).toEqual(fresh)
    expect(await count(again, "SELECT count(*)::int AS n FROM pg_prepared_statements")).toBe(0)
    expect((await again.query<{ t: string }>("SELECT current_setting('statement_timeout') AS t")).rows[0]!.t).toBe("0")
    expect(Object.keys((await snapshot(again)).rows)).toEqual(tables)
    pool.give(again)
  })

  it("empties the ledger's append-only tables too, and leaves a used database's rows to a VACUUM only past vacuumAfter", async () => {
    const db = await pool.take()
    const pages = async () => Number((await db.query<{ n: string }>("SELECT pg_relation_size('partners')::text AS n")).rows[0]!.n)
    const partners = (n: number) =>
      db.exec(`INSERT INTO partners (id, name, kyb_status, created_at, updated_at)
        SELECT gen_random_uuid(), 'p', 'APPROVED', now(), now() FROM generate_series(1, ${n})`)
    // The ledger refuses DELETE (its immutability triggers); the reset turns them off for its own transaction. A bare
    // transaction row (foreign keys off to write it) stands for a service's ledger.
    await db.exec(`SET session_replication_role = replica;
      INSERT INTO ledger_transactions (id, partner_id, customer_id, reason, resource_type, resource_id, event_id, created_at)
      VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'probe', 'probe', 'probe', gen_random_uuid(), now());
      RESET session_replication_role`)
    await expect(db.exec("DELETE FROM ledger_transactions")).rejects.toThrow()

    // A few rows: deleted, their pages left for a later VACUUM.
    await partners(10)
    expect(await pages()).toBeGreaterThan(0)
    pool.give(db)
    expect(await pool.take()).toBe(db)
    expect(await count(db, "SELECT count(*)::int AS n FROM partners")).toBe(0)
    expect(await count(db, "SELECT count(*)::int AS n FROM ledger_transactions")).toBe(0)
    expect(await pages(), "no VACUUM after a few deleted rows").toBeGreaterThan(0)

    // More than vacuumAfter: the VACUUM after the reset gives the emptied pages back (the table's file is cut to 0).
    await partners(vacuumAfter + 1)
    pool.give(db)
    expect(await pool.take()).toBe(db)
    expect(await count(db, "SELECT count(*)::int AS n FROM partners")).toBe(0)
    expect(await pages(), "vacuumed").toBe(0)
    pool.give(db)
  })

  it("closes a database whose schema changed and gives a new copy instead", async () => {
    const db = await pool.take()
    await db.exec("ALTER TABLE service_clock ADD COLUMN note text")
    pool.give(db)
    const next = await pool.take()
    expect(next).not.toBe(db)
    expect(db.closed).toBe(true)
    expect((await next.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'service_clock' AND column_name = 'note'")).rows).toEqual([])
    pool.give(next)
  })

  it.each([
    ["a created function", "CREATE FUNCTION pool_probe() RETURNS int LANGUAGE sql AS 'SELECT 1'"],
    ["a dropped trigger", "DO $$ DECLARE t record; BEGIN SELECT tgname, tgrelid::regclass AS rel INTO t FROM pg_trigger WHERE NOT tgisinternal LIMIT 1; EXECUTE format('DROP TRIGGER %I ON %s', t.tgname, t.rel); END $$"],
    ["a replaced function body", "DO $$ DECLARE f text; BEGIN SELECT pg_get_functiondef(p.oid) INTO f FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.prokind = 'f' LIMIT 1; EXECUTE f; END $$"],
    ["a disabled, then enabled trigger", "DO $$ DECLARE t record; BEGIN SELECT tgname, tgrelid::regclass AS rel INTO t FROM pg_trigger WHERE NOT tgisinternal LIMIT 1; EXECUTE format('ALTER TABLE %s DISABLE TRIGGER %I', t.rel, t.tgname); EXECUTE format('ALTER TABLE %s ENABLE TRIGGER %I', t.rel, t.tgname); END $$"]
  ])("closes a database after %s, after a reset as before one", async (_, statement) => {
    const used = await pool.take()
    pool.give(used)
    const reset = await pool.take() // back in the template's state once: its stamp was read again after the reset
    expect(reset).toBe(used)
    await reset.exec(statement)
    pool.give(reset)
    const next = await pool.take()
    expect(next).not.toBe(reset)
    expect(reset.closed).toBe(true)
    pool.give(next)
  })

  it("keeps at most idleMax databases waiting; the others are closed", async () => {
    const a = await pool.take()
    const b = await pool.take()
    expect(b).not.toBe(a)
    pool.give(a)
    pool.give(b)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect([a.closed, b.closed].filter(Boolean)).toHaveLength(1)
    const c = await pool.take()
    expect(c).toBe(a)
    pool.give(c)
  })
})
