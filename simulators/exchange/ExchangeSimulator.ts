import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { ServiceClock } from "../../src/clock/ServiceClock.js"
import { type Carried, noCarried } from "../../src/ledger/Ledger.js"
import { Exchange, ExchangeCurrencyUnsupported, type Execution, ExecutionRejected, type ExecutionRequest, type Filling } from "../../src/rails/Exchange.js"
import { RailPolicies } from "../RailPolicies.js"
import { ExchangePriceStore, isExchangeCurrency } from "./Prices.js"

/**
 * The simulated exchange behind the `Exchange` port (sandbox).
 *
 * - `prices`: the partner's prices of the currency (`ExchangePriceStore`: `PUT /sandbox/rates/{currency}`, else the
 *   defaults), read now on the service clock. Every supported fiat currency is quoted; any other answers
 *   `ExchangeCurrencyUnsupported`.
 * - `execute`: fills at once, as the execute request waits (the port's fills are synchronous). The partner's
 *   `exchange` rail policy decides: outcome `success` records the fill in `exchange_orders`, once per order id, in
 *   the execute command's journal statement (a carried write: no statement of its own); outcome `failure` rejects
 *   the order (`ExecutionRejected`) and records nothing. The policy has no manual mode and
 *   no delay (simulators/RailPolicies.ts `policyProblem`). No magic values: the policy is the only switch.
 *
 * `execute` runs inside the caller's transaction (the domain fills while it holds the customer's lock), so a fill
 * commits or rolls back with the trade that asked for it. A live adapter calls out there instead, the one exception
 * to "no network inside a transaction" (docs/rails.md "Exchange"): it must make the fill idempotent by order id,
 * since it may be called again for an order whose first execute rolled back.
 */
export const rejectionReason = "The exchange rejected the order (sandbox exchange rail: outcome failure)"

interface FillRow {
  readonly executedAt: Date | string
}

export const layer = Layer.effect(
  Exchange,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const policies = yield* RailPolicies
    const store = yield* ExchangePriceStore

    const earlierFill = (orderId: string) =>
      Effect.map(
        sql<FillRow>`SELECT executed_at FROM exchange_orders WHERE order_id = ${orderId}`,
        (rows) => rows[0] === undefined ? undefined : ({ orderId, executedAt: new Date(rows[0].executedAt) } satisfies Execution)
      ).pipe(Effect.orDie)

    /** The partner's prices of a quoted currency, read now on the service clock. */
    const prices = (partnerId: string, currency: string) =>
      isExchangeCurrency(currency)
        ? Effect.map(Effect.zip(store.get(partnerId, currency), clock.now), ([sheet, asOf]) => ({
          currency,
          buyRate: sheet.buyRate,
          sellRate: sheet.sellRate,
          exchangeFeeUsdt: sheet.exchangeFeeUsdt,
          asOf
        }))
        : Effect.fail(new ExchangeCurrencyUnsupported({ currency }))

    /** An order filled before answers its first fill; `none` when it never was. */
    const firstFill = (orderId: string, none: Effect.Effect<Execution, ExecutionRejected>) =>
      Effect.flatMap(earlierFill(orderId), (earlier) => earlier === undefined ? none : Effect.succeed(earlier))

    /**
     * Fills at once per the `exchange` policy, once per order id. Outcome `success`: the fill's row in
     * `exchange_orders` is carried by the command's journal statement (`carried_exchange_orders`; an order filled
     * before conflicts and writes nothing), and `filled` answers it, or the first fill when the row was already there.
     * Outcome `failure`: nothing is carried, and `filled` rejects the order (after the journal, as a live provider
     * would), unless it was filled before.
     */
    const execute = (order: ExecutionRequest) =>
      Effect.gen(function*() {
        const policy = yield* policies.policyFor(order.partnerId, "exchange")
        if (policy.outcome === "failure") {
          return {
            carried: noCarried,
            filled: () => firstFill(order.orderId, Effect.fail(new ExecutionRejected({ reason: rejectionReason })))
          } satisfies Filling
        }
        const now = yield* clock.now
        const carried: Carried = {
          ctes: [sql`carried_exchange_orders AS (
            INSERT INTO exchange_orders (order_id, partner_id, customer_id, side, currency, usdt_amount, fiat_amount, executed_at)
            SELECT ${order.orderId}, ${order.partnerId}, ${order.customerId}, ${order.side}, ${order.currency},
                   ${order.usdtAmount.toString()}, ${order.fiatAmount.toString()}, ${now}
            FROM tx
            ON CONFLICT (order_id) DO NOTHING
            RETURNING 1
          )`],
          columns: [sql`EXISTS (SELECT 1 FROM carried_exchange_orders) AS carried_exchange_filled`]
        }
        return {
          carried,
          filled: (columns) =>
            columns.carriedExchangeFilled === true
              ? Effect.succeed({ orderId: order.orderId, executedAt: now } satisfies Execution)
              // Filled before: its first fill answers, the order is not filled twice.
              : firstFill(order.orderId, Effect.dieMessage(`exchange order ${order.orderId}: not carried and not filled before`))
        } satisfies Filling
      })

    return Exchange.of({ prices, execute })
  })
)
