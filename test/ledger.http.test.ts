import type { CustomerId, PartnerId } from "../src/api/Ids.js"
import { Deferred, Effect, Fiber } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreateCustomer } from "../src/customers/Api.js"
import { CustomerActors } from "../src/ledger/CustomerActors.js"
import { fixtures } from "./support/Fixtures.js"
import { harness, ledgerReport } from "./support/LedgerHarness.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
const fx = fixtures(() => app)
let apiKey: string
let partnerId: string
let h: ReturnType<typeof harness>

beforeAll(async () => {
  app = await startTestApp({ config: { actorMailboxCapacity: 1, actorIdleMs: 100 } })
  ;({ apiKey, partnerId } = await fx.partner())
  h = harness(app, partnerId)
})
afterAll(async () => {
  expect((await ledgerReport(app)).violations).toEqual([])
  await app?.close()
})

const newCustomer = async (country: CreateCustomer["country"] = "NG") => (await fx.customer({ apiKey }, { country })).id

describe("GET /customers/{id}/balance", () => {
  it("is a plain array that starts with the customer's fiat currency at 0", async () => {
    const customer = await newCustomer("KE")
    const reply = await app.request("GET", `/partner/v1/customers/${customer}/balance`, { apiKey })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ success: true, data: [{ currency: "KES", balance: 0 }] })
  })

  it("shows exact amounts of every currency held, available only", async () => {
    const customer = await newCustomer()
    await h.credit(customer, "NGN", 150_050n)
    await h.credit(customer, "USDT", 12_345_678n)
    const reserved = await h.reserve(customer, "USDT", 345_678n)
    expect(reserved.ok).toBe(true)
    const reply = await app.request("GET", `/partner/v1/customers/${customer}/balance`, { apiKey })
    expect(reply.body.data).toEqual([
      { currency: "NGN", balance: 1500.5 },
      { currency: "USDT", balance: 12 }
    ])
    expect(reply.body.meta).toBeUndefined()
  })

  it("answers the same 403 for another partner's customer", async () => {
    const customer = await newCustomer()
    const other = await app.newPartner()
    const reply = await app.request("GET", `/partner/v1/customers/${customer}/balance`, { apiKey: other.apiKey })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
  })
})

describe("GET /customers/{id}/transactions", () => {
  it("lists entries newest first with type, reason, exact amount and the balance after", async () => {
    const customer = await newCustomer()
    await h.credit(customer, "NGN", 100_000n)
    await h.debit(customer, "NGN", 2_550n)
    const reserved = await h.reserve(customer, "NGN", 10_000n)
    if (!reserved.ok) throw new Error("reserve failed")
    await h.void(customer, (reserved.value as { id: string }).id)
    const reply = await app.request("GET", `/partner/v1/customers/${customer}/transactions?limit=3`, { apiKey })
    expect(reply.status).toBe(200)
    const items = reply.body.data
    expect(items.map((i: any) => [i.type, i.reason, i.amount, i.currency, i.balanceAfter])).toEqual([
      ["CREDIT", "send_refund", 100, "NGN", 974.5],
      ["DEBIT", "send", 100, "NGN", 874.5],
      ["DEBIT", "withdrawal", 25.5, "NGN", 974.5]
    ])
    expect(typeof reply.body.meta.nextCursor).toBe("string")
    const next = await app.request("GET", `/partner/v1/customers/${customer}/transactions?limit=3&cursor=${reply.body.meta.nextCursor}`, { apiKey })
    expect(next.body.data.map((i: any) => [i.type, i.reason, i.amount])).toEqual([["CREDIT", "deposit", 1000]])
    expect(next.body.meta.nextCursor).toBeNull()
  })

  it("refuses a bad limit, a tampered cursor and an unknown currency filter", async () => {
    const customer = await newCustomer()
    for (const query of ["limit=0", "limit=101", "currency=XYZ"]) {
      const reply = await app.request("GET", `/partner/v1/customers/${customer}/transactions?${query}`, { apiKey })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
    }
    const tampered = await app.request("GET", `/partner/v1/customers/${customer}/transactions?cursor=eyJsIjoidHJhbnNhY3Rpb25zIiwicyI6IjEifQ.AAAA`, { apiKey })
    expect(tampered.status).toBe(400)
    expect(tampered.body.code).toBe("INVALID_CURSOR")
  })
})

describe("GET /customers/{id}/balance/stream", () => {
  it("sends a snapshot on connect and after every change", async () => {
    const customer = await newCustomer()
    const controller = new AbortController()
    const response = await fetch(`${app.baseUrl}/partner/v1/customers/${customer}/balance/stream`, {
      headers: { "x-api-key": apiKey },
      signal: controller.signal
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let buffer = ""
    const nextEvent = async () => {
      while (!buffer.includes("\n\n")) {
        const { done, value } = await reader.read()
        if (done) throw new Error("stream ended")
        buffer += decoder.decode(value, { stream: true })
      }
      const end = buffer.indexOf("\n\n")
      const frame = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const data = frame.split("\n").find((line) => line.startsWith("data: "))
      return { frame, data: data ? JSON.parse(data.slice(6)) : undefined }
    }
    const first = await nextEvent()
    expect(first.frame).toContain("event: balance")
    expect(first.data.balances).toEqual([{ currency: "NGN", balance: 0 }])
    await h.credit(customer, "NGN", 5_000n)
    const second = await nextEvent()
    expect(second.data).toMatchObject({ customerId: customer, balances: [{ currency: "NGN", balance: 50 }] })
    await h.credit(customer, "USDT", 1_000_000n)
    const third = await nextEvent()
    expect(third.data.balances).toEqual([{ currency: "NGN", balance: 50 }, { currency: "USDT", balance: 1 }])
    controller.abort()
  })

  it("answers 403 before streaming for a foreign customer", async () => {
    const reply = await app.request("GET", `/partner/v1/customers/not-a-uuid/balance/stream`, { apiKey })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
  })
})

describe("customer actors", () => {
  it("answers CUSTOMER_BUSY (503) when the mailbox is full, and runs what it accepted", async () => {
    const customer = await newCustomer()
    const result = await app.run(Effect.gen(function*() {
      const actors = yield* CustomerActors
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(actors.run(partnerId as PartnerId, customer as CustomerId, () =>
        Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release))))
      yield* Deferred.await(started)
      const second = yield* Effect.fork(actors.run(partnerId as PartnerId, customer as CustomerId, () => Effect.succeed("queued")))
      yield* Effect.yieldNow()
      const third = yield* Effect.either(actors.run(partnerId as PartnerId, customer as CustomerId, () => Effect.succeed("rejected")))
      yield* Deferred.succeed(release, undefined)
      return { first: yield* Fiber.join(first), second: yield* Fiber.join(second), third }
    }))
    expect(result.second).toBe("queued")
    expect(result.third._tag).toBe("Left")
    if (result.third._tag === "Left") {
      expect(result.third.left).toMatchObject({ code: "CUSTOMER_BUSY", statusCode: 503 })
    }
  })

  it("stops idle actors", async () => {
    const customer = await newCustomer()
    await h.credit(customer, "NGN", 1n)
    let size = await app.run(Effect.flatMap(CustomerActors, (a) => a.size))
    for (let i = 0; i < 100 && size > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      size = await app.run(Effect.flatMap(CustomerActors, (a) => a.size))
    }
    expect(size).toBe(0)
  })

  it("refuses a command for another partner's customer with the standard 403", async () => {
    const customer = await newCustomer()
    const other = await app.newPartner()
    const result = await harness(app, other.partnerId).credit(customer, "NGN", 100n)
    expect(result).toEqual({ ok: false, code: "CUSTOMER_FORBIDDEN" })
  })
})
