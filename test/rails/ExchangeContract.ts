import { describe, expect, layer } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { BigDecimal, Effect, type Layer } from "effect"
import { type EventBus, transaction } from "../../src/events/Events.js"
import { Exchange, ExchangeCurrencyUnsupported, type ExecutionRequest } from "../../src/rails/Exchange.js"

/**
 * The contract of the `Exchange` port (src/rails/Exchange.ts): what ANY adapter must do, simulator or live. A live
 * adapter's test calls `exchangeContract(layer, fixtures)` with the currencies its provider quotes and orders it
 * may fill (a test account's); docs/rails.md.
 */
export interface ExchangeFixtures<R = never> {
  /** Fiat currencies the provider quotes (at least one). */
  readonly currencies: ReadonlyArray<string>
  /** A currency code the provider does not quote. */
  readonly unsupportedCurrency: string
  /** A partner to price for (it exists in the app's database). */
  readonly partner: Effect.Effect<string, never, R>
  /** A fresh order the provider fills (a new `orderId` every time; its partner and customer exist). */
  readonly order: Effect.Effect<ExecutionRequest, never, R>
}

type ContractServices = Exchange | SqlClient.SqlClient | EventBus

/**
 * What the execute command does with the port (src/trading/Trading.ts): asks for the order (`execute`), writes the
 * order's carried writes in a statement standing in for the journal (its `tx` CTE holds one row, as the journal's does
 * when it writes), then asks for the fill (`filled`) with the columns that statement returned. In the caller's
 * transaction, like the command.
 */
export const fill = (order: ExecutionRequest) =>
  Effect.gen(function*() {
    const exchange = yield* Exchange
    const sql = yield* SqlClient.SqlClient
    const filling = yield* exchange.execute(order)
    const columns = filling.carried.columns.length > 0 ? sql.csv(filling.carried.columns) : sql`1 AS nothing_carried`
    const [row] = yield* sql<Record<string, unknown>>`WITH ${sql.csv([sql`tx AS (SELECT 1)`, ...filling.carried.ctes])} SELECT ${columns}`
      .pipe(Effect.orDie)
    return yield* filling.filled(row ?? {})
  })

export const exchangeContractTests = <R = never>(it: Vitest.MethodsNonLive<ContractServices | R, true>, fixtures: ExchangeFixtures<R>) => {
  describe("prices", () => {
    it("quotes at least one currency", () => {
      expect(fixtures.currencies.length).toBeGreaterThan(0)
    })

    for (const currency of fixtures.currencies) {
      it.effect(`${currency}: positive exact rates, buyRate >= sellRate, a non-negative fee in USDT minor units, asOf a date`, () =>
        Effect.gen(function*() {
          const exchange = yield* Exchange
          const partnerId = yield* fixtures.partner
          const prices = yield* exchange.prices(partnerId, currency)
          expect(prices.currency).toBe(currency)
          expect(BigDecimal.isBigDecimal(prices.buyRate)).toBe(true)
          expect(BigDecimal.isBigDecimal(prices.sellRate)).toBe(true)
          expect(BigDecimal.isPositive(prices.sellRate)).toBe(true)
          expect(BigDecimal.greaterThanOrEqualTo(prices.buyRate, prices.sellRate)).toBe(true)
          expect(typeof prices.exchangeFeeUsdt).toBe("bigint")
          expect(prices.exchangeFeeUsdt >= 0n).toBe(true)
          expect(prices.asOf).toBeInstanceOf(Date)
          expect(Number.isNaN(prices.asOf.getTime())).toBe(false)
        }))
    }

    it.effect(`${fixtures.unsupportedCurrency}: ExchangeCurrencyUnsupported naming the currency`, () =>
      Effect.gen(function*() {
        const exchange = yield* Exchange
        const partnerId = yield* fixtures.partner
        const error = yield* Effect.flip(exchange.prices(partnerId, fixtures.unsupportedCurrency))
        expect(error).toBeInstanceOf(ExchangeCurrencyUnsupported)
        expect((error as ExchangeCurrencyUnsupported).currency).toBe(fixtures.unsupportedCurrency)
      }))
  })

  describe("execute", () => {
    it.effect("fills an order inside the caller's transaction (its writes carried by the journal), answering its order id and a fill time", () =>
      Effect.gen(function*() {
        const order = yield* fixtures.order
        const filled = yield* transaction(fill(order))
        expect(filled.orderId).toBe(order.orderId)
        expect(filled.executedAt).toBeInstanceOf(Date)
        expect(Number.isNaN(filled.executedAt.getTime())).toBe(false)
      }))

    it.effect("is idempotent by orderId: the same order again answers its first fill", () =>
      Effect.gen(function*() {
        const order = yield* fixtures.order
        const first = yield* transaction(fill(order))
        const again = yield* transaction(fill(order))
        expect(again).toEqual(first)
        // Twice in one transaction, too (a retried call within the same command).
        const other = yield* fixtures.order
        const [a, b] = yield* transaction(Effect.zip(fill(other), fill(other)))
        expect(b).toEqual(a)
      }))
  })
}

/** Runs the Exchange contract against an adapter that provides `Exchange`, SqlClient and EventBus. */
export const exchangeContract = <R = never, E = never>(
  adapter: Layer.Layer<ContractServices | R, E>,
  fixtures: ExchangeFixtures<R>,
  name = "Exchange contract"
) => layer(adapter, { excludeTestServices: true })(name, (it) => exchangeContractTests(it, fixtures))
