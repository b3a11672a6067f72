import type { PGlite } from "@electric-sql/pglite"
import { createPgConfig } from "@electric-sql/pglite/node-postgres"
import { String as Str } from "effect"
import Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { convertedOnce, openPgliteCopy, PreparingClient } from "../src/db/Database.js"
import { batchingPgConfig } from "../src/db/PgliteConnection.js"
import { pgliteTemplate } from "./support/TestApp.js"

/**
 * `PreparingClient` prepares statements with parameters by name, through node-postgres' public API only (pg-pool's
 * `Client` option, `query({ name, text, values })`). Checked on the suite's database (PostgreSQL with
 * TEST_DATABASE_URL, else PGlite through the batching connection), calling the client the way @effect/sql-pg does
 * (`query(text, values, callback)`):
 *
 * - every answer is what node-postgres' own client gives for the same steps (transactions, savepoints, errors), and
 *   COMMIT of an aborted transaction answers ROLLBACK, never success;
 * - a statement with parameters is prepared on the connection (PostgreSQL lists it in `pg_prepared_statements`);
 * - a prepared plan the server refuses after the table changed (0A000) is answered by running the text unnamed.
 *
 * An upgrade of pg or pg-pool that stops honouring the `Client` option or named statements fails this file.
 */
const serverUrl = process.env.TEST_DATABASE_URL
const table = `prepared_items_${process.pid}_${Date.now().toString(36)}`

let pglite: PGlite | undefined
let ours: Pg.Pool
let stock: Pg.Pool

beforeAll(async () => {
  if (serverUrl !== undefined) {
    ours = new Pg.Pool({ connectionString: serverUrl, max: 1, Client: PreparingClient as unknown as typeof Pg.Client })
    stock = new Pg.Pool({ connectionString: serverUrl, max: 1 })
  } else {
    const db = await openPgliteCopy(pgliteTemplate())
    pglite = db
    ours = new Pg.Pool({ ...batchingPgConfig(db), Client: PreparingClient } as unknown as Pg.PoolConfig)
    stock = new Pg.Pool(createPgConfig(db) as unknown as Pg.PoolConfig)
  }
  await stock.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, name text NOT NULL CHECK (length(name) > 0))`)
})
afterAll(async () => {
  await stock?.query(`DROP TABLE IF EXISTS ${table}`)
  await ours?.end()
  await stock?.end()
  await pglite?.close()
})

type Answer = { rows: Array<unknown>; command: string } | { error: string | undefined }

/** One statement as @effect/sql-pg sends it: text, values (empty for none), callback. */
const ask = (client: Pg.PoolClient, text: string, values: ReadonlyArray<unknown> = []) =>
  new Promise<Answer>((resolve) => {
    client.query(text, values as Array<unknown>, (error: Error | null, result: Pg.QueryResult) =>
      resolve(error ? { error: (error as { code?: string }).code } : { rows: result.rows, command: result.command }))
  })

/** Runs the steps on one client of `pool`, one after another; then what that connection has prepared. */
const run = async (pool: Pg.Pool, steps: ReadonlyArray<readonly [string, ReadonlyArray<unknown>?]>) => {
  const client = await pool.connect()
  const answers: Array<Answer> = []
  try {
    for (const [text, values] of steps) answers.push(await ask(client, text, values))
    const prepared = await client.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements")
    return { answers, prepared: prepared.rows.map((row) => row.statement) }
  } finally {
    client.release()
  }
}

const insert = (id: number, name: string) => [`INSERT INTO ${table} (id, name) VALUES ($1, $2)`, [id, name]] as const

describe("statements prepared by name (PreparingClient)", () => {
  it("answers as node-postgres alone does: commands in savepoints, one failing, then commit", async () => {
    const steps = (base: number) => [
      ["BEGIN"],
      ["SAVEPOINT effect_sql_1"],
      insert(base + 1, "one"),
      ["RELEASE SAVEPOINT effect_sql_1"],
      ["SAVEPOINT effect_sql_1"],
      insert(base + 2, ""),
      ["ROLLBACK TO SAVEPOINT effect_sql_1"],
      ["SAVEPOINT effect_sql_1"],
      insert(base + 3, "three"),
      ["RELEASE SAVEPOINT effect_sql_1"],
      ["COMMIT"],
      [`SELECT id FROM ${table} WHERE id > $1 ORDER BY id`, [base]]
    ] as const
    const alone = await run(stock, steps(100))
    const prepared = await run(ours, steps(200))
    const rowsOf = (answer: Answer) => "rows" in answer ? answer.rows.map((row: any) => row.id % 100) : answer
    expect(prepared.answers.map((a, i) => i === 11 ? rowsOf(a) : a)).toEqual(alone.answers.map((a, i) => i === 11 ? rowsOf(a) : a))
    expect(prepared.answers[5]).toEqual({ error: "23514" })
    expect(rowsOf(prepared.answers[11]!)).toEqual([1, 3])
    // The statements with parameters were prepared on our connection, and on the stock one nothing was.
    expect(prepared.prepared).toEqual(expect.arrayContaining([`INSERT INTO ${table} (id, name) VALUES ($1, $2)`]))
    expect(alone.prepared.filter((text) => text.includes(table))).toEqual([])
  })

  it("an error inside the transaction aborts it: COMMIT answers ROLLBACK and nothing is committed", async () => {
    const steps = [
      ["BEGIN"],
      insert(301, "a"),
      insert(301, "again"),
      ["SAVEPOINT effect_sql_1"],
      ["SELECT 1 AS one"],
      ["COMMIT"],
      [`SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, [301]]
    ] as const
    const alone = await run(stock, steps)
    await stock.query(`DELETE FROM ${table} WHERE id = 301`)
    const prepared = await run(ours, steps)
    expect(prepared.answers).toEqual(alone.answers)
    expect(prepared.answers[2]).toEqual({ error: "23505" })
    expect(prepared.answers[3]).toEqual({ error: "25P02" })
    expect(prepared.answers[4]).toEqual({ error: "25P02" })
    expect(prepared.answers[5]).toEqual({ rows: [], command: "ROLLBACK" })
    expect(prepared.answers[6]).toEqual({ rows: [{ n: 0 }], command: "SELECT" })
  })

  it("a prepared plan refused after the table changed (0A000) is answered by the text run unnamed", async () => {
    const select = [`SELECT * FROM ${table} WHERE id = $1`, [601]] as const
    await stock.query(`INSERT INTO ${table} (id, name) VALUES (601, 'before')`)
    const first = await run(ours, [select])
    expect(first.answers[0]).toEqual({ rows: [{ id: 601, name: "before" }], command: "SELECT" })
    expect(first.prepared).toContain(select[0])
    await stock.query(`ALTER TABLE ${table} ADD COLUMN note text NOT NULL DEFAULT 'added'`)
    try {
      const second = await run(ours, [select, select])
      expect(second.answers).toEqual([
        { rows: [{ id: 601, name: "before", note: "added" }], command: "SELECT" },
        { rows: [{ id: 601, name: "before", note: "added" }], command: "SELECT" }
      ])
    } finally {
      await stock.query(`ALTER TABLE ${table} DROP COLUMN note`)
    }
  })

  it("a statement without parameters runs as it is, not prepared", async () => {
    const { answers, prepared } = await run(ours, [[`SELECT count(*)::int AS n FROM ${table} WHERE id > 9000`]])
    expect(answers[0]).toEqual({ rows: [{ n: 0 }], command: "SELECT" })
    expect(prepared.filter((text) => text.includes("id > 9000"))).toEqual([])
  })
})

describe("column names converted once (src/db/Database.ts convertedOnce)", () => {
  it("answers what the converter answers, for result and query names alike", () => {
    const toCamel = convertedOnce(Str.snakeToCamel)
    const toSnake = convertedOnce(Str.camelToSnake)
    for (const name of ["id", "partner_id", "created_at", "kyc_tier", "a_b_c", "already", "x_1"]) {
      expect(toCamel(name)).toBe(Str.snakeToCamel(name))
      expect(toCamel(name)).toBe(Str.snakeToCamel(name))
      expect(toSnake(Str.snakeToCamel(name))).toBe(Str.camelToSnake(Str.snakeToCamel(name)))
    }
  })

  it("calls the converter once per name, and past its bound converts without remembering", () => {
    const calls: Array<string> = []
    const convert = convertedOnce((name) => (calls.push(name), name.toUpperCase()), 2)
    expect([convert("a"), convert("b"), convert("a"), convert("b")]).toEqual(["A", "B", "A", "B"])
    expect(calls).toEqual(["a", "b"])
    expect([convert("c"), convert("c"), convert("a")]).toEqual(["C", "C", "A"])
    expect(calls).toEqual(["a", "b", "c", "c"])
  })
})
