import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { maxBalanceMinor, parseAmount } from "../src/money/Money.js"
import { fundingSupport } from "./funding.support.js"
import { harness } from "./support/LedgerHarness.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Hardening: an amount the 64-bit minor-unit columns cannot hold, or a credit that would take a customer's
 * balance above its maximum, is a clear 400 that changes nothing — never a 500, never a rounded amount.
 * Limits (src/money/Money.ts `assets`): fiat 10^12 per request and 10^13 per balance; USDT/USDC 10^8 and 10^9.
 */
let app: TestApp
const f = fundingSupport(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())
afterEach(() => f.expectLedgerClean())

const depositPath = (customerId: string) => `/sandbox/customers/${customerId}/deposits`
const creditPath = (customerId: string) => `/sandbox/customers/${customerId}/virtual-account/credit`

/** Everything a request could have written for the customer. */
const footprint = async (customerId: string) => {
  const count = async (table: string) =>
    Number((await app.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} WHERE customer_id = $1`, [customerId]))[0]!.n)
  return {
    transactions: await count("ledger_transactions"),
    events: await count("events"),
    deposits: await count("deposits"),
    receipts: await count("funding_receipts"),
    balances: await app.query(`SELECT kind, currency, balance::text FROM ledger_accounts WHERE customer_id = $1 ORDER BY kind, currency`, [customerId]),
    charges: await app.query(`SELECT id, status, amount_paid FROM funding_charges WHERE customer_id = $1 ORDER BY id`, [customerId])
  }
}

describe("maximum amount per request", () => {
  it("Money: parseAmount refuses more than the asset's maximum, naming it", () => {
    expect(parseAmount("NGN", 1_000_000_000_000)).toEqual({ ok: true, minor: 100_000_000_000_000n })
    expect(parseAmount("NGN", 1_000_000_000_000.01)).toEqual({ ok: false, problem: { _tag: "AboveMaximum", asset: "NGN" } })
    expect(parseAmount("UGX", 1_000_000_000_001)).toEqual({ ok: false, problem: { _tag: "AboveMaximum", asset: "UGX" } })
    expect(parseAmount("USDT", 100_000_000)).toEqual({ ok: true, minor: 100_000_000_000_000n })
    expect(parseAmount("USDT", 100_000_000.000001)).toEqual({ ok: false, problem: { _tag: "AboveMaximum", asset: "USDT" } })
  })

  it("a deposit too large for the minor-unit column is 400 BAD_REQUEST naming amount, nothing written (was a 500)", async () => {
    const { apiKey, customerId } = await f.newCustomer("KE")
    await app.request("GET", `/partner/v1/customers/${customerId}/addresses`, { apiKey })
    const before = await footprint(customerId)
    for (const amount of [999_999_999_999_999, 999_999_999_999, 100_000_000.5]) {
      const reply = await app.request("POST", depositPath(customerId), { apiKey, body: { asset: "USDT", network: "TRON", amount } })
      expect(reply.status, String(amount)).toBe(400)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST", message: "amount: must be at most 100000000 USDT" })
    }
    expect(await footprint(customerId)).toEqual(before)
    const most = await app.request("POST", depositPath(customerId), { apiKey, body: { asset: "USDT", network: "TRON", amount: 100_000_000 } })
    expect(most.status).toBe(201)
    expect(await f.balanceOf(apiKey, customerId, "USDT")).toBe(100_000_000)
  })

  it("a virtual-account credit and a charge above the fiat maximum are 400 naming amount", async () => {
    const { apiKey, customerId } = await f.newCustomer("GH")
    await app.request("GET", `/partner/v1/customers/${customerId}/virtual-account`, { apiKey })
    const before = await footprint(customerId)
    const credit = await app.request("POST", creditPath(customerId), { apiKey, body: { amount: 1_000_000_000_000.01 } })
    expect(credit.status).toBe(400)
    expect(credit.body).toMatchObject({ code: "BAD_REQUEST", message: "amount: must be at most 1000000000000 GHS" })
    const charge = await app.request("POST", `/partner/v1/customers/${customerId}/funding/charge`, { apiKey, body: { amount: 5_000_000_000_000 } })
    expect(charge.status).toBe(400)
    expect(charge.body).toMatchObject({ code: "BAD_REQUEST", message: "amount: must be at most 1000000000000 GHS" })
    expect(await footprint(customerId)).toEqual(before)
  })
})

describe("maximum balance per customer and asset", () => {
  it("deposits up to the maximum balance, then 400 BALANCE_LIMIT_EXCEEDED with nothing written", async () => {
    const { apiKey, customerId } = await f.newCustomer("KE")
    for (let i = 0; i < 10; i++) {
      const reply = await app.request("POST", depositPath(customerId), { apiKey, body: { asset: "USDT", network: "TRON", amount: 100_000_000 } })
      expect(reply.status).toBe(201)
    }
    expect(await f.balanceOf(apiKey, customerId, "USDT")).toBe(1_000_000_000)
    const before = await footprint(customerId)
    const over = await app.request("POST", depositPath(customerId), { apiKey, body: { asset: "USDT", network: "TRON", amount: 0.000001 } })
    expect(over.status).toBe(400)
    expect(over.body).toMatchObject({
      success: false,
      statusCode: 400,
      code: "BALANCE_LIMIT_EXCEEDED",
      error: "BalanceLimitExceeded",
      details: { maximumBalance: 1_000_000_000, currency: "USDT" }
    })
    expect(over.body.message).toMatch(/maximum balance is USDT 1000000000\.000000/)
    expect(await footprint(customerId)).toEqual(before)
    // Other assets have their own limit; the refused transfer can be retried once the balance is lower.
    const usdc = await app.request("POST", depositPath(customerId), { apiKey, body: { asset: "USDC", network: "ETHEREUM", amount: 1 } })
    expect(usdc.status).toBe(201)
  })

  it("virtual-account credits and charge payments stop at the fiat maximum balance", async () => {
    const { apiKey, customerId } = await f.newCustomer("GH")
    await app.request("GET", `/partner/v1/customers/${customerId}/virtual-account`, { apiKey })
    const charge = await app.request("POST", `/partner/v1/customers/${customerId}/funding/charge`, { apiKey, body: { amount: 1_000_000_000_000 } })
    expect(charge.status).toBe(201)
    for (let i = 0; i < 10; i++) {
      const reply = await app.request("POST", creditPath(customerId), { apiKey, body: { amount: 1_000_000_000_000 } })
      expect(reply.status).toBe(201)
    }
    expect(await f.balanceOf(apiKey, customerId, "GHS")).toBe(10_000_000_000_000)
    const before = await footprint(customerId)

    const credit = await app.request("POST", creditPath(customerId), { apiKey, body: { amount: 0.01 } })
    expect(credit.status).toBe(400)
    expect(credit.body).toMatchObject({ code: "BALANCE_LIMIT_EXCEEDED", details: { maximumBalance: 10_000_000_000_000, currency: "GHS" } })

    const paid = await app.request("POST", `/sandbox/funding/charges/${charge.body.data.id}/pay`, { apiKey, body: {} })
    expect(paid.status).toBe(400)
    expect(paid.body.code).toBe("BALANCE_LIMIT_EXCEEDED")
    expect(await footprint(customerId)).toEqual(before)
    const read = await app.request("GET", `/partner/v1/customers/${customerId}/funding/charges/${charge.body.data.id}`, { apiKey })
    expect(read.body.data).toMatchObject({ status: "PENDING", amountPaid: null })
  })

  it("the EFT page refuses an authorisation above the maximum balance and leaves the charge PENDING", async () => {
    const { apiKey, customerId } = await f.newCustomer("ZA")
    await app.request("GET", `/partner/v1/customers/${customerId}/virtual-account`, { apiKey })
    for (let i = 0; i < 10; i++) {
      expect((await app.request("POST", creditPath(customerId), { apiKey, body: { amount: 1_000_000_000_000 } })).status).toBe(201)
    }
    const charge = await app.request("POST", `/partner/v1/customers/${customerId}/funding/charge`, { apiKey, body: { amount: 10 } })
    expect(charge.status).toBe(201)
    const before = await footprint(customerId)
    const page = await fetch(`${charge.body.data.redirectUrl}/authorize`, { method: "POST" })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain("above its maximum balance")
    expect(html).toContain(`<dd id="status">PENDING</dd>`)
    expect(await footprint(customerId)).toEqual(before)
  })

  it("a withdrawal at the maximum reserves and voids freely; a bank return above it is refused and changes nothing", async () => {
    const { apiKey, partnerId, customerId } = await f.newCustomer("NG")
    const h = harness(app, partnerId)
    const max = maxBalanceMinor("NGN")
    expect((await h.credit(customerId, "NGN", max)).ok).toBe(true)
    expect((await h.credit(customerId, "NGN", 1n))).toEqual({ ok: false, code: "BALANCE_LIMIT_EXCEEDED" })
    const saved = await app.request("POST", `/partner/v1/customers/${customerId}/accounts`, { apiKey, body: { bankCode: "058", accountNumber: "1234567896" } })
    expect(saved.status).toBe(201)
    const withdraw = () => app.request("POST", `/partner/v1/customers/${customerId}/withdraw`, { apiKey, body: { amount: 5000 } })

    // available -> held and back leave the total (available + held) at the maximum: never refused.
    const failed = await withdraw()
    expect(failed.status).toBe(201)
    expect((await app.request("POST", `/sandbox/withdrawals/${failed.body.data.id}/fail`, { apiKey, body: { reason: "Beneficiary bank rejected it" } })).status).toBe(200)
    expect(await f.balanceOf(apiKey, customerId, "NGN")).toBe(10_000_000_000_000)

    // Paid out, the room is refilled, then the bank returns the payout: that credit would pass the maximum.
    const paid = await withdraw()
    expect((await app.request("POST", `/sandbox/withdrawals/${paid.body.data.id}/complete`, { apiKey })).status).toBe(200)
    const room = max - BigInt((await app.query<{ total: string }>(
      `SELECT sum(balance)::text AS total FROM ledger_accounts WHERE customer_id = $1 AND currency = 'NGN'`,
      [customerId]
    ))[0]!.total)
    expect((await h.credit(customerId, "NGN", room)).ok).toBe(true)
    const before = await footprint(customerId)
    const reversed = await app.request("POST", `/sandbox/withdrawals/${paid.body.data.id}/reverse`, { apiKey })
    expect(reversed.status).toBe(400)
    expect(reversed.body).toMatchObject({ code: "BALANCE_LIMIT_EXCEEDED", details: { currency: "NGN" } })
    expect(await footprint(customerId)).toEqual(before)
    const read = await app.request("GET", `/partner/v1/customers/${customerId}/withdrawals/${paid.body.data.id}`, { apiKey })
    expect(read.body.data.status).toBe("COMPLETED")
  })
})
