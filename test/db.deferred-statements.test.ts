import { PGlite } from "@electric-sql/pglite"
import { createPgConfig } from "@electric-sql/pglite/node-postgres"
import Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PreparingClient } from "../src/db/Database.js"
import { batchingPgConfig } from "../src/db/PgliteConnection.js"

/**
 * `PreparingClient` sends `BEGIN`, `SAVEPOINT` and `RELEASE SAVEPOINT` (as @effect/sql writes them) together with the
 * statement after them. Checked here on the suite's database (PostgreSQL with TEST_DATABASE_URL, else PGlite through
 * the batching connection), calling the client the way @effect/sql-pg does (`query(text, values, callback)`):
 *
 * - every answer is what node-postgres' own client gives for the same steps (transactions, savepoints, errors);
 * - those statements cost no round trip of their own (and on PGlite no exchange of their own);
 * - a deferred statement that fails is reported by the statement sent with it, and the transaction is aborted as
 *   it would be, so the failure is never lost.
 */
const serverUrl = process.env.TEST_DATABASE_URL
const table = `deferred_items_${process.pid}_${Date.now().toString(36)}`

let pglite: PGlite | undefined
let ours: Pg.Pool
let stock: Pg.Pool
/** PGlite exchanges (buffers handed to the engine) so far. */
let exchanges = 0

beforeAll(async () => {
  if (serverUrl !== undefined) {
    ours = new Pg.Pool({ connectionString: serverUrl, max: 2, Client: PreparingClient as unknown as typeof Pg.Client })
    stock = new Pg.Pool({ connectionString: serverUrl, max: 2 })
  } else {
    const db = await PGlite.create()
    pglite = db
    const original = db.execProtocolStream.bind(db)
    const patched = db as unknown as { execProtocolStream: typeof original }
    patched.execProtocolStream = (message, options) => {
      exchanges++
      return original(message, options)
    }
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

/** Runs the steps on one client of `pool`, one after another; counts the round trips node-postgres made. */
const run = async (pool: Pg.Pool, steps: ReadonlyArray<readonly [string, ReadonlyArray<unknown>?]>) => {
  const client = await pool.connect()
  const sent = Pg.Client.prototype.query
  let trips = 0
  Pg.Client.prototype.query = function(this: Pg.Client, ...args: Array<any>) {
    if (this === (client as unknown as Pg.Client)) trips++
    return (sent as any).apply(this, args)
  } as any
  const before = exchanges
  const answers: Array<Answer> = []
  try {
    for (const [text, values] of steps) answers.push(await ask(client, text, values))
  } finally {
    Pg.Client.prototype.query = sent
    client.release()
  }
  return { answers, trips, exchanges: exchanges - before }
}

const insert = (id: number, name: string) => [`INSERT INTO ${table} (id, name) VALUES ($1, $2)`, [id, name]] as const

describe("deferred transaction control (PreparingClient)", () => {
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
    const deferred = await run(ours, steps(200))
    const rowsOf = (answer: Answer) => "rows" in answer ? answer.rows.map((row: any) => row.id % 100) : answer
    expect(deferred.answers.map((a, i) => i === 11 ? rowsOf(a) : a)).toEqual(alone.answers.map((a, i) => i === 11 ? rowsOf(a) : a))
    expect(deferred.answers[5]).toEqual({ error: "23514" })
    expect(rowsOf(deferred.answers[11]!)).toEqual([1, 3])
    // Twelve statements, six of them transaction control that travelled with the next one: BEGIN and the first
    // SAVEPOINT with the first insert, RELEASE and SAVEPOINT with the second, SAVEPOINT with the third (after the
    // ROLLBACK TO, which is never deferred), RELEASE with COMMIT.
    expect(alone.trips).toBe(12)
    expect(deferred.trips).toBe(6)
    if (pglite !== undefined) expect(deferred.exchanges).toBe(6)
  })

  it("a transaction with nothing in it: BEGIN travels with COMMIT or ROLLBACK", async () => {
    for (const end of ["COMMIT", "ROLLBACK"]) {
      const steps = [["BEGIN"], [end], ["SELECT 1 AS one"]] as const
      const alone = await run(stock, steps)
      const deferred = await run(ours, steps)
      expect(deferred.answers).toEqual(alone.answers)
      expect(deferred.trips).toBe(2)
    }
  })

  it("an error inside the transaction aborts it until ROLLBACK, as without deferral", async () => {
    const steps = [
      ["BEGIN"],
      insert(301, "a"),
      insert(301, "again"),
      ["SAVEPOINT effect_sql_1"],
      ["SELECT 1 AS one"],
      ["ROLLBACK"],
      [`SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, [301]]
    ] as const
    const alone = await run(stock, steps)
    const deferred = await run(ours, steps)
    expect(alone.answers[2]).toEqual({ error: "23505" })
    expect(alone.answers[3]).toEqual({ error: "25P02" })
    expect(deferred.answers.slice(0, 3)).toEqual(alone.answers.slice(0, 3))
    // node-postgres reports an error before the ReadyForQuery that follows it. A SAVEPOINT asked after that
    // arrived is deferred (answered at once, its failure reported by the statement sent with it); asked before, it
    // goes as an ordinary statement and fails itself. Either way the failure is reported and the next one fails.
    expect([{ rows: [], command: "SAVEPOINT" }, { error: "25P02" }]).toContainEqual(deferred.answers[3])
    expect(deferred.answers[4]).toEqual({ error: "25P02" })
    expect(deferred.answers.slice(5)).toEqual(alone.answers.slice(5))
    expect(deferred.answers[6]).toEqual({ rows: [{ n: 0 }], command: "SELECT" })
  })

  it("a deferred statement that fails is reported by the statement sent with it; the transaction stays aborted", async () => {
    const { answers } = await run(ours, [
      ["BEGIN"],
      insert(401, "kept only if committed"),
      ["RELEASE SAVEPOINT effect_sql_9"],
      ["SELECT 1 AS one"],
      ["SELECT 2 AS two"],
      ["COMMIT"],
      [`SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, [401]]
    ])
    expect(answers[2]).toEqual({ rows: [], command: "RELEASE" })
    // No such savepoint (3B001): reported by the SELECT it travelled with, whose own answer is dropped.
    expect(answers[3]).toEqual({ error: "3B001" })
    expect(answers[4]).toEqual({ error: "25P02" })
    // COMMIT of an aborted transaction rolls it back, as PostgreSQL always answers it.
    expect(answers[5]).toEqual({ rows: [], command: "ROLLBACK" })
    expect(answers[6]).toEqual({ rows: [{ n: 0 }], command: "SELECT" })
  })

  it("a deferred statement that fails just before COMMIT fails the COMMIT: nothing is committed", async () => {
    const { answers } = await run(ours, [
      ["BEGIN"],
      insert(501, "x"),
      ["RELEASE SAVEPOINT effect_sql_7"],
      ["COMMIT"],
      [`SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, [501]]
    ])
    expect(answers[3]).toEqual({ error: "3B001" })
    expect(answers[4]).toEqual({ rows: [{ n: 0 }], command: "SELECT" })
  })

  it("a statement asked while another is in flight is not deferred; a promise-style query sends deferred ones first", async () => {
    const client = await ours.connect()
    try {
      const inFlight = ask(client, "SELECT 1 AS slept FROM pg_sleep(0.01)")
      const begin = ask(client, "BEGIN")
      const write = ask(client, insert(601, "six")[0], insert(601, "six")[1])
      expect(await inFlight).toEqual({ rows: [{ slept: 1 }], command: "SELECT" })
      expect(await begin).toEqual({ rows: [], command: "BEGIN" })
      expect(await write).toEqual({ rows: [], command: "INSERT" })
      expect(await ask(client, "ROLLBACK")).toEqual({ rows: [], command: "ROLLBACK" })
      // Deferred BEGIN, then a query without a callback: the BEGIN goes first, as an ordinary statement.
      expect(await ask(client, "BEGIN")).toEqual({ rows: [], command: "BEGIN" })
      await client.query(insert(602, "six-two")[0], [...insert(602, "six-two")[1]])
      expect((await client.query("ROLLBACK")).command).toBe("ROLLBACK")
      const left = await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE id IN (601, 602)`)
      expect(left.rows).toEqual([{ n: 0 }])
    } finally {
      client.release()
    }
  })

  it("a deferred statement sent the ordinary way (the next query has no callback) that fails is reported by the next statement with one", async () => {
    const client = await ours.connect()
    try {
      expect(await ask(client, "BEGIN")).toEqual({ rows: [], command: "BEGIN" })
      expect(await ask(client, insert(801, "eight")[0], insert(801, "eight")[1])).toEqual({ rows: [], command: "INSERT" })
      expect(await ask(client, "RELEASE SAVEPOINT effect_sql_9")).toEqual({ rows: [], command: "RELEASE" })
      // A promise-style query: the RELEASE goes first as an ordinary statement and fails; this one then fails too.
      await expect(client.query("SELECT 1 AS one", [])).rejects.toMatchObject({ code: "25P02" })
      // COMMIT of the aborted transaction answers ROLLBACK without an error: the RELEASE's error is reported here.
      expect(await ask(client, "COMMIT")).toEqual({ error: "3B001" })
      expect(await ask(client, `SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, [801])).toEqual({ rows: [{ n: 0 }], command: "SELECT" })
    } finally {
      client.release()
    }
  })

  it("a client given back with a statement still deferred is discarded, not reused", async () => {
    const client = await ours.connect()
    const removed = new Promise((resolve) => ours.once("remove", resolve))
    expect(await ask(client, "BEGIN")).toEqual({ rows: [], command: "BEGIN" })
    client.release()
    expect(await removed).toBe(client)
    // The next client starts outside any transaction: a write is committed on its own.
    const next = await ours.connect()
    try {
      expect(next).not.toBe(client)
      expect(await ask(next, insert(701, "seven")[0], insert(701, "seven")[1])).toEqual({ rows: [], command: "INSERT" })
    } finally {
      next.release()
    }
    expect((await stock.query(`SELECT count(*)::int AS n FROM ${table} WHERE id = 701`)).rows).toEqual([{ n: 1 }])
  })
})
