import { PreparingClient } from "../src/db/Database.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreateCustomer } from "../src/customers/Api.js"
import { fixtures, type Partner as FixturePartner, type RailPolicy } from "./support/Fixtures.js"
import { harness, ledgerReport } from "./support/LedgerHarness.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * GET /api/v1/sandbox/balances: the partner's customers with available AND held per currency, over real HTTP.
 * Statements are counted at the driver (our PreparingClient, as in performance.statements.test.ts) to hold the "one
 * statement per page" promise.
 */
let app: TestApp
const fx = fixtures(() => app)
const statements: Array<string> = []
let recording = false
const original = PreparingClient.prototype.query

beforeAll(async () => {
  PreparingClient.prototype.query = function(this: PreparingClient, ...args: Array<any>) {
    if (recording) {
      const first = args[0]
      statements.push(String(typeof first === "string" ? first : first?.text ?? first).replace(/\s+/g, " ").trim())
    }
    return (original as any).apply(this, args)
  } as any
  app = await startTestApp()
})
afterAll(async () => {
  PreparingClient.prototype.query = original
  expect((await ledgerReport(app)).violations).toEqual([])
  await app?.close()
})

interface Partner extends FixturePartner {
  readonly h: ReturnType<typeof harness>
}

const partner = async (bank?: RailPolicy): Promise<Partner> => {
  const created = await fx.partner(bank === undefined ? {} : { rails: { bank } })
  return { ...created, h: harness(app, created.partnerId) }
}

const newCustomer = (p: Partner, overrides: Partial<CreateCustomer> = {}) => fx.customer(p, overrides)

const balances = (p: Partner, query = "") => app.request<any>("GET", `/sandbox/balances${query}`, { apiKey: p.apiKey })

/** The one item of a customer, through the `customerId` filter. */
const itemOf = async (p: Partner, customerId: string) => {
  const reply = await balances(p, `?customerId=${customerId}`)
  expect(reply.status).toBe(200)
  expect(reply.body.data).toHaveLength(1)
  return reply.body.data[0]
}

const withdraw = async (p: Partner, customerId: string, amount: number) => {
  await fx.saveAccount(p, customerId, { bankCode: "058", accountNumber: "1234567896" })
  const reply = await app.request<any>("POST", `/partner/v1/customers/${customerId}/withdraw`, { apiKey: p.apiKey, body: { amount } })
  expect(reply.status).toBe(201)
  expect(reply.body.data.status).toBe("PROCESSING")
  return reply.body.data.id as string
}

const control = (p: Partner, id: string, move: "complete" | "fail", body?: unknown) =>
  app.request("POST", `/sandbox/withdrawals/${id}/${move}`, { apiKey: p.apiKey, ...(body === undefined ? {} : { body }) })

describe("GET /sandbox/balances", () => {
  it("lists a customer with no money with its fiat currency at zero, and the customer's fields", async () => {
    const p = await partner()
    const customer = await newCustomer(p, { country: "KE", firstName: "Wanjiru", lastName: "Kamau" })
    const reply = await balances(p)
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({
      success: true,
      data: [{
        customerId: customer.id,
        firstName: "Wanjiru",
        lastName: "Kamau",
        email: customer.email,
        country: "KE",
        currency: "KES",
        createdAt: customer.createdAt.toISOString(),
        balances: [{ currency: "KES", available: 0, held: 0 }]
      }],
      meta: { nextCursor: null }
    })
  })

  it("shows a funded customer's available balance, rendered exactly like the balance route", async () => {
    const p = await partner()
    const customer = await newCustomer(p)
    expect((await p.h.credit(customer.id, "NGN", 150_050n)).ok).toBe(true)
    const item = await itemOf(p, customer.id)
    expect(item.balances).toEqual([{ currency: "NGN", available: 1500.5, held: 0 }])
    const route = await app.request("GET", `/partner/v1/customers/${customer.id}/balance`, { apiKey: p.apiKey })
    expect(route.body.data).toEqual([{ currency: "NGN", balance: 1500.5 }])
  })

  it("a withdrawal under a manual bank rail moves its amount to held; completing it clears held", async () => {
    const p = await partner({ mode: "manual" })
    const customer = await newCustomer(p)
    expect((await p.h.credit(customer.id, "NGN", 100_000n)).ok).toBe(true)
    const id = await withdraw(p, customer.id, 500)
    expect((await itemOf(p, customer.id)).balances).toEqual([{ currency: "NGN", available: 500, held: 500 }])
    // The public route shows available only.
    const route = await app.request("GET", `/partner/v1/customers/${customer.id}/balance`, { apiKey: p.apiKey })
    expect(route.body.data).toEqual([{ currency: "NGN", balance: 500 }])
    expect((await control(p, id, "complete")).status).toBe(200)
    expect((await itemOf(p, customer.id)).balances).toEqual([{ currency: "NGN", available: 500, held: 0 }])
  })

  it("failing the withdrawal returns held to available", async () => {
    const p = await partner({ mode: "manual" })
    const customer = await newCustomer(p)
    expect((await p.h.credit(customer.id, "NGN", 77_777n)).ok).toBe(true)
    const id = await withdraw(p, customer.id, 333.33)
    expect((await itemOf(p, customer.id)).balances).toEqual([{ currency: "NGN", available: 444.44, held: 333.33 }])
    const failed = await control(p, id, "fail", { reason: "Account dormant" })
    expect(failed.status).toBe(200)
    expect((await itemOf(p, customer.id)).balances).toEqual([{ currency: "NGN", available: 777.77, held: 0 }])
  })

  it("lists other currencies after the fiat one: a USDT deposit appears, the fiat stays first at zero", async () => {
    const p = await partner()
    const customer = await newCustomer(p, { country: "GH" })
    const deposit = await app.request("POST", `/sandbox/customers/${customer.id}/deposits`, {
      apiKey: p.apiKey,
      body: { asset: "USDT", network: "TRON", amount: 25.5 }
    })
    expect(deposit.status).toBe(201)
    expect((await itemOf(p, customer.id)).balances).toEqual([
      { currency: "GHS", available: 0, held: 0 },
      { currency: "USDT", available: 25.5, held: 0 }
    ])
    expect((await p.h.credit(customer.id, "USDC", 1_000_001n)).ok).toBe(true)
    expect((await p.h.credit(customer.id, "GHS", 1_234n)).ok).toBe(true)
    const reserved = await p.h.reserve(customer.id, "USDT", 500_000n)
    expect(reserved.ok).toBe(true)
    expect((await itemOf(p, customer.id)).balances).toEqual([
      { currency: "GHS", available: 12.34, held: 0 },
      { currency: "USDC", available: 1.000001, held: 0 },
      { currency: "USDT", available: 25, held: 0.5 }
    ])
  })

  it("filters by customerId (any case); an unknown or another partner's id is an empty list", async () => {
    const p = await partner()
    const [a, b] = [await newCustomer(p), await newCustomer(p)]
    expect((await itemOf(p, a.id)).customerId).toBe(a.id)
    expect((await itemOf(p, b.id.toUpperCase())).customerId).toBe(b.id)
    const unknown = await balances(p, "?customerId=00000000-0000-4000-8000-000000000000")
    expect(unknown.status).toBe(200)
    expect(unknown.body).toEqual({ success: true, data: [], meta: { nextCursor: null } })
    const other = await partner()
    const foreign = await balances(other, `?customerId=${a.id}`)
    expect(foreign.status).toBe(200)
    expect(foreign.body.data).toEqual([])
  })

  it("pages newest first with limit=1: every customer exactly once; another partner's customers never appear", async () => {
    const p = await partner()
    const other = await partner()
    const mine: Array<string> = []
    for (let i = 0; i < 4; i++) {
      mine.push((await newCustomer(p)).id)
      await newCustomer(other)
    }
    expect((await p.h.credit(mine[1]!, "NGN", 10_000n)).ok).toBe(true)
    const seen: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const reply: any = await balances(p, `?limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expect(reply.status).toBe(200)
      expect(reply.body.data).toHaveLength(1)
      seen.push(reply.body.data[0].customerId)
      cursor = reply.body.meta.nextCursor
      pages += 1
      expect(pages).toBeLessThanOrEqual(mine.length)
    } while (cursor !== null)
    expect(seen).toEqual([...mine].reverse())
    const all = await balances(p, "?limit=100")
    expect(all.body.data.map((item: any) => item.customerId)).toEqual([...mine].reverse())
    expect(all.body.data.find((item: any) => item.customerId === mine[1]).balances).toEqual([{ currency: "NGN", available: 100, held: 0 }])
    // The other partner's list holds only its own customers.
    const theirs = await balances(other, "?limit=100")
    expect(theirs.body.data).toHaveLength(4)
    expect(theirs.body.data.filter((item: any) => mine.includes(item.customerId))).toEqual([])
  })

  it("reads a page, customers and their accounts, in one statement", async () => {
    const p = await partner()
    for (let i = 0; i < 3; i++) {
      const customer = await newCustomer(p)
      expect((await p.h.credit(customer.id, "NGN", 1_000n)).ok).toBe(true)
      expect((await p.h.credit(customer.id, "USDT", 1_000n)).ok).toBe(true)
    }
    // Background polls (jobs, webhooks) share the pool: the run with the fewest statements counts.
    let fewest: Array<string> | undefined
    for (let attempt = 0; attempt < 3; attempt++) {
      statements.length = 0
      recording = true
      try {
        const reply = await balances(p)
        expect(reply.status).toBe(200)
        expect(reply.body.data).toHaveLength(3)
      } finally {
        recording = false
      }
      const reads = statements.filter((text) => /ledger_accounts|FROM customers/.test(text))
      if (fewest === undefined || reads.length < fewest.length) fewest = reads
    }
    expect(fewest).toHaveLength(1)
  })

  it("refuses with 400 naming the parameter, and a cursor it did not issue with INVALID_CURSOR", async () => {
    const p = await partner()
    await newCustomer(p)
    await newCustomer(p)
    for (const query of ["?customerId=nope", "?customerId=123", "?limit=0", "?limit=101", "?limit=abc"]) {
      const reply = await balances(p, query)
      expect(reply.status, query).toBe(400)
      expect(reply.body.code, query).toBe("BAD_REQUEST")
      expect(reply.body.message, query).toContain(query.slice(1).split("=")[0]!)
    }
    const garbage = await balances(p, "?cursor=garbage")
    expect(garbage.status).toBe(400)
    expect(garbage.body.code).toBe("INVALID_CURSOR")
    // A cursor of this list is bound to its filters: not valid with a customerId filter, nor for another partner.
    const first = await balances(p, "?limit=1")
    const cursor = encodeURIComponent(first.body.meta.nextCursor)
    const filtered = await balances(p, `?limit=1&cursor=${cursor}&customerId=${first.body.data[0].customerId}`)
    expect(filtered.body.code).toBe("INVALID_CURSOR")
    const foreign = await balances(await partner(), `?limit=1&cursor=${cursor}`)
    expect(foreign.body.code).toBe("INVALID_CURSOR")
    const ok = await balances(p, `?limit=1&cursor=${cursor}`)
    expect(ok.status).toBe(200)
  })

  it("needs an API key", async () => {
    const reply = await app.request("GET", "/sandbox/balances")
    expect(reply.status).toBe(401)
  })
})

describe("production mode", () => {
  it("has no /sandbox/balances: 404 NOT_FOUND, absent from the document", async () => {
    const prod = await startTestApp({ config: { mode: "production" } })
    try {
      const partners = await prod.query<{ n: number }>("SELECT count(*)::int AS n FROM partners")
      const reply = await prod.request("GET", "/sandbox/balances")
      expect(reply.status).toBe(404)
      expect(reply.body).toMatchObject({ success: false, statusCode: 404, code: "NOT_FOUND" })
      const document = await prod.request("GET", "/openapi.json")
      expect(Object.keys(document.body.paths)).not.toContain("/api/v1/sandbox/balances")
      expect(await prod.query("SELECT count(*)::int AS n FROM partners")).toEqual(partners)
    } finally {
      await prod.close()
    }
  })
})
