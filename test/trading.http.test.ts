import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreateCustomer } from "../src/customers/Api.js"
import { checkLedger } from "../src/ledger/LedgerCheck.js"
import { fixtures, type PartnerKey } from "./support/Fixtures.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Trading over real HTTP (docs/trading.md): the indicative rate, buy and sell quotes with their exact rounding and
 * minimums, and executions that move the ledger exactly once — or, refused, not at all. The service clock is frozen
 * (test/support/TestApp.ts): quotes expire only when a test advances it.
 */
let app: TestApp
const fx = fixtures(() => app)

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  // `npm run ledger:check` on everything this file did.
  if (app !== undefined) expect((await app.run(checkLedger)).violations).toEqual([])
  await app?.close()
})

interface Customer {
  readonly apiKey: string
  readonly partnerId: string
  readonly id: string
  readonly base: string
}

const newPartner = () => fx.partner()

/** A customer of `partner` (a new partner when omitted), Tier 1 approved, optionally funded. */
const newCustomer = async (
  options: { partner?: PartnerKey & { partnerId: string }; country?: CreateCustomer["country"]; fiat?: number; usdt?: number } = {}
): Promise<Customer> => {
  const partner = options.partner ?? await newPartner()
  const country = options.country ?? "NG"
  const { id } = await fx.customer(partner, { country })
  const customer = { apiKey: partner.apiKey, partnerId: partner.partnerId, id, base: `/partner/v1/customers/${id}` }
  if (country === "NG") await fx.approveTier1(partner, id, { bvn: "12345678901", nin: "10987654321" })
  if (options.fiat !== undefined) await creditFiat(customer, options.fiat)
  if (options.usdt !== undefined) await depositUsdt(customer, options.usdt)
  return customer
}

const creditFiat = (c: Customer, amount: number) => fx.fund(c, c.id, { NGN: amount })

const depositUsdt = async (c: Customer, amount: number) => {
  const deposit = await fx.deposit(c, c.id, { asset: "USDT", network: "TRON", amount })
  expect(deposit.status).toBe("CREDITED")
}

const balances = async (c: Customer): Promise<Record<string, number>> => {
  const reply = await app.request("GET", `${c.base}/balance`, { apiKey: c.apiKey })
  expect(reply.status).toBe(200)
  return Object.fromEntries((reply.body.data as Array<{ currency: string; balance: number }>).map((b) => [b.currency, b.balance]))
}

const transactions = async (c: Customer) => {
  const reply = await app.request("GET", `${c.base}/transactions?limit=100`, { apiKey: c.apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data as Array<Record<string, any>>
}

const events = async (c: Customer, type: string) => {
  const reply = await app.request("GET", `/sandbox/events?customerId=${c.id}&type=${type}&limit=100`, { apiKey: c.apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data as Array<Record<string, any>>
}

const now = async (apiKey: string) => (await app.request("GET", "/sandbox/clock", { apiKey })).body.data.now as string

const advance = (apiKey: string, seconds: number) => fx.advance({ apiKey }, seconds)

const setRates = async (apiKey: string, currency: string, body: Record<string, number>) => {
  const reply = await app.request("PUT", `/sandbox/rates/${currency}`, { apiKey, body })
  expect(reply.status).toBe(200)
}

const setExchange = async (apiKey: string, outcome: "success" | "failure") => {
  const reply = await app.request("PUT", "/sandbox/rails/exchange", { apiKey, body: { mode: "auto", outcome } })
  expect(reply.status).toBe(200)
}

const rate = (c: Customer, query = "", apiKey = c.apiKey) => app.request("GET", `${c.base}/rate${query}`, { apiKey })

const buyQuote = (c: Customer, body: Record<string, unknown>, apiKey = c.apiKey) =>
  app.request("POST", `${c.base}/buy/quote`, { apiKey, body })

const sellQuote = (c: Customer, body: Record<string, unknown>, apiKey = c.apiKey) =>
  app.request("POST", `${c.base}/sell/quote`, { apiKey, body })

const buyBody = (amount: number, overrides: Record<string, unknown> = {}) =>
  ({ amount, sourceCurrency: "NGN", destinationCurrency: "USDT", type: "buy", ...overrides })

const sellBody = (amount: number, overrides: Record<string, unknown> = {}) =>
  ({ amount, sourceCurrency: "USDT", destinationCurrency: "NGN", type: "sell", ...overrides })

/** A 201 quote's data. */
const quoted = async (reply: Promise<{ status: number; body: any }>) => {
  const r = await reply
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body.data as Record<string, any>
}

const execute = (c: Customer, side: "buy" | "sell", quoteId: string, apiKey = c.apiKey) =>
  app.request("POST", `${c.base}/${side}/execute`, { apiKey, body: { quoteId } })

const quoteRows = (customerId: string) =>
  app.query<{ id: string; status: string; reference: string | null }>(
    "SELECT id, status, reference FROM trade_quotes WHERE customer_id = $1 ORDER BY seq",
    [customerId]
  )

const fills = (quoteId: string) => app.query("SELECT order_id FROM exchange_orders WHERE order_id = $1", [quoteId])

/** Everything an execute could have written for a customer: balances, ledger entries and transactions, events, fills, quotes. */
const footprint = async (c: Customer) => ({
  balances: await balances(c),
  entries: (await transactions(c)).length,
  journal: (await app.query("SELECT id FROM ledger_transactions WHERE customer_id = $1", [c.id])).length,
  events: (await app.query<{ type: string }>("SELECT type FROM events WHERE customer_id = $1 ORDER BY seq", [c.id])).map((e) => e.type),
  fills: (await app.query("SELECT order_id FROM exchange_orders WHERE customer_id = $1", [c.id])).length,
  quotes: (await quoteRows(c.id)).map((q) => q.status)
})

// ---- independent exact arithmetic (BigInt), for the expectations ----

/** A decimal text as an integer over 10^scale. */
const toScaled = (text: string): { value: bigint; scale: number } => {
  const [whole, fraction = ""] = text.split(".")
  return { value: BigInt(whole! + fraction), scale: fraction.length }
}

/** minor units (scale) -> JSON number via its exact decimal text. */
const fromMinor = (minor: bigint, scale: number): number => {
  const text = minor.toString().padStart(scale + 1, "0")
  return Number(scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`)
}

/** floor(fiat / rate) in USDT, 6 decimals; fiat and rate as decimal text. */
const expectedBuyUsdt = (fiat: string, rate: string): number => {
  const f = toScaled(fiat)
  const r = toScaled(rate)
  // fiat / rate * 10^6 = f.value / 10^fs / (r.value / 10^rs) * 10^6 = f.value * 10^(rs + 6) / (r.value * 10^fs)
  return fromMinor((f.value * 10n ** BigInt(r.scale + 6)) / (r.value * 10n ** BigInt(f.scale)), 6)
}

/** floor((usdt - fee) * rate) in fiat of `scale` decimals. */
const expectedSellFiat = (usdt: string, fee: string, rate: string, scale: number): number => {
  const u = toScaled(usdt)
  const f = toScaled(fee)
  const r = toScaled(rate)
  const netMicro = u.value * 10n ** BigInt(6 - u.scale) - f.value * 10n ** BigInt(6 - f.scale)
  // net / 10^6 * r.value / 10^rs * 10^scale
  return fromMinor((netMicro * r.value * 10n ** BigInt(scale)) / (10n ** BigInt(6 + r.scale)), scale)
}

/** ceil(1 USDT * rate) in fiat of `scale` decimals: the smallest buy that delivers 1 USDT. */
const expectedMinimumBuy = (rate: string, scale: number): number => {
  const r = toScaled(rate)
  const numerator = r.value * 10n ** BigInt(scale)
  const denominator = 10n ** BigInt(r.scale)
  return fromMinor((numerator + denominator - 1n) / denominator, scale)
}

describe("the arithmetic of this file", () => {
  it("agrees with the documented examples", () => {
    expect(expectedBuyUsdt("10000", "1550")).toBe(6.451612)
    expect(expectedSellFiat("3.333333", "0.5", "1520", 2)).toBe(4306.66)
    expect(expectedMinimumBuy("1550", 2)).toBe(1550)
    expect(expectedMinimumBuy("1234.5678", 2)).toBe(1234.57)
  })
})

describe("GET /customers/{id}/rate", () => {
  it("answers the defaults for the customer's currency, amount null, asOf on the service clock", async () => {
    const c = await newCustomer()
    const reply = await rate(c)
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({
      success: true,
      data: { currency: "NGN", buyRate: 1550, sellRate: 1520, amount: null, exchangeFee: 0.5, asOf: await now(c.apiKey) }
    })
    const ghanaian = await newCustomer({ partner: c, country: "GH" })
    expect((await rate(ghanaian)).body.data).toMatchObject({ currency: "GHS", buyRate: 15.6, sellRate: 15.2, exchangeFee: 0.5 })
  })

  it("with amount, sellRate is all-in for that amount: 10 USDT -> 1520 * 9.5 / 10 = 1444", async () => {
    const c = await newCustomer()
    const reply = await rate(c, "?amount=10")
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual({ currency: "NGN", buyRate: 1550, sellRate: 1444, amount: 10, exchangeFee: 0.5, asOf: await now(c.apiKey) })
    // 1520 * 2.833333 / 3.333333 = 1291.9999771999977... -> 8 decimals, down
    expect((await rate(c, "?amount=3.333333")).body.data.sellRate).toBe(1291.99997719)
  })

  it("answers 400 naming amount for an amount not above the fee", async () => {
    const c = await newCustomer()
    for (const amount of ["0.5", "0.499999", "0.1"]) {
      const reply = await rate(c, `?amount=${amount}`)
      expect(reply.status, amount).toBe(400)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
      expect(reply.body.message).toMatch(/^amount: /)
    }
    expect((await rate(c, "?amount=0.500001")).status).toBe(200)
  })

  it("answers 400 naming amount for a malformed amount", async () => {
    const c = await newCustomer()
    for (const amount of ["abc", "-1", "1e3", "0.0000001", "", "0"]) {
      const reply = await rate(c, `?amount=${encodeURIComponent(amount)}`)
      expect(reply.status, amount).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message, amount).toMatch(/amount/)
    }
  })

  it("answers 403 for an unknown, malformed or another partner's customer", async () => {
    const c = await newCustomer()
    const foreign = await newCustomer()
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", foreign.id]) {
      const reply = await app.request("GET", `/partner/v1/customers/${id}/rate`, { apiKey: c.apiKey })
      expect(reply.status, id).toBe(403)
      expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
    }
  })

  it("shows the partner's new prices after PUT /sandbox/rates", async () => {
    const c = await newCustomer()
    await setRates(c.apiKey, "NGN", { buyRate: 1600.25, sellRate: 1499.5, exchangeFeeUsdt: 1 })
    const reply = await rate(c, "?amount=11")
    // 1499.5 * 10 / 11 = 1363.18181818...
    expect(reply.body.data).toMatchObject({ currency: "NGN", buyRate: 1600.25, sellRate: 1363.18181818, amount: 11, exchangeFee: 1 })
    expect((await rate(c)).body.data).toMatchObject({ buyRate: 1600.25, sellRate: 1499.5, amount: null })
    // Another partner still reads the defaults.
    const other = await newCustomer()
    expect((await rate(other)).body.data).toMatchObject({ buyRate: 1550, sellRate: 1520, exchangeFee: 0.5 })
  })
})

describe("POST /customers/{id}/buy/quote", () => {
  it("prices a buy: every field, 201, destinationAmount rounded down to 6 decimals", async () => {
    const c = await newCustomer()
    const at = await now(c.apiKey)
    const reply = await buyQuote(c, buyBody(10000))
    expect(reply.status).toBe(201)
    expect(reply.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        type: "buy",
        sourceAmount: 10000,
        sourceCurrency: "NGN",
        destinationAmount: 6.451612,
        destinationCurrency: "USDT",
        rate: 1550,
        exchangeFee: 0,
        expiresIn: 60,
        expiresAt: new Date(Date.parse(at) + 60_000).toISOString(),
        network: null
      }
    })
    expect(await quoteRows(c.id)).toEqual([{ id: reply.body.data.id, status: "OPEN", reference: null }])
  })

  it("asks only for what the route does not say: type and the USDT side may be left out, and sent must say the same", async () => {
    const c = await newCustomer()
    const buy = await buyQuote(c, { amount: 10000, sourceCurrency: "NGN" })
    expect(buy.status).toBe(201)
    expect(buy.body.data).toMatchObject({ type: "buy", sourceCurrency: "NGN", destinationCurrency: "USDT", destinationAmount: 6.451612 })
    const sell = await sellQuote(c, { amount: 10, destinationCurrency: "NGN" })
    expect(sell.status).toBe(201)
    expect(sell.body.data).toMatchObject({ type: "sell", sourceCurrency: "USDT", destinationCurrency: "NGN" })
    for (const [reply, field] of [
      [await buyQuote(c, buyBody(10000, { type: "sell" })), "type: must be buy"],
      [await buyQuote(c, buyBody(10000, { destinationCurrency: "USDC" })), "destinationCurrency: must be USDT"],
      [await sellQuote(c, sellBody(10, { type: "buy" })), "type: must be sell"],
      [await sellQuote(c, sellBody(10, { sourceCurrency: "NGN" })), "sourceCurrency: must be USDT"]
    ] as const) {
      expect(reply.status).toBe(400)
      expect(reply.body.message).toContain(field)
    }
    // What the route cannot know is still asked for.
    expect((await buyQuote(c, { amount: 10000 })).body.message).toContain("sourceCurrency: is required")
    expect((await sellQuote(c, { amount: 10 })).body.message).toContain("destinationCurrency: is required")
  })

  it("rounds down exactly on awkward amounts and rates (checked against BigInt arithmetic)", async () => {
    const c = await newCustomer()
    for (const amount of ["1550", "1550.01", "3099.99", "10000", "12345.67", "99999.99"]) {
      const q = await quoted(buyQuote(c, buyBody(Number(amount))))
      expect({ amount, destinationAmount: q.destinationAmount }).toEqual({ amount, destinationAmount: expectedBuyUsdt(amount, "1550") })
    }
    await setRates(c.apiKey, "NGN", { buyRate: 1234.5678, sellRate: 1200 })
    for (const amount of ["1234.57", "1500", "2469.14", "10000", "33333.33", "987654.32", "5000000.01"]) {
      const q = await quoted(buyQuote(c, buyBody(Number(amount))))
      expect({ amount, sourceAmount: q.sourceAmount, destinationAmount: q.destinationAmount, rate: q.rate })
        .toEqual({ amount, sourceAmount: Number(amount), destinationAmount: expectedBuyUsdt(amount, "1234.5678"), rate: 1234.5678 })
    }
    // Spot values: 10000 / 1234.5678 = 8.1000006642... ; 2469.14 / 1234.5678 = 2.0000035640...
    expect(expectedBuyUsdt("10000", "1234.5678")).toBe(8.1)
    expect(expectedBuyUsdt("2469.14", "1234.5678")).toBe(2.000003)
  })

  it("refuses a buy delivering less than 1 USDT with the smallest amount that works, which works", async () => {
    const c = await newCustomer()
    for (const amount of [1549.99, 1, 0.01]) {
      const reply = await buyQuote(c, buyBody(amount))
      expect(reply.status, String(amount)).toBe(400)
      expect(reply.body).toMatchObject({
        success: false,
        statusCode: 400,
        code: "TRADE_BELOW_MINIMUM",
        details: { minimumAmount: 1550, currency: "NGN" }
      })
      expect(reply.body.message).toMatch(/^amount: /)
    }
    expect((await quoted(buyQuote(c, buyBody(1550)))).destinationAmount).toBe(1)

    await setRates(c.apiKey, "NGN", { buyRate: 1234.5678, sellRate: 1200 })
    const below = await buyQuote(c, buyBody(1234.56))
    expect(below.status).toBe(400)
    expect(below.body.code).toBe("TRADE_BELOW_MINIMUM")
    expect(below.body.details).toEqual({ minimumAmount: expectedMinimumBuy("1234.5678", 2), currency: "NGN" })
    expect(below.body.details.minimumAmount).toBe(1234.57)
    // 1234.57 / 1234.5678 = 1.0000017820...
    expect((await quoted(buyQuote(c, buyBody(1234.57)))).destinationAmount).toBe(1.000001)
    expect((await quoteRows(c.id)).length).toBe(2)
  })

  it("answers 400 naming the field for a wrong currency, side or amount, and stores nothing", async () => {
    const c = await newCustomer()
    const cases: Array<[Record<string, unknown>, string]> = [
      [buyBody(10000, { sourceCurrency: "GHS" }), "sourceCurrency"],
      [buyBody(10000, { sourceCurrency: "EUR" }), "sourceCurrency"],
      [buyBody(10000, { sourceCurrency: "USDT" }), "sourceCurrency"],
      [buyBody(10000, { destinationCurrency: "NGN" }), "destinationCurrency"],
      [buyBody(10000, { destinationCurrency: "USDC" }), "destinationCurrency"],
      [buyBody(10000, { type: "sell" }), "type"],
      [buyBody(10000.001), "amount"],
      [buyBody(0), "amount"],
      [buyBody(-10000), "amount"],
      [buyBody(10000, { amount: "10000" }), "amount"]
    ]
    // Required: what the route does not say (destinationCurrency and type may be left out: the next describe's test).
    for (const field of ["amount", "sourceCurrency"]) {
      const body: Record<string, unknown> = buyBody(10000)
      delete body[field]
      cases.push([body, field])
    }
    for (const [body, field] of cases) {
      const reply = await buyQuote(c, body)
      expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status: 400, code: "BAD_REQUEST" })
      expect(reply.body.message, JSON.stringify(body)).toMatch(new RegExp(`^${field}\\b`))
    }
    const other = await buyQuote(c, buyBody(10000, { sourceCurrency: "GHS" }))
    expect(other.body.message).toContain("NGN")
    expect(await quoteRows(c.id)).toEqual([])
  })

  it("gives a quote for more than the balance", async () => {
    const c = await newCustomer({ fiat: 100 })
    const q = await quoted(buyQuote(c, buyBody(1_000_000)))
    expect(q.destinationAmount).toBe(645.16129)
  })

  it("answers 403 for another partner's customer", async () => {
    const c = await newCustomer()
    const stranger = await newPartner()
    const reply = await buyQuote(c, buyBody(10000), stranger.apiKey)
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
    expect(await quoteRows(c.id)).toEqual([])
  })
})

describe("POST /customers/{id}/sell/quote", () => {
  it("prices a sell net of the 0.5 USDT fee, rounded down to the fiat's scale; network echoed", async () => {
    const c = await newCustomer()
    const at = await now(c.apiKey)
    const reply = await sellQuote(c, sellBody(3.333333, { network: "TRON" }))
    expect(reply.status).toBe(201)
    expect(reply.body.data).toEqual({
      id: expect.any(String),
      type: "sell",
      sourceAmount: 3.333333,
      sourceCurrency: "USDT",
      destinationAmount: 4306.66,
      destinationCurrency: "NGN",
      rate: 1520,
      exchangeFee: 0.5,
      expiresIn: 60,
      expiresAt: new Date(Date.parse(at) + 60_000).toISOString(),
      network: "TRON"
    })
    for (const network of ["ETHEREUM", "BSC", "POLYGON", "SOLANA"]) {
      const q = await quoted(sellQuote(c, sellBody(10, { network })))
      expect(q).toMatchObject({ network, destinationAmount: 14440, exchangeFee: 0.5 })
    }
    expect((await quoted(sellQuote(c, sellBody(10)))).network).toBeNull()
  })

  it("rounds down exactly (checked against BigInt arithmetic), at the default and awkward prices", async () => {
    const c = await newCustomer()
    for (const amount of ["1.5", "1.500001", "2.345678", "3.333333", "77.777777", "123456.789012"]) {
      const q = await quoted(sellQuote(c, sellBody(Number(amount))))
      expect({ amount, destinationAmount: q.destinationAmount }).toEqual({ amount, destinationAmount: expectedSellFiat(amount, "0.5", "1520", 2) })
    }
    await setRates(c.apiKey, "NGN", { sellRate: 1234.56789012, exchangeFeeUsdt: 0.123456 })
    for (const amount of ["1.123456", "1.5", "9.999999", "1000.000001"]) {
      const q = await quoted(sellQuote(c, sellBody(Number(amount))))
      expect({ amount, destinationAmount: q.destinationAmount, rate: q.rate, exchangeFee: q.exchangeFee })
        .toEqual({ amount, destinationAmount: expectedSellFiat(amount, "0.123456", "1234.56789012", 2), rate: 1234.56789012, exchangeFee: 0.123456 })
    }
    // UGX has no decimals: 2.5 USDT -> 2 * 3680 = 7360; 2.000001 -> 1.500001 * 3680 = 5520.00368 -> 5520
    const ugandan = await newCustomer({ country: "UG" })
    expect((await quoted(sellQuote(ugandan, sellBody(2.5, { destinationCurrency: "UGX" })))).destinationAmount).toBe(7360)
    expect((await quoted(sellQuote(ugandan, sellBody(2.000001, { destinationCurrency: "UGX" })))).destinationAmount).toBe(5520)
  })

  it("refuses a sell below 1.5 USDT (1 USDT after the fee) with TRADE_BELOW_MINIMUM; 1.5 works", async () => {
    const c = await newCustomer()
    for (const amount of [1.499999, 1, 0.5, 0.000001]) {
      const reply = await sellQuote(c, sellBody(amount))
      expect(reply.status, String(amount)).toBe(400)
      expect(reply.body).toMatchObject({ code: "TRADE_BELOW_MINIMUM", details: { minimumAmount: 1.5, currency: "USDT" } })
      expect(reply.body.details).toEqual({ minimumAmount: 1.5, currency: "USDT" })
    }
    expect((await quoted(sellQuote(c, sellBody(1.5)))).destinationAmount).toBe(1520)
  })

  it("answers 400 naming the field for a wrong currency, side, network or amount, and stores nothing", async () => {
    const c = await newCustomer()
    const cases: Array<[Record<string, unknown>, string]> = [
      [sellBody(10, { destinationCurrency: "KES" }), "destinationCurrency"],
      [sellBody(10, { destinationCurrency: "EUR" }), "destinationCurrency"],
      [sellBody(10, { destinationCurrency: "USDT" }), "destinationCurrency"],
      [sellBody(10, { sourceCurrency: "NGN" }), "sourceCurrency"],
      [sellBody(10, { type: "buy" }), "type"],
      [sellBody(10, { network: "BITCOIN" }), "network"],
      [sellBody(10, { network: "tron" }), "network"],
      [sellBody(10, { network: null }), "network"],
      [sellBody(10.0000001), "amount"],
      [sellBody(0), "amount"]
    ]
    // Required: what the route does not say (sourceCurrency and type may be left out).
    for (const field of ["amount", "destinationCurrency"]) {
      const body: Record<string, unknown> = sellBody(10)
      delete body[field]
      cases.push([body, field])
    }
    for (const [body, field] of cases) {
      const reply = await sellQuote(c, body)
      expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status: 400, code: "BAD_REQUEST" })
      expect(reply.body.message, JSON.stringify(body)).toMatch(new RegExp(`^${field}\\b`))
    }
    expect(await quoteRows(c.id)).toEqual([])
  })
})

describe("POST /customers/{id}/buy/execute and sell/execute", () => {
  it("a buy moves exactly fiatSpent out and usdtCredited in; one purchase.completed; ledger entries with the reference", async () => {
    const c = await newCustomer({ fiat: 50000 })
    expect(await balances(c)).toEqual({ NGN: 50000 })
    const q = await quoted(buyQuote(c, buyBody(12345.67)))
    expect(q.destinationAmount).toBe(7.964948)
    const reply = await execute(c, "buy", q.id)
    expect(reply.status).toBe(200)
    const execution = reply.body.data
    expect(execution).toEqual({
      reference: expect.stringMatching(/^ref_[0-9a-f]{24}$/),
      quoteId: q.id,
      fiatCurrency: "NGN",
      fiatSpent: 12345.67,
      usdtCredited: 7.964948
    })
    expect(await balances(c)).toEqual({ NGN: 37654.33, USDT: 7.964948 })

    const purchased = await events(c, "purchase.completed")
    expect(purchased).toHaveLength(1)
    expect(purchased[0]).toMatchObject({ type: "purchase.completed", customerId: c.id })
    expect(purchased[0]!.data).toEqual({ customerId: c.id, ...execution })

    const trades = (await transactions(c)).filter((t) => t.resourceType === "trade")
    const entry = { id: expect.any(String), transactionId: expect.any(String), createdAt: await now(c.apiKey) }
    expect([...trades].sort((x, y) => String(x.currency).localeCompare(String(y.currency)))).toEqual([
      { ...entry, type: "DEBIT", reason: "buy", amount: 12345.67, currency: "NGN", balanceAfter: 37654.33, reference: execution.reference, resourceType: "trade", resourceId: q.id },
      { ...entry, type: "CREDIT", reason: "buy", amount: 7.964948, currency: "USDT", balanceAfter: 7.964948, reference: execution.reference, resourceType: "trade", resourceId: q.id }
    ])
    expect(new Set(trades.map((t) => t.transactionId)).size).toBe(1)
    expect(await quoteRows(c.id)).toEqual([{ id: q.id, status: "EXECUTED", reference: execution.reference }])
    expect(await fills(q.id)).toHaveLength(1)
  })

  it("a sell moves usdtSold (the fee included) out and fiatCredited in; one sale.completed; fee and sell entries", async () => {
    const c = await newCustomer({ usdt: 100 })
    expect(await balances(c)).toEqual({ NGN: 0, USDT: 100 })
    const q = await quoted(sellQuote(c, sellBody(3.333333, { network: "POLYGON" })))
    const reply = await execute(c, "sell", q.id)
    expect(reply.status).toBe(200)
    const execution = reply.body.data
    expect(execution).toEqual({
      reference: expect.stringMatching(/^ref_[0-9a-f]{24}$/),
      quoteId: q.id,
      usdtSold: 3.333333,
      exchangeFee: 0.5,
      fiatCurrency: "NGN",
      fiatCredited: 4306.66
    })
    expect(await balances(c)).toEqual({ NGN: 4306.66, USDT: 96.666667 })

    const sold = await events(c, "sale.completed")
    expect(sold).toHaveLength(1)
    expect(sold[0]!.data).toEqual({ customerId: c.id, ...execution })
    expect(await events(c, "purchase.completed")).toEqual([])

    const trades = (await transactions(c)).filter((t) => t.resourceType === "trade")
    const shape = trades.map((t) => ({ type: t.type, reason: t.reason, amount: t.amount, currency: t.currency, reference: t.reference, resourceId: t.resourceId }))
    expect(shape).toHaveLength(3)
    expect(shape).toEqual(expect.arrayContaining([
      { type: "DEBIT", reason: "fee", amount: 0.5, currency: "USDT", reference: execution.reference, resourceId: q.id },
      { type: "DEBIT", reason: "sell", amount: 2.833333, currency: "USDT", reference: execution.reference, resourceId: q.id },
      { type: "CREDIT", reason: "sell", amount: 4306.66, currency: "NGN", reference: execution.reference, resourceId: q.id }
    ]))
    const usdtAfter = trades.filter((t) => t.currency === "USDT").map((t) => t.balanceAfter).sort((a, b) => a - b)
    expect(usdtAfter).toEqual([96.666667, 99.5])
    expect(await fills(q.id)).toHaveLength(1)
  })

  it("a sell with a zero fee posts no fee transaction", async () => {
    const c = await newCustomer({ usdt: 10 })
    await setRates(c.apiKey, "NGN", { exchangeFeeUsdt: 0 })
    const q = await quoted(sellQuote(c, sellBody(1)))
    expect(q).toMatchObject({ exchangeFee: 0, destinationAmount: 1520 })
    const reply = await execute(c, "sell", q.id)
    expect(reply.body.data).toMatchObject({ usdtSold: 1, exchangeFee: 0, fiatCredited: 1520 })
    expect((await transactions(c)).filter((t) => t.resourceType === "trade").map((t) => t.reason).sort()).toEqual(["sell", "sell"])
    expect(await balances(c)).toEqual({ NGN: 1520, USDT: 9 })
  })

  it("a second execute answers 400 QUOTE_ALREADY_EXECUTED naming the reference, and moves nothing", async () => {
    const c = await newCustomer({ fiat: 20000, usdt: 20 })
    const buy = await quoted(buyQuote(c, buyBody(10000)))
    const first = await execute(c, "buy", buy.id)
    expect(first.status).toBe(200)
    const sell = await quoted(sellQuote(c, sellBody(5)))
    const firstSell = await execute(c, "sell", sell.id)
    expect(firstSell.status).toBe(200)
    const before = await footprint(c)
    for (const [side, id, reference] of [["buy", buy.id, first.body.data.reference], ["sell", sell.id, firstSell.body.data.reference]] as const) {
      const again = await execute(c, side, id)
      expect(again.status).toBe(400)
      expect(again.body).toMatchObject({ success: false, statusCode: 400, code: "QUOTE_ALREADY_EXECUTED" })
      expect(again.body.message).toContain(reference)
    }
    expect(await footprint(c)).toEqual(before)
    expect(await balances(c)).toEqual({ NGN: 16840, USDT: 21.451612 })
  })

  it("20 concurrent executes of one quote: one 200, nineteen QUOTE_ALREADY_EXECUTED, one event, balances moved once", async () => {
    const c = await newCustomer({ fiat: 100000 })
    const q = await quoted(buyQuote(c, buyBody(15500)))
    const replies = await Promise.all(Array.from({ length: 20 }, () => execute(c, "buy", q.id)))
    const ok = replies.filter((r) => r.status === 200)
    const refused = replies.filter((r) => r.status !== 200)
    expect(ok).toHaveLength(1)
    expect(refused).toHaveLength(19)
    for (const r of refused) {
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: "QUOTE_ALREADY_EXECUTED" })
      expect(r.body.message).toContain(ok[0]!.body.data.reference)
    }
    expect(ok[0]!.body.data).toMatchObject({ fiatSpent: 15500, usdtCredited: 10 })
    expect(await balances(c)).toEqual({ NGN: 84500, USDT: 10 })
    expect(await events(c, "purchase.completed")).toHaveLength(1)
    expect((await transactions(c)).filter((t) => t.resourceType === "trade")).toHaveLength(2)
    expect(await fills(q.id)).toHaveLength(1)

    // The same for a sell.
    const s = await quoted(sellQuote(c, sellBody(5.5)))
    const sells = await Promise.all(Array.from({ length: 20 }, () => execute(c, "sell", s.id)))
    expect(sells.filter((r) => r.status === 200)).toHaveLength(1)
    expect(sells.filter((r) => r.status === 400 && r.body.code === "QUOTE_ALREADY_EXECUTED")).toHaveLength(19)
    expect(await balances(c)).toEqual({ NGN: 92100, USDT: 4.5 })
    expect(await events(c, "sale.completed")).toHaveLength(1)
  })

  it("executes until the service clock reaches expiresAt: at 59 s yes, at exactly 60 s 400 QUOTE_EXPIRED, nothing moved", async () => {
    const c = await newCustomer({ fiat: 50000, usdt: 50 })
    const early = await quoted(buyQuote(c, buyBody(10000)))
    const late = await quoted(buyQuote(c, buyBody(10000)))
    const lateSell = await quoted(sellQuote(c, sellBody(10)))
    await advance(c.apiKey, 59)
    const inTime = await execute(c, "buy", early.id)
    expect(inTime.status).toBe(200)
    expect(inTime.body.data.usdtCredited).toBe(6.451612)
    await advance(c.apiKey, 1)
    const before = await footprint(c)
    const expired = await execute(c, "buy", late.id)
    expect(expired.status).toBe(400)
    expect(expired.body).toMatchObject({ success: false, statusCode: 400, code: "QUOTE_EXPIRED" })
    expect(expired.body.message).toContain(late.expiresAt)
    const expiredSell = await execute(c, "sell", lateSell.id)
    expect({ status: expiredSell.status, code: expiredSell.body.code }).toEqual({ status: 400, code: "QUOTE_EXPIRED" })
    expect(await footprint(c)).toEqual(before)
    expect(await balances(c)).toEqual({ NGN: 40000, USDT: 56.451612 })
    // A new quote executes.
    const fresh = await quoted(buyQuote(c, buyBody(10000)))
    expect((await execute(c, "buy", fresh.id)).status).toBe(200)
  })

  it("insufficient balance: 400 INSUFFICIENT_BALANCE, nothing moved; after funding the same quote executes", async () => {
    const c = await newCustomer({ fiat: 9999.99 })
    const q = await quoted(buyQuote(c, buyBody(10000)))
    const before = await footprint(c)
    const refused = await execute(c, "buy", q.id)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ success: false, statusCode: 400, code: "INSUFFICIENT_BALANCE" })
    expect(await footprint(c)).toEqual(before)
    expect(before.quotes).toEqual(["OPEN"])
    await creditFiat(c, 0.01)
    const executed = await execute(c, "buy", q.id)
    expect(executed.status).toBe(200)
    expect(await balances(c)).toEqual({ NGN: 0, USDT: 6.451612 })

    // A sell: the fee counts against the USDT balance.
    const s = await quoted(sellQuote(c, sellBody(6.451613)))
    const before2 = await footprint(c)
    const short = await execute(c, "sell", s.id)
    expect({ status: short.status, code: short.body.code }).toEqual({ status: 400, code: "INSUFFICIENT_BALANCE" })
    expect(await footprint(c)).toEqual(before2)
    await depositUsdt(c, 0.000001)
    const sold = await execute(c, "sell", s.id)
    expect(sold.status).toBe(200)
    // (6.451613 - 0.5) * 1520 = 9046.45176 -> 9046.45
    expect(sold.body.data).toMatchObject({ usdtSold: 6.451613, fiatCredited: 9046.45 })
    expect(await balances(c)).toEqual({ NGN: 9046.45, USDT: 0 })
  })

  it("exchange failure: 502 EXCHANGE_EXECUTION_FAILED, nothing moved, no event; after success the same quote executes", async () => {
    const c = await newCustomer({ fiat: 20000, usdt: 20 })
    const q = await quoted(buyQuote(c, buyBody(10000)))
    const s = await quoted(sellQuote(c, sellBody(10)))
    await setExchange(c.apiKey, "failure")
    const before = await footprint(c)
    for (const [side, id] of [["buy", q.id], ["sell", s.id]] as const) {
      const failed = await execute(c, side, id)
      expect(failed.status).toBe(502)
      expect(failed.body).toMatchObject({ success: false, statusCode: 502, code: "EXCHANGE_EXECUTION_FAILED" })
    }
    expect(await footprint(c)).toEqual(before)
    expect(await events(c, "purchase.completed")).toEqual([])
    expect(await events(c, "sale.completed")).toEqual([])
    expect(await fills(q.id)).toEqual([])

    await setExchange(c.apiKey, "success")
    expect((await execute(c, "buy", q.id)).status).toBe(200)
    expect((await execute(c, "sell", s.id)).status).toBe(200)
    expect(await balances(c)).toEqual({ NGN: 24440, USDT: 16.451612 })
    expect(await events(c, "purchase.completed")).toHaveLength(1)
    expect(await events(c, "sale.completed")).toHaveLength(1)
  })

  it("404 QUOTE_NOT_FOUND for an unknown, malformed, other customer's or other side's quote; 403 for a foreign customer", async () => {
    const c = await newCustomer({ fiat: 50000, usdt: 50 })
    const sibling = await newCustomer({ partner: c, fiat: 50000, usdt: 50 })
    const stranger = await newCustomer({ fiat: 50000, usdt: 50 })
    const buy = await quoted(buyQuote(c, buyBody(10000)))
    const sell = await quoted(sellQuote(c, sellBody(10)))
    const before = await footprint(c)
    const notFound: Array<[Customer, "buy" | "sell", string]> = [
      [c, "buy", "00000000-0000-4000-8000-000000000000"],
      [c, "sell", "00000000-0000-4000-8000-000000000000"],
      [c, "buy", "not-a-uuid"],
      [c, "buy", `${buy.id}x`],
      [c, "buy", sell.id],
      [c, "sell", buy.id],
      [sibling, "buy", buy.id],
      [sibling, "sell", sell.id],
      [stranger, "buy", buy.id],
      [stranger, "sell", sell.id]
    ]
    for (const [who, side, id] of notFound) {
      const reply = await execute(who, side, id)
      expect({ side, id, status: reply.status, code: reply.body.code }).toEqual({ side, id, status: 404, code: "QUOTE_NOT_FOUND" })
    }
    // The stranger's key on this partner's customer: the customer is not theirs.
    for (const side of ["buy", "sell"] as const) {
      const reply = await execute(c, side, side === "buy" ? buy.id : sell.id, stranger.apiKey)
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 403, code: "CUSTOMER_FORBIDDEN" })
    }
    const empty = await app.request("POST", `${c.base}/buy/execute`, { apiKey: c.apiKey, body: {} })
    expect(empty.status).toBe(400)
    expect(empty.body.message).toMatch(/^quoteId\b/)
    expect(await footprint(c)).toEqual(before)
    // Both quotes are still usable by their own customer.
    expect((await execute(c, "buy", buy.id.toUpperCase())).status).toBe(200)
    expect((await execute(c, "sell", sell.id)).status).toBe(200)
  })

  it("a quote keeps its price after the exchange's prices change", async () => {
    const c = await newCustomer({ fiat: 50000, usdt: 50 })
    const buy = await quoted(buyQuote(c, buyBody(10000)))
    const sell = await quoted(sellQuote(c, sellBody(10)))
    await setRates(c.apiKey, "NGN", { buyRate: 2000, sellRate: 1000, exchangeFeeUsdt: 2 })
    expect((await quoted(buyQuote(c, buyBody(10000)))).destinationAmount).toBe(5)
    expect((await quoted(sellQuote(c, sellBody(10)))).destinationAmount).toBe(8000)
    const bought = await execute(c, "buy", buy.id)
    expect(bought.body.data).toMatchObject({ fiatSpent: 10000, usdtCredited: 6.451612 })
    const sold = await execute(c, "sell", sell.id)
    expect(sold.body.data).toMatchObject({ usdtSold: 10, exchangeFee: 0.5, fiatCredited: 14440 })
    expect(await balances(c)).toEqual({ NGN: 54440, USDT: 46.451612 })
  })
})
