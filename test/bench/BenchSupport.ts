/**
 * What every benchmark shares: the service configuration, the services over a database, and running the same
 * benchmark on PGlite and on PostgreSQL (BENCH_DATABASE_URL, or a throwaway PostgreSQL 15 cluster from .ci/pg.sh).
 */
import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, LogLevel, Logger, ManagedRuntime, Option, Redacted, String as Str } from "effect"
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import { makeServicesLayer } from "../../src/App.js"
import { AppConfig, type AppConfigShape } from "../../src/config/AppConfig.js"
import { pgliteLayer } from "../../src/db/Database.js"

export type BenchDatabase = Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown, AppConfig>

export const benchConfig = (encryptionKeyHex: string): AppConfigShape => ({
  port: 0, host: "127.0.0.1", dataDir: ":memory:", databaseUrl: Option.none(), mode: "sandbox",
  encryptionKey: Option.some(Redacted.make(encryptionKeyHex)), logLevel: LogLevel.Warning, maxJsonBodyBytes: 1 << 20,
  actorMailboxCapacity: 4096, actorIdleMs: 60_000, actorsMax: 10_000, webhookTimeoutMs: 10_000
})

/** Runs a benchmark with the service's layers over `database`. */
export const withServices = <A, E>(config: AppConfigShape, database: BenchDatabase, effect: Effect.Effect<A, E, any>) =>
  effect.pipe(
    Effect.provide(makeServicesLayer(database as never).pipe(
      Layer.provide(Logger.minimumLogLevel(LogLevel.Warning)),
      Layer.provideMerge(Layer.succeed(AppConfig, config))
    )),
    Effect.scoped
  ) as Effect.Effect<A, E, never>

const pgLayer = (url: string): BenchDatabase =>
  PgClient.layer({
    transformResultNames: Str.snakeToCamel, transformQueryNames: Str.camelToSnake, url: Redacted.make(url), maxConnections: 16
  })

/** Runs `bench` on in-memory PGlite, then on PostgreSQL; exits non-zero on any error. */
export const onEachDatabase = (bench: (label: string, database: BenchDatabase) => Effect.Effect<void, unknown, never>) => {
  const main = async () => {
    await ManagedRuntime.make(Layer.empty).runPromise(bench("PGlite (in memory)", pgliteLayer({})))
    let url = process.env.BENCH_DATABASE_URL
    let cluster: string | undefined
    if (url === undefined && NodeFs.existsSync("/usr/lib/postgresql/15/bin/initdb")) {
      const env = execFileSync("bash", [".ci/pg.sh", "start"], { encoding: "utf8" })
      cluster = /PG_TMP=(\S+)/.exec(env)?.[1]
      url = /TEST_DATABASE_URL=(\S+)/.exec(env)?.[1]
    }
    try {
      if (url !== undefined) await ManagedRuntime.make(Layer.empty).runPromise(bench("PostgreSQL 15", pgLayer(url)))
      else console.log("PostgreSQL: skipped (set BENCH_DATABASE_URL)")
    } finally {
      if (cluster !== undefined) execFileSync("bash", [".ci/pg.sh", "stop", cluster])
    }
  }
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
