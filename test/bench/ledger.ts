/**
 * Ledger micro-benchmark: postings per second for one hot customer and for many customers, on PGlite and on
 * PostgreSQL, with the invariant checker at the end. Prints figures; asserts nothing about speed.
 *
 *   npm run bench:ledger                      # PGlite, plus PostgreSQL on a throwaway cluster if /usr/lib/postgresql/15 exists
 *   BENCH_DATABASE_URL=postgres://... npm run bench:ledger
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, LogLevel, Logger, ManagedRuntime, Option, Redacted, String as Str } from "effect"
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import { makeServicesLayer } from "../../src/App.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import { pgliteLayer } from "../../src/db/Database.js"
import { Outbox } from "../../src/events/Events.js"
import { CustomerActors } from "../../src/ledger/CustomerActors.js"
import * as Ledger from "../../src/ledger/Ledger.js"
import { checkLedger } from "../../src/ledger/LedgerCheck.js"
import { Partners } from "../../src/partners/Partners.js"
import { Customers } from "../../src/customers/Customers.js"

const hotPostings = Number(process.env.BENCH_HOT_POSTINGS ?? 2000)
const manyCustomers = Number(process.env.BENCH_CUSTOMERS ?? 200)
const postingsPerCustomer = Number(process.env.BENCH_POSTINGS_PER_CUSTOMER ?? 10)
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32)

const config = {
  port: 0, host: "127.0.0.1", dataDir: ":memory:", databaseUrl: Option.none(), mode: "sandbox" as const,
  encryptionKey: Option.some(Redacted.make("22".repeat(32))), logLevel: LogLevel.Warning, maxJsonBodyBytes: 1 << 20,
  actorMailboxCapacity: 4096, actorIdleMs: 60_000, webhookTimeoutMs: 10_000
}

const credit = (partnerId: string, customerId: string, amount: bigint) =>
  Effect.gen(function*() {
    const actors = yield* CustomerActors
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    return yield* actors.run(partnerId, customerId, () =>
      Effect.gen(function*() {
        const event = yield* Effect.orDie(outbox.record({ partnerId, customerId, type: "bench.credit", data: { customerId } }))
        return yield* ledger.post({
          partnerId, customerId, reason: "deposit", resourceType: "bench", resourceId: event.envelope.id,
          eventId: event.envelope.id,
          postings: [
            { account: Ledger.available(customerId, "NGN"), amount },
            { account: Ledger.house("bank_settlement", "NGN"), amount: -amount }
          ]
        })
      }))
  })

const run = (label: string, database: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown, AppConfig>) =>
  Effect.gen(function*() {
    const partners = yield* Partners
    const customers = yield* Customers
    const { partner } = yield* partners.create({ name: "bench", kybStatus: "APPROVED" })
    const newCustomer = (i: number) =>
      Effect.map(customers.create(partner.id, {
        firstName: "Bench", lastName: `Customer${i}`, email: `bench${i}@example.com`, phoneNumber: "+2348012345678", country: "NG"
      }), (c) => c.id)
    const hot = yield* newCustomer(0)
    let started = performance.now()
    yield* Effect.forEach(Array.from({ length: hotPostings }), () => credit(partner.id, hot, 100n), { concurrency, discard: true })
    const hotSeconds = (performance.now() - started) / 1000
    const ids = yield* Effect.forEach(Array.from({ length: manyCustomers }, (_, i) => i + 1), newCustomer, { concurrency: 8 })
    started = performance.now()
    yield* Effect.forEach(
      ids.flatMap((id) => Array.from({ length: postingsPerCustomer }, () => id)),
      (id) => credit(partner.id, id, 100n),
      { concurrency, discard: true }
    )
    const manySeconds = (performance.now() - started) / 1000
    started = performance.now()
    const report = yield* checkLedger
    const checkSeconds = (performance.now() - started) / 1000
    console.log(`${label}`)
    console.log(`  one hot customer : ${hotPostings} postings in ${hotSeconds.toFixed(2)} s = ${(hotPostings / hotSeconds).toFixed(0)} postings/s`)
    const many = manyCustomers * postingsPerCustomer
    console.log(`  ${manyCustomers} customers    : ${many} postings in ${manySeconds.toFixed(2)} s = ${(many / manySeconds).toFixed(0)} postings/s (concurrency ${concurrency})`)
    console.log(`  invariant check  : ${report.transactions} transactions, ${report.entries} entries in ${checkSeconds.toFixed(2)} s, ${report.violations.length} violations`)
    if (report.violations.length > 0) {
      console.log(report.violations.join("\n"))
      process.exitCode = 1
    }
  }).pipe(
    Effect.provide(makeServicesLayer(database as never).pipe(
      Layer.provide(Logger.minimumLogLevel(LogLevel.Warning)),
      Layer.provideMerge(Layer.succeed(AppConfig, config))
    )),
    Effect.scoped
  )

const pgLayer = (url: string) =>
  PgClient.layer({
    transformResultNames: Str.snakeToCamel, transformQueryNames: Str.camelToSnake, url: Redacted.make(url), maxConnections: 16
  })

const main = async () => {
  await ManagedRuntime.make(Layer.empty).runPromise(run("PGlite (in memory)", pgliteLayer({})))
  let url = process.env.BENCH_DATABASE_URL
  let cluster: string | undefined
  if (url === undefined && NodeFs.existsSync("/usr/lib/postgresql/15/bin/initdb")) {
    const env = execFileSync("bash", [".ci/pg.sh", "start"], { encoding: "utf8" })
    cluster = /PG_TMP=(\S+)/.exec(env)?.[1]
    url = /TEST_DATABASE_URL=(\S+)/.exec(env)?.[1]
  }
  try {
    if (url !== undefined) await ManagedRuntime.make(Layer.empty).runPromise(run("PostgreSQL 15", pgLayer(url)))
    else console.log("PostgreSQL: skipped (set BENCH_DATABASE_URL)")
  } finally {
    if (cluster !== undefined) execFileSync("bash", [".ci/pg.sh", "stop", cluster])
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
