import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, LogLevel, Logger, ManagedRuntime, Option, Redacted, type Tracer } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import Pg from "pg"
import { inject } from "vitest"
import { baseUrlOf, makeServicesLayer, ServerLayer, type DatabaseLayer } from "../../src/App.js"
import { AppConfig, type AppConfigShape } from "../../src/config/AppConfig.js"
import { pgliteLayerOn, postgresLayer, Tarball } from "../../src/db/Database.js"
import { type DatabasePool, makeDatabasePool } from "../../src/db/TemplatePool.js"
import * as Ids from "../../src/ids/Ids.js"
import * as ServiceClock from "../../src/clock/ServiceClock.js"
import { fetchOpenApiText, makeConformance } from "./OpenApiConformance.js"

/** Which database the suite runs on: PostgreSQL when TEST_DATABASE_URL is set, else PGlite. */
export const databaseKind = (): "postgres" | "pglite" => (inject("pgTemplate") ? "postgres" : "pglite")

/**
 * A fresh database for one test app, cloned from the migrated template: a PGlite data dir loaded from the
 * template tarball, or a PostgreSQL database created from the template database.
 */
export const testDatabaseLayer = async (): Promise<{ layer: DatabaseLayer; url?: string }> => {
  const pgTemplate = inject("pgTemplate")
  if (pgTemplate) {
    const serverUrl = process.env.TEST_DATABASE_URL!
    const name = `pmm_t_${NodeCrypto.randomBytes(6).toString("hex")}`
    const admin = new Pg.Client({ connectionString: serverUrl })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${pgTemplate}${inject("pgCreateStrategy")}`)
    await admin.end()
    const url = new URL(serverUrl)
    url.pathname = `/${name}`
    return {
      url: url.toString(),
      // The service's own PostgreSQL layer (prepared statements included), as `npm start` builds it.
      layer: postgresLayer(Redacted.make(url.toString()), 8)
    }
  }
  // On PGlite: a database of this worker's pool, in the template's state, given back when the layer is released
  // (the app closes). Test workers run file after file (vitest.config.ts), so most apps reuse a database instead of
  // unpacking a new copy of the template (src/db/TemplatePool.ts).
  const pool = pglitePool()
  return {
    layer: Layer.unwrapScoped(
      Effect.acquireRelease(Effect.promise(() => pool.take()), (db) => Effect.sync(() => pool.give(db))).pipe(
        Effect.map(pgliteLayerOn)
      )
    )
  }
}

let template: Blob | undefined
/**
 * The run's migrated PGlite template (test/support/globalSetup.ts) as a data-dir tarball: `PGlite.create({
 * loadDataDir })` or `pgliteLayer({ loadDataDir })` opens a copy in a fraction of what an initdb costs (about 2 s of
 * CPU, and the migrations after it). A suite that needs a PGlite of its own, even one without the service's tables,
 * starts from it.
 */
export const pgliteTemplate = (): Blob => (template ??= new Tarball(NodeFs.readFileSync(inject("pgliteTemplate"))))

let pool: DatabasePool | undefined
const pglitePool = (): DatabasePool => (pool ??= makeDatabasePool(pgliteTemplate(), 2))

export const testConfig = (overrides: Partial<AppConfigShape> = {}): AppConfigShape => ({
  port: 0,
  host: "127.0.0.1",
  dataDir: ":memory:",
  databaseUrl: Option.none(),
  mode: "sandbox",
  encryptionKey: Option.some(Redacted.make("11".repeat(32))),
  logLevel: LogLevel.Warning,
  maxJsonBodyBytes: 1024 * 1024,
  actorMailboxCapacity: 256,
  actorIdleMs: 60_000,
  actorsMax: 10_000,
  webhookTimeoutMs: 10_000,
  // Console password hashes at scrypt's N = 2^10 (about 1 ms) instead of 2^15: suites sign in hundreds of times.
  consolePasswordCost: 10,
  ...overrides
})

export interface Reply<T = any> {
  readonly status: number
  readonly body: T
  readonly headers: Headers
}

export interface RequestOptions {
  readonly apiKey?: string | undefined
  readonly body?: unknown
  readonly rawBody?: string | Uint8Array | undefined
  readonly headers?: Record<string, string> | undefined
}

export interface TestApp {
  /** `http://127.0.0.1:<port>/api/v1` */
  readonly baseUrl: string
  readonly request: <T = any>(method: string, path: string, options?: RequestOptions) => Promise<Reply<T>>
  /** Creates a sandbox partner and returns its API key. */
  readonly newPartner: (kybStatus?: "APPROVED" | "PENDING" | "REJECTED") => Promise<{ partnerId: string; apiKey: string }>
  /** Runs raw SQL on the app's database (for checks that a failed request wrote nothing). */
  readonly query: <T = Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<T>>
  /** Runs an effect with the app's services. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>
  readonly close: () => Promise<void>
  /** The app's database (its URL on PostgreSQL), to start a second app on it. */
  readonly database?: { readonly layer: DatabaseLayer; readonly url?: string }
}

/**
 * The checker of a document, one per document and process: its ajv validators are compiled on first use, schema by
 * schema, and the test workers run file after file (vitest.config.ts) with apps that mostly serve the same document.
 * Only `assertDescribed` is used here, which keeps no state but those validators (and a coverage list nobody reads).
 */
const conformances = new Map<string, ReturnType<typeof makeConformance>>()
/** The checker of the document `baseUrl` serves, keyed by the document's text (parsed only when it is new). */
const conformanceOf = async (baseUrl: string) => {
  const text = await fetchOpenApiText(baseUrl)
  let conformance = conformances.get(text)
  if (conformance === undefined) {
    conformance = makeConformance(JSON.parse(text))
    conformances.set(text, conformance)
  }
  return conformance
}

/** Starts the whole service on a loopback port with a fresh database; talk to it with real HTTP. */
export const startTestApp = async (
  options: {
    readonly config?: Partial<AppConfigShape>
    readonly seed?: string
    readonly wallClock?: boolean
    /** Check every response against the OpenAPI document (default); off only for tests of the checker itself. */
    readonly conformance?: boolean
    /** An existing database (another app's `database`): two apps on one database act as two processes. */
    readonly database?: { readonly layer: DatabaseLayer; readonly url?: string }
    /** The tracer the whole app is built with (Effect's own by default): to count the spans it is asked for. */
    readonly tracer?: Tracer.Tracer
  } = {}
): Promise<TestApp> => {
  const database = options.database ?? await testDatabaseLayer()
  const config = testConfig(options.config)
  const ids = options.seed === undefined ? Ids.layer : Ids.layerSeeded(options.seed)
  // A frozen service clock (starting now): time moves only when a test advances it, so "still pending one second
  // before the deadline" holds however slowly a loaded machine runs the test.
  const clock = options.wallClock === true ? ServiceClock.layer : ServiceClock.layerFixed(new Date())
  const layer = ServerLayer.pipe(
    Layer.provideMerge(makeServicesLayer(database.layer, ids, clock)),
    Layer.provide(Logger.minimumLogLevel(config.logLevel)),
    Layer.provideMerge(Layer.succeed(AppConfig, config)),
    Layer.provide(options.tracer === undefined ? Layer.empty : Layer.setTracer(options.tracer))
  )
  const runtime = ManagedRuntime.make(layer as Layer.Layer<any, any, never>)
  const server = await runtime.runPromise(HttpServer.HttpServer as Effect.Effect<HttpServer.HttpServer, never, any>)
  const baseUrl = baseUrlOf(server.address)

  const agent = new NodeHttp.Agent({ keepAlive: true })
  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...opts.headers }
    if (opts.apiKey !== undefined) headers["x-api-key"] = opts.apiKey
    let body: string | Uint8Array | undefined = opts.rawBody
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers["content-type"] ??= "application/json"
    }
    const response = await send(agent, method, baseUrl + path, headers, body)
    let parsed: unknown = response.text
    try {
      parsed = response.text === "" ? undefined : JSON.parse(response.text)
    } catch {
      parsed = response.text
    }
    return { status: response.status, body: parsed as T, headers: response.headers }
  }

  const run = <A, E>(effect: Effect.Effect<A, E, any>) => runtime.runPromise(effect as Effect.Effect<A, E, never>)

  // Every response any suite receives must be one the OpenAPI document describes (status, content type, body).
  const basePath = new URL(baseUrl).pathname.replace(/\/$/, "")
  const conformance = options.conformance === false ? undefined : await conformanceOf(baseUrl)
  const checkedRequest = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> => {
    const reply = await request<T>(method, path, opts)
    conformance?.assertDescribed({
      method,
      path: basePath + path,
      status: reply.status,
      contentType: reply.headers.get("content-type"),
      body: reply.body
    })
    return reply
  }

  return {
    baseUrl,
    request: checkedRequest,
    newPartner: async (kybStatus = "APPROVED") => {
      const reply = await request<any>("POST", "/sandbox/partners", { body: { kybStatus } })
      if (reply.status !== 201) throw new Error(`partner creation failed: ${JSON.stringify(reply.body)}`)
      return { partnerId: reply.body.data.partnerId, apiKey: reply.body.data.apiKey }
    },
    query: (text, params = []) =>
      run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text, params as Array<any>))) as Promise<ReadonlyArray<any>>,
    run,
    close: async () => {
      agent.destroy()
      await runtime.dispose()
    },
    database
  }
}

/**
 * One request over node:http with a keep-alive agent, as `fetch` would send it (a string body without a content type
 * goes as text/plain, every body with its Content-Length); the answer's headers as a `Headers`. Cheaper than undici's
 * `fetch` in the test process, which serves the suites' tens of thousands of requests.
 */
const send = (agent: NodeHttp.Agent, method: string, url: string, headers: Record<string, string>, body: string | Uint8Array | undefined) =>
  new Promise<{ readonly status: number; readonly headers: Headers; readonly text: string }>((resolve, reject) => {
    const outgoing: Record<string, string> = { ...headers }
    const has = (name: string) => Object.keys(outgoing).some((key) => key.toLowerCase() === name)
    if (body !== undefined) {
      if (typeof body === "string" && !has("content-type")) outgoing["content-type"] = "text/plain;charset=UTF-8"
      if (!has("content-length")) outgoing["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength)
    }
    const req = NodeHttp.request(url, { method, headers: outgoing, agent }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("error", reject)
      res.on("end", () => {
        const received = new Headers()
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) received.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!)
        resolve({ status: res.statusCode ?? 0, headers: received, text: Buffer.concat(chunks).toString("utf8") })
      })
    })
    req.on("error", reject)
    req.end(body)
  })

/** A valid customer body; override any field. */
export const customerBody = (overrides: Record<string, unknown> = {}) => ({
  firstName: "Ada",
  lastName: "Obi",
  email: `ada.${NodeCrypto.randomBytes(4).toString("hex")}@example.com`,
  phoneNumber: "+2348012345678",
  country: "NG",
  ...overrides
})

