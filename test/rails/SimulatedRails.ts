import { SqlClient } from "@effect/sql"
import { Effect, Layer, Logger, Option, Schema } from "effect"
import { makeServicesLayer } from "../../src/App.js"
import * as ServiceClock from "../../src/clock/ServiceClock.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import { Customers } from "../../src/customers/Customers.js"
import { CreateCustomer } from "../../src/customers/Api.js"
import * as Ids from "../../src/ids/Ids.js"
import { Jobs } from "../../src/jobs/Jobs.js"
import type { RailJob } from "../../src/rails/RailJob.js"
import { Partners } from "../../src/partners/Partners.js"
import { testConfig, testDatabaseLayer } from "../support/TestApp.js"

/**
 * The app's own services (src/App.ts `makeServicesLayer`, which wires the simulators) over a fresh test database
 * (PGlite from the migrated template, or PostgreSQL with TEST_DATABASE_URL), with a frozen service clock: a rail's
 * job scheduled with a delay stays PENDING until a test advances the clock, so the jobs table shows exactly what
 * the simulator scheduled. Built in the suite's `beforeAll` (`it.layer`), torn down in its `afterAll`.
 */
export const simulatedServicesLayer = Layer.unwrapEffect(
  Effect.promise(() => testDatabaseLayer()).pipe(
    Effect.map(({ layer }) => {
      const config = testConfig()
      return makeServicesLayer(layer, Ids.layer, ServiceClock.layerFixed(new Date())).pipe(
        Layer.provide(Logger.minimumLogLevel(config.logLevel)),
        Layer.provideMerge(Layer.succeed(AppConfig, config))
      )
    })
  )
)

export interface Subject {
  readonly partnerId: string
  readonly customerId: string
}

/**
 * A fresh sandbox partner and one of its customers: the simulators write jobs that reference both (foreign keys),
 * and a fresh partner starts from the default rail policies.
 */
export const newSubject = (country = "NG") =>
  Effect.gen(function*() {
    const partners = yield* Partners
    const customers = yield* Customers
    const { partner } = yield* partners.create({ name: "Rail contract partner", kybStatus: "APPROVED" })
    const input = yield* Schema.decodeUnknown(CreateCustomer)({
      firstName: "Ada",
      lastName: "Obi",
      email: `ada.${partner.id.slice(0, 8)}@example.com`,
      phoneNumber: "+2348012345678",
      country
    })
    const customer = yield* customers.create(partner.id, input)
    return { partnerId: partner.id, customerId: customer.id } satisfies Subject
  }).pipe(Effect.orDie)

export interface JobRow {
  readonly kind: string
  readonly partnerId: string
  readonly customerId: string | null
  readonly runAt: Date
  readonly status: string
  readonly payload: Record<string, unknown>
}

/**
 * What a money command does with the job a rail hands back (src/rails/RailJob.ts): writes it in its creating
 * transaction (the service carries it in the journal statement; here it is written on its own, the same row).
 */
export const writeRailJob = (job: Option.Option<RailJob>) =>
  Option.match(job, { onNone: () => Effect.void, onSome: (each) => Effect.flatMap(Jobs, (jobs) => Effect.asVoid(jobs.schedule(each))) })

/** The partner's jobs, oldest first (portable SQL: PGlite and PostgreSQL). */
export const jobsOf = (partnerId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ kind: string; partnerId: string; customerId: string | null; runAt: Date | string; status: string; payload: string }>`
      SELECT kind, partner_id, customer_id, run_at, status, payload::text AS payload FROM jobs
      WHERE partner_id = ${partnerId} ORDER BY seq`
    return rows.map((row): JobRow => ({
      kind: row.kind,
      partnerId: row.partnerId,
      customerId: row.customerId,
      runAt: new Date(row.runAt),
      status: row.status,
      payload: JSON.parse(row.payload)
    }))
  }).pipe(Effect.orDie)

/** Now on the service clock (frozen in these suites). */
export const serviceNow = Effect.flatMap(ServiceClock.ServiceClock, (clock) => clock.now)
