import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { railAdaptersOf } from "../src/App.js"
import type { CreateCustomer } from "../src/customers/Api.js"
import { Partners } from "../src/partners/Partners.js"
import { fixtures } from "./support/Fixtures.js"
import { harness } from "./support/LedgerHarness.js"
import { startTestApp, testConfig, type TestApp } from "./support/TestApp.js"

/**
 * Production never moves simulated money: with no live adapter (and no SIMULATED_RAILS opt-in), every route that
 * needs a rail answers 503 with the rail's own code and writes nothing; a staging deployment may opt in.
 */
let app: TestApp
let apiKey: string
let partnerId: string

const newPartner = async (on: TestApp) =>
  on.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Partner", kybStatus: "APPROVED" })))

const newCustomer = async (on: TestApp, key: string, overrides: Partial<CreateCustomer> = {}) =>
  (await fixtures(on).customer({ apiKey: key }, overrides)).id

/** Rows of every table a refused request could have written, and the partner's events. */
const footprint = async (customerId: string) => ({
  kyc: (await app.query("SELECT id FROM kyc_records WHERE customer_id = $1", [customerId])).length,
  virtualAccounts: (await app.query("SELECT customer_id FROM virtual_accounts WHERE customer_id = $1", [customerId])).length,
  charges: (await app.query("SELECT id FROM funding_charges WHERE customer_id = $1", [customerId])).length,
  addresses: (await app.query("SELECT address FROM deposit_addresses WHERE customer_id = $1", [customerId])).length,
  withdrawals: (await app.query("SELECT id FROM withdrawals WHERE customer_id = $1", [customerId])).length,
  idempotency: (await app.query("SELECT reference FROM idempotency_keys WHERE customer_id = $1", [customerId])).length,
  jobs: (await app.query("SELECT id FROM jobs WHERE customer_id = $1", [customerId])).length,
  events: (await app.query<{ type: string }>("SELECT type FROM events WHERE customer_id = $1 ORDER BY seq", [customerId]))
    .map((row) => row.type)
})

beforeAll(async () => {
  app = await startTestApp({ config: { mode: "production" } })
  const created = await newPartner(app)
  apiKey = created.apiKey
  partnerId = created.partner.id
})
afterAll(() => app?.close())

describe("production mode without rail adapters", () => {
  it("answers 503 with each rail's own code on every route that needs it, and writes nothing", async () => {
    const customerId = await newCustomer(app, apiKey)
    const base = `/partner/v1/customers/${customerId}`
    const before = await footprint(customerId)
    expect(before.events).toEqual(["customer.registered"])

    const refusals: Array<[string, string, unknown, string]> = [
      ["POST", `${base}/kyc/tier1`, { bvn: "12345678901", nin: "10987654321" }, "IDENTITY_RAIL_UNAVAILABLE"],
      ["POST", `${base}/funding/charge`, { amount: 5000, reference: "charge-1" }, "BANK_RAIL_UNAVAILABLE"],
      ["GET", `${base}/addresses`, undefined, "CHAIN_RAIL_UNAVAILABLE"],
      ["GET", `${base}/banks?country=NG`, undefined, "BANK_RAIL_UNAVAILABLE"],
      ["POST", `${base}/bank/verify-account`, { bankCode: "058", accountNumber: "0123456789" }, "BANK_RAIL_UNAVAILABLE"],
      ["POST", `${base}/accounts`, { bankCode: "058", accountNumber: "0123456789" }, "BANK_RAIL_UNAVAILABLE"]
    ]
    for (const [method, path, body, code] of refusals) {
      const reply = await app.request(method, path, { apiKey, ...(body === undefined ? {} : { body }) })
      expect({ path, status: reply.status, code: reply.body.code }).toEqual({ path, status: 503, code })
      expect(reply.body).toMatchObject({ success: false, statusCode: 503, error: expect.any(String), message: expect.stringMatching(/rail/) })
    }
    expect(await footprint(customerId)).toEqual(before)

    // An NGN account needs Tier 1 first (400 TIER1_REQUIRED); a Ghanaian customer's account needs only the bank.
    const ghanaian = await newCustomer(app, apiKey, { country: "GH", phoneNumber: "+233241234567" })
    const ghanaianBefore = await footprint(ghanaian)
    const account = await app.request("GET", `/partner/v1/customers/${ghanaian}/virtual-account`, { apiKey })
    expect({ status: account.status, code: account.body.code }).toEqual({ status: 503, code: "BANK_RAIL_UNAVAILABLE" })
    expect(await footprint(ghanaian)).toEqual(ghanaianBefore)
  })

  it("refuses a withdrawal with BANK_RAIL_UNAVAILABLE: nothing reserved, no withdrawal, no event, the reference unused", async () => {
    const customerId = await newCustomer(app, apiKey)
    await harness(app, partnerId).credit(customerId, "NGN", 1_000_000n)
    // A saved account as a live bank adapter would have resolved it.
    await app.query(
      `INSERT INTO bank_accounts (id, partner_id, customer_id, country, currency, bank_code, bank_name, account_number,
                                  account_name, is_default, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, 'NG', 'NGN', '058', 'Guaranty Trust Bank', '0123456789', 'ADA OBI', true, now(), now())`,
      [partnerId, customerId]
    )
    const before = await footprint(customerId)
    const balance = async () => (await app.request("GET", `/partner/v1/customers/${customerId}/balance`, { apiKey })).body.data
    const balanceBefore = await balance()
    const reply = await app.request("POST", `/partner/v1/customers/${customerId}/withdraw`, {
      apiKey,
      body: { amount: 2000, reference: "wd-prod-1" }
    })
    expect(reply.status).toBe(503)
    expect(reply.body.code).toBe("BANK_RAIL_UNAVAILABLE")
    expect(await balance()).toEqual(balanceBefore)
    expect(await footprint(customerId)).toEqual(before)
  })

  it("answers the trading routes with EXCHANGE_RAIL_UNAVAILABLE: no quote, no balance moved, no event", async () => {
    const customerId = await newCustomer(app, apiKey)
    await harness(app, partnerId).credit(customerId, "NGN", 5_000_000n)
    await harness(app, partnerId).credit(customerId, "USDT", 50_000_000n)
    const base = `/partner/v1/customers/${customerId}`
    const balance = async () => (await app.request("GET", `${base}/balance`, { apiKey })).body.data
    const before = { footprint: await footprint(customerId), balance: await balance() }
    const quotes = async () => (await app.query("SELECT id FROM trade_quotes WHERE customer_id = $1", [customerId])).length
    const refusals: Array<[string, string, unknown]> = [
      ["GET", `${base}/rate`, undefined],
      ["GET", `${base}/rate?amount=10`, undefined],
      ["POST", `${base}/buy/quote`, { amount: 10000, sourceCurrency: "NGN", destinationCurrency: "USDT", type: "buy" }],
      ["POST", `${base}/sell/quote`, { amount: 10, sourceCurrency: "USDT", destinationCurrency: "NGN", type: "sell" }]
    ]
    for (const [method, path, body] of refusals) {
      const reply = await app.request(method, path, { apiKey, ...(body === undefined ? {} : { body }) })
      expect({ path, status: reply.status, code: reply.body.code }).toEqual({ path, status: 503, code: "EXCHANGE_RAIL_UNAVAILABLE" })
      expect(reply.body).toMatchObject({ success: false, statusCode: 503, message: expect.stringMatching(/exchange rail/) })
    }
    expect(await quotes()).toBe(0)
    expect(await app.query("SELECT order_id FROM exchange_orders WHERE customer_id = $1", [customerId])).toEqual([])
    expect({ footprint: await footprint(customerId), balance: await balance() }).toEqual(before)
  })

  it("has no sandbox exchange prices: /sandbox/rates is 404", async () => {
    for (const [method, path] of [["GET", "/sandbox/rates"], ["PUT", "/sandbox/rates/NGN"]] as const) {
      const reply = await app.request(method, path, { apiKey, ...(method === "PUT" ? { body: { buyRate: 2000 } } : {}) })
      expect({ path, status: reply.status, code: reply.body.code }).toEqual({ path, status: 404, code: "NOT_FOUND" })
    }
  })

  it("registers no simulated outcome jobs and serves no sandbox control", async () => {
    const reply = await app.request("POST", "/sandbox/funding/charges/00000000-0000-4000-8000-000000000000/pay", { apiKey })
    expect(reply.status).toBe(404)
  })
})

describe("choosing the rails' adapters", () => {
  it("simulators in sandbox mode; none in production unless SIMULATED_RAILS=true", () => {
    expect(railAdaptersOf(testConfig({ mode: "sandbox" }))).toBe("simulated")
    expect(railAdaptersOf(testConfig({ mode: "production" }))).toBe("unavailable")
    expect(railAdaptersOf(testConfig({ mode: "production", simulatedRails: true }))).toBe("simulated")
  })

  it("a staging deployment that opts in gets the simulated rails in production mode", async () => {
    const staging = await startTestApp({ config: { mode: "production", simulatedRails: true } })
    try {
      const { apiKey: key } = await newPartner(staging)
      const customerId = await newCustomer(staging, key)
      const reply = await staging.request("POST", `/partner/v1/customers/${customerId}/kyc/tier1`, {
        apiKey: key,
        body: { bvn: "12345678901", nin: "10987654321" }
      })
      expect(reply.status).toBe(201)
      expect(reply.body.data.status).toBe("APPROVED")
    } finally {
      await staging.close()
    }
  })
})
