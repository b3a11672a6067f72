import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { described, example, resourceTag, sample } from "../api/Docs.js"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden } from "../api/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"
import { Envelope } from "../api/Envelope.js"
import { BalanceLimitExceeded, CustomerBusy, InsufficientBalance } from "../ledger/Errors.js"
import { AmountNumber } from "../money/Money.js"
import { ExchangeRailUnavailable } from "../rails/Errors.js"
import { FiatCurrency } from "../reference/Countries.js"
import { QueryAmount } from "../withdrawals/Api.js"

/**
 * Buying and selling USDT against the customer's fiat (docs/contract.md "Buy and sell", "Quote", "Rate"). Numbers in JSON
 * (amounts, rates), rendered from exact values; see docs/trading.md for every decision the spec leaves open.
 */

const networkNames = ["TRON", "ETHEREUM", "BSC", "POLYGON", "SOLANA"] as const
export const TradeNetwork = Schema.Literal(...networkNames).annotations({
  message: () => `must be one of ${networkNames.join(", ")}`
})

const fiatMessage = () => "must be a supported fiat currency (NGN, GHS, KES, ZAR, UGX, USD)"

/**
 * A quote's body names only what its route does not: `/buy/quote` already says the type (`buy`) and the asset bought
 * (USDT), `/sell/quote` the type (`sell`) and the asset sold (USDT). Those fields may still be sent (the contract's
 * body lists them) and must then say the same; absent, the route's value is used.
 */
export const BuyQuoteBody = example(Schema.Struct({
  /** Fiat to spend (the source amount), in major units of `sourceCurrency`. */
  amount: described(AmountNumber, "How much fiat to spend, in major units of `sourceCurrency` (the customer's own)."),
  sourceCurrency: FiatCurrency.annotations({ message: fiatMessage }),
  /** Implied by the route: USDT. */
  destinationCurrency: Schema.optional(Schema.Literal("USDT").annotations({ message: () => "must be USDT" })),
  /** Implied by the route: buy. */
  type: Schema.optional(Schema.Literal("buy").annotations({ message: () => "must be buy" }))
}), { amount: 165000, sourceCurrency: "NGN", destinationCurrency: "USDT" })
export type BuyQuoteBody = typeof BuyQuoteBody.Type

export const SellQuoteBody = example(Schema.Struct({
  /** USDT to sell (the source amount), fee included. */
  amount: described(AmountNumber, "How much USDT to sell, fee included."),
  /** Implied by the route: USDT. */
  sourceCurrency: Schema.optional(Schema.Literal("USDT").annotations({ message: () => "must be USDT" })),
  destinationCurrency: FiatCurrency.annotations({ message: fiatMessage }),
  /** Implied by the route: sell. */
  type: Schema.optional(Schema.Literal("sell").annotations({ message: () => "must be sell" })),
  /** The network the customer's USDT is thought of as sitting on; recorded, never charged (no chain is touched). */
  network: Schema.optional(described(TradeNetwork, "The network the customer's USDT is on; recorded on the quote, never charged."))
}), { amount: 100, sourceCurrency: "USDT", destinationCurrency: "NGN" })
export type SellQuoteBody = typeof SellQuoteBody.Type

/** docs/contract.md "Quote", plus `type`, `expiresAt` and `network`. */
export const TradeQuote = example(Schema.Struct({
  id: Schema.UUID,
  type: Schema.Literal("buy", "sell"),
  sourceAmount: Schema.Number,
  sourceCurrency: Schema.String,
  destinationAmount: Schema.Number,
  destinationCurrency: Schema.String,
  /** Fiat per 1 USDT: the buy rate (a buy) or the sell rate before the fee (a sell). */
  rate: Schema.Number,
  /** USDT: the exchange's fixed execution fee on a sell, 0 on a buy. */
  exchangeFee: Schema.Number,
  /** Seconds until the quote can no longer be executed. */
  expiresIn: described(Schema.Int, "Seconds left to execute the quote."),
  expiresAt: Schema.Date,
  /** A sell's `network` as requested, else null. */
  network: Schema.NullOr(Schema.String)
}), {
  id: sample.quoteId,
  type: "buy",
  sourceAmount: 165000,
  sourceCurrency: "NGN",
  destinationAmount: 100,
  destinationCurrency: "USDT",
  rate: 1650,
  exchangeFee: 0,
  expiresIn: 30,
  expiresAt: "2026-03-02T09:15:30.000Z",
  network: null
})
export type TradeQuote = typeof TradeQuote.Type

export const ExecuteBody = example(Schema.Struct({
  /** Any string: an unknown, malformed or foreign id answers 404 QUOTE_NOT_FOUND. */
  quoteId: described(
    Schema.String.pipe(Schema.minLength(1, { message: () => "is required" }), Schema.maxLength(200, { message: () => "must be at most 200 characters" })),
    "The `id` of the quote to execute, before it expires."
  )
}), { quoteId: sample.quoteId })

/** docs/contract.md "Buy execution", plus the `quoteId` it executed. */
export const BuyExecution = example(Schema.Struct({
  reference: Schema.String,
  quoteId: Schema.UUID,
  fiatCurrency: Schema.String,
  fiatSpent: Schema.Number,
  usdtCredited: Schema.Number
}), { reference: "buy-e1b7c3a9", quoteId: sample.quoteId, fiatCurrency: "NGN", fiatSpent: 165000, usdtCredited: 100 })
export type BuyExecution = typeof BuyExecution.Type

/** docs/contract.md "Sell execution", plus the `quoteId` it executed and the fee it carried. */
export const SellExecution = example(Schema.Struct({
  reference: Schema.String,
  quoteId: Schema.UUID,
  usdtSold: Schema.Number,
  exchangeFee: Schema.Number,
  fiatCurrency: Schema.String,
  fiatCredited: Schema.Number
}), { reference: "sell-6a2f9d4e", quoteId: "6a2f9d4e-3b8c-4e1a-9f7d-2c5b8e1a4d60", usdtSold: 100, exchangeFee: 1, fiatCurrency: "NGN", fiatCredited: 157410 })
export type SellExecution = typeof SellExecution.Type

/** docs/contract.md "Rate": indicative, all-in. */
export const Rate = example(Schema.Struct({
  currency: Schema.String,
  /** Fiat the customer pays per USDT bought. */
  buyRate: Schema.Number,
  /** Fiat the customer receives per USDT sold: net of the fixed fee for `amount` when given, else the spread only. */
  sellRate: Schema.Number,
  /** The USDT amount `sellRate` was computed for, or null. */
  amount: Schema.NullOr(Schema.Number),
  /** The exchange's fixed USDT fee per sell execution. */
  exchangeFee: Schema.Number,
  /** When the exchange read these prices (service clock). */
  asOf: Schema.Date
}), { currency: "NGN", buyRate: 1650, sellRate: 1590, amount: null, exchangeFee: 1, asOf: sample.at })
export type Rate = typeof Rate.Type

export const RateQuery = Schema.Struct({ amount: Schema.optional(QueryAmount) })

export class QuoteNotFound extends ApiError("QuoteNotFound", 404, "QUOTE_NOT_FOUND") {
  static readonly buy = () => new QuoteNotFound({ message: "No buy quote with this id exists for this customer" })
  static readonly sell = () => new QuoteNotFound({ message: "No sell quote with this id exists for this customer" })
}

export class QuoteAlreadyExecuted extends ApiError("QuoteAlreadyExecuted", 400, "QUOTE_ALREADY_EXECUTED") {}

export class QuoteExpired extends ApiError("QuoteExpired", 400, "QUOTE_EXPIRED") {}

/** The trade is smaller than the smallest the exchange fills; `details` names the smallest `amount` that works. */
export class TradeBelowMinimum extends ApiError("TradeBelowMinimum", 400, "TRADE_BELOW_MINIMUM", {
  minimumAmount: Schema.Number,
  currency: Schema.String
}) {}

/** The exchange refused or could not fill the order: nothing moved, the quote stays usable until it expires. */
export class ExchangeExecutionFailed extends ApiError("ExchangeExecutionFailed", 502, "EXCHANGE_EXECUTION_FAILED") {}

export class TradingApi extends HttpApiGroup.make("trading").annotateContext(resourceTag("trading"))
  .add(
    HttpApiEndpoint.get("rate", "/customers/:customerId/rate")
      .annotateContext(OpenApi.annotations({
        summary: "Get indicative rates",
        description: "Indicative `buyRate` and `sellRate` (fiat per USDT) for the customer's currency, without locking " +
          "a quote. All-in: `amount * rate` is what the customer pays or receives. With `amount` (USDT), `sellRate` " +
          "includes the exchange's fixed fee for that amount; without it, the spread only."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(RateQuery)
      .addSuccess(Envelope(Rate))
      .addError(BadRequest)
      .addError(ExchangeRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("buyQuote", "/customers/:customerId/buy/quote")
      .annotateContext(OpenApi.annotations({
        summary: "Quote a USDT buy",
        description: "Prices spending `amount` of the customer's fiat (`sourceCurrency`) on USDT. Buys carry no fee. The " +
          "quote executes once, within `expiresIn` seconds (60)."
      }))
      .setPath(CustomerIdPath)
      .setPayload(BuyQuoteBody)
      .addSuccess(Envelope(TradeQuote), { status: 201 })
      .addError(BadRequest)
      .addError(TradeBelowMinimum)
      .addError(CustomerBusy)
      .addError(ExchangeRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("buyExecute", "/customers/:customerId/buy/execute")
      .annotateContext(OpenApi.annotations({
        summary: "Execute a USDT buy",
        description: "Executes a buy quote exactly once: the fiat leaves the balance and the USDT arrives, and " +
          "`purchase.completed` is emitted. Again: 400 `QUOTE_ALREADY_EXECUTED`; after `expiresIn`: 400 " +
          "`QUOTE_EXPIRED`; a failed execute (e.g. `INSUFFICIENT_BALANCE`) leaves the quote usable."
      }))
      .setPath(CustomerIdPath)
      .setPayload(ExecuteBody)
      .addSuccess(Envelope(BuyExecution))
      .addError(BadRequest)
      .addError(QuoteNotFound)
      .addError(QuoteAlreadyExecuted)
      .addError(QuoteExpired)
      .addError(InsufficientBalance)
      .addError(BalanceLimitExceeded)
      .addError(ExchangeExecutionFailed)
      .addError(CustomerBusy)
      .addError(ExchangeRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("sellQuote", "/customers/:customerId/sell/quote")
      .annotateContext(OpenApi.annotations({
        summary: "Quote a USDT sell",
        description: "Prices selling `amount` USDT (the exchange's fixed fee included) for the customer's fiat " +
          "(`destinationCurrency`). `destinationAmount` is net of the fee. The quote executes once, within " +
          "`expiresIn` seconds (60)."
      }))
      .setPath(CustomerIdPath)
      .setPayload(SellQuoteBody)
      .addSuccess(Envelope(example(TradeQuote, {
        id: "6a2f9d4e-3b8c-4e1a-9f7d-2c5b8e1a4d60",
        type: "sell",
        sourceAmount: 100,
        sourceCurrency: "USDT",
        destinationAmount: 157410,
        destinationCurrency: "NGN",
        rate: 1590,
        exchangeFee: 1,
        expiresIn: 30,
        expiresAt: "2026-03-02T09:15:30.000Z",
        network: null
      })), { status: 201 })
      .addError(BadRequest)
      .addError(TradeBelowMinimum)
      .addError(CustomerBusy)
      .addError(ExchangeRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("sellExecute", "/customers/:customerId/sell/execute")
      .annotateContext(OpenApi.annotations({
        summary: "Execute a USDT sell",
        description: "Executes a sell quote exactly once: the USDT leaves the balance, the fiat (net of the fee) " +
          "arrives, and `sale.completed` is emitted. Again: 400 `QUOTE_ALREADY_EXECUTED`; after `expiresIn`: " +
          "400 `QUOTE_EXPIRED`; a failed execute leaves the quote usable."
      }))
      .setPath(CustomerIdPath)
      .setPayload(ExecuteBody)
      .addSuccess(Envelope(SellExecution))
      .addError(BadRequest)
      .addError(QuoteNotFound)
      .addError(QuoteAlreadyExecuted)
      .addError(QuoteExpired)
      .addError(InsufficientBalance)
      .addError(BalanceLimitExceeded)
      .addError(ExchangeExecutionFailed)
      .addError(CustomerBusy)
      .addError(ExchangeRailUnavailable)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

/** Exchange prices per fiat currency: the simulated exchange's, per partner. */
export const ExchangePricesView = Schema.Struct({
  currency: Schema.String,
  buyRate: Schema.Number,
  sellRate: Schema.Number,
  exchangeFeeUsdt: Schema.Number,
  isDefault: Schema.Boolean,
  updatedAt: Schema.NullOr(Schema.Date)
})
export type ExchangePricesView = typeof ExchangePricesView.Type

/** A positive rate (fiat per USDT) with at most 8 decimals and 15 significant digits, at most 1,000,000,000. */
export const RateNumber = Schema.Number.pipe(
  Schema.filter((value) =>
    Number.isFinite(value) && value > 0 && value <= 1_000_000_000 && /^\d+(\.\d{1,8})?$/.test(plain(value)) &&
      plain(value).replace(".", "").replace(/^0+/, "").length <= 15
      ? undefined
      : "must be a positive number of at most 1000000000 with at most 8 decimals"
  )
)

/** A non-negative USDT amount with at most 6 decimals, at most 100. */
export const FeeNumber = Schema.Number.pipe(
  Schema.filter((value) =>
    Number.isFinite(value) && value >= 0 && value <= 100 && /^\d+(\.\d{1,6})?$/.test(plain(value))
      ? undefined
      : "must be a USDT amount from 0 to 100 with at most 6 decimals"
  )
)

/** A number as plain decimal digits (no exponent). */
const plain = (value: number): string => {
  const text = String(value)
  if (!/e/i.test(text)) return text
  return value.toFixed(20).replace(/0+$/, "").replace(/\.$/, "")
}

export const SetPricesBody = example(Schema.Struct({
  buyRate: Schema.optional(RateNumber),
  sellRate: Schema.optional(RateNumber),
  exchangeFeeUsdt: Schema.optional(FeeNumber)
}), { buyRate: 1650, sellRate: 1590, exchangeFeeUsdt: 1 })
export type SetPricesBody = typeof SetPricesBody.Type

export const CurrencyPath = Schema.Struct({ currency: FiatCurrency.annotations({ message: fiatMessage }) })

export class SandboxRatesApi extends HttpApiGroup.make("sandboxRates").annotateContext(resourceTag("sandboxRates"))
  .add(
    HttpApiEndpoint.get("list", "/rates")
      .annotateContext(OpenApi.annotations({
        summary: "List exchange prices",
        description: "The simulated exchange's prices for the calling partner, one per fiat currency (a plain " +
          "array): `buyRate` and `sellRate` in fiat per USDT (spread included) and the fixed `exchangeFeeUsdt` per " +
          "sell; a currency never set reads its defaults with `isDefault: true`."
      }))
      .addSuccess(Envelope(Schema.Array(ExchangePricesView)))
  )
  .add(
    HttpApiEndpoint.put("set", "/rates/:currency")
      .annotateContext(OpenApi.annotations({
        summary: "Set exchange prices",
        description: "Changes the simulated exchange's prices of one fiat currency for the calling partner; omitted " +
          "fields keep their current value. `buyRate` must be at least `sellRate`. Quotes already given keep " +
          "their prices."
      }))
      .setPath(CurrencyPath)
      .setPayload(SetPricesBody)
      .addSuccess(Envelope(ExchangePricesView))
      .addError(BadRequest)
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
