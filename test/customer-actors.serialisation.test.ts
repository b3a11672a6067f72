import type { CustomerId, PartnerId } from "../src/api/Ids.js"
import { Deferred, Effect, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Jobs } from "../src/jobs/Jobs.js"
import { CustomerActors } from "../src/ledger/CustomerActors.js"
import { kycClient } from "./support/KycHelpers.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * One path for every change of a customer: a partner request (a command in the customer's actor), a reviewer's
 * KYC decision (sandbox control) and a scheduled job's handler on the same customer run one after the other,
 * never interleaved, because all three lock the customer row in CustomerActors and nowhere else.
 */
let app: TestApp
let partnerId: string
let apiKey: string
const log: Array<string> = []
const touchJob = "test.customer_touch"

beforeAll(async () => {
  app = await startTestApp()
  ;({ partnerId, apiKey } = await app.newPartner())
  await app.run(Effect.gen(function*() {
    const jobs = yield* Jobs
    const actors = yield* CustomerActors
    yield* jobs.register(touchJob, Schema.Struct({}), (_, job) =>
      actors.run(job.partnerId as PartnerId, (job.customerId ?? "") as CustomerId, () => Effect.sync(() => log.push("job"))))
  }))
})
afterAll(() => app?.close())

describe("customer changes are serialised", () => {
  it("a KYC decision and a job handler wait for a partner request in flight on the same customer", async () => {
    const kyc = kycClient(app, apiKey)
    const customerId = await kyc.newCustomer()
    expect((await kyc.tier1(customerId)).body.data.status).toBe("APPROVED")
    expect((await kyc.setIdentity({ mode: "manual" })).status).toBe(200)
    expect((await kyc.tier2(customerId)).body.data.status).toBe("PENDING")
    await app.run(Effect.flatMap(Jobs, (jobs) =>
      jobs.schedule({ kind: touchJob, partnerId, customerId, delaySeconds: 60, payload: {} })))

    let markStarted = () => {}
    const started = new Promise<void>((resolve) => (markStarted = resolve))
    const release = await app.run(Deferred.make<void>())
    const request = app.run(Effect.flatMap(CustomerActors, (actors) =>
      actors.run(partnerId as PartnerId, customerId as CustomerId, () =>
        Effect.gen(function*() {
          log.push("request:start")
          markStarted()
          yield* Deferred.await(release)
          log.push("request:end")
        }))))
    await started

    const decision = kyc.decide(customerId, 2, { status: "APPROVED" }).then((reply) => {
      log.push("decision")
      return reply
    })
    const advance = kyc.advance(60)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(log).toEqual(["request:start"])

    await app.run(Deferred.succeed(release, undefined))
    await request
    const [decided, advanced] = await Promise.all([decision, advance])
    expect(decided.status).toBe(200)
    expect(decided.body.data).toMatchObject({ level: 2, status: "APPROVED" })
    expect(advanced.status).toBe(200)
    expect(log.slice(0, 2)).toEqual(["request:start", "request:end"])
    expect([...log.slice(2)].sort()).toEqual(["decision", "job"])
  })
})
