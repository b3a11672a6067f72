/**
 * The smallest servers that do a request's transport work and nothing else, for `npm run bench:floor`
 * (test/bench/floor.ts): what any service in this stack pays per request before its own logic.
 *
 *   node --import tsx test/bench/floorServer.ts MODE     (DATABASE_URL for the modes with statements)
 *
 * MODE is `<stack>-<round trips>`, `<stack>-post` or `<stack>-page`:
 *   - stack `node`: node:http and node-postgres (a pool of 10, named prepared statements), no framework;
 *     `effect`: an @effect/platform HttpApi (schema-decoded path and payload, encoded response) served by
 *     NodeHttpServer, statements through @effect/sql-pg (the same layer the service builds on).
 *   - round trips `0`: `GET /read0` answers a small JSON body; `1`: `GET /read1/:n` runs one statement
 *     (`SELECT $1::int`), as a balance read does; `7`: `POST /write7` with a JSON body runs BEGIN, five statements
 *     and COMMIT, one round trip each (a withdrawal's seven); `post`: `POST /post0` with the same JSON body and no
 *     statement (what reading and decoding a body costs); `page`: `GET /page` runs one statement that returns 21 rows
 *     shaped like a customer list's (13 columns: ids, names, email, phone, country, currency, a cursor `seq`, three
 *     timestamps, one of them null) and answers the first 20 as a page envelope, each item encoded (`effect`: a
 *     Schema with the customer's field types, dates as ISO text) — what a list page of 20 costs before any of its
 *     logic (no authentication, no cursor signing, no row decoding).
 * The statements are trivial on purpose: PostgreSQL's share is the protocol's, not a domain's.
 * Prints `listening <port>` once it accepts connections.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schema } from "effect"
import * as NodeHttp from "node:http"
import Pg from "pg"

const mode = process.argv[2] ?? ""
const [stack, tripsText] = mode.split("-")
const trips = tripsText === "post" ? 0 : tripsText === "page" ? 1 : Number(tripsText)
if ((stack !== "node" && stack !== "effect") || !["0", "1", "7", "post", "page"].includes(tripsText ?? "")) {
  console.error("usage: floorServer.ts (node|effect)-(0|1|7|post|page)")
  process.exit(2)
}
const databaseUrl = process.env.DATABASE_URL ?? ""
/** 21 rows of a customer list's shape (one more than the page, as a list reads to know whether a next page exists). */
const pageText = `
  SELECT '7a000000-0000-4000-8000-' || lpad(g::text, 12, '0') AS "id", (1000000 - g)::int8 AS "seq",
    '7a000000-0000-4000-8000-000000000099' AS "partnerId", 'Ada' AS "firstName", 'Obi' AS "lastName",
    NULL::text AS "middleName", 'ada' || g || '@example.com' AS "email", '+2348012345678' AS "phoneNumber",
    'NG' AS "country", 'NGN' AS "currency", NULL::timestamptz AS "verifiedAt",
    timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute' AS "createdAt",
    timestamptz '2026-01-02 00:00:00+00' + g * interval '1 minute' AS "updatedAt"
  FROM generate_series(1, $1::int) AS g`
const body = (n: number) => JSON.stringify({ success: true, statusCode: 200, data: { n, currency: "NGN", balance: 1000.5 } })

if (stack === "node") {
  const pool = trips > 0 ? new Pg.Pool({ connectionString: databaseUrl, max: 10 }) : undefined
  const one = { name: "floor_one", text: "SELECT $1::int AS n" }
  const answer = (response: NodeHttp.ServerResponse, status: number, text: string) => {
    response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    response.end(text)
  }
  const server = NodeHttp.createServer((request, response) => {
    if (request.method === "GET" && request.url === "/read0") return answer(response, 200, body(0))
    if (request.method === "GET" && request.url?.startsWith("/read1/")) {
      const n = Number(request.url.slice("/read1/".length))
      pool!.query({ ...one, values: [n] }).then(
        (result) => answer(response, 200, body(result.rows[0].n)),
        (error) => answer(response, 500, JSON.stringify({ error: String(error) }))
      )
      return
    }
    if (request.method === "GET" && request.url === "/page") {
      pool!.query({ name: "floor_page", text: pageText, values: [21] }).then(
        (result) => answer(response, 200, JSON.stringify({ success: true, data: result.rows.slice(0, 20), meta: { nextCursor: String(result.rows[20].seq) } })),
        (error) => answer(response, 500, JSON.stringify({ error: String(error) }))
      )
      return
    }
    if (request.method === "POST" && request.url === "/post0") {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { amount: number }
        answer(response, 201, body(input.amount))
      })
      return
    }
    if (request.method === "POST" && request.url === "/write7") {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", async () => {
        const client = await pool!.connect()
        try {
          const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { amount: number }
          await client.query("BEGIN")
          let n = 0
          for (let i = 0; i < 5; i++) n = (await client.query({ ...one, values: [input.amount + i] })).rows[0].n
          await client.query("COMMIT")
          answer(response, 201, body(n))
        } catch (error) {
          await client.query("ROLLBACK").catch(() => undefined)
          answer(response, 500, JSON.stringify({ error: String(error) }))
        } finally {
          client.release()
        }
      })
      return
    }
    answer(response, 404, "{}")
  })
  server.keepAliveTimeout = 60_000
  // Exit (not die) on a signal, so `node --cpu-prof` writes its profile.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(0))
  server.listen(0, "127.0.0.1", () => console.log(`listening ${(server.address() as { port: number }).port}`))
} else {
  const Answer = Schema.Struct({ n: Schema.Number, currency: Schema.String, balance: Schema.Number })
  const Envelope = Schema.Struct({ success: Schema.Boolean, statusCode: Schema.Number, data: Answer })
  const Item = Schema.Struct({
    id: Schema.UUID, firstName: Schema.String, lastName: Schema.String, middleName: Schema.NullOr(Schema.String),
    email: Schema.String, phoneNumber: Schema.String, country: Schema.String, verifiedAt: Schema.NullOr(Schema.Date),
    createdAt: Schema.Date, updatedAt: Schema.Date
  })
  const Page = Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(Item), meta: Schema.Struct({ nextCursor: Schema.NullOr(Schema.String) }) })
  type Row = typeof Item.Type & { readonly seq: string }
  const Api = HttpApi.make("floor").add(
    HttpApiGroup.make("floor")
      .add(HttpApiEndpoint.get("page", "/page").addSuccess(Page))
      .add(HttpApiEndpoint.get("read0", "/read0").addSuccess(Envelope))
      .add(HttpApiEndpoint.get("read1", "/read1/:n").setPath(Schema.Struct({ n: Schema.NumberFromString })).addSuccess(Envelope))
      .add(HttpApiEndpoint.post("post0", "/post0").setPayload(Schema.Struct({ amount: Schema.Number, reference: Schema.String }))
        .addSuccess(Envelope, { status: 201 }))
      .add(HttpApiEndpoint.post("write7", "/write7").setPayload(Schema.Struct({ amount: Schema.Number, reference: Schema.String }))
        .addSuccess(Envelope, { status: 201 }))
  )
  const envelope = (n: number) => ({ success: true, statusCode: 200, data: { n, currency: "NGN", balance: 1000.5 } })
  const one = (sql: SqlClient.SqlClient, n: number) =>
    Effect.map(sql<{ n: number }>`SELECT ${n}::int AS n`, (rows) => rows[0]!.n)
  const FloorLive = HttpApiBuilder.group(Api, "floor", (handlers) =>
    Effect.gen(function*() {
      const sql = trips > 0 ? yield* SqlClient.SqlClient : undefined
      return handlers
        .handle("read0", () => Effect.succeed(envelope(0)))
        .handle("post0", ({ payload }) => Effect.succeed(envelope(payload.amount)))
        .handle("page", () =>
          Effect.map(sql!.unsafe<Row>(pageText, [21]), (rows) => ({
            success: true as const, data: rows.slice(0, 20), meta: { nextCursor: String(rows[20]!.seq) }
          })).pipe(Effect.orDie))
        .handle("read1", ({ path }) => Effect.map(one(sql!, path.n), envelope).pipe(Effect.orDie))
        .handle("write7", ({ payload }) =>
          sql!.withTransaction(Effect.gen(function*() {
            let n = 0
            for (let i = 0; i < 5; i++) n = yield* one(sql!, payload.amount + i)
            return envelope(n)
          })).pipe(Effect.orDie))
    }))
  const database = trips > 0
    ? PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 10 })
    : Layer.succeed(SqlClient.SqlClient, undefined as unknown as SqlClient.SqlClient)
  const server = NodeHttp.createServer()
  server.keepAliveTimeout = 60_000
  const ServerLive = HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(FloorLive), Layer.provide(database))),
    Layer.provide(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }))
  )
  server.once("listening", () => console.log(`listening ${(server.address() as { port: number }).port}`))
  NodeRuntime.runMain(Layer.launch(ServerLive))
}
