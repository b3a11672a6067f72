import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreateCustomer } from "../src/customers/Api.js"
import { fixtures } from "./support/Fixtures.js"
import { harness } from "./support/LedgerHarness.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Hardening: a cursor is bound to the list instance that issued it — the list, the partner, the customer and
 * every filter. Used anywhere else it is 400 INVALID_CURSOR, never a page of some other list.
 */
let app: TestApp
const fx = fixtures(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())

const newCustomer = async (apiKey: string, country: CreateCustomer["country"] = "NG") => (await fx.customer({ apiKey }, { country })).id

const expectInvalidCursor = async (path: string, apiKey: string) => {
  const reply = await app.request("GET", path, { apiKey })
  expect(reply.status, path).toBe(400)
  expect(reply.body, path).toMatchObject({ success: false, statusCode: 400, code: "INVALID_CURSOR", error: "InvalidCursor" })
  expect(reply.body.message).toMatch(/^cursor: /)
}

const firstCursor = async (path: string, apiKey: string) => {
  const reply = await app.request("GET", path, { apiKey })
  expect(reply.status, path).toBe(200)
  const cursor = reply.body.meta.nextCursor as string | null
  expect(cursor, path).toEqual(expect.any(String))
  return encodeURIComponent(cursor!)
}

describe("cursors are bound to their list instance", () => {
  it("transactions: another customer's list, another currency filter or no filter is INVALID_CURSOR; the same list pages on", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const h = harness(app, partnerId)
    const [a, b] = [await newCustomer(apiKey), await newCustomer(apiKey)]
    for (const customer of [a, b]) {
      for (let i = 1; i <= 3; i++) {
        expect((await h.credit(customer, "NGN", BigInt(i * 100))).ok).toBe(true)
        expect((await h.credit(customer, "USDT", BigInt(i * 100))).ok).toBe(true)
      }
    }
    const tx = (customer: string, query: string) => `/partner/v1/customers/${customer}/transactions?limit=2${query}`
    const cursor = await firstCursor(tx(a, ""), apiKey)
    const page2 = await app.request("GET", tx(a, `&cursor=${cursor}`), { apiKey })
    expect(page2.status).toBe(200)
    expect(page2.body.data).toHaveLength(2)

    await expectInvalidCursor(tx(b, `&cursor=${cursor}`), apiKey)
    await expectInvalidCursor(tx(a, `&currency=NGN&cursor=${cursor}`), apiKey)

    const ngn = await firstCursor(tx(a, "&currency=NGN"), apiKey)
    expect((await app.request("GET", tx(a, `&currency=NGN&cursor=${ngn}`), { apiKey })).status).toBe(200)
    await expectInvalidCursor(tx(a, `&currency=USDT&cursor=${ngn}`), apiKey)
    await expectInvalidCursor(tx(a, `&cursor=${ngn}`), apiKey)
    await expectInvalidCursor(tx(b, `&currency=NGN&cursor=${ngn}`), apiKey)
  })

  it("a cursor of one list is refused by every other list, and by another partner's same list", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const other = await app.newPartner()
    const h = harness(app, partnerId)
    const customers = [await newCustomer(apiKey, "GH"), await newCustomer(apiKey, "GH"), await newCustomer(apiKey, "GH")]
    const [a, b] = customers as [string, string, string]
    for (const customer of [a, b]) {
      for (let i = 0; i < 3; i++) {
        expect((await app.request("POST", `/partner/v1/customers/${customer}/funding/charge`, { apiKey, body: { amount: 100 + i } })).status).toBe(201)
      }
      for (let i = 1; i <= 3; i++) expect((await h.credit(customer, "GHS", BigInt(i))).ok).toBe(true)
    }
    await newCustomer(other.apiKey)
    await newCustomer(other.apiKey)
    await newCustomer(other.apiKey)

    const charges = (customer: string) => `/partner/v1/customers/${customer}/funding/charges?limit=1`
    const chargeCursor = await firstCursor(charges(a), apiKey)
    expect((await app.request("GET", `${charges(a)}&cursor=${chargeCursor}`, { apiKey })).status).toBe(200)
    await expectInvalidCursor(`${charges(b)}&cursor=${chargeCursor}`, apiKey)
    await expectInvalidCursor(`/partner/v1/customers/${a}/transactions?cursor=${chargeCursor}`, apiKey)
    await expectInvalidCursor(`/partner/v1/customers/${a}/withdrawals?cursor=${chargeCursor}`, apiKey)
    await expectInvalidCursor(`/partner/v1/customers?cursor=${chargeCursor}`, apiKey)

    const customersCursor = await firstCursor("/partner/v1/customers?limit=1", apiKey)
    expect((await app.request("GET", `/partner/v1/customers?limit=1&cursor=${customersCursor}`, { apiKey })).status).toBe(200)
    await expectInvalidCursor(`/partner/v1/customers?limit=1&cursor=${customersCursor}`, other.apiKey)
    await expectInvalidCursor(`${charges(a)}&cursor=${customersCursor}`, apiKey)

    // Sandbox event log: the customer and type filters are part of the list.
    const events = (query: string) => `/sandbox/events?limit=1${query}`
    const eventCursor = await firstCursor(events(`&customerId=${a}`), apiKey)
    expect((await app.request("GET", events(`&customerId=${a}&cursor=${eventCursor}`), { apiKey })).status).toBe(200)
    await expectInvalidCursor(events(`&customerId=${b}&cursor=${eventCursor}`), apiKey)
    await expectInvalidCursor(events(`&cursor=${eventCursor}`), apiKey)
    await expectInvalidCursor(events(`&customerId=${a}&type=funding.charge_created&cursor=${eventCursor}`), apiKey)
    await expectInvalidCursor(events(`&customerId=${a}&cursor=${eventCursor}`), other.apiKey)
  })

  it("webhook deliveries: the status filter and the partner are part of the list", async () => {
    const { apiKey } = await app.newPartner()
    const other = await app.newPartner()
    for (const key of [apiKey, other.apiKey]) {
      expect((await app.request("PUT", "/partner/v1/webhook", { apiKey: key, body: { url: "http://127.0.0.1:9/hooks" } })).status).toBe(200)
      await newCustomer(key)
      await newCustomer(key)
    }
    const cursor = await firstCursor("/partner/v1/webhook/deliveries?limit=1", apiKey)
    expect((await app.request("GET", `/partner/v1/webhook/deliveries?limit=1&cursor=${cursor}`, { apiKey })).status).toBe(200)
    await expectInvalidCursor(`/partner/v1/webhook/deliveries?status=PENDING&cursor=${cursor}`, apiKey)
    await expectInvalidCursor(`/partner/v1/webhook/deliveries?cursor=${cursor}`, other.apiKey)
  })

  it("a cursor stays opaque (no ids inside) and an altered one is refused", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const h = harness(app, partnerId)
    const customer = await newCustomer(apiKey)
    for (let i = 1; i <= 3; i++) expect((await h.credit(customer, "NGN", BigInt(i))).ok).toBe(true)
    const raw = decodeURIComponent(await firstCursor(`/partner/v1/customers/${customer}/transactions?limit=1`, apiKey))
    const [payload, signature] = raw.split(".") as [string, string]
    const text = Buffer.from(payload, "base64url").toString("utf8")
    expect(text).not.toContain(customer)
    expect(text).not.toContain(partnerId)
    const forged = Buffer.from(JSON.stringify({ s: "999999" })).toString("base64url")
    await expectInvalidCursor(`/partner/v1/customers/${customer}/transactions?cursor=${forged}.${signature}`, apiKey)
  })
})
