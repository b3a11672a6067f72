import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { BigDecimal, Effect, Exit } from "effect"
import * as Crypto from "node:crypto"
import type { Customers } from "../../src/customers/Customers.js"
import { transaction } from "../../src/events/Events.js"
import type { Partners } from "../../src/partners/Partners.js"
import { Exchange, ExecutionRejected, type ExecutionRequest } from "../../src/rails/Exchange.js"
import { ExchangeRailUnavailable } from "../../src/rails/Errors.js"
import type { RailOutcome } from "../../src/rails/RailPolicy.js"
import * as Unavailable from "../../src/rails/Unavailable.js"
import { ExchangePriceStore } from "../../simulators/exchange/Prices.js"
import { rejectionReason } from "../../simulators/exchange/ExchangeSimulator.js"
import { RailPolicies } from "../../simulators/RailPolicies.js"
import { exchangeContract, type ExchangeFixtures, fill } from "./ExchangeContract.js"
import { jobsOf, newSubject, serviceNow, simulatedServicesLayer, type Subject } from "./SimulatedRails.js"

/**
 * The Exchange contract run against the exchange simulator (simulators/exchange), then what only the simulator
 * promises: its default prices (literals from docs/sandbox-rails.md "Exchange rail"), prices set per partner, fills
 * recorded once per order id, and the `exchange` rail policy's failure outcome.
 */
const orderFor = (subject: Subject, overrides: Partial<ExecutionRequest> = {}): ExecutionRequest => ({
  partnerId: subject.partnerId,
  customerId: subject.customerId,
  orderId: Crypto.randomUUID(),
  side: "buy",
  currency: "NGN",
  usdtAmount: 10_000_000n,
  fiatAmount: 1_550_000n,
  ...overrides
})

const simulator: ExchangeFixtures<Partners | Customers> = {
  currencies: ["NGN", "GHS", "KES", "ZAR", "UGX", "USD"],
  unsupportedCurrency: "EUR",
  partner: Effect.map(newSubject(), (subject) => subject.partnerId),
  order: Effect.map(newSubject(), (subject) => orderFor(subject))
}

exchangeContract(simulatedServicesLayer, simulator, "Exchange contract: simulator")

const setExchangeOutcome = (subject: Subject, outcome: RailOutcome) =>
  Effect.flatMap(RailPolicies, (policies) => policies.set(subject.partnerId, "exchange", { mode: "auto", outcome }))

const ordersOf = (partnerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ orderId: string; customerId: string; side: string; currency: string; usdtAmount: string; fiatAmount: string; executedAt: Date | string }>`
      SELECT order_id, customer_id, side, currency, usdt_amount::text AS usdt_amount, fiat_amount::text AS fiat_amount, executed_at
      FROM exchange_orders WHERE partner_id = ${partnerId} ORDER BY executed_at, order_id`).pipe(
    Effect.map((rows) => rows.map((row) => ({ ...row, executedAt: new Date(row.executedAt) }))),
    Effect.orDie
  )

const text = (rate: BigDecimal.BigDecimal) => BigDecimal.format(BigDecimal.normalize(rate))

layer(simulatedServicesLayer, { excludeTestServices: true })("exchange simulator specifics", (it) => {
  describe("prices", () => {
    it.effect("defaults per currency, exact (fiat per USDT, spread included), fee 0.5 USDT, asOf the service clock's now", () =>
      Effect.gen(function*() {
        const exchange = yield* Exchange
        const { partnerId } = yield* newSubject()
        const now = yield* serviceNow
        const expected: Array<[string, string, string]> = [
          ["NGN", "1550", "1520"],
          ["GHS", "15.6", "15.2"],
          ["KES", "131.5", "128.5"],
          ["ZAR", "18.6", "18.1"],
          ["UGX", "3760", "3680"],
          ["USD", "1.01", "0.99"]
        ]
        for (const [currency, buyRate, sellRate] of expected) {
          const prices = yield* exchange.prices(partnerId, currency)
          expect([prices.currency, text(prices.buyRate), text(prices.sellRate), prices.exchangeFeeUsdt, prices.asOf])
            .toEqual([currency, buyRate, sellRate, 500_000n, now])
          expect(BigDecimal.equals(prices.buyRate, BigDecimal.unsafeFromString(buyRate))).toBe(true)
        }
      }))

    it.effect("lowercase or unknown codes and USDT itself are not quoted", () =>
      Effect.gen(function*() {
        const exchange = yield* Exchange
        const { partnerId } = yield* newSubject()
        for (const currency of ["ngn", "USDT", "XOF", ""]) {
          const error = yield* Effect.flip(exchange.prices(partnerId, currency))
          expect(error).toMatchObject({ _tag: "ExchangeCurrencyUnsupported", currency })
        }
      }))

    it.effect("prices set for a partner (exact decimals, through numeric) are that partner's only; the rest keep defaults", () =>
      Effect.gen(function*() {
        const exchange = yield* Exchange
        const store = yield* ExchangePriceStore
        const mine = yield* newSubject()
        const theirs = yield* newSubject()
        yield* exchange.prices(mine.partnerId, "NGN") // cached before the change: the change must still show
        yield* store.set(mine.partnerId, "NGN", {
          buyRate: BigDecimal.unsafeFromString("1612.12345678"),
          exchangeFeeUsdt: 1_250_000n
        })
        const changed = yield* exchange.prices(mine.partnerId, "NGN")
        expect([text(changed.buyRate), text(changed.sellRate), changed.exchangeFeeUsdt]).toEqual(["1612.12345678", "1520", 1_250_000n])
        const ghs = yield* exchange.prices(mine.partnerId, "GHS")
        expect([text(ghs.buyRate), ghs.exchangeFeeUsdt]).toEqual(["15.6", 500_000n])
        const other = yield* exchange.prices(theirs.partnerId, "NGN")
        expect([text(other.buyRate), other.exchangeFeeUsdt]).toEqual(["1550", 500_000n])
      }))

    it.effect("the store refuses a buyRate below the sellRate and keeps the prices as they were", () =>
      Effect.gen(function*() {
        const store = yield* ExchangePriceStore
        const { partnerId } = yield* newSubject()
        const error = yield* Effect.flip(store.set(partnerId, "KES", { buyRate: BigDecimal.unsafeFromString("120") }))
        expect(error._tag).toBe("PricesInverted")
        expect((yield* store.get(partnerId, "KES")).isDefault).toBe(true)
        // Equal rates are allowed (no spread).
        const flat = yield* store.set(partnerId, "KES", { buyRate: BigDecimal.unsafeFromString("130"), sellRate: BigDecimal.unsafeFromString("130") })
        expect([text(flat.buyRate), text(flat.sellRate), flat.isDefault]).toEqual(["130", "130", false])
      }))
  })

  describe("execute", () => {
    it.effect("records the fill at the service clock's now, once per order id; schedules no job", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const now = yield* serviceNow
        const buy = orderFor(subject)
        const sell = orderFor(subject, { side: "sell", currency: "GHS", usdtAmount: 5_000_000n, fiatAmount: 7_600n })
        expect(yield* transaction(fill(buy))).toEqual({ orderId: buy.orderId, executedAt: now })
        expect(yield* transaction(fill(sell))).toEqual({ orderId: sell.orderId, executedAt: now })
        yield* transaction(fill(buy))
        const rows = yield* ordersOf(subject.partnerId)
        expect(rows.map((row) => [row.orderId, row.customerId, row.side, row.currency, row.usdtAmount, row.fiatAmount, row.executedAt]).sort())
          .toEqual([
            [buy.orderId, subject.customerId, "buy", "NGN", "10000000", "1550000", now],
            [sell.orderId, subject.customerId, "sell", "GHS", "5000000", "7600", now]
          ].sort())
        expect(yield* jobsOf(subject.partnerId)).toEqual([])
      }))

    it.effect("a fill whose transaction rolled back is gone; executing the order again fills it", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const order = orderFor(subject)
        const outcome = yield* transaction(Effect.zipRight(fill(order), Effect.fail("abort" as const))).pipe(Effect.flip)
        expect(outcome).toBe("abort")
        expect(yield* ordersOf(subject.partnerId)).toEqual([])
        yield* transaction(fill(order))
        expect((yield* ordersOf(subject.partnerId)).map((row) => row.orderId)).toEqual([order.orderId])
      }))

    it.effect("outcome failure rejects a new order and records nothing; outcome success fills again", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const filled = orderFor(subject)
        const first = yield* transaction(fill(filled))
        yield* setExchangeOutcome(subject, "failure")
        const refused = orderFor(subject, { side: "sell" })
        const error = yield* Effect.flip(transaction(fill(refused)))
        expect(error).toBeInstanceOf(ExecutionRejected)
        expect((error as ExecutionRejected).reason).toBe(rejectionReason)
        expect(rejectionReason).toBe("The exchange rejected the order (sandbox exchange rail: outcome failure)")
        // An order filled before keeps its fill: the port is idempotent by order id.
        expect(yield* transaction(fill(filled))).toEqual(first)
        expect((yield* ordersOf(subject.partnerId)).map((row) => row.orderId)).toEqual([filled.orderId])

        yield* setExchangeOutcome(subject, "success")
        yield* transaction(fill(refused))
        expect((yield* ordersOf(subject.partnerId)).map((row) => row.orderId).sort()).toEqual([filled.orderId, refused.orderId].sort())
      }))

    it.effect("another partner's failure outcome does not touch this partner's executions", () =>
      Effect.gen(function*() {
        const failing = yield* newSubject()
        const working = yield* newSubject()
        yield* setExchangeOutcome(failing, "failure")
        const order = orderFor(working)
        expect((yield* transaction(fill(order))).orderId).toBe(order.orderId)
      }))
  })

  describe("the exchange rail policy", () => {
    it.effect("defaults to auto, success, no delay; manual or a delay is a defect of RailPolicies.set (the HTTP route answers 400)", () =>
      Effect.gen(function*() {
        const policies = yield* RailPolicies
        const { partnerId } = yield* newSubject()
        expect(yield* policies.policyFor(partnerId, "exchange")).toEqual({
          rail: "exchange",
          mode: "auto",
          outcome: "success",
          delaySeconds: 0,
          isDefault: true,
          updatedAt: null
        })
        expect((yield* policies.list(partnerId)).map((policy) => policy.rail)).toEqual(["bank", "chain", "payout", "identity", "exchange"])
        const manual = yield* Effect.exit(policies.set(partnerId, "exchange", { mode: "manual" }))
        expect(Exit.isFailure(manual) && !Exit.isInterrupted(manual)).toBe(true)
        const delayed = yield* Effect.exit(policies.set(partnerId, "exchange", { mode: "auto", delaySeconds: 5 }))
        expect(Exit.isFailure(delayed)).toBe(true)
        expect(yield* policies.set(partnerId, "exchange", { mode: "auto", outcome: "failure", delaySeconds: 0 }))
          .toMatchObject({ rail: "exchange", mode: "auto", outcome: "failure", delaySeconds: 0, isDefault: false })
      }))
  })
})

describe("production's exchange adapter without a live one (src/rails/Unavailable.ts)", () => {
  layer(Unavailable.exchangeLayer)((it) => {
    it.effect("prices and execute answer EXCHANGE_RAIL_UNAVAILABLE", () =>
      Effect.gen(function*() {
        const exchange = yield* Exchange
        const subject: Subject = { partnerId: Crypto.randomUUID(), customerId: Crypto.randomUUID() }
        const prices = yield* Effect.flip(exchange.prices(subject.partnerId, "NGN"))
        const execute = yield* Effect.flip(exchange.execute(orderFor(subject)))
        for (const error of [prices, execute]) {
          expect(error).toBeInstanceOf(ExchangeRailUnavailable)
          expect(error).toMatchObject({ statusCode: 503, code: "EXCHANGE_RAIL_UNAVAILABLE" })
        }
      }))
  })
})
