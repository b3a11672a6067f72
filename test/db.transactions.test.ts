import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Either, ManagedRuntime, Redacted, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Database from "../src/db/Database.js"
import { pgliteTemplate } from "./support/TestApp.js"

/**
 * Transactions through the service's database layers (src/db/Database.ts: @effect/sql-pg over our pools), on the
 * suite's database (PostgreSQL with TEST_DATABASE_URL, else PGlite): rows renamed inside and outside a transaction,
 * one span per statement (@effect/sql's own path: nothing of the library is replaced), rollback, errors as
 * `SqlError`, savepoints.
 */
const serverUrl = process.env.TEST_DATABASE_URL
const table = `transaction_items_${process.pid}_${Date.now().toString(36)}`

const layer = serverUrl !== undefined
  ? Database.postgresLayer(Redacted.make(serverUrl), 2)
  : Database.pgliteLayer({ loadDataDir: pgliteTemplate() })
let runtime: { run: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Promise<A>; close: () => Promise<void> }

beforeAll(async () => {
  const managed = ManagedRuntime.make(layer)
  runtime = { run: (effect) => managed.runPromise(effect), close: () => managed.dispose() }
  await runtime.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(`CREATE TABLE ${table} (item_id integer PRIMARY KEY, item_name text NOT NULL CHECK (length(item_name) > 0))`)))
}, 60_000)
afterAll(async () => {
  await runtime?.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP TABLE IF EXISTS ${table}`)))
  await runtime?.close()
})

/** Runs `effect` with a tracer that counts the spans named `sql.execute` (one per statement on the library's path). */
const countingStatementSpans = async <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => {
  let spans = 0
  const counted = Effect.flatMap(Effect.tracer, (base) =>
    effect.pipe(Effect.withTracer(Tracer.make({
      span: (name, parent, context, links, startTime, kind, options) => {
        if (name === "sql.execute") spans++
        return base.span(name, parent, context, links, startTime, kind, options)
      },
      context: base.context
    }))))
  const result = await runtime.run(counted.pipe(Effect.withTracerEnabled(true)))
  return { result, spans }
}

describe("statements in and out of a transaction", () => {
  it("take the library's path inside and outside a transaction, with rows renamed either way", async () => {
    const inside = await countingStatementSpans(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(Effect.all([sql`SELECT 1 AS some_value`, sql`SELECT 2 AS other_value`]))))
    expect(inside.result).toEqual([[{ someValue: 1 }], [{ otherValue: 2 }]])
    expect(inside.spans).toBe(2)
    const outside = await countingStatementSpans(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 3 AS some_value`))
    expect(outside.result).toEqual([{ someValue: 3 }])
    expect(outside.spans).toBe(1)
  })

  it("a failing statement fails with SqlError, rolls the transaction back, and a savepoint keeps its neighbours", async () => {
    const failed = await runtime.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO ${sql(table)} (item_id, item_name) VALUES (1, 'kept only if committed')`
        yield* sql`INSERT INTO ${sql(table)} (item_id, item_name) VALUES (2, '')`
      })).pipe(Effect.either)))
    expect(Either.isLeft(failed)).toBe(true)
    if (Either.isLeft(failed)) expect((failed.left as SqlError.SqlError)._tag).toBe("SqlError")

    await runtime.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO ${sql(table)} (item_id, item_name) VALUES (3, 'outer')`
        const inner = yield* sql.withTransaction(sql`INSERT INTO ${sql(table)} (item_id, item_name) VALUES (4, '')`).pipe(Effect.either)
        expect(Either.isLeft(inner)).toBe(true)
        yield* sql`INSERT INTO ${sql(table)} (item_id, item_name) VALUES (5, 'after the savepoint')`
      }))))
    const rows = await runtime.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ itemId: number }>`SELECT item_id FROM ${sql(table)} ORDER BY item_id`))
    expect(rows.map((row) => row.itemId)).toEqual([3, 5])
  })
})
