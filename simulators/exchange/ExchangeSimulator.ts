import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { ServiceClock } from "../../src/clock/ServiceClock.js"
import { Exchange, ExchangeCurrencyUnsupported, type Execution, ExecutionRejected, type ExecutionRequest } from "../../src/rails/Exchange.js"
import { RailPolicies } from "../RailPolicies.js"
import { ExchangePriceStore, isExchangeCurrency } from "./Prices.js"

/**
 * The simulated exchange behind the `Exchange` port (sandbox).
 *
 * - `prices`: the partner's prices of the currency (`ExchangePriceStore`: `PUT /sandbox/rates/{currency}`, else the
 *   defaults), read now on the service clock. Every supported fiat currency is quoted; any other answers
 *   `ExchangeCurrencyUnsupported`.
 * - `execute`: fills at once, as the execute request waits (the port's fills are synchronous). The partner's
 *   `exchange` rail policy decides: outcome `success` records the fill in `exchange_orders`, once per order id;
 *   outcome `failure` rejects the order (`ExecutionRejected`) and records nothing. The policy has no manual mode and
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
      )

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

    /** Fills at once per the `exchange` policy, once per order id (an order filled before answers its first fill). */
    const execute = (order: ExecutionRequest) =>
      Effect.gen(function*() {
        const policy = yield* policies.policyFor(order.partnerId, "exchange")
        if (policy.outcome === "failure") {
          // An order filled before keeps its fill (idempotent by order id); a new one is refused, nothing recorded.
          const earlier = yield* earlierFill(order.orderId)
          if (earlier !== undefined) return earlier
          return yield* Effect.fail(new ExecutionRejected({ reason: rejectionReason }))
        }
        const now = yield* clock.now
        const inserted = yield* sql<FillRow>`
            INSERT INTO exchange_orders (order_id, partner_id, customer_id, side, currency, usdt_amount, fiat_amount, executed_at)
            VALUES (${order.orderId}, ${order.partnerId}, ${order.customerId}, ${order.side}, ${order.currency},
                    ${order.usdtAmount.toString()}, ${order.fiatAmount.toString()}, ${now})
            ON CONFLICT (order_id) DO NOTHING
            RETURNING executed_at`
        if (inserted[0] !== undefined) return { orderId: order.orderId, executedAt: new Date(inserted[0].executedAt) }
        // Filled before: its first fill answers, the order is not filled twice.
        const earlier = yield* earlierFill(order.orderId)
        if (earlier === undefined) return yield* Effect.die(new Error(`exchange order ${order.orderId}: conflict without a row`))
        return earlier
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    return Exchange.of({ prices, execute })
  })
)
