import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime, Option, Redacted, String as Str } from "effect"
import * as NodeCrypto from "node:crypto"
import Pg from "pg"
import { baseUrlOf, makeServicesLayer, ServerLayer, type DatabaseLayer } from "../../src/App.js"
import { AppConfig, type AppConfigShape } from "../../src/config/AppConfig.js"
import { pgliteLayer } from "../../src/db/Database.js"
import * as Ids from "../../src/ids/Ids.js"
import * as ServiceClock from "../../src/clock/ServiceClock.js"
// Types only: importing TestApp.ts's values would load vitest, which refuses to run outside its runner.
import type { Reply, RequestOptions, TestApp } from "../support/TestApp.js"

/**
 * The in-process server for the long fuzz run (`npm run fuzz`), outside vitest: the same layers as
 * `startTestApp` (test/support/TestApp.ts uses vitest's `inject` for its template database, so it only works under
 * vitest). PGlite in memory by default; with `databaseUrl` a throwaway PostgreSQL database is created on that
 * server (and dropped by `close`). Migrations run on start (makeServicesLayer applies them).
 */
export const startFuzzApp = async (options: { readonly databaseUrl?: string | undefined; readonly seed?: string; readonly logLevel?: LogLevel.LogLevel } = {}): Promise<TestApp> => {
  let database: DatabaseLayer
  let drop: (() => Promise<void>) | undefined
  if (options.databaseUrl !== undefined && options.databaseUrl !== "") {
    const name = `pmm_fuzz_${NodeCrypto.randomBytes(6).toString("hex")}`
    const admin = new Pg.Client({ connectionString: options.databaseUrl })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    const url = new URL(options.databaseUrl)
    url.pathname = `/${name}`
    database = PgClient.layer({
      transformResultNames: Str.snakeToCamel,
      transformQueryNames: Str.camelToSnake,
      url: Redacted.make(url.toString()),
      maxConnections: 8
    })
    drop = async () => {
      const cleanup = new Pg.Client({ connectionString: options.databaseUrl })
      await cleanup.connect()
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await cleanup.end()
    }
  } else {
    database = pgliteLayer({})
  }
  // The same values as testConfig() in test/support/TestApp.ts.
  const config: AppConfigShape = {
    port: 0,
    host: "127.0.0.1",
    dataDir: ":memory:",
    databaseUrl: Option.none(),
    mode: "sandbox",
    encryptionKey: Option.some(Redacted.make("11".repeat(32))),
    logLevel: options.logLevel ?? LogLevel.None,
    maxJsonBodyBytes: 1024 * 1024,
    actorMailboxCapacity: 256,
    actorIdleMs: 60_000,
    actorsMax: 10_000,
    webhookTimeoutMs: 10_000,
    consolePasswordCost: 10,
    // As the CI fuzz: every hostile key and sign-in from one address is answered on its merits, not limited (the
    // limits on abuse have their own tests: test/limits.*.test.ts).
    authFailuresBurst: 0,
    signInFailuresBurst: 0
  }
  const ids = options.seed === undefined ? Ids.layer : Ids.layerSeeded(options.seed)
  const layer = ServerLayer.pipe(
    Layer.provideMerge(makeServicesLayer(database, ids, ServiceClock.layerFixed(new Date()))),
    Layer.provide(Logger.minimumLogLevel(config.logLevel)),
    Layer.provideMerge(Layer.succeed(AppConfig, config))
  )
  const runtime = ManagedRuntime.make(layer as Layer.Layer<any, any, never>)
  const server = await runtime.runPromise(HttpServer.HttpServer as Effect.Effect<HttpServer.HttpServer, never, any>)
  const baseUrl = baseUrlOf(server.address)
  const run = <A, E>(effect: Effect.Effect<A, E, any>) => runtime.runPromise(effect as Effect.Effect<A, E, never>)

  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...opts.headers }
    if (opts.apiKey !== undefined) headers["x-api-key"] = opts.apiKey
    let body: string | Uint8Array | undefined = opts.rawBody
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers["content-type"] ??= "application/json"
    }
    const response = await fetch(baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = text
    }
    return { status: response.status, body: parsed as T, headers: response.headers }
  }

  return {
    baseUrl,
    request,
    newPartner: async (kybStatus = "APPROVED") => {
      const reply = await request<any>("POST", "/sandbox/partners", { body: { kybStatus } })
      if (reply.status !== 201) throw new Error(`partner creation failed: ${JSON.stringify(reply.body)}`)
      return { partnerId: reply.body.data.partnerId, apiKey: reply.body.data.apiKey }
    },
    query: (text, params = []) =>
      run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text, params as Array<any>))) as Promise<ReadonlyArray<any>>,
    run,
    close: async () => {
      await runtime.dispose()
      if (drop !== undefined) await drop()
    }
  }
}
