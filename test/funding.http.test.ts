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
    const cases: Array<["GH" | "KE" | "ZA" | "UG" | "US", RegExp, string, string]> = [
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

const chargePath = (customerId: string) => `/partner/v1/customers/${customerId}/funding/charge`
const chargesPath = (customerId: string) => `/partner/v1/customers/${customerId}/funding/charges`

describe("funding charges", () => {
  it("creates a PENDING bank_transfer charge with a one-off NUBAN, expiring after 30 minutes", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    const reply = await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 5000, reference: "order-1", customerId: "ignored" } })
    expect(reply.status).toBe(201)
    const charge = reply.body.data
    expect(charge).toMatchObject({
      customerId,
      reference: "order-1",
      type: "bank_transfer",
      currency: "NGN",
      amount: 5000,
      amountPaid: null,
      status: "PENDING",
      accountName: "Sandbox Partner - Ada Obi",
      bankName: "Providus Bank",
      bankCode: "101",
      narration: expect.stringMatching(/^FC[A-Z2-9]{10}$/),
      redirectUrl: null,
      paidAt: null
    })
    expect(isValidNuban("101", charge.accountNumber)).toBe(true)
    expect(Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)).toBe(30 * 60 * 1000)
    const read = await app.request("GET", `${chargesPath(customerId)}/${charge.id}`, { apiKey })
    expect(read.body.data).toEqual(charge)
    const alias = await app.request("POST", `/partner/v1/customers/${customerId}/wallet/funding/charge`, { apiKey, body: { amount: 1, reference: "order-1" } })
    expect(alias.body.data).toEqual(charge)
  })

  it("10 parallel requests with one reference make one charge, all replies identical; no reference makes a new one each time", async () => {
    const { apiKey, customerId } = await f.newCustomer("KE")
    const replies = await Promise.all(Array.from({ length: 10 }, () =>
      app.request("POST", chargePath(customerId), { apiKey, body: { amount: 1200.5, reference: "same-ref" } })))
    for (const reply of replies) {
      expect(reply.status).toBe(201)
      expect(reply.body).toEqual(replies[0]!.body)
    }
    expect(await app.query("SELECT * FROM funding_charges WHERE customer_id = $1", [customerId])).toHaveLength(1)
    const a = await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 10 } })
    const b = await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 10 } })
    expect(a.body.data.id).not.toBe(b.body.data.id)
    expect(a.body.data.reference).toMatch(/^ref_[0-9a-f]{24}$/)

    const other = await f.newCustomer("KE", apiKey)
    const clash = await app.request("POST", chargePath(other.customerId), { apiKey, body: { amount: 5, reference: "same-ref" } })
    expect(clash.status).toBe(409)
    expect(clash.body.code).toBe("REFERENCE_IN_USE")
  })

  it("refuses bad amounts and references with 400, creating nothing", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    for (const amount of badAmounts) {
      const reply = await app.request("POST", chargePath(customerId), { apiKey, body: { amount } })
      expect(reply.status).toBe(400)
      expect(reply.body.message).toContain("amount")
    }
    for (const reference of ["has space", "x".repeat(121), ""]) {
      const reply = await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 10, reference } })
      expect(reply.status).toBe(400)
      expect(reply.body.message).toContain("reference")
    }
    expect(await app.query("SELECT * FROM funding_charges WHERE customer_id = $1", [customerId])).toHaveLength(0)
    const missing = await app.request("GET", `${chargesPath(customerId)}/00000000-0000-4000-8000-000000000000`, { apiKey })
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("FUNDING_CHARGE_NOT_FOUND")
  })

  it("lists charges newest first with a cursor, and hides another customer's charge", async () => {
    const { apiKey, customerId } = await f.newCustomer("GH")
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) ids.push((await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 10 + i } })).body.data.id)
    const first = await app.request("GET", `${chargesPath(customerId)}?limit=2`, { apiKey })
    expect(first.body.data.map((c: any) => c.id)).toEqual([ids[2], ids[1]])
    const second = await app.request("GET", `${chargesPath(customerId)}?limit=2&cursor=${first.body.meta.nextCursor}`, { apiKey })
    expect(second.body.data.map((c: any) => c.id)).toEqual([ids[0]])
    expect(second.body.meta.nextCursor).toBeNull()
    const bad = await app.request("GET", `${chargesPath(customerId)}?cursor=nonsense`, { apiKey })
    expect(bad.status).toBe(400)
    const other = await f.newCustomer("GH", apiKey)
    const foreign = await app.request("GET", `${chargesPath(other.customerId)}/${ids[0]}`, { apiKey })
    expect(foreign.status).toBe(404)
  })

  it("manual bank rail: the pay control credits the charge once, with funding.received method charge", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    await f.setBank(apiKey, { mode: "manual" })
    const charge = (await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 750.25, reference: "topup-9" } })).body.data
    await f.advance(apiKey, 120)
    expect((await app.request("GET", `${chargesPath(customerId)}/${charge.id}`, { apiKey })).body.data.status).toBe("PENDING")
    for (const amount of ["1", 0, 1.001]) {
      const bad = await app.request("POST", `/sandbox/funding/charges/${charge.id}/pay`, { apiKey, body: { amount } })
      expect(bad.status).toBe(400)
    }
    expect(await f.balanceOf(apiKey, customerId, "NGN")).toBe(0)

    const paid = await app.request("POST", `/sandbox/funding/charges/${charge.id}/pay`, { apiKey, body: {} })
    expect(paid.status).toBe(200)
    expect(paid.body.data).toMatchObject({ id: charge.id, status: "PAID", amountPaid: 750.25, paidAt: expect.any(String) })
    expect(await f.balanceOf(apiKey, customerId, "NGN")).toBe(750.25)
    const [entry] = await f.transactions(apiKey, customerId)
    expect(entry).toMatchObject({ type: "CREDIT", reason: "funding", amount: 750.25, reference: "topup-9", resourceId: charge.id })
    const received = await f.events(apiKey, customerId, "funding.received")
    expect(received.map((e) => e.data)).toEqual([{ customerId, currency: "NGN", amount: 750.25, reference: "topup-9", method: "charge" }])

    const again = await app.request("POST", `/sandbox/funding/charges/${charge.id}/pay`, { apiKey, body: {} })
    expect(again.status).toBe(400)
    expect(again.body.code).toBe("FUNDING_CHARGE_NOT_PENDING")
    expect(await f.balanceOf(apiKey, customerId, "NGN")).toBe(750.25)
    const stranger = await f.newCustomer("NG")
    const foreign = await app.request("POST", `/sandbox/funding/charges/${charge.id}/pay`, { apiKey: stranger.apiKey, body: {} })
    expect(foreign.status).toBe(404)
  })

  it("a different amount is credited as received and shown in amountPaid", async () => {
    const { apiKey, customerId } = await f.newCustomer("GH")
    await f.setBank(apiKey, { mode: "manual" })
    const charge = (await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 100 } })).body.data
    const paid = await app.request("POST", `/sandbox/funding/charges/${charge.id}/pay`, { apiKey, body: { amount: 80.5 } })
    expect(paid.body.data).toMatchObject({ status: "PAID", amount: 100, amountPaid: 80.5 })
    expect(await f.balanceOf(apiKey, customerId, "GHS")).toBe(80.5)
  })

  it("expires at expiresAt when the clock is advanced; a later transfer is refused and nothing moves", async () => {
    const { apiKey, customerId } = await f.newCustomer("NG")
    await f.setBank(apiKey, { mode: "manual" })
    const charge = (await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 300 } })).body.data
    await f.advance(apiKey, 30 * 60 - 5)
    expect((await app.request("GET", `${chargesPath(customerId)}/${charge.id}`, { apiKey })).body.data.status).toBe("PENDING")
    await f.advance(apiKey, 5)
    const expired = (await app.request("GET", `${chargesPath(customerId)}/${charge.id}`, { apiKey })).body.data
    expect(expired.status).toBe("EXPIRED")
    expect(await app.query("SELECT status FROM funding_charges WHERE id = $1", [charge.id])).toEqual([{ status: "EXPIRED" }])
    const [event] = await f.events(apiKey, customerId, "funding.charge_expired")
    expect(event!.data).toMatchObject({ id: charge.id, customerId, status: "EXPIRED" })
    const late = await app.request("POST", `/sandbox/funding/charges/${charge.id}/pay`, { apiKey, body: {} })
    expect(late.status).toBe(400)
    expect(late.body.code).toBe("FUNDING_CHARGE_NOT_PENDING")
    expect(late.body.message).toContain("EXPIRED")
    expect(await f.balanceOf(apiKey, customerId, "NGN")).toBe(0)
  })

  it("auto bank rail pays after delaySeconds; auto with outcome failure never pays and the charge expires", async () => {
    const { apiKey, customerId } = await f.newCustomer("US")
    await f.setBank(apiKey, { mode: "auto", delaySeconds: 90 })
    const charge = (await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 40 } })).body.data
    await f.advance(apiKey, 89)
    expect((await app.request("GET", `${chargesPath(customerId)}/${charge.id}`, { apiKey })).body.data.status).toBe("PENDING")
    await f.advance(apiKey, 1)
    expect((await app.request("GET", `${chargesPath(customerId)}/${charge.id}`, { apiKey })).body.data).toMatchObject({ status: "PAID", amountPaid: 40 })
    expect(await f.balanceOf(apiKey, customerId, "USD")).toBe(40)

    await f.setBank(apiKey, { mode: "auto", outcome: "failure", delaySeconds: 10 })
    const unpaid = (await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 15 } })).body.data
    await f.advance(apiKey, 30 * 60)
    expect((await app.request("GET", `${chargesPath(customerId)}/${unpaid.id}`, { apiKey })).body.data.status).toBe("EXPIRED")
    expect(await f.balanceOf(apiKey, customerId, "USD")).toBe(40)
  })
})

describe("EFT charges (ZAR)", () => {
  it("redirects to a sandbox page where the customer authorises; the charge is paid and credited", async () => {
    const { apiKey, customerId } = await f.newCustomer("ZA")
    await f.setBank(apiKey, { mode: "manual" })
    const charge = (await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 199.99, reference: "za-1" } })).body.data
    expect(charge).toMatchObject({ type: "eft", currency: "ZAR", accountNumber: null, bankName: null, status: "PENDING" })
    expect(charge.redirectUrl).toMatch(new RegExp(`^${app.baseUrl}/sandbox/eft/[A-Za-z0-9_-]{43}$`))

    const page = await fetch(charge.redirectUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    const html = await page.text()
    expect(html).toContain("ZAR 199.99")
    expect(html).toContain(`<dd id="status">PENDING</dd>`)
    const action = /action="([^"]+\/authorize)"/.exec(html)![1]!

    const authorised = await fetch(new URL(action, charge.redirectUrl), { method: "POST" })
    expect(authorised.status).toBe(200)
    expect(await authorised.text()).toContain(`<dd id="status">PAID</dd>`)
    expect(await f.balanceOf(apiKey, customerId, "ZAR")).toBe(199.99)
    const [event] = await f.events(apiKey, customerId, "funding.received")
    expect(event!.data).toEqual({ customerId, currency: "ZAR", amount: 199.99, reference: "za-1", method: "charge" })

    const twice = await fetch(new URL(action, charge.redirectUrl), { method: "POST" })
    expect(await twice.text()).toContain("already paid")
    expect(await f.balanceOf(apiKey, customerId, "ZAR")).toBe(199.99)
  })

  it("the customer can cancel; an unknown token answers 404", async () => {
    const { apiKey, customerId } = await f.newCustomer("ZA")
    await f.setBank(apiKey, { mode: "manual" })
    const charge = (await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 50 } })).body.data
    const cancelled = await fetch(`${charge.redirectUrl}/cancel`, { method: "POST" })
    expect(await cancelled.text()).toContain(`<dd id="status">CANCELLED</dd>`)
    expect((await app.request("GET", `${chargesPath(customerId)}/${charge.id}`, { apiKey })).body.data.status).toBe("CANCELLED")
    expect((await f.events(apiKey, customerId, "funding.charge_cancelled"))[0]!.data).toMatchObject({ id: charge.id, status: "CANCELLED" })
    const pay = await app.request("POST", `/sandbox/funding/charges/${charge.id}/pay`, { apiKey, body: {} })
    expect(pay.body.code).toBe("FUNDING_CHARGE_NOT_PENDING")
    expect(await f.balanceOf(apiKey, customerId, "ZAR")).toBe(0)
    const unknown = await fetch(`${app.baseUrl}/sandbox/eft/${"A".repeat(43)}`)
    expect(unknown.status).toBe(404)
    const eftWrongAmount = (await app.request("POST", chargePath(customerId), { apiKey, body: { amount: 20 } })).body.data
    const wrong = await app.request("POST", `/sandbox/funding/charges/${eftWrongAmount.id}/pay`, { apiKey, body: { amount: 19 } })
    expect(wrong.status).toBe(400)
  })
})
