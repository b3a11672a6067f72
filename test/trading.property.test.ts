import { it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { conservation, ledgerReport } from "./support/LedgerHarness.js"
import { customerBody, databaseKind, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Trading (docs/trading.md) under random interleavings, over real HTTP against the whole service (PGlite by
 * default, PostgreSQL with TEST_DATABASE_URL): one partner and three NG customers funded with NGN and USDT; random
 * buy and sell quotes (awkward decimals, amounts around the minimums and the balances), executes of known quotes
 * (executed, expired, another customer's, the other side's), bursts of concurrent executes of one quote and of
 * several customers' quotes, price changes (`PUT /sandbox/rates/NGN`, inverted ones refused), exchange rail outcome
 * toggles and service-clock advances (1-90 s). A model written independently of src/trading/Pricing.ts (exact
 * bigint arithmetic from the rates' decimal text) predicts every answer: the quote's priced amounts (or
 * TRADE_BELOW_MINIMUM with the smallest amount, or BAD_REQUEST beyond one request's maximum at extreme prices), each
 * execute's outcome (QUOTE_NOT_FOUND, QUOTE_ALREADY_EXECUTED, QUOTE_EXPIRED iff the service clock is 60 s or more
 * past the quote, INSUFFICIENT_BALANCE iff the model's balance is short, EXCHANGE_EXECUTION_FAILED iff the exchange
 * policy is failure, checked in that order; else 200 with the quoted amounts whatever the prices are now).
 *
 * After every step: balances equal the model to the minor unit; per quote, `purchase.completed`/`sale.completed`
 * events, exchange fills and `EXECUTED` rows number exactly the model's 200 executes (at most one). After each run:
 * the events' data, the journal transactions per quote (reasons, reference) and the ledger checker (no violation,
 * money conserved). fast-check prints the seed and the shrunk command list on failure; replay with
 * `fastCheck: { seed, path }`. Runs: TRADING_PROPERTY_RUNS (default 20 on PGlite, 12 on PostgreSQL). No timing
 * assertion: the service clock is frozen and moves only by the advances.
 */
const runs = Number(process.env.TRADING_PROPERTY_RUNS ?? (databaseKind() === "postgres" ? 12 : 20))

let app: TestApp
let executedRuns = 0
/** Outcomes seen over all runs (`kind status code`): TRADING_PROPERTY_STATS=1 prints them, to tune the generators. */
const seen = new Map<string, number>()
const see = (kind: string, reply: { readonly status: number; readonly body: any }) => {
  const key = `${kind} ${reply.status}${reply.body?.code === undefined ? "" : ` ${reply.body.code}`}`
  seen.set(key, (seen.get(key) ?? 0) + 1)
}

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  // Guard against a property that silently ran zero times.
  expect(executedRuns).toBeGreaterThanOrEqual(runs)
  if (process.env.TRADING_PROPERTY_STATS) console.log([...seen.entries()].sort().map(([k, n]) => `${k}: ${n}`).join("\n"))
  await app?.close()
})

// ---------------------------------------------------------------------------------------------------------------
// Exact decimals of the model (independent of src/money and src/trading).

type Currency = "NGN" | "USDT"
const scale: Record<Currency, number> = { NGN: 2, USDT: 6 }
/** The most one request may carry, and the largest balance (docs/reference.md "Money, balances and the ledger"). */
const maxAmount: Record<Currency, bigint> = { NGN: 10n ** 12n * 100n, USDT: 10n ** 8n * 1_000_000n }
const maxBalance: Record<Currency, bigint> = { NGN: 10n ** 13n * 100n, USDT: 10n ** 9n * 1_000_000n }

/** Minor units as plain decimal text ("1550.01", "0.000001", "12"). */
const decimalText = (minor: bigint, places: number): string => {
  const negative = minor < 0n
  const digits = (negative ? -minor : minor).toString().padStart(places + 1, "0")
  const int = digits.slice(0, digits.length - places)
  const frac = digits.slice(digits.length - places).replace(/0+$/, "")
  return `${negative ? "-" : ""}${int}${frac === "" ? "" : `.${frac}`}`
}
/** Minor units of `currency` as the JSON number the API writes and reads. */
const money = (currency: Currency, minor: bigint): number => Number(decimalText(minor, scale[currency]))

/** A rate: `value / 10^8` fiat per USDT (at most 8 decimals, as the sandbox accepts). */
const rateScale = 10n ** 8n
const rateNumber = (value: bigint): number => Number(decimalText(value, 8))
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b

/** USDT minor units a buy of `fiat` NGN minor units delivers: fiat / 100 / rate * 10^6, rounded down. */
const buyUsdt = (fiat: bigint, rate: bigint) => (fiat * 10_000n * rateScale) / rate
/** The smallest NGN minor units whose buy delivers 1 USDT. */
const minimumBuyFiat = (rate: bigint) => ceilDiv(1_000_000n * rate, 10_000n * rateScale)
/** NGN minor units a sell of `net` USDT minor units pays: net / 10^6 * rate * 100, rounded down. */
const sellFiat = (net: bigint, rate: bigint) => (net * rate) / (10_000n * rateScale)

// ---------------------------------------------------------------------------------------------------------------
// Commands

/** An amount in minor units, or one relative to the customer's balance when the command runs. */
type Amount =
  | { readonly kind: "fixed"; readonly minor: bigint }
  | { readonly kind: "balance"; readonly delta: bigint }

type Command =
  | { readonly op: "buyQuote"; readonly customer: number; readonly amount: Amount }
  | { readonly op: "sellQuote"; readonly customer: number; readonly amount: Amount; readonly network: string | null }
  | { readonly op: "execute"; readonly pick: number; readonly as: number | null; readonly otherSide: boolean }
  | { readonly op: "executeConcurrently"; readonly pick: number; readonly copies: number }
  | { readonly op: "executeBurst"; readonly picks: ReadonlyArray<number> }
  | { readonly op: "setRates"; readonly buyRate: bigint; readonly sellRate: bigint; readonly fee: bigint | null }
  | { readonly op: "setRatesInverted"; readonly percent: number }
  | { readonly op: "exchange"; readonly outcome: "success" | "failure" }
  | { readonly op: "advance"; readonly seconds: number }

const customerIndex = fc.integer({ min: 0, max: 2 })
const fixed = (min: bigint, max: bigint) => fc.bigInt({ min, max }).map((minor): Amount => ({ kind: "fixed", minor }))
const relative = fc.bigInt({ min: -2n, max: 1n }).map((delta): Amount => ({ kind: "balance", delta }))
/**
 * Fiat to spend, NGN minor units: around the 1 USDT minimum (1550 NGN at the default price), ordinary (mostly
 * within the opening balances), large (mostly beyond them), awkward constants, or the balance -2..+1 minor units.
 */
const buyAmount: fc.Arbitrary<Amount> = fc.oneof(
  { weight: 1, arbitrary: fixed(1n, 500_000n) },
  { weight: 5, arbitrary: fixed(500_000n, 30_000_000n) },
  { weight: 1, arbitrary: fixed(30_000_000n, 400_000_000n) },
  { weight: 1, arbitrary: fc.constantFrom(155_001n, 155_000n, 154_999n, 123_457n, 99_999_999n).map((minor): Amount => ({ kind: "fixed", minor })) },
  { weight: 1, arbitrary: relative }
)
/** USDT to sell (fee included), minor units: around fee + 1 USDT, ordinary, large, awkward constants, or the balance -2..+1. */
const sellAmount: fc.Arbitrary<Amount> = fc.oneof(
  { weight: 1, arbitrary: fixed(1n, 7_000_000n) },
  { weight: 5, arbitrary: fixed(1_000_000n, 200_000_000n) },
  { weight: 1, arbitrary: fixed(200_000_000n, 3_000_000_000n) },
  { weight: 1, arbitrary: fc.constantFrom(1_500_000n, 1_499_999n, 1_500_001n, 1_000_000n, 33_333_333n).map((minor): Amount => ({ kind: "fixed", minor })) },
  { weight: 1, arbitrary: relative }
)
/** Which known quote: 0 is the newest, 1 the one before, ... (mostly the newest: older ones are often spent or expired). */
const pick = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.nat() })
/**
 * A rate in 10^-8 units, as the sandbox takes it (at most 8 decimals and 15 significant digits; at least 0.000001
 * here, below which a JSON number prints with an exponent): ordinary (1 to 9999.99999999, whole, two decimals or
 * all eight) or extreme (below 1, or 10,000 to 1,000,000,000 whole), where trades fall below the minimum or would
 * deliver more than the maximum of one request.
 */
const rate: fc.Arbitrary<bigint> = fc.oneof(
  { weight: 2, arbitrary: fc.bigInt({ min: 1n, max: 9_999n }).map((whole) => whole * rateScale) },
  { weight: 2, arbitrary: fc.bigInt({ min: 100n, max: 999_999n }).map((cents) => cents * 1_000_000n) },
  { weight: 2, arbitrary: fc.bigInt({ min: rateScale, max: 10_000n * rateScale - 1n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 100n, max: rateScale - 1n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 10_000n, max: 1_000_000_000n }).map((whole) => whole * rateScale) }
)
/** `value` cut to what the sandbox takes (15 significant digits), or undefined below 0.000001. */
const representable = (value: bigint): bigint | undefined => {
  const wholeDigits = value >= rateScale ? (value / rateScale).toString().length : 0
  const unit = 10n ** BigInt(Math.max(0, 8 - Math.max(0, 15 - wholeDigits)))
  const cut = value - (value % unit)
  return cut >= 100n ? cut : undefined
}
const fee: fc.Arbitrary<bigint | null> = fc.option(
  fc.oneof(fc.constant(0n), fc.constant(500_000n), fc.bigInt({ min: 1n, max: 5_000_000n })),
  { nil: null, freq: 2 }
)

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("buyQuote" as const), customer: customerIndex, amount: buyAmount }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("sellQuote" as const),
      customer: customerIndex,
      amount: sellAmount,
      network: fc.constantFrom(null, "TRON", "ETHEREUM", "BSC", "POLYGON", "SOLANA")
    })
  },
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant("execute" as const),
      pick,
      // Mostly the quote's own customer and side; sometimes another customer's id or the other route.
      as: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: customerIndex }),
      otherSide: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false)))
    })
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("executeConcurrently" as const), pick, copies: fc.integer({ min: 2, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("executeBurst" as const), picks: fc.array(pick, { minLength: 2, maxLength: 4 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ a: rate, b: rate, fee }).map(({ a, b, fee }) => ({
      op: "setRates" as const,
      buyRate: a >= b ? a : b,
      sellRate: a >= b ? b : a,
      fee
    }))
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("setRatesInverted" as const), percent: fc.integer({ min: 1, max: 99 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("exchange" as const), outcome: fc.constantFrom("success" as const, "failure" as const) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("advance" as const), seconds: fc.oneof(fc.integer({ min: 1, max: 90 }), fc.constantFrom(59, 60, 1)) }) }
)

const world = fc.record({
  opening: fc.array(
    fc.record({
      // Mostly 500,000-3,000,000 NGN and 200-2,000 USDT; sometimes next to nothing.
      NGN: fc.oneof({ weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 1_000_000n }) }, { weight: 4, arbitrary: fc.bigInt({ min: 50_000_000n, max: 300_000_000n }) }),
      USDT: fc.oneof({ weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 3_000_000n }) }, { weight: 4, arbitrary: fc.bigInt({ min: 200_000_000n, max: 2_000_000_000n }) })
    }),
    { minLength: 3, maxLength: 3 }
  ),
  commands: fc.array(command, { minLength: 3, maxLength: 15, size: "max" })
})

// ---------------------------------------------------------------------------------------------------------------
// The model

interface Quote {
  readonly id: string
  readonly customer: number
  readonly side: "buy" | "sell"
  readonly fiat: bigint
  readonly usdt: bigint
  readonly fee: bigint
  readonly createdAt: number
  executions: number
  execution: Record<string, unknown> | undefined
}

type Expected = { readonly status: 200 } | { readonly status: number; readonly code: string }

interface Reply {
  readonly status: number
  readonly body: any
}

const foreignQuoteId = "00000000-0000-4000-8000-000000000000"

describe("trading properties", () => {
  it.live.prop(
    "random quotes, executes, price changes, exchange outcomes and clock advances match a model; each quote executes at most once",
    { world },
    ({ world: { commands, opening } }) =>
      Effect.promise(async () => {
        executedRuns += 1
        const { apiKey, partnerId } = await app.newPartner()
        const call = (method: string, path: string, body?: unknown): Promise<Reply> =>
          app.request(method, path, { apiKey, ...(body === undefined ? {} : { body }) })
        const ok = async (method: string, path: string, body: unknown, status: number) => {
          const reply = await call(method, path, body)
          expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBe(status)
          return reply.body.data
        }

        // The world: three NG customers, Tier 1 approved, funded by a bank transfer (NGN) and a deposit (USDT).
        const customers: Array<string> = []
        const balances: Array<Record<Currency, bigint>> = []
        for (const open of opening) {
          const created = await ok("POST", "/partner/v1/customers", customerBody(), 201)
          const id = created.id as string
          await ok("POST", `/partner/v1/customers/${id}/kyc/tier1`, { bvn: "12345678901", nin: "10987654321" }, 201)
          await ok("GET", `/partner/v1/customers/${id}/virtual-account`, undefined, 200)
          await ok("POST", `/sandbox/customers/${id}/virtual-account/credit`, { amount: money("NGN", open.NGN) }, 201)
          await ok("POST", `/sandbox/customers/${id}/deposits`, { asset: "USDT", network: "TRON", amount: money("USDT", open.USDT) }, 201)
          customers.push(id)
          balances.push({ NGN: open.NGN, USDT: open.USDT })
        }
        const prices = { buyRate: 1550n * rateScale, sellRate: 1520n * rateScale, fee: 500_000n }
        let outcome: "success" | "failure" = "success"
        let now = Date.parse((await ok("GET", "/sandbox/clock", undefined, 200)).now)
        const quotes: Array<Quote> = []
        const trace: Array<string> = []

        /** The `n`-th newest known quote (wrapping round). */
        const nth = (n: number): Quote => quotes[quotes.length - 1 - (n % quotes.length)]!
        const customerPath = (customer: number) => `/partner/v1/customers/${customers[customer]}`

        const expectBalances = async () => {
          for (const [index, id] of customers.entries()) {
            const reply = await call("GET", `/partner/v1/customers/${id}/balance`)
            const actual = Object.fromEntries((reply.body.data as Array<{ currency: string; balance: number }>).map((b) => [b.currency, b.balance]))
            expect({ customer: index, NGN: actual.NGN ?? 0, USDT: actual.USDT ?? 0 }, trace.join("\n")).toEqual({
              customer: index,
              NGN: money("NGN", balances[index]!.NGN),
              USDT: money("USDT", balances[index]!.USDT)
            })
          }
        }

        /** Per quote: completion events, exchange fills and EXECUTED rows, each exactly the model's 200 executes. */
        const expectExecutedOnce = async () => {
          const events = await app.query<{ quote: string; n: string }>(
            `SELECT data->>'quoteId' AS quote, count(*)::text AS n FROM events
             WHERE partner_id = $1 AND type IN ('purchase.completed', 'sale.completed') GROUP BY 1`,
            [partnerId]
          )
          const fills = await app.query<{ quote: string; n: string }>(
            "SELECT order_id::text AS quote, count(*)::text AS n FROM exchange_orders WHERE partner_id = $1 GROUP BY 1",
            [partnerId]
          )
          const executed = await app.query<{ quote: string }>(
            "SELECT id::text AS quote FROM trade_quotes WHERE partner_id = $1 AND status = 'EXECUTED'",
            [partnerId]
          )
          const expected = Object.fromEntries(quotes.filter((q) => q.executions > 0).map((q) => [q.id, q.executions]))
          for (const q of quotes) expect(q.executions).toBeLessThanOrEqual(1)
          expect(Object.fromEntries(events.map((r) => [r.quote, Number(r.n)])), trace.join("\n")).toEqual(expected)
          expect(Object.fromEntries(fills.map((r) => [r.quote, Number(r.n)])), trace.join("\n")).toEqual(expected)
          expect(Object.fromEntries(executed.map((r) => [r.quote, 1])), trace.join("\n")).toEqual(expected)
        }

        const resolve = (amount: Amount, customer: number, currency: Currency) =>
          amount.kind === "fixed" ? amount.minor : balances[customer]![currency] + amount.delta

        const quoteBuy = async (customer: number, amount: bigint) => {
          const reply = await call("POST", `${customerPath(customer)}/buy/quote`, {
            amount: money("NGN", amount), sourceCurrency: "NGN", destinationCurrency: "USDT", type: "buy"
          })
          const usdt = buyUsdt(amount, prices.buyRate)
          see("buy quote", reply)
          trace.push(`buy quote c${customer} NGN ${decimalText(amount, 2)} at ${decimalText(prices.buyRate, 8)} -> ${reply.status}`)
          if (amount > maxAmount.NGN) {
            expectRefusal(reply, { status: 400, code: "BAD_REQUEST" })
            return
          }
          if (usdt < 1_000_000n) {
            expect(reply.status, trace.join("\n")).toBe(400)
            expect(reply.body).toMatchObject({
              code: "TRADE_BELOW_MINIMUM",
              details: { minimumAmount: money("NGN", minimumBuyFiat(prices.buyRate)), currency: "NGN" }
            })
            return
          }
          if (usdt > maxAmount.USDT) {
            // More than one request may deliver (an extreme rate): refused, naming the amount.
            expectRefusal(reply, { status: 400, code: "BAD_REQUEST" })
            expect(reply.body.message).toMatch(/^amount: /)
            return
          }
          expect(reply.status, `${trace.join("\n")}\n${JSON.stringify(reply.body)}`).toBe(201)
          expect(reply.body.data, trace.join("\n")).toEqual({
            id: expect.any(String),
            type: "buy",
            sourceAmount: money("NGN", amount),
            sourceCurrency: "NGN",
            destinationAmount: money("USDT", usdt),
            destinationCurrency: "USDT",
            rate: rateNumber(prices.buyRate),
            exchangeFee: 0,
            expiresIn: 60,
            expiresAt: new Date(now + 60_000).toISOString(),
            network: null
          })
          quotes.push({ id: reply.body.data.id, customer, side: "buy", fiat: amount, usdt, fee: 0n, createdAt: now, executions: 0, execution: undefined })
        }

        const quoteSell = async (customer: number, amount: bigint, network: string | null) => {
          const reply = await call("POST", `${customerPath(customer)}/sell/quote`, {
            amount: money("USDT", amount), sourceCurrency: "USDT", destinationCurrency: "NGN", type: "sell",
            ...(network === null ? {} : { network })
          })
          see("sell quote", reply)
          trace.push(`sell quote c${customer} USDT ${decimalText(amount, 6)} at ${decimalText(prices.sellRate, 8)} fee ${decimalText(prices.fee, 6)} -> ${reply.status}`)
          const minimum = prices.fee + 1_000_000n
          if (amount > maxAmount.USDT) {
            expectRefusal(reply, { status: 400, code: "BAD_REQUEST" })
            return
          }
          const fiat = amount < minimum ? 0n : sellFiat(amount - prices.fee, prices.sellRate)
          if (fiat <= 0n) {
            // Below fee + 1 USDT, or paying nothing at a tiny rate.
            expect(reply.status, trace.join("\n")).toBe(400)
            expect(reply.body).toMatchObject({ code: "TRADE_BELOW_MINIMUM", details: { minimumAmount: money("USDT", minimum), currency: "USDT" } })
            return
          }
          if (fiat > maxAmount.NGN) {
            expectRefusal(reply, { status: 400, code: "BAD_REQUEST" })
            expect(reply.body.message).toMatch(/^amount: /)
            return
          }
          expect(reply.status, `${trace.join("\n")}\n${JSON.stringify(reply.body)}`).toBe(201)
          expect(reply.body.data, trace.join("\n")).toEqual({
            id: expect.any(String),
            type: "sell",
            sourceAmount: money("USDT", amount),
            sourceCurrency: "USDT",
            destinationAmount: money("NGN", fiat),
            destinationCurrency: "NGN",
            rate: rateNumber(prices.sellRate),
            exchangeFee: money("USDT", prices.fee),
            expiresIn: 60,
            expiresAt: new Date(now + 60_000).toISOString(),
            network
          })
          quotes.push({ id: reply.body.data.id, customer, side: "sell", fiat, usdt: amount, fee: prices.fee, createdAt: now, executions: 0, execution: undefined })
        }

        /** What executing `q` as customer `as` on the `side` route answers, from the model alone. */
        const predict = (q: Quote, as: number, side: "buy" | "sell"): Expected => {
          if (as !== q.customer || side !== q.side) return { status: 404, code: "QUOTE_NOT_FOUND" }
          if (q.executions > 0) return { status: 400, code: "QUOTE_ALREADY_EXECUTED" }
          if (now - q.createdAt >= 60_000) return { status: 400, code: "QUOTE_EXPIRED" }
          const b = balances[q.customer]!
          if (q.side === "buy") {
            if (b.NGN < q.fiat) return { status: 400, code: "INSUFFICIENT_BALANCE" }
            if (b.USDT + q.usdt > maxBalance.USDT) return { status: 400, code: "BALANCE_LIMIT_EXCEEDED" }
          } else {
            if (b.USDT < q.usdt) return { status: 400, code: "INSUFFICIENT_BALANCE" }
            if (b.NGN + q.fiat > maxBalance.NGN) return { status: 400, code: "BALANCE_LIMIT_EXCEEDED" }
          }
          if (outcome === "failure") return { status: 502, code: "EXCHANGE_EXECUTION_FAILED" }
          return { status: 200 }
        }

        /** The execution the model expects for `q`, its reference aside. */
        const executionOf = (q: Quote) =>
          q.side === "buy"
            ? { quoteId: q.id, fiatCurrency: "NGN", fiatSpent: money("NGN", q.fiat), usdtCredited: money("USDT", q.usdt) }
            : { quoteId: q.id, usdtSold: money("USDT", q.usdt), exchangeFee: money("USDT", q.fee), fiatCurrency: "NGN", fiatCredited: money("NGN", q.fiat) }

        const apply = (q: Quote, reply: Reply) => {
          expect(reply.body.data, trace.join("\n")).toEqual({ reference: expect.stringMatching(/^ref_[0-9a-f]{24}$/), ...executionOf(q) })
          q.executions += 1
          q.execution = reply.body.data
          const b = balances[q.customer]!
          if (q.side === "buy") {
            b.NGN -= q.fiat
            b.USDT += q.usdt
          } else {
            b.USDT -= q.usdt
            b.NGN += q.fiat
          }
        }

        const sendExecute = (q: Quote | undefined, as: number, side: "buy" | "sell") =>
          call("POST", `${customerPath(as)}/${side}/execute`, { quoteId: q?.id ?? foreignQuoteId })

        const expectRefusal = (reply: Reply, expected: Expected) => {
          expect({ status: reply.status, code: reply.body?.code }, `${trace.join("\n")}\n${JSON.stringify(reply.body)}`).toEqual(expected)
        }

        for (const cmd of commands) {
          switch (cmd.op) {
            case "buyQuote": {
              const amount = resolve(cmd.amount, cmd.customer, "NGN")
              if (amount <= 0n) break
              await quoteBuy(cmd.customer, amount)
              break
            }
            case "sellQuote": {
              const amount = resolve(cmd.amount, cmd.customer, "USDT")
              if (amount <= 0n) break
              await quoteSell(cmd.customer, amount, cmd.network)
              break
            }
            case "execute": {
              const q = quotes.length === 0 ? undefined : nth(cmd.pick)
              const as = cmd.as ?? q?.customer ?? 0
              const side = q === undefined ? "buy" : cmd.otherSide ? (q.side === "buy" ? "sell" : "buy") : q.side
              const expected: Expected = q === undefined ? { status: 404, code: "QUOTE_NOT_FOUND" } : predict(q, as, side)
              const reply = await sendExecute(q, as, side)
              see(`execute ${q?.side ?? "unknown"}`, reply)
              trace.push(`execute ${q === undefined ? "unknown" : `q${quotes.indexOf(q)}`} as c${as} on ${side} -> ${reply.status} ${reply.body?.code ?? ""}`)
              if (expected.status === 200) {
                expect(reply.status, `${trace.join("\n")}\n${JSON.stringify(reply.body)}`).toBe(200)
                apply(q!, reply)
              } else {
                expectRefusal(reply, expected)
              }
              break
            }
            case "executeConcurrently": {
              if (quotes.length === 0) break
              const q = nth(cmd.pick)
              const expected = predict(q, q.customer, q.side)
              const replies = await Promise.all(Array.from({ length: cmd.copies }, () => sendExecute(q, q.customer, q.side)))
              for (const r of replies) see(`concurrent ${q.side}`, r)
              trace.push(`execute q${quotes.indexOf(q)} x${cmd.copies} at once -> ${replies.map((r) => `${r.status} ${r.body?.code ?? ""}`).join(", ")}`)
              if (expected.status === 200) {
                const winners = replies.filter((r) => r.status === 200)
                expect(winners.length, trace.join("\n")).toBe(1)
                for (const r of replies) if (r.status !== 200) expectRefusal(r, { status: 400, code: "QUOTE_ALREADY_EXECUTED" })
                apply(q, winners[0]!)
              } else {
                for (const r of replies) expectRefusal(r, expected)
              }
              break
            }
            case "executeBurst": {
              // One quote per customer at once: different customers run in parallel and do not interact.
              const chosen = new Map<number, Quote>()
              for (const pick of cmd.picks) {
                if (quotes.length === 0) break
                const q = nth(pick)
                if (!chosen.has(q.customer)) chosen.set(q.customer, q)
              }
              const batch = [...chosen.values()]
              const expected = batch.map((q) => predict(q, q.customer, q.side))
              const replies = await Promise.all(batch.map((q) => sendExecute(q, q.customer, q.side)))
              batch.forEach((q, i) => see(`burst ${q.side}`, replies[i]!))
              trace.push(`burst ${batch.map((q, i) => `q${quotes.indexOf(q)} -> ${replies[i]!.status} ${replies[i]!.body?.code ?? ""}`).join(", ")}`)
              batch.forEach((q, i) => {
                if (expected[i]!.status === 200) {
                  expect(replies[i]!.status, `${trace.join("\n")}\n${JSON.stringify(replies[i]!.body)}`).toBe(200)
                  apply(q, replies[i]!)
                } else {
                  expectRefusal(replies[i]!, expected[i]!)
                }
              })
              break
            }
            case "setRates": {
              const body = {
                buyRate: rateNumber(cmd.buyRate),
                sellRate: rateNumber(cmd.sellRate),
                ...(cmd.fee === null ? {} : { exchangeFeeUsdt: money("USDT", cmd.fee) })
              }
              const data = await ok("PUT", "/sandbox/rates/NGN", body, 200)
              prices.buyRate = cmd.buyRate
              prices.sellRate = cmd.sellRate
              if (cmd.fee !== null) prices.fee = cmd.fee
              trace.push(`rates ${JSON.stringify(body)}`)
              expect(data).toEqual({
                currency: "NGN",
                buyRate: rateNumber(prices.buyRate),
                sellRate: rateNumber(prices.sellRate),
                exchangeFeeUsdt: money("USDT", prices.fee),
                isDefault: false,
                updatedAt: new Date(now).toISOString()
              })
              // The indicative rate reads the new prices at once.
              const rate = await ok("GET", `${customerPath(0)}/rate`, undefined, 200)
              expect(rate).toMatchObject({ currency: "NGN", buyRate: rateNumber(prices.buyRate), sellRate: rateNumber(prices.sellRate), exchangeFee: money("USDT", prices.fee) })
              break
            }
            case "setRatesInverted": {
              // A buyRate below the current sellRate (a percentage of it): refused, nothing changes.
              const below = representable((prices.sellRate * BigInt(cmd.percent)) / 100n)
              if (below === undefined) break
              const reply = await call("PUT", "/sandbox/rates/NGN", { buyRate: rateNumber(below) })
              trace.push(`rates inverted buyRate ${decimalText(below, 8)} -> ${reply.status}`)
              expectRefusal(reply, { status: 400, code: "BAD_REQUEST" })
              expect(reply.body.message).toContain("is below sellRate")
              const list = await ok("GET", "/sandbox/rates", undefined, 200)
              expect(list[0]).toMatchObject({ currency: "NGN", buyRate: rateNumber(prices.buyRate), sellRate: rateNumber(prices.sellRate) })
              break
            }
            case "exchange": {
              await ok("PUT", "/sandbox/rails/exchange", { mode: "auto", outcome: cmd.outcome }, 200)
              outcome = cmd.outcome
              trace.push(`exchange ${cmd.outcome}`)
              break
            }
            case "advance": {
              const data = await ok("POST", "/sandbox/clock/advance", { seconds: cmd.seconds }, 200)
              now += cmd.seconds * 1000
              trace.push(`advance ${cmd.seconds}s`)
              expect(Date.parse(data.now)).toBe(now)
              break
            }
          }
          await expectBalances()
          await expectExecutedOnce()
        }

        // Each execution's event carries the execution and the customer; its journal transactions are the
        // documented ones (docs/trading.md "Ledger"), keyed by the execution's reference.
        for (const q of quotes.filter((q) => q.execution !== undefined)) {
          const events = await app.query<{ type: string; data: Record<string, unknown>; customer: string }>(
            "SELECT type, data, customer_id::text AS customer FROM events WHERE partner_id = $1 AND data->>'quoteId' = $2",
            [partnerId, q.id]
          )
          expect(events).toEqual([{
            type: q.side === "buy" ? "purchase.completed" : "sale.completed",
            data: { customerId: customers[q.customer], ...q.execution },
            customer: customers[q.customer]
          }])
          const transactions = await app.query<{ reason: string; reference: string; customer: string }>(
            `SELECT reason, reference, customer_id::text AS customer FROM ledger_transactions
             WHERE resource_type = 'trade' AND resource_id = $1 ORDER BY reason`,
            [q.id]
          )
          const reasons = q.side === "buy" ? ["buy"] : q.fee > 0n ? ["fee", "sell"] : ["sell"]
          expect(transactions).toEqual(reasons.map((reason) => ({ reason, reference: q.execution!.reference, customer: customers[q.customer] })))
        }
        // Quotes never executed left no journal transaction.
        const unexecuted = quotes.filter((q) => q.execution === undefined).map((q) => q.id)
        if (unexecuted.length > 0) {
          const stray = await app.query(
            "SELECT id FROM ledger_transactions WHERE resource_type = 'trade' AND resource_id = ANY($1::text[])",
            [unexecuted]
          )
          expect(stray).toEqual([])
        }
        const report = await ledgerReport(app)
        expect(report.violations).toEqual([])
        expect(await conservation(app)).toEqual([])
      }),
    {
      timeout: 600_000,
      fastCheck: {
        numRuns: runs,
        // Regression: at extreme sandbox prices a quote's delivered amount overflowed the 64-bit amount columns
        // (500 INTERNAL_ERROR) or went beyond one request's maximum; both are now 400 naming `amount`. fast-check
        // takes an example as the tuple of the property's arguments; @effect/vitest types it as the record.
        examples: [[{
          world: {
            opening: [{ NGN: 100_000_000n, USDT: 500_000_000n }, { NGN: 1n, USDT: 1n }, { NGN: 1n, USDT: 1n }],
            commands: [
              { op: "setRates", buyRate: 100n, sellRate: 100n, fee: null },
              { op: "buyQuote", customer: 0, amount: { kind: "fixed", minor: 10_000_000_000_000n } },
              { op: "buyQuote", customer: 0, amount: { kind: "fixed", minor: 100_000_000n } },
              { op: "buyQuote", customer: 0, amount: { kind: "fixed", minor: 9_999n } },
              { op: "execute", pick: 0, as: null, otherSide: false },
              { op: "setRates", buyRate: 1_000_000_000n * rateScale, sellRate: 1_000_000_000n * rateScale, fee: 0n },
              { op: "sellQuote", customer: 0, amount: { kind: "fixed", minor: 100_000_000_000_000n }, network: null },
              { op: "sellQuote", customer: 0, amount: { kind: "fixed", minor: 1_500_000_000n }, network: "TRON" },
              { op: "sellQuote", customer: 0, amount: { kind: "fixed", minor: 900_000_000n }, network: null },
              { op: "execute", pick: 0, as: null, otherSide: false }
            ]
          }
        }]] as never
      }
    }
  )
})
