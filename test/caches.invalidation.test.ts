import { Effect, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Caches } from "../src/db/Caches.js"
import { transaction } from "../src/events/Events.js"
import { fixtures } from "./support/Fixtures.js"
import { databaseKind, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Caches of nearly-static rows (partners by API key, rail policies) and their invalidation (src/db/Caches.ts):
 * dropped at commit in the writing process, through LISTEN/NOTIFY in every other process on PostgreSQL.
 */
let app: TestApp
const fx = fixtures(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())

const customers = (a: TestApp, apiKey: string) => a.request<any>("GET", "/partner/v1/customers", { apiKey })
const setKyb = (a: TestApp, apiKey: string, status: string) =>
  a.request("POST", "/sandbox/partner/kyb", { apiKey, body: status === "APPROVED" ? { status } : { status, reason: "documents expired" } })

describe("caches", () => {
  it("serve a found value again without a lookup, never a missing one, and drop a scope only when its transaction commits", async () => {
    const result = await app.run(Effect.gen(function*() {
      const caches = yield* Caches
      const cache = caches.make<string>("test.topic", { capacity: 2 })
      let lookups = 0
      const lookup = (value: string | undefined) => Effect.sync(() => {
        lookups++
        return Option.fromNullable(value)
      })
      const reads: Array<Option.Option<string>> = []
      reads.push(yield* cache.get("a", "p1", lookup("one")))
      reads.push(yield* cache.get("a", "p1", lookup("changed")))
      const afterHit = lookups
      // A missing value is looked up every time.
      yield* cache.get("missing", "p1", lookup(undefined))
      yield* cache.get("missing", "p1", lookup(undefined))
      const afterMisses = lookups
      // A rolled-back announcement drops nothing.
      yield* transaction(Effect.zipRight(caches.announce("test.topic", "p1"), Effect.fail("rolled back"))).pipe(Effect.ignore)
      reads.push(yield* cache.get("a", "p1", lookup("changed")))
      const afterRollback = lookups
      // Inside the transaction the old value is still served; after the commit the scope is gone.
      const inside = yield* transaction(Effect.zipRight(caches.announce("test.topic", "p1"), cache.get("a", "p1", lookup("changed"))))
      reads.push(yield* cache.get("a", "p1", lookup("changed")))
      return { reads, inside, afterHit, afterMisses, afterRollback, lookups }
    }))
    expect(result.reads.map(Option.getOrNull)).toEqual(["one", "one", "one", "changed"])
    expect(Option.getOrNull(result.inside)).toBe("one")
    expect(result.afterHit).toBe(1)
    expect(result.afterMisses).toBe(3)
    expect(result.afterRollback).toBe(3)
    expect(result.lookups).toBe(4)
  })

  it("a KYB change shuts the partner out on the next request of this process", async () => {
    const partner = await fx.partner()
    expect((await customers(app, partner.apiKey)).status).toBe(200)
    expect((await customers(app, partner.apiKey)).status).toBe(200)
    expect((await setKyb(app, partner.apiKey, "PENDING")).status).toBe(200)
    const refused = await customers(app, partner.apiKey)
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe("PARTNER_NOT_APPROVED")
  })

  it.skipIf(databaseKind() !== "postgres")("a KYB change reaches another process on the same PostgreSQL through LISTEN/NOTIFY", async () => {
    const url = app.database!.url!
    const config = { databaseUrl: Option.some(Redacted.make(url)) }
    const first = await startTestApp({ database: app.database!, config })
    const second = await startTestApp({ database: app.database!, config })
    try {
      const partner = await fixtures(first).partner()
      // Wait until the second process's listener is up (caches serve only then), and warm its cache.
      const deadline = Date.now() + 10_000
      let warm = 0
      while (warm < 3 && Date.now() < deadline) {
        expect((await customers(second, partner.apiKey)).status).toBe(200)
        warm++
      }
      expect((await setKyb(first, partner.apiKey, "PENDING")).status).toBe(200)
      // The notification is delivered at commit; wait for it, boundedly, then it must hold.
      let status = 200
      while (status === 200 && Date.now() < deadline) {
        status = (await customers(second, partner.apiKey)).status
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10))
      }
      expect(status).toBe(403)
      for (let i = 0; i < 5; i++) expect((await customers(second, partner.apiKey)).status).toBe(403)
      expect((await setKyb(second, partner.apiKey, "APPROVED")).status).toBe(200)
      let back = 403
      while (back !== 200 && Date.now() < deadline + 5_000) {
        back = (await customers(first, partner.apiKey)).status
        if (back !== 200) await new Promise((resolve) => setTimeout(resolve, 10))
      }
      expect(back).toBe(200)
    } finally {
      await first.close()
      await second.close()
    }
  })
})
