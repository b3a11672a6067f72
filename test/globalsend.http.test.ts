import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkLedger } from "../src/ledger/LedgerCheck.js"
import { internationalClient, type Partner } from "./support/InternationalClient.js"
import { samples } from "./support/KycHelpers.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Global send over real HTTP (docs/contract.md "Global send", the global_send.* events; docs/global-send.md): each corridor
 * family (mobile money, bank, China, domestic NG), the refusals with nothing debited, the fee arithmetic,
 * idempotency across both paths, completion and failure balances, the domestic corridor's withdrawal.* events,
 * eligibility. The service clock is frozen: the payout rail answers when a test advances it (900 s by default).
 */
let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
// The ledger checker once, over everything the file's tests moved (each invariant is over the whole ledger; a
// violation names its transactions): after each test it read the whole, growing ledger again, a tenth of the file's CPU.
afterAll(async () => {
  if (app !== undefined) expect((await app.run(checkLedger)).violations).toEqual([])
  await app?.close()
})

const { advance, base, control: _control, events, money, newPartner, tier3, upload, verifiedCustomer } = internationalClient(() => app)

const initiate = (p: Partner, customerId: string, body: Record<string, unknown>, alias = false) =>
  app.request("POST", `${base(customerId)}/global-send${alias ? "" : "/initiate"}`, { apiKey: p.apiKey, body })

const kenya = { phone: "+254712345678", network: "M-PESA", accountName: "Wanjiru Kamau" }

const approved = async (p: Partner, funds: { USDT?: number; NGN?: number }, destinationCountry: string) => {
  const id = await verifiedCustomer(p, { ...funds, USDT: (funds.USDT ?? 0) + 3 })
  expect((await tier3(p, id, { dateOfBirth: "1990-04-12", address: { line1: "1 Road", city: "Lagos", country: "NG" }, destinationCountry })).status).toBe(201)
  await advance(p)
  return id
}

describe("cross-border", () => {
  it("mobile money (KE): 201 PROCESSING, fees, USDT reserved, completed after the payout delay", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 100 })
    const reply = await initiate(p, id, { corridor: "KE-KES-mobile", amount: 50, purpose: "FAMILY_SUPPORT", beneficiary: kenya, reference: "ke-1" })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({
      reference: "ke-1", corridor: "KE-KES-mobile", status: "PROCESSING", destinationCurrency: "KES", asset: "USDT",
      amount: 50, transferFee: 1, partnerFee: 0.5, assetAmount: 48.5, settledBy: "USDT_BALANCE", fundingCurrency: "USDT", fundingAmount: 50
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 50, held: 50 })
    const [initiated] = await events(p, id, "global_send.initiated")
    expect(initiated.data).toEqual({
      customerId: id, reference: "ke-1", corridor: "KE-KES-mobile", status: "PROCESSING", destinationCurrency: "KES", asset: "USDT",
      assetAmount: 48.5, partnerFee: 0.5, transferFee: 1, settledBy: "USDT_BALANCE", purpose: "FAMILY_SUPPORT", purposeNote: null
    })
    await advance(p)
    expect(await money(p, id, "USDT")).toEqual({ available: 50, held: 0 })
    const read = await app.request("GET", `${base(id)}/global-sends/ke-1`, { apiKey: p.apiKey })
    expect(read.body.data.status).toBe("COMPLETED")
    expect((await events(p, id, "global_send.completed")).length).toBe(1)
  })

  it("a group corridor needs the group APPROVED; a beneficiary that does not match is refused naming the key", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 100 })
    const us = { routingNumber: "021000021", accountNumber: "000123456789", accountType: "checking", accountName: "John Smith" }
    const refused = await initiate(p, id, { corridor: "US-USD-bank", amount: 50, purpose: "GIFT", beneficiary: us })
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe("GLOBAL_SEND_NOT_ENABLED")
    expect(refused.body.details).toEqual({ group: "americas_europe", status: "NOT_STARTED" })
    const bad = await initiate(p, id, { corridor: "KE-KES-mobile", amount: 50, purpose: "GIFT", beneficiary: { ...kenya, phone: "0712345678" } })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("INVALID_BENEFICIARY")
    expect(bad.body.message).toMatch(/^beneficiary\.phone: /)
    expect(await money(p, id, "USDT")).toEqual({ available: 100, held: 0 })
  })

  it("failure returns everything (magic name); the alias shares the reference scope", async () => {
    const p = await newPartner()
    const id = await approved(p, { USDT: 100 }, "US")
    const us = { routingNumber: "021000021", accountNumber: "000123456789", accountType: "checking", accountName: "Closed Account" }
    const reply = await initiate(p, id, { corridor: "US-USD-bank", amount: 100, purpose: "GIFT", beneficiary: us, reference: "us-1" }, true)
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ transferFee: 1, partnerFee: 2, assetAmount: 97 })
    const again = await initiate(p, id, { corridor: "KE-KES-mobile", amount: 1, purpose: "GIFT", beneficiary: {}, reference: "us-1" })
    expect(again.status).toBe(201)
    expect(again.body.data.id).toBe(reply.body.data.id)
    await advance(p)
    expect(await money(p, id, "USDT")).toEqual({ available: 100, held: 0 })
    const read = await app.request("GET", `${base(id)}/global-sends/us-1`, { apiKey: p.apiKey })
    expect(read.body.data).toMatchObject({ status: "FAILED", failureReason: "The recipient's account is closed" })
  })

  it("China: GOODS_PAYMENT, logistics, documents, 26 USDT after fees", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await approved(p, { USDT: 100 }, "CN")
    await app.request("POST", `/sandbox/customers/${id}/international/china/approve`, { apiKey: p.apiKey })
    const invoice = await upload(p, id, samples.pdf(), "invoice.pdf")
    const contract = await upload(p, id, samples.pdf(), "contract.pdf")
    const beneficiary = {
      accountName: "Wang Xiaoming", accountNumber: "6222021234567890123", bankCode: "102100099996", nameInLocalLanguage: "王小明",
      nationalIdNumber: "11010519491231002X", logisticsTracking: [{ trackingNumber: "SF123", carrierName: "SF Express" }],
      documents: [{ type: "invoice", url: invoice }, { type: "contract", url: contract }]
    }
    const low = await initiate(p, id, { corridor: "CN-CNY-bank", amount: 29.99, purpose: "GOODS_PAYMENT", beneficiary })
    expect(low.status).toBe(400)
    expect(low.body.code).toBe("GLOBAL_SEND_BELOW_MINIMUM")
    expect(low.body.details).toEqual({ minimumAmount: 30, asset: "USDT" })
    const purpose = await initiate(p, id, { corridor: "CN-CNY-bank", amount: 50, purpose: "GIFT", beneficiary })
    expect(purpose.status).toBe(400)
    expect(purpose.body.message).toMatch(/^purpose: /)
    const ok = await initiate(p, id, { corridor: "CN-CNY-bank", amount: 50, purpose: "GOODS_PAYMENT", beneficiary, reference: "cn-1" })
    expect(ok.status).toBe(201)
    expect(ok.body.data).toMatchObject({ transferFee: 1, partnerFee: 3, assetAmount: 46 })
    const done = await app.request("POST", `/sandbox/customers/${id}/global-sends/cn-1/complete`, { apiKey: p.apiKey })
    expect(done.status).toBe(200)
    expect(done.body.data.status).toBe("COMPLETED")
  })

  it("funded from the local currency at the live buy rate", async () => {
    const p = await newPartner()
    await app.request("PUT", "/sandbox/rates/NGN", { apiKey: p.apiKey, body: { buyRate: 1600, sellRate: 1500 } })
    const id = await verifiedCustomer(p, { NGN: 100_000 })
    const reply = await initiate(p, id, { corridor: "KE-KES-mobile", amount: 20, fundingCurrency: "NGN", purpose: "GIFT", beneficiary: kenya })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ settledBy: "LOCAL_CONVERSION", fundingCurrency: "NGN", fundingAmount: 32000, rate: 1600 })
    expect(await money(p, id, "NGN")).toEqual({ available: 68000, held: 32000 })
    await advance(p)
    expect(await money(p, id, "NGN")).toEqual({ available: 68000, held: 0 })
  })
})

describe("domestic NG", () => {
  it("pays out as a withdrawal under the same reference with the withdrawal fee", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { NGN: 10_000 })
    const reply = await initiate(p, id, {
      corridor: "NG-NGN-bank", amount: 5000, purpose: "FAMILY_SUPPORT", reference: "ng-1",
      beneficiary: { bankCode: "058", accountNumber: "0123456789" }
    })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.data).toMatchObject({ asset: "NGN", transferFee: 0, settledBy: "LOCAL_BALANCE", amount: 5000 })
    const submitted = await events(p, id, "withdrawal.submitted")
    expect(submitted.map((e) => e.data.reference)).toEqual(["ng-1"])
    await advance(p, 3600)
    expect((await events(p, id, "withdrawal.completed")).map((e) => e.data.reference)).toEqual(["ng-1"])
    expect((await events(p, id, "global_send.completed")).map((e) => e.data.reference)).toEqual(["ng-1"])
  })

  it("checks a given accountName against the bank's record (words in any order, case aside)", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { NGN: 10_000 })
    const account = { bankCode: "058", accountNumber: "0123456789" }
    const first = await initiate(p, id, { corridor: "NG-NGN-bank", amount: 1000, purpose: "GIFT", reference: "ng-a", beneficiary: account })
    const holder = first.body.data.beneficiary.accountName as string
    const mismatch = await initiate(p, id, { corridor: "NG-NGN-bank", amount: 1000, purpose: "GIFT", beneficiary: { ...account, accountName: "Someone Else" } })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.code).toBe("INVALID_BENEFICIARY")
    expect(mismatch.body.message).toMatch(/^beneficiary\.accountName: does not match/)
    const reordered = holder.split(" ").reverse().join("  ").toLowerCase()
    const ok = await initiate(p, id, { corridor: "NG-NGN-bank", amount: 1000, purpose: "GIFT", beneficiary: { ...account, accountName: reordered } })
    expect(ok.status).toBe(201)
    expect(ok.body.data.beneficiary.accountName).toBe(holder)
  })
})
