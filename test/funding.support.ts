import { expect } from "vitest"
import type { CreateCustomer } from "../src/customers/Api.js"
import { checkLedger } from "../src/ledger/LedgerCheck.js"
import { fixtures } from "./support/Fixtures.js"
import type { TestApp } from "./support/TestApp.js"

/** Shared steps of the funding suites (partners, customers and Tier 1 from test/support/Fixtures.ts). */
export const fundingSupport = (app: () => TestApp) => {
  const fx = fixtures(app)
  const newCustomer = async (country: CreateCustomer["country"] = "NG", apiKeyGiven?: string) => {
    const partner = apiKeyGiven === undefined ? await fx.partner() : { apiKey: apiKeyGiven, partnerId: "" }
    const created = await fx.customer(partner, { country })
    return { apiKey: partner.apiKey, partnerId: partner.partnerId, customerId: created.id }
  }
  const approveTier1 = async (apiKey: string, customerId: string) => {
    await fx.approveTier1({ apiKey }, customerId, { bvn: "12345678901", nin: "12345678902" })
  }
  const balances = async (apiKey: string, customerId: string) =>
    (await app().request("GET", `/partner/v1/customers/${customerId}/balance`, { apiKey })).body.data as Array<{ currency: string; balance: number }>
  const balanceOf = async (apiKey: string, customerId: string, currency: string) =>
    (await balances(apiKey, customerId)).find((b) => b.currency === currency)?.balance ?? 0
  const transactions = async (apiKey: string, customerId: string) =>
    (await app().request("GET", `/partner/v1/customers/${customerId}/transactions`, { apiKey })).body.data as Array<Record<string, any>>
  const events = async (apiKey: string, customerId: string, type?: string) => {
    const query = `customerId=${customerId}${type === undefined ? "" : `&type=${type}`}&limit=100`
    return (await app().request("GET", `/sandbox/events?${query}`, { apiKey })).body.data as Array<Record<string, any>>
  }
  const expectLedgerClean = async () => {
    const report = await app().run(checkLedger)
    expect(report.violations).toEqual([])
  }
  const setBank = (apiKey: string, body: Record<string, unknown>) =>
    app().request("PUT", "/sandbox/rails/bank", { apiKey, body })
  const advance = (apiKey: string, seconds: number) =>
    app().request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds } })
  return { fx, newCustomer, approveTier1, balances, balanceOf, transactions, events, expectLedgerClean, setBank, advance }
}

/** Amounts that must be refused with 400 BAD_REQUEST naming `amount` (fiat with 2 decimals). */
export const badAmounts: ReadonlyArray<unknown> = ["100", 0, -5, 10.123, null, 1e21]
