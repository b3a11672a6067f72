import * as HttpServer from "@effect/platform/HttpServer"
import { Layer, Logger, ManagedRuntime, Option, Redacted } from "effect"
import * as Crypto from "node:crypto"
import { baseUrlOf, makeServicesLayer, ServerLayer } from "../App.js"
import { AppConfig, type AppConfigShape } from "../config/AppConfig.js"
import type { PGlite } from "@electric-sql/pglite"
import { pgliteLayerOn } from "../db/Database.js"
export { makeDatabasePool } from "../db/TemplatePool.js"
import * as Ids from "../ids/Ids.js"
import * as ServiceClock from "../clock/ServiceClock.js"

/**
 * The service a scenario runs against. In-process, every scenario gets its own service (its own layers, caches,
 * actors and clock, ids seeded from the scenario's seed) over an in-memory PGlite in the state of one migrated
 * template: scenarios are isolated (clock, events, data) and replay the same ids.
 */
export interface Target {
  readonly baseUrl: string
  readonly close: () => Promise<void>
}

/** A migrated empty database as a PGlite data-dir tarball. */
export { migratedPgliteTemplate as makeTemplate } from "../db/Database.js"

/**
 * Where an in-process service's clock stands still until a scenario advances it: every scenario (whatever its
 * seed) reads this instant first, so the same file and seed give the same timestamps on every run.
 */
export const scenarioClockStart = new Date("2030-01-01T00:00:00.000Z")

/** Starts the whole service on a loopback port over `db` (in the template's state), its clock fixed at `clockStart`. */
export const startInProcess = async (base: AppConfigShape, db: PGlite, seed: string, clockStart: Date = scenarioClockStart): Promise<Target> => {
  const config: AppConfigShape = {
    ...base,
    port: 0,
    host: "127.0.0.1",
    mode: "sandbox",
    dataDir: ":memory:",
    databaseUrl: Option.none(),
    // derived from the seed: cursors and encrypted secrets are the same on every replay
    encryptionKey: Option.some(Redacted.make(Crypto.createHash("sha256").update(`scenario-key:${seed}`).digest("hex")))
  }
  const layer = ServerLayer.pipe(
    Layer.provideMerge(makeServicesLayer(pgliteLayerOn(db), Ids.layerSeeded(seed), ServiceClock.layerFixed(clockStart))),
    Layer.provide(Logger.minimumLogLevel(config.logLevel)),
    Layer.provideMerge(Layer.succeed(AppConfig, config))
  )
  const runtime = ManagedRuntime.make(layer as Layer.Layer<HttpServer.HttpServer, unknown, never>)
  try {
    const server = await runtime.runPromise(HttpServer.HttpServer)
    return { baseUrl: baseUrlOf(server.address), close: () => runtime.dispose() }
  } catch (error) {
    await runtime.dispose()
    throw error
  }
}

/** A service already running (`--url`): `http://host:port` or `http://host:port/api/v1`. */
export const remote = (url: string): Target => {
  const trimmed = url.replace(/\/+$/, "")
  return { baseUrl: trimmed.endsWith("/api/v1") ? trimmed : `${trimmed}/api/v1`, close: () => Promise.resolve() }
}
