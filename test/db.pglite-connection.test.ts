import type { PGlite } from "@electric-sql/pglite"
import { createPgConfig } from "@electric-sql/pglite/node-postgres"
import Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openPgliteCopy, PreparingClient } from "../src/db/Database.js"
import { batchingPgConfig, type PgliteEngine } from "../src/db/PgliteConnection.js"
import { pgliteTemplate } from "./support/TestApp.js"

/**
 * The batching PGlite connection (src/db/PgliteConnection.ts) answers exactly as PGlite's stock node-postgres
 * adapter does, on the paths where sending a statement's messages together could differ: errors at parse, bind and
 * execute, in and out of transactions and savepoints, each followed by more work on the same connection; and it
 * sends one buffer per statement. Both as node-postgres sends statements by default (unnamed) and as the service
 * does (`PreparingClient`: statements with parameters prepared once by name).
 */
let db: PGlite
let batching: Record<"unnamed" | "prepared", Pg.Pool>
let stock: Pg.Pool

beforeAll(async () => {
  db = await openPgliteCopy(pgliteTemplate())
  await db.exec(`
    CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL CHECK (length(name) > 0), ref uuid);
    INSERT INTO items VALUES (1, 'one', NULL);
  `)
  batching = {
    unnamed: new Pg.Pool(batchingPgConfig(db) as unknown as Pg.PoolConfig),
    prepared: new Pg.Pool({ ...batchingPgConfig(db), Client: PreparingClient } as unknown as Pg.PoolConfig)
  }
  stock = new Pg.Pool(createPgConfig(db) as unknown as Pg.PoolConfig)
})
afterAll(async () => {
  await batching?.unnamed.end()
  await batching?.prepared.end()
  await stock?.end()
  await db?.close()
})

type Step = readonly [text: string, values?: ReadonlyArray<unknown>]

/** Runs the steps on one client of `pool`; each answer is its rows or its error (code and message). */
const run = async (pool: Pg.Pool, steps: ReadonlyArray<Step>) => {
  const client = await pool.connect()
  const answers: Array<unknown> = []
  try {
    for (const [text, values] of steps) {
      try {
        const result = values === undefined ? await client.query(text) : await client.query(text, values as Array<unknown>)
        answers.push({ rows: result.rows, command: result.command })
      } catch (error) {
        const e = error as { code?: string; message?: string }
        answers.push({ error: e.code, message: e.message })
      }
    }
  } finally {
    client.release()
  }
  return answers
}

const reset: Step = ["DELETE FROM items WHERE id <> 1"]

describe.each(["unnamed", "prepared"] as const)("the batching PGlite connection (%s statements)", (statements) => {
  /** The same steps through both adapters, from the same starting state (each run ends with the table as it began). */
  const same = async (steps: ReadonlyArray<Step>) => {
    const viaStock = await run(stock, steps)
    const viaBatching = await run(batching[statements], steps)
    expect(viaBatching).toEqual(viaStock)
    // Twice: a prepared statement's second run skips its parse.
    expect(await run(batching[statements], steps)).toEqual(viaStock)
    return viaBatching
  }

  it("answers a parse error (syntax) and then works on the same connection", async () => {
    const answers = await same([["SELEC 1 WHERE $1::int = 1", [1]], ["SELECT name FROM items WHERE id = $1", [1]]])
    expect(answers[0]).toMatchObject({ error: "42601" })
    expect(answers[1]).toEqual({ rows: [{ name: "one" }], command: "SELECT" })
  })

  it("answers a bind error (a parameter that is not a uuid) and then works", async () => {
    const answers = await same([["SELECT id FROM items WHERE ref = $1", ["not-a-uuid"]], ["SELECT count(*)::int AS n FROM items WHERE id > $1", [0]]])
    expect(answers[0]).toMatchObject({ error: "22P02" })
    expect(answers[1]).toEqual({ rows: [{ n: 1 }], command: "SELECT" })
  })

  it("answers execute errors (unique and check violations, division by zero) and then works", async () => {
    const answers = await same([
      ["INSERT INTO items (id, name) VALUES ($1, $2)", [1, "again"]],
      ["INSERT INTO items (id, name) VALUES ($1, $2)", [2, ""]],
      ["SELECT 1 / $1::int AS x", [0]],
      ["INSERT INTO items (id, name) VALUES ($1, $2) RETURNING id", [3, "three"]],
      reset
    ])
    expect(answers.slice(0, 3).map((a) => (a as { error: string }).error)).toEqual(["23505", "23514", "22012"])
    expect(answers[3]).toEqual({ rows: [{ id: 3 }], command: "INSERT" })
  })

  it("an error inside a transaction aborts it until ROLLBACK; the next transaction commits", async () => {
    const answers = await same([
      ["BEGIN"],
      ["INSERT INTO items (id, name) VALUES ($1, $2)", [4, "four"]],
      ["INSERT INTO items (id, name) VALUES ($1, $2)", [1, "dup"]],
      ["SELECT count(*)::int AS n FROM items WHERE id > $1", [0]],
      ["ROLLBACK"],
      ["SELECT count(*)::int AS n FROM items WHERE id = $1", [4]],
      ["BEGIN"],
      ["INSERT INTO items (id, name) VALUES ($1, $2)", [5, "five"]],
      ["COMMIT"],
      ["SELECT name FROM items WHERE id = $1", [5]],
      reset
    ])
    expect(answers[2]).toMatchObject({ error: "23505" })
    expect(answers[3]).toMatchObject({ error: "25P02" })
    expect(answers[5]).toEqual({ rows: [{ n: 0 }], command: "SELECT" })
    expect(answers[9]).toEqual({ rows: [{ name: "five" }], command: "SELECT" })
  })

  it("an error in a savepoint is rolled back to it and the transaction commits the rest", async () => {
    const answers = await same([
      ["BEGIN"],
      ["INSERT INTO items (id, name) VALUES ($1, $2)", [6, "six"]],
      ["SAVEPOINT a"],
      ["INSERT INTO items (id, name) VALUES ($1, $2)", [7, ""]],
      ["ROLLBACK TO SAVEPOINT a"],
      ["SAVEPOINT b"],
      ["SELECT id FROM items WHERE ref = $1", ["x"]],
      ["ROLLBACK TO SAVEPOINT b"],
      ["INSERT INTO items (id, name) VALUES ($1, $2)", [8, "eight"]],
      ["COMMIT"],
      ["SELECT id FROM items WHERE id > $1 ORDER BY id", [1]],
      reset
    ])
    expect(answers[3]).toMatchObject({ error: "23514" })
    expect(answers[6]).toMatchObject({ error: "22P02" })
    expect(answers[10]).toEqual({ rows: [{ id: 6 }, { id: 8 }], command: "SELECT" })
  })

  it("a value node-postgres cannot serialise fails that query only", async () => {
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const client = await batching[statements].connect()
    try {
      await expect(client.query("SELECT $1::jsonb AS v", [circular])).rejects.toThrow()
      expect((await client.query("SELECT $1::int + 1 AS n", [1])).rows).toEqual([{ n: 2 }])
    } finally {
      client.release()
    }
  })

  it("a client the pool discards (released with an error) leaves the next client working", async () => {
    const pool = batching[statements]
    const discarded = await pool.connect()
    expect((await discarded.query("SELECT 1 AS n")).rows).toEqual([{ n: 1 }])
    expect((await discarded.query("SELECT $1::int AS n", [1])).rows).toEqual([{ n: 1 }])
    discarded.release(new Error("discard this client"))
    expect((await pool.query("SELECT 2 AS n")).rows).toEqual([{ n: 2 }])
    // The next client shares the connection and PGlite's session, and so the statements prepared in it.
    expect((await pool.query("SELECT $1::int AS n", [3])).rows).toEqual([{ n: 3 }])
  })

  it.runIf(statements === "unnamed")("hands PGlite one buffer per statement (five messages with parameters)", async () => {
    const calls: Array<number> = []
    // The engine the connection sees: this PGlite, each call counted.
    const counted: PgliteEngine = {
      waitReady: db.waitReady,
      execProtocolStream: (message, options) => {
        calls.push(message.length)
        return db.execProtocolStream(message, options)
      }
    }
    const pool = new Pg.Pool({ ...batchingPgConfig(counted) } as unknown as Pg.PoolConfig)
    try {
      const client = await pool.connect()
      calls.length = 0
      expect((await client.query("SELECT $1::int * 2 AS n", [21])).rows).toEqual([{ n: 42 }])
      expect(calls).toHaveLength(1)
      client.release()
    } finally {
      await pool.end()
    }
  })
})

// On the file's database (a PGlite copy costs about 1 s of CPU): statement texts and the table no other test uses.
describe("prepared statements on PGlite (PreparingClient)", () => {
  it("parses a statement once: its next run sends bind, execute and sync only", async () => {
    const sent: Array<string> = []
    const recorded: PgliteEngine = {
      waitReady: db.waitReady,
      execProtocolStream: (message, options) => {
        sent.push(String.fromCharCode(message[0]!))
        return db.execProtocolStream(message, options)
      }
    }
    const pool = new Pg.Pool({ ...batchingPgConfig(recorded), Client: PreparingClient } as unknown as Pg.PoolConfig)
    try {
      const text = "SELECT $1::int * 3 AS n /* parsed once */"
      expect((await pool.query(text, [2])).rows).toEqual([{ n: 6 }])
      expect((await pool.query(text, [5])).rows).toEqual([{ n: 15 }])
      // Each buffer's first message: Parse ('P') the first time, Bind ('B') afterwards.
      expect(sent).toEqual(["P", "B"])
    } finally {
      await pool.end()
    }
  })

  it("a table changed under a prepared SELECT * is answered by the text unnamed (SQLSTATE 0A000 is not an error)", async () => {
    const pool = new Pg.Pool({ ...batchingPgConfig(db), Client: PreparingClient } as unknown as Pg.PoolConfig)
    try {
      await pool.query("CREATE TABLE shape (a integer)")
      await pool.query("INSERT INTO shape VALUES (1)")
      const text = "SELECT * FROM shape WHERE a = $1 /* changed under a prepared plan */"
      expect((await pool.query(text, [1])).rows).toEqual([{ a: 1 }])
      await pool.query("ALTER TABLE shape ADD COLUMN b integer DEFAULT 7")
      expect((await pool.query(text, [1])).rows).toEqual([{ a: 1, b: 7 }])
      expect((await pool.query(text, [1])).rows).toEqual([{ a: 1, b: 7 }])
    } finally {
      await pool.query("DROP TABLE shape")
      await pool.end()
    }
  })
})

describe("no backend to cancel", () => {
  it("a client over the batching connection has no processID, so an interrupted statement is not cancelled through the pool", async () => {
    // @effect/sql-pg cancels an interrupted statement with `SELECT pg_cancel_backend(processID)` on the pool unless
    // the client's processID is undefined; on PGlite the pool's one connection is the statement's own, so that
    // cancel waited out its 5 s time-out (every shutdown that interrupted a daemon's statement took 5 s longer).
    const client = await batching.prepared.connect()
    try {
      expect((client as unknown as { processID: unknown }).processID).toBeUndefined()
      expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }])
    } finally {
      client.release()
    }
  })
})
