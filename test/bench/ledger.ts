import type { CustomerId, PartnerId } from "../../src/api/Ids.js"
/**
 * Ledger micro-benchmark: postings per second for one hot customer and for many customers, on PGlite and on
 * PostgreSQL, with the invariant checker at the end. Prints figures; asserts nothing about speed.
 *
 *   npm run bench:ledger                      # PGlite, plus PostgreSQL on a throwaway cluster if /usr/lib/postgresql/15 exists
 *   BENCH_DATABASE_URL=postgres://... npm run bench:ledger
 */
import { Effect } from "effect"
import { type BenchDatabase, benchConfig, onEachDatabase, withServices } from "./BenchSupport.js"
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

const config = benchConfig("22".repeat(32))

const credit = (partnerId: string, customerId: string, amount: bigint) =>
  Effect.gen(function*() {
    const actors = yield* CustomerActors
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    return yield* actors.run(partnerId as PartnerId, customerId as CustomerId, () =>
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

const run = (label: string, database: BenchDatabase) =>
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
  }).pipe((effect) => withServices(config, database, effect))

onEachDatabase(run)
