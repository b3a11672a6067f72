import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest"
import { isValidNuban } from "../simulators/bank/Banks.js"
import { badAmounts, fundingSupport } from "./funding.support.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
const f = fundingSupport(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())
afterEach(() => f.expectLedgerClean())

const vaPath = (customerId: string) => `/partner/v1/customers/${customerId}/virtual-account`
const creditPath = (customerId: string) => `/sandbox/customers/${customerId}/virtual-account/credit`

describe("virtual account", () => {
  it("NGN: refused with TIER1_REQUIRED before Tier 1, then issued once with a valid NUBAN and identical on every read", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    const early = await app.request("GET", vaPath(customerId), { apiKey })
    expect(early.status).toBe(400)
    expect(early.body).toMatchObject({ success: false, statusCode: 400, code: "TIER1_REQUIRED" })
    expect(await app.query("SELECT * FROM virtual_accounts WHERE customer_id = $1", [customerId])).toHaveLength(0)

    await f.approveTier1(apiKey, customerId)
    const first = await app.request("GET", vaPath(customerId), { apiKey })
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual({
      accountNumber: expect.stringMatching(/^\d{10}$/),
      accountName: "Ada Obi",
      bankName: "Providus Bank",
      bankCode: "101",
      currency: "NGN",
      status: "active"
    })
    expect(isValidNuban("101", first.body.data.accountNumber)).toBe(true)
    const second = await app.request("GET", vaPath(customerId), { apiKey })
    expect(second.body).toEqual(first.body)
  })

  it("two first reads at once give one account; other countries use their format and collection bank", async () => {
    const cases: Array<[string, RegExp, string, string]> = [
      ["GH", /^[1-9]\d{12}$/, "CalBank", "GHS"],
      ["KE", /^[1-9]\d{11}$/, "Equity Bank Kenya", "KES"],
      ["ZA", /^[1-9]\d{9}$/, "First National Bank", "ZAR"],
      ["UG", /^[1-9]\d{9}$/, "Stanbic Bank Uganda", "UGX"],
      ["US", /^[1-9]\d{9}$/, "JPMorgan Chase Bank", "USD"]
    ]
    for (const [country, format, bankName, currency] of cases) {
      const { apiKey, customerId } = await f.newCustomer(country)
      const replies = await Promise.all([1, 2, 3].map(() => app.request("GET", vaPath(customerId), { apiKey })))
      for (const reply of replies) {
        expect(reply.status).toBe(200)
        expect(reply.body).toEqual(replies[0]!.body)
      }
      expect(replies[0]!.body.data).toMatchObject({ bankName, currency, status: "active" })
      expect(replies[0]!.body.data.accountNumber).toMatch(format)
      expect(await app.query("SELECT * FROM virtual_accounts WHERE customer_id = $1", [customerId])).toHaveLength(1)
    }
  })

  it("answers 403 for an unknown, malformed or foreign customer", async () => {
    const { apiKey } = await f.newCustomer("GH")
    const other = await f.newCustomer("GH")
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", other.customerId]) {
      const reply = await app.request("GET", vaPath(id), { apiKey })
      expect(reply.status).toBe(403)
      expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
    }
  })
})

describe("incoming transfer to the virtual account (sandbox)", () => {
  it("400 VIRTUAL_ACCOUNT_NOT_ISSUED before the account exists", async () => {
    const { apiKey, customerId } = await f.newCustomer("GH")
    const reply = await app.request("POST", creditPath(customerId), { apiKey, body: { amount: 100 } })
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe("VIRTUAL_ACCOUNT_NOT_ISSUED")
    expect(await f.balanceOf(apiKey, customerId, "GHS")).toBe(0)
  })

  it("refuses bad amounts with 400 naming amount, and nothing moves", async () => {
    const { apiKey, customerId } = await f.newCustomer("GH")
    await app.request("GET", vaPath(customerId), { apiKey })
    for (const amount of badAmounts) {
      const reply = await app.request("POST", creditPath(customerId), { apiKey, body: { amount } })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain("amount")
    }
    const ugx = await f.newCustomer("UG")
    await app.request("GET", vaPath(ugx.customerId), { apiKey: ugx.apiKey })
    const fraction = await app.request("POST", creditPath(ugx.customerId), { apiKey: ugx.apiKey, body: { amount: 100.5 } })
    expect(fraction.status).toBe(400)
    expect(fraction.body.message).toContain("UGX allows at most 0 decimal places")
    expect(await app.query("SELECT * FROM ledger_transactions WHERE customer_id IN ($1, $2)", [customerId, ugx.customerId])).toHaveLength(0)
    expect(await app.query("SELECT * FROM funding_receipts WHERE customer_id IN ($1, $2)", [customerId, ugx.customerId])).toHaveLength(0)
  })

  it("credits the balance, lists a funding CREDIT, emits funding.received and updates the balance stream", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    await f.approveTier1(apiKey, customerId)
    const account = (await app.request("GET", vaPath(customerId), { apiKey })).body.data

    const controller = new AbortController()
    const stream = await fetch(`${app.baseUrl}/partner/v1/customers/${customerId}/balance/stream`, {
      headers: { "x-api-key": apiKey },
      signal: controller.signal
    })
    const reader = stream.body!.getReader()
    const decoder = new TextDecoder()
    let buffered = ""
    const nextFrame = async () => {
      while (!buffered.includes("\n\n")) {
        const chunk = await reader.read()
        if (chunk.done) throw new Error("stream ended")
        buffered += decoder.decode(chunk.value)
      }
      const end = buffered.indexOf("\n\n")
      const frame = buffered.slice(0, end)
      buffered = buffered.slice(end + 2)
      return JSON.parse(frame.split("\n").find((line) => line.startsWith("data: "))!.slice(6))
    }
    expect((await nextFrame()).balances).toEqual([{ currency: "NGN", balance: 0 }])

    const reply = await app.request("POST", creditPath(customerId), { apiKey, body: { amount: 2500.75, narration: "salary" } })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({
      customerId,
      method: "virtual_account",
      chargeId: null,
      currency: "NGN",
      amount: 2500.75,
      narration: "salary",
      reference: expect.stringMatching(/^000101\d{24}$/)
    })
    expect((await nextFrame()).balances).toEqual([{ currency: "NGN", balance: 2500.75 }])
    controller.abort()

    expect(await f.balanceOf(apiKey, customerId, "NGN")).toBe(2500.75)
    const [entry] = await f.transactions(apiKey, customerId)
    expect(entry).toMatchObject({ type: "CREDIT", reason: "funding", amount: 2500.75, currency: "NGN", reference: reply.body.data.reference })
    const [event] = await f.events(apiKey, customerId, "funding.received")
    expect(event!.data).toEqual({
      customerId,
      currency: "NGN",
      amount: 2500.75,
      reference: reply.body.data.reference,
      method: "virtual_account"
    })
    const defaulted = await app.request("POST", creditPath(customerId), { apiKey, body: { amount: 1 } })
    expect(defaulted.body.data.narration).toBe(`Transfer to ${account.accountName}`)
    expect(await f.balanceOf(apiKey, customerId, "NGN")).toBe(2501.75)
  })
})
