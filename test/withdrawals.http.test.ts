import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtures, type Partner as FixturePartner, type RailPolicy } from "./support/Fixtures.js"
import { harness, ledgerReport } from "./support/LedgerHarness.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
const fx = fixtures(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
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

const gtb = "058"
/** GTBank 058, serial 123456789 with its NUBAN check digit 6 (the sandbox does not require it). */
const gtbAccount = "1234567896"

/** A customer with `funds` (minor units) of the country's currency and, unless `account` is null, a default account. */
const customer = async (
  p: Partner,
  options: { country?: "NG" | "GH" | "KE" | "ZA" | "UG" | "US"; funds?: bigint; account?: string | null; bankCode?: string } = {}
) => {
  const country = options.country ?? "NG"
  const { id } = await fx.customer(p, { country })
  const currency = ({ NG: "NGN", GH: "GHS", KE: "KES", ZA: "ZAR", UG: "UGX", US: "USD" } as const)[country]
  if ((options.funds ?? 0n) > 0n) expect((await p.h.credit(id, currency, options.funds!)).ok).toBe(true)
  if (options.account !== null) {
    const bankCode = options.bankCode ?? gtb
    const accountNumber = options.account ?? gtbAccount
    await fx.saveAccount(p, id, { bankCode, accountNumber })
  }
  return id
}

const withdraw = (p: Partner, customerId: string, body: Record<string, unknown>) =>
  app.request("POST", `/partner/v1/customers/${customerId}/withdraw`, { apiKey: p.apiKey, body })

const quote = (p: Partner, customerId: string, amount: string) =>
  app.request("GET", `/partner/v1/customers/${customerId}/withdraw/quote?amount=${amount}`, { apiKey: p.apiKey })

const balances = async (p: Partner, customerId: string, currency = "NGN") => {
  const rows = await p.h.balances(customerId)
  const row = rows.find((r) => r.currency === currency)
  return { available: row?.available ?? 0n, held: row?.held ?? 0n }
}

const advance = (p: Partner, seconds: number) => fx.advance(p, seconds)

const control = (p: Partner, id: string, move: "complete" | "fail" | "reverse", body?: unknown) =>
  app.request("POST", `/sandbox/withdrawals/${id}/${move}`, { apiKey: p.apiKey, ...(body === undefined ? {} : { body }) })

const events = (customerId: string) =>
  app.query<{ type: string; data: any }>(
    "SELECT type, data FROM events WHERE customer_id = $1 AND type LIKE 'withdrawal.%' ORDER BY seq",
    [customerId]
  )

/** Sum of the entries a withdrawal put on a house account. */
const houseTotal = async (withdrawalId: string, code: string) =>
  BigInt((await app.query<{ total: string | null }>(
    `SELECT coalesce(sum(e.amount), 0)::text AS total FROM ledger_entries e
     JOIN ledger_accounts a ON a.id = e.account_id JOIN ledger_transactions t ON t.id = e.transaction_id
     WHERE a.kind = 'house' AND a.code = $1 AND t.resource_type = 'withdrawal' AND t.resource_id = $2`,
    [code, withdrawalId]
  ))[0]!.total ?? "0")

/** The smallest working amount stated in a WITHDRAWAL_BELOW_MINIMUM message. */
const minimumIn = (message: string) => /smallest amount that works is [A-Z]{3} (\d+(?:\.\d+)?)/.exec(message)?.[1]

describe("GET /customers/{id}/withdraw/quote", () => {
  it("takes the fee (bps of the request rounded up, plus the flat charge) out of the requested amount", async () => {
    const p = await partner()
    const ng = await customer(p, { account: null })
    const cases: Array<[string, Record<string, number>]> = [
      // 123457 x 0.5% = 617.285 -> 618 (up) + 1000 = 1618 minor
      ["1234.57", { amount: 1218.39, fee: 16.18, totalDebited: 1234.57 }],
      // exactly 1000 minor, no rounding
      ["2000", { amount: 1980, fee: 20, totalDebited: 2000 }],
      // 1.01 minor -> 2 minor
      ["202.01", { amount: 190.99, fee: 11.02, totalDebited: 202.01 }]
    ]
    for (const [amount, expected] of cases) {
      const reply = await quote(p, ng, amount)
      expect(reply.status, amount).toBe(200)
      expect(reply.body.data).toEqual({ currency: "NGN", ...expected, feeBps: 50, feeFlat: 10 })
    }
    const ug = await customer(p, { country: "UG", account: null })
    const ugx = await quote(p, ug, "10001")
    // 10001 x 1% = 100.01 -> 101 + 500
    expect(ugx.body.data).toEqual({ currency: "UGX", amount: 9400, fee: 601, totalDebited: 10001, feeBps: 100, feeFlat: 500 })
  })

  it("refuses under the minimum with the smallest amount that works: that amount works, one minor unit less does not", async () => {
    const p = await partner()
    const expectations: Array<["NG" | "GH" | "KE" | "ZA" | "UG" | "US", string, string, number]> = [
      ["NG", "110.56", "110.55", 100],
      ["GH", "11.12", "11.11", 10],
      ["KE", "116.17", "116.16", 100],
      ["ZA", "22.12", "22.11", 20],
      ["UG", "5556", "5555", 5000],
      ["US", "6.02", "6.01", 5]
    ]
    for (const [country, minimum, below, receipt] of expectations) {
      const id = await customer(p, { country, account: null })
      const refused = await quote(p, id, below)
      expect(refused.status, country).toBe(400)
      expect(refused.body.code).toBe("WITHDRAWAL_BELOW_MINIMUM")
      expect(minimumIn(refused.body.message)).toBe(minimum)
      expect(refused.body.details).toEqual({ minimumAmount: Number(minimum), currency: refused.body.details.currency })
      const works = await quote(p, id, minimum)
      expect(works.status, country).toBe(200)
      expect(works.body.data.amount).toBe(receipt)
    }
  })

  it("answers 400 naming amount for a missing, malformed or over-precise amount", async () => {
    const p = await partner()
    const id = await customer(p, { account: null })
    for (const amount of ["", "abc", "1e5", "-200", "0", "200.123"]) {
      const reply = await quote(p, id, amount)
      expect(reply.status, amount).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain("amount")
    }
    const missing = await app.request("GET", `/partner/v1/customers/${id}/withdraw/quote`, { apiKey: p.apiKey })
    expect(missing.status).toBe(400)
    expect(missing.body.message).toContain("amount")
  })
})

describe("POST /customers/{id}/withdraw", () => {
  it("reserves the requested amount, answers 201 PROCESSING with decimal strings, and emits withdrawal.submitted once", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 500_000n })
    const reply = await withdraw(p, id, { amount: 1234.57, reference: "wd-shape-1" })
    expect(reply.status).toBe(201)
    const w = reply.body.data
    expect(w).toMatchObject({
      reference: "wd-shape-1",
      amount: "1218.39",
      fee: "16.18",
      totalDebited: "1234.57",
      currency: "NGN",
      status: "PROCESSING",
      failureReason: null,
      bankAccount: { bankName: "Guaranty Trust Bank", accountNumberLast4: "7896" }
    })
    expect(typeof w.bankAccount.accountName).toBe("string")
    expect(w.createdAt).toBe(w.updatedAt)
    expect(await balances(p, id)).toEqual({ available: 500_000n - 123_457n, held: 123_457n })
    const balance = await app.request("GET", `/partner/v1/customers/${id}/balance`, { apiKey: p.apiKey })
    expect(balance.body.data).toEqual([{ currency: "NGN", balance: 3765.43 }])
    const emitted = await events(id)
    expect(emitted).toEqual([{ type: "withdrawal.submitted", data: { customerId: id, ...w } }])
    const got = await app.request("GET", `/partner/v1/customers/${id}/withdrawals/${w.id}`, { apiKey: p.apiKey })
    expect(got.body.data).toEqual(w)
  })

  it("generates a reference when none is sent: a retry without one is a second withdrawal", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 100_000n })
    const first = await withdraw(p, id, { amount: 200 })
    const second = await withdraw(p, id, { amount: 200 })
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(first.body.data.reference).toMatch(/^ref_[0-9a-f]{24}$/)
    expect(second.body.data.id).not.toBe(first.body.data.id)
    expect(await balances(p, id)).toEqual({ available: 60_000n, held: 40_000n })
  })

  it("refuses without a default account, beyond the balance, under the minimum or with bad amounts; nothing moves", async () => {
    const p = await partner({ mode: "manual" })
    const noAccount = await customer(p, { funds: 100_000n, account: null })
    const refused = await withdraw(p, noAccount, { amount: 500, reference: "no-account" })
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe("NO_DEFAULT_BANK_ACCOUNT")

    const id = await customer(p, { funds: 100_000n })
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ amount: 1000.01 }, "INSUFFICIENT_BALANCE", "balance"],
      [{ amount: 110.55 }, "WITHDRAWAL_BELOW_MINIMUM", "110.56"],
      [{ amount: 200.001 }, "BAD_REQUEST", "amount"],
      [{ amount: "200" }, "BAD_REQUEST", "amount"],
      [{ amount: -5 }, "BAD_REQUEST", "amount"],
      [{}, "BAD_REQUEST", "amount"],
      [{ amount: 200, reference: "bad reference!" }, "BAD_REQUEST", "reference"]
    ]
    for (const [body, code, text] of cases) {
      const reply = await withdraw(p, id, body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe(code)
      expect(reply.body.message).toContain(text)
    }
    for (const who of [noAccount, id]) {
      expect(await balances(p, who)).toEqual({ available: 100_000n, held: 0n })
      expect(await events(who)).toEqual([])
      expect(await app.query("SELECT id FROM withdrawals WHERE customer_id = $1", [who])).toEqual([])
    }
    // The refused reference was not consumed: it works once the customer has an account.
    const later = await app.request("POST", `/partner/v1/customers/${noAccount}/accounts`, {
      apiKey: p.apiKey,
      body: { bankCode: gtb, accountNumber: "2468135798" }
    })
    expect(later.status).toBe(201)
    expect((await withdraw(p, noAccount, { amount: 500, reference: "no-account" })).status).toBe(201)
  })

  it("never overdraws: 20 concurrent withdrawals worth twice the balance, exactly as many as fit succeed", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 1_000_000n })
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => withdraw(p, id, { amount: 1000, reference: `race-${i}` })))
    const created = replies.filter((r) => r.status === 201)
    const refused = replies.filter((r) => r.status !== 201)
    expect(created).toHaveLength(10)
    expect(refused.every((r) => r.status === 400 && r.body.code === "INSUFFICIENT_BALANCE")).toBe(true)
    expect(await balances(p, id)).toEqual({ available: 0n, held: 1_000_000n })
    expect((await events(id)).filter((e) => e.type === "withdrawal.submitted")).toHaveLength(10)
    expect((await ledgerReport(app)).violations).toEqual([])
  })

  it("is idempotent by reference: 10 racing requests make one withdrawal and identical replies; another customer's reference is 409", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 100_000n })
    const replies = await Promise.all(Array.from({ length: 10 }, () => withdraw(p, id, { amount: 250, reference: "same-ref" })))
    for (const reply of replies) {
      expect(reply.status).toBe(201)
      expect(reply.body).toEqual(replies[0]!.body)
    }
    expect(await app.query("SELECT id FROM withdrawals WHERE reference = 'same-ref' AND partner_id = $1", [p.partnerId])).toHaveLength(1)
    expect(await events(id)).toHaveLength(1)
    expect(await balances(p, id)).toEqual({ available: 75_000n, held: 25_000n })

    const different = await withdraw(p, id, { amount: 300, reference: "same-ref" })
    expect(different.status).toBe(201)
    expect(different.body).toEqual(replies[0]!.body)
    // A repeat is never priced again: an amount under today's minimum (or with too many decimals) still answers
    // the original, so a retry after a time-out cannot read as a refusal of a withdrawal that went through.
    for (const amount of [50, 250.001]) {
      const repeat = await withdraw(p, id, { amount, reference: "same-ref" })
      expect(repeat.status).toBe(201)
      expect(repeat.body).toEqual(replies[0]!.body)
    }
    expect(await balances(p, id)).toEqual({ available: 75_000n, held: 25_000n })

    const other = await customer(p, { funds: 100_000n })
    const taken = await withdraw(p, other, { amount: 250, reference: "same-ref" })
    expect(taken.status).toBe(409)
    expect(taken.body.code).toBe("REFERENCE_IN_USE")
    expect(await balances(p, other)).toEqual({ available: 100_000n, held: 0n })
    // The scope is the partner: another partner may use the same reference.
    const q = await partner({ mode: "manual" })
    const theirs = await customer(q, { funds: 100_000n })
    expect((await withdraw(q, theirs, { amount: 250, reference: "same-ref" })).status).toBe(201)
  })
})

describe("outcomes", () => {
  it("POST .../wallet/withdraw is the same endpoint: one reference scope across both paths", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 100_000n })
    const first = await withdraw(p, id, { amount: 200, reference: "wallet-alias-1" })
    expect(first.status).toBe(201)
    const alias = await app.request("POST", `/partner/v1/customers/${id}/wallet/withdraw`, {
      apiKey: p.apiKey,
      body: { amount: 200, reference: "wallet-alias-1" }
    })
    expect(alias.status).toBe(201)
    expect(alias.body.data).toEqual(first.body.data)
    expect(await balances(p, id)).toMatchObject({ available: 80_000n })
  })

  it("auto success: completes after the rail delay; the amount goes to bank settlement and the fee to fee revenue", async () => {
    const p = await partner({ mode: "auto", outcome: "success", delaySeconds: 30 })
    const id = await customer(p, { funds: 300_000n })
    const w = (await withdraw(p, id, { amount: 1234.57 })).body.data
    await advance(p, 29)
    expect((await app.request("GET", `/partner/v1/customers/${id}/withdrawals/${w.id}`, { apiKey: p.apiKey })).body.data.status).toBe("PROCESSING")
    await advance(p, 1)
    const done = (await app.request("GET", `/partner/v1/customers/${id}/withdrawals/${w.id}`, { apiKey: p.apiKey })).body.data
    expect(done).toMatchObject({ status: "COMPLETED", failureReason: null, amount: "1218.39", fee: "16.18" })
    expect(done.updatedAt > done.createdAt).toBe(true)
    expect(await balances(p, id)).toEqual({ available: 300_000n - 123_457n, held: 0n })
    expect(await houseTotal(w.id, "bank_settlement")).toBe(121_839n)
    expect(await houseTotal(w.id, "fee_revenue")).toBe(1_618n)
    const emitted = await events(id)
    expect(emitted.map((e) => e.type)).toEqual(["withdrawal.submitted", "withdrawal.completed"])
    expect(emitted[1]!.data).toEqual({ customerId: id, ...done })
  })

  it("auto failure policy: fails after the delay and returns the whole total, fee included", async () => {
    const p = await partner({ mode: "auto", outcome: "failure", delaySeconds: 10 })
    const id = await customer(p, { funds: 200_000n })
    const w = (await withdraw(p, id, { amount: 1999.99 })).body.data
    await advance(p, 10)
    const failed = (await app.request("GET", `/partner/v1/customers/${id}/withdrawals/${w.id}`, { apiKey: p.apiKey })).body.data
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "Payout rejected by the beneficiary bank" })
    expect(await balances(p, id)).toEqual({ available: 200_000n, held: 0n })
    const emitted = await events(id)
    expect(emitted.map((e) => e.type)).toEqual(["withdrawal.submitted", "withdrawal.failed"])
    expect(emitted[1]!.data).toEqual({ customerId: id, ...failed })
  })

  it("magic accounts win over a success policy: one fails, one completes and is then returned by the bank", async () => {
    const p = await partner({ mode: "auto", outcome: "success", delaySeconds: 20 })
    // Magic account numbers: 3 = the payout fails, 4 = it completes and the bank returns it (docs/sandbox-rails.md).
    const failing = await customer(p, { funds: 100_000n, account: "0000000003" })
    const returning = await customer(p, { funds: 100_000n, account: "0000000004" })
    const f = (await withdraw(p, failing, { amount: 500 })).body.data
    const r = (await withdraw(p, returning, { amount: 500 })).body.data
    await advance(p, 20)
    const get = (c: string, w: string) => app.request("GET", `/partner/v1/customers/${c}/withdrawals/${w}`, { apiKey: p.apiKey })
    expect((await get(failing, f.id)).body.data).toMatchObject({ status: "FAILED", failureReason: "Beneficiary account cannot receive credits" })
    expect(await balances(p, failing)).toEqual({ available: 100_000n, held: 0n })
    expect((await get(returning, r.id)).body.data.status).toBe("COMPLETED")
    await advance(p, 20)
    expect((await get(returning, r.id)).body.data).toMatchObject({ status: "REVERSED", failureReason: "Returned by the beneficiary bank" })
    // 500.00 requested, fee 12.50: the bank returned 487.50, the fee stays earned.
    expect(await balances(p, returning)).toEqual({ available: 100_000n - 1_250n, held: 0n })
    expect((await events(returning)).map((e) => e.type)).toEqual(["withdrawal.submitted", "withdrawal.completed", "withdrawal.reversed"])
  })

  it("manual: the operator completes, then reverses; the amount comes back, the fee is kept", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 100_000n })
    const w = (await withdraw(p, id, { amount: 500 })).body.data
    await advance(p, 3_600)
    expect((await app.request("GET", `/partner/v1/customers/${id}/withdrawals/${w.id}`, { apiKey: p.apiKey })).body.data.status).toBe("PROCESSING")
    const completed = await control(p, w.id, "complete")
    expect(completed.status).toBe(200)
    expect(completed.body.data).toMatchObject({ id: w.id, status: "COMPLETED" })
    expect(await balances(p, id)).toEqual({ available: 50_000n, held: 0n })
    const reversed = await control(p, w.id, "reverse")
    expect(reversed.status).toBe(200)
    expect(reversed.body.data).toMatchObject({ status: "REVERSED", failureReason: "Reversed by an operator" })
    expect(await balances(p, id)).toEqual({ available: 100_000n - 1_250n, held: 0n })
    expect(await houseTotal(w.id, "bank_settlement")).toBe(0n)
    expect(await houseTotal(w.id, "fee_revenue")).toBe(1_250n)
    const refunds = await app.query<{ reason: string }>(
      "SELECT reason FROM ledger_transactions WHERE resource_type = 'withdrawal' AND resource_id = $1 ORDER BY seq",
      [w.id]
    )
    expect(refunds.map((t) => t.reason)).toEqual(["withdrawal", "withdrawal", "withdrawal_refund"])
    const emitted = await events(id)
    expect(emitted.map((e) => e.type)).toEqual(["withdrawal.submitted", "withdrawal.completed", "withdrawal.reversed"])
    expect(emitted[2]!.data).toEqual({ customerId: id, ...reversed.body.data })
  })

  it("manual: the operator fails with a reason (exact balance back) or reverses a processing payout (whole total back)", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 77_777n })
    const a = (await withdraw(p, id, { amount: 333.33 })).body.data
    const b = (await withdraw(p, id, { amount: 222.22 })).body.data
    const failed = await control(p, a.id, "fail", { reason: "Account dormant" })
    expect(failed.status).toBe(200)
    expect(failed.body.data).toMatchObject({ status: "FAILED", failureReason: "Account dormant" })
    const reversed = await control(p, b.id, "reverse")
    expect(reversed.body.data.status).toBe("REVERSED")
    expect(await balances(p, id)).toEqual({ available: 77_777n, held: 0n })
    const blank = await control(p, a.id, "fail", { reason: "  " })
    expect(blank.status).toBe(400)
    expect(blank.body.message).toContain("reason")
  })

  it("refuses illegal moves with 400 WITHDRAWAL_STATE_CONFLICT and unknown or foreign ids with 404; nothing moves", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 100_000n })
    const failed = (await withdraw(p, id, { amount: 200 })).body.data
    const completed = (await withdraw(p, id, { amount: 200 })).body.data
    expect((await control(p, failed.id, "fail", { reason: "No" })).status).toBe(200)
    expect((await control(p, completed.id, "complete")).status).toBe(200)
    const before = await balances(p, id)
    const illegal: Array<[string, "complete" | "fail" | "reverse", unknown]> = [
      [failed.id, "complete", undefined],
      [failed.id, "fail", { reason: "again" }],
      [failed.id, "reverse", undefined],
      [completed.id, "complete", undefined],
      [completed.id, "fail", { reason: "late" }]
    ]
    for (const [wid, move, body] of illegal) {
      const reply = await control(p, wid, move, body)
      expect(reply.status, `${move}`).toBe(400)
      expect(reply.body.code).toBe("WITHDRAWAL_STATE_CONFLICT")
    }
    expect((await control(p, completed.id, "reverse")).status).toBe(200)
    const twice = await control(p, completed.id, "reverse")
    expect(twice.status).toBe(400)
    expect(twice.body.code).toBe("WITHDRAWAL_STATE_CONFLICT")
    expect(await balances(p, id)).toEqual({ available: before.available + 18_900n, held: 0n })
    expect((await events(id)).map((e) => e.type)).toEqual([
      "withdrawal.submitted", "withdrawal.submitted", "withdrawal.failed", "withdrawal.completed", "withdrawal.reversed"
    ])

    const other = await partner()
    expect((await control(other, failed.id, "complete")).status).toBe(404)
    expect((await control(p, "00000000-0000-4000-8000-000000000000", "complete")).status).toBe(404)
    expect((await control(p, "nope", "complete")).status).toBe(404)
  })

  it("the operator answers first: the rail's later answer moves nothing", async () => {
    const p = await partner({ mode: "auto", outcome: "success", delaySeconds: 15 })
    const id = await customer(p, { funds: 100_000n })
    const w = (await withdraw(p, id, { amount: 400 })).body.data
    expect((await control(p, w.id, "fail", { reason: "Stopped by compliance" })).status).toBe(200)
    await advance(p, 15)
    const after = (await app.request("GET", `/partner/v1/customers/${id}/withdrawals/${w.id}`, { apiKey: p.apiKey })).body.data
    expect(after).toMatchObject({ status: "FAILED", failureReason: "Stopped by compliance" })
    expect(await balances(p, id)).toEqual({ available: 100_000n, held: 0n })
    expect((await events(id)).map((e) => e.type)).toEqual(["withdrawal.submitted", "withdrawal.failed"])
    const job = await app.query<{ status: string }>("SELECT status FROM jobs WHERE payload->>'withdrawalId' = $1", [w.id])
    expect(job).toEqual([{ status: "DONE" }])
  })
})

describe("GET /customers/{id}/withdrawals", () => {
  it("lists newest first with a cursor; a single read answers 404 for unknown ids and 403 for foreign customers", async () => {
    const p = await partner({ mode: "manual" })
    const id = await customer(p, { funds: 100_000n })
    const made: Array<string> = []
    for (const amount of [200, 300, 400]) made.push((await withdraw(p, id, { amount })).body.data.id)
    const first = await app.request("GET", `/partner/v1/customers/${id}/withdrawals?limit=2`, { apiKey: p.apiKey })
    expect(first.status).toBe(200)
    expect(first.body.data.map((w: any) => w.id)).toEqual([made[2], made[1]])
    expect(typeof first.body.meta.nextCursor).toBe("string")
    const second = await app.request("GET", `/partner/v1/customers/${id}/withdrawals?limit=2&cursor=${first.body.meta.nextCursor}`, { apiKey: p.apiKey })
    expect(second.body.data.map((w: any) => w.id)).toEqual([made[0]])
    expect(second.body.meta.nextCursor).toBeNull()

    const otherCustomer = await customer(p, { account: null })
    const crossCursor = await app.request("GET", `/partner/v1/customers/${otherCustomer}/withdrawals?cursor=${first.body.meta.nextCursor}`, { apiKey: p.apiKey })
    expect(crossCursor.status).toBe(400)
    expect((await app.request("GET", `/partner/v1/customers/${otherCustomer}/withdrawals`, { apiKey: p.apiKey })).body.data).toEqual([])

    for (const wid of ["00000000-0000-4000-8000-000000000000", "nope"]) {
      const reply = await app.request("GET", `/partner/v1/customers/${id}/withdrawals/${wid}`, { apiKey: p.apiKey })
      expect(reply.status).toBe(404)
    }
    expect((await app.request("GET", `/partner/v1/customers/${otherCustomer}/withdrawals/${made[0]}`, { apiKey: p.apiKey })).status).toBe(404)
    const stranger = await partner()
    expect((await app.request("GET", `/partner/v1/customers/${id}/withdrawals`, { apiKey: stranger.apiKey })).status).toBe(403)
    expect((await app.request("GET", `/partner/v1/customers/${id}/withdrawals/${made[0]}`, { apiKey: stranger.apiKey })).status).toBe(403)
  })
})
