import { type BigDecimal, Context, Data, type Effect } from "effect"
import type { Carried } from "../ledger/Ledger.js"
import type { ExchangeRailUnavailable } from "./Errors.js"

/**
 * The exchange rail: the liquidity provider that prices and fills USDT against each fiat currency (docs/contract.md "Buy
 * and sell", "Rate"). Declared here so that the trading issue only implements it: the domain reads prices to
 * quote, then executes a quote's order; the fill comes back as the execution's answer (fills are synchronous at
 * the providers we target; an adapter for an asynchronous one waits for the fill before it answers).
 *
 * Prices are exact decimals: fiat per 1 USDT. Amounts are minor units (USDT 6 decimals, fiat per its scale).
 */
export interface ExchangePrices {
  readonly currency: string
  /** Fiat the customer pays per USDT bought, spread included. */
  readonly buyRate: BigDecimal.BigDecimal
  /** Fiat the customer receives per USDT sold, spread included (before the execution fee). */
  readonly sellRate: BigDecimal.BigDecimal
  /** The provider's fixed fee per sell execution, in USDT minor units. */
  readonly exchangeFeeUsdt: bigint
  /** When the provider read these prices. */
  readonly asOf: Date
}

export interface ExecutionRequest {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the order (the quote's id): executing the same order twice fills it once. */
  readonly orderId: string
  readonly side: "buy" | "sell"
  readonly currency: string
  /** Minor units of USDT bought or sold. */
  readonly usdtAmount: bigint
  /** Minor units of fiat paid (buy) or received (sell), as quoted. */
  readonly fiatAmount: bigint
}

export interface Execution {
  readonly orderId: string
  readonly executedAt: Date
}

/** The provider does not quote this currency. */
export class ExchangeCurrencyUnsupported extends Data.TaggedError("ExchangeCurrencyUnsupported")<{ readonly currency: string }> {}

/** The provider refused or could not fill the order; nothing was bought or sold. */
export class ExecutionRejected extends Data.TaggedError("ExecutionRejected")<{ readonly reason: string }> {}

/**
 * An order on its way to a fill, in two steps around the execute command's journal. `carried`: writes of the fill
 * that the journal statement carries (the sandbox's exchange: its record of the fill; a live adapter: none,
 * `noCarried`), so a refused journal writes none of them. `filled`, run after the journal with the carried columns it
 * returned (`posted.carried`), answers the fill: a live adapter calls out to the provider there, after the ledger's
 * checks, so that a refusal leaves nothing to undo at the provider.
 */
export interface Filling {
  readonly carried: Carried
  readonly filled: (carried: Readonly<Record<string, unknown>>) => Effect.Effect<Execution, ExecutionRejected | ExchangeRailUnavailable>
}

export interface ExchangeShape {
  /** Current prices for a partner's customers in `currency`. */
  readonly prices: (
    partnerId: string,
    currency: string
  ) => Effect.Effect<ExchangePrices, ExchangeCurrencyUnsupported | ExchangeRailUnavailable>
  /**
   * Fills a quoted order at the quoted amounts: called before the command's journal, which writes the `Filling`'s
   * carried writes; its `filled` after the journal answers the fill. Idempotent by `orderId`: an order filled before
   * (an execute whose transaction then rolled back, retried) answers its first fill and is not filled twice.
   */
  readonly execute: (order: ExecutionRequest) => Effect.Effect<Filling, ExecutionRejected | ExchangeRailUnavailable>
}

export class Exchange extends Context.Tag("rails/Exchange")<Exchange, ExchangeShape>() {}
