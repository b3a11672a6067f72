import * as Command from "../observability/Command.js"
import { BigDecimal, Effect, Option } from "effect"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { Customer } from "../customers/Customer.js"
import { Outbox, type PreparedEvent } from "../events/Events.js"
import { BadRequest, type CustomerForbidden } from "../api/ApiError.js"
import { isUuid } from "../ids/Ids.js"
import { Ids } from "../ids/Ids.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import type { BalanceLimitExceeded, CustomerBusy, InsufficientBalance } from "../ledger/Errors.js"
import { Idempotency } from "../ledger/Idempotency.js"
import * as Ledger from "../ledger/Ledger.js"
import { type Asset, describeAmountProblem, maxAmountMinor, parseAmount, toDecimalString, toNumber } from "../money/Money.js"
import type { ExchangeRailUnavailable } from "../rails/Errors.js"
import { Exchange, type ExchangePrices, type ExchangeShape, type ExecutionRejected } from "../rails/Exchange.js"
import type { FiatCurrency } from "../reference/Countries.js"
import {
  type BuyExecution,
  type BuyQuoteBody,
  ExchangeExecutionFailed,
  QuoteAlreadyExecuted,
  QuoteExpired,
  QuoteNotFound,
  type Rate,
  type SellExecution,
  type SellQuoteBody,
  TradeBelowMinimum,
  type TradeQuote
} from "./Api.js"
import * as Pricing from "./Pricing.js"
import * as TradingRepo from "./TradingRepo.js"

/**
 * Buying and selling USDT against the customer's fiat, by quote (docs/contract.md "Buy and sell"). A quote prices the
 * trade once with the exchange's current prices and is stored; executing it, as a command of the customer (under
 * the customer's lock, so N concurrent executes run one after another), checks it is the customer's, still OPEN and
 * not expired, fills it at the exchange (idempotent by the quote's id), posts the journal, marks the quote EXECUTED
 * and records the event, all in one transaction: a quote executes exactly once, and an execute that fails moves
 * nothing and leaves the quote usable until it expires.
 *
 * Ledger, per execution (reason `buy` or `sell`, resource `trade` = the quote's id):
 * - buy: fiat available -> `exchange_inventory` (fiat); `exchange_inventory` (USDT) -> USDT available.
 * - sell: USDT available -> `exchange_inventory` (USDT, net of the fee); `exchange_inventory` (fiat) -> fiat
 *   available; and a second transaction, reason `fee`: USDT available -> `fee_revenue` (USDT), the exchange's fee.
 */

/** Seconds a quote can be executed for (docs/contract.md "Limits": 60). */
export const quoteLifetimeSeconds = 60

export const inventory = "exchange_inventory"
export const feeRevenue = "fee_revenue"
export const resourceType = "trade"

export type ExecuteError =
  | QuoteNotFound
  | QuoteAlreadyExecuted
  | QuoteExpired
  | InsufficientBalance
  | BalanceLimitExceeded
  | ExchangeExecutionFailed
  | ExchangeRailUnavailable
  | CustomerForbidden
  | CustomerBusy

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000))

/** The API view of a stored quote, `expiresIn` counted from `now`. */
export const toQuote = (row: TradingRepo.QuoteRow, now: Date): TradeQuote => {
  const fiat = row.fiatCurrency
  const buy = row.side === "buy"
  return {
    id: row.id,
    type: row.side,
    sourceAmount: buy ? toNumber(fiat, row.fiatAmount) : toNumber("USDT", row.usdtAmount),
    sourceCurrency: buy ? fiat : "USDT",
    destinationAmount: buy ? toNumber("USDT", row.usdtAmount) : toNumber(fiat, row.fiatAmount),
    destinationCurrency: buy ? "USDT" : fiat,
    rate: Pricing.rateNumber(BigDecimal.unsafeFromString(row.rate)),
    exchangeFee: toNumber("USDT", row.feeUsdt),
    expiresIn: seconds(row.expiresAt.getTime() - now.getTime()),
    expiresAt: row.expiresAt,
    network: row.network
  }
}

export const toBuyExecution = (row: TradingRepo.QuoteRow): BuyExecution => ({
  reference: row.reference ?? "",
  quoteId: row.id,
  fiatCurrency: row.fiatCurrency,
  fiatSpent: toNumber(row.fiatCurrency, row.fiatAmount),
  usdtCredited: toNumber("USDT", row.usdtAmount)
})

export const toSellExecution = (row: TradingRepo.QuoteRow): SellExecution => ({
  reference: row.reference ?? "",
  quoteId: row.id,
  usdtSold: toNumber("USDT", row.usdtAmount),
  exchangeFee: toNumber("USDT", row.feeUsdt),
  fiatCurrency: row.fiatCurrency,
  fiatCredited: toNumber(row.fiatCurrency, row.fiatAmount)
})

const notTheCustomersCurrency = (field: string, customer: Customer, given: string) =>
  new BadRequest({ message: `${field}: must be the customer's currency ${customer.currency} (got ${given})` })

const rejectedFill = (rejected: ExecutionRejected) =>
  Effect.fail(new ExchangeExecutionFailed({
    message: `The exchange did not fill the order: ${rejected.reason}. Nothing moved; the quote can be executed ` +
      `again until it expires`
  }))

/**
 * The quote's order at the exchange, before the journal: its carried writes go with the journal statement, and
 * `filled` (after the journal: a live provider is asked to fill only after the ledger's checks passed, so a refusal
 * leaves nothing to undo there) answers the fill or the rejection.
 */
const filling = (exchange: ExchangeShape, row: TradingRepo.QuoteRow) =>
  exchange.execute({
    partnerId: row.partnerId,
    customerId: row.customerId,
    orderId: row.id,
    side: row.side,
    currency: row.fiatCurrency,
    usdtAmount: row.side === "buy" ? row.usdtAmount : row.usdtAmount - row.feeUsdt,
    fiatAmount: row.fiatAmount
  }).pipe(
    Effect.map((order) => ({
      carried: order.carried,
      filled: (carried: Readonly<Record<string, unknown>>) => Effect.catchTag(order.filled(carried), "ExecutionRejected", rejectedFill)
    })),
    Effect.catchTag("ExecutionRejected", rejectedFill)
  )

/** Quotes and executions of buys and sells (see the module comment above). */
export class Trading extends Effect.Service<Trading>()("Trading", {
  effect: Effect.gen(function*() {
    const repo = yield* TradingRepo.TradingRepo
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const outbox = yield* Outbox
    const ledger = yield* Ledger.Ledger
    const idempotency = yield* Idempotency
    const actors = yield* CustomerActors
    const exchange = yield* Exchange

    /** The exchange's prices for the customer's currency; every supported fiat is quoted (a gap is a defect). */
    const pricesFor = (partnerId: string, currency: FiatCurrency) =>
      exchange.prices(partnerId, currency).pipe(
        Effect.catchTag("ExchangeCurrencyUnsupported", () => Effect.dieMessage(`trading: the exchange does not quote ${currency}`))
      )

    const parse = (asset: Asset, amount: number) => {
      const parsed = parseAmount(asset, amount)
      return parsed.ok
        ? Effect.succeed(parsed.minor)
        : Effect.fail(new BadRequest({ message: `amount: ${describeAmountProblem(parsed.problem, asset)}` }))
    }

    /** The customer's buy and sell rates; with `amount` (USDT), the all-in sell rate of that amount after the fee. */
    const rate = Command.fn("Trading.rate")(function*(customer: Customer, amount: number | undefined) {
      const prices = yield* pricesFor(customer.partnerId, customer.currency)
      let sellRate = prices.sellRate
      if (amount !== undefined) {
        const usdt = yield* parse("USDT", amount)
        if (usdt <= prices.exchangeFeeUsdt) {
          return yield* new BadRequest({
            message: `amount: must be more than the exchange fee of ${toNumber("USDT", prices.exchangeFeeUsdt)} USDT`
          })
        }
        sellRate = Pricing.allInSellRate(usdt, prices.exchangeFeeUsdt, prices.sellRate)
      }
      const view: Rate = {
        currency: customer.currency,
        buyRate: Pricing.rateNumber(prices.buyRate),
        sellRate: Pricing.rateNumber(sellRate),
        amount: amount ?? null,
        exchangeFee: toNumber("USDT", prices.exchangeFeeUsdt),
        asOf: prices.asOf
      }
      return view
    })

    const store = (customer: Customer, side: TradingRepo.QuoteSide, prices: ExchangePrices, priced: {
      readonly fiat: bigint
      readonly usdt: bigint
      readonly fee: bigint
      readonly network: string | null
    }) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        const row = yield* repo.insert({
          id: yield* ids.uuid,
          partnerId: customer.partnerId,
          customerId: customer.id,
          side,
          fiatCurrency: customer.currency,
          fiatAmount: priced.fiat,
          usdtAmount: priced.usdt,
          feeUsdt: priced.fee,
          rate: BigDecimal.format(BigDecimal.normalize(side === "buy" ? prices.buyRate : prices.sellRate)),
          network: priced.network,
          expiresAt: new Date(now.getTime() + quoteLifetimeSeconds * 1000),
          createdAt: now
        })
        return toQuote(row, now)
      })

    /**
     * What a trade delivers is bounded like any amount of one request (`maxAmount`): at extreme sandbox prices it
     * could otherwise overflow the 64-bit amount columns (a 500) or exceed what renders exactly as a JSON number.
     */
    const aboveMaximum = (asset: Asset, minor: bigint) => {
      const text = (value: bigint) => toDecimalString(asset, value).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "")
      return new BadRequest({
        message: `amount: the trade would deliver ${text(minor)} ${asset} at the current rate; at most ` +
          `${text(maxAmountMinor(asset))} ${asset} per request`
      })
    }

    /** The customer's command of a buy quote: fiat -> USDT at the current buy rate, priced once and stored. */
    const priceBuyQuote = (partnerId: string, customer: Customer, body: BuyQuoteBody) =>
      Effect.gen(function*() {
        if (body.sourceCurrency !== customer.currency) return yield* notTheCustomersCurrency("sourceCurrency", customer, body.sourceCurrency)
        const fiat = yield* parse(customer.currency, body.amount)
        const prices = yield* pricesFor(partnerId, customer.currency)
        const minimum = Pricing.minimumBuyFiat(customer.currency, prices.buyRate)
        const priced = Pricing.priceBuy(fiat, customer.currency, prices.buyRate)
        if (priced.usdt < Pricing.minimumUsdt) {
          return yield* new TradeBelowMinimum({
            message: `amount: a buy must deliver at least 1 USDT; the smallest amount that works is ` +
              `${customer.currency} ${toNumber(customer.currency, minimum)} at the current rate`,
            details: { minimumAmount: toNumber(customer.currency, minimum), currency: customer.currency }
          })
        }
        if (priced.usdt > maxAmountMinor("USDT")) return yield* aboveMaximum("USDT", priced.usdt)
        return yield* store(customer, "buy", prices, { fiat: priced.fiat, usdt: priced.usdt, fee: 0n, network: null })
      })

    /** The customer's command of a sell quote: USDT (less the exchange fee) -> fiat at the current sell rate. */
    const priceSellQuote = (partnerId: string, customer: Customer, body: SellQuoteBody) =>
      Effect.gen(function*() {
        if (body.destinationCurrency !== customer.currency) {
          return yield* notTheCustomersCurrency("destinationCurrency", customer, body.destinationCurrency)
        }
        const usdt = yield* parse("USDT", body.amount)
        const prices = yield* pricesFor(partnerId, customer.currency)
        const minimum = Pricing.minimumSellUsdt(prices.exchangeFeeUsdt)
        if (usdt < minimum) {
          return yield* new TradeBelowMinimum({
            message: `amount: a sell must sell at least 1 USDT after the exchange fee of ` +
              `${toNumber("USDT", prices.exchangeFeeUsdt)} USDT; the smallest amount that works is USDT ${toNumber("USDT", minimum)}`,
            details: { minimumAmount: toNumber("USDT", minimum), currency: "USDT" }
          })
        }
        const priced = Pricing.priceSell(usdt, prices.exchangeFeeUsdt, customer.currency, prices.sellRate)
        if (priced.fiat <= 0n) {
          return yield* new TradeBelowMinimum({
            message: `amount: the sell would pay nothing at the current rate`,
            details: { minimumAmount: toNumber("USDT", minimum), currency: "USDT" }
          })
        }
        if (priced.fiat > maxAmountMinor(customer.currency)) return yield* aboveMaximum(customer.currency, priced.fiat)
        return yield* store(customer, "sell", prices, {
          fiat: priced.fiat,
          usdt: priced.usdt,
          fee: priced.fee,
          network: body.network ?? null
        })
      })

    /** A buy quote for the customer: what `body.amount` of the customer's fiat buys in USDT, valid 60 seconds. */
    const quoteBuy = Command.fn("Trading.quoteBuy")((partnerId: PartnerId, customerId: CustomerId, body: BuyQuoteBody) =>
      actors.run(partnerId, customerId, (customer) => priceBuyQuote(partnerId, customer, body))
    )

    /** A sell quote for the customer: what `body.amount` USDT sells for in the customer's fiat, valid 60 seconds. */
    const quoteSell = Command.fn("Trading.quoteSell")((partnerId: PartnerId, customerId: CustomerId, body: SellQuoteBody) =>
      actors.run(partnerId, customerId, (customer) => priceSellQuote(partnerId, customer, body))
    )

    /**
     * The quote EXECUTED under the customer's lock when it is the customer's, of this side, OPEN and not expired: one
     * statement. Otherwise nothing is written and the quote is read to say why.
     */
    const executed = (customer: Customer, side: TradingRepo.QuoteSide, quoteId: string) =>
      Effect.gen(function*() {
        const notFound = side === "buy" ? QuoteNotFound.buy() : QuoteNotFound.sell()
        if (!isUuid(quoteId)) return yield* notFound
        const id = quoteId.toLowerCase()
        const reference = yield* idempotency.generate
        const now = yield* clock.now
        const done = yield* repo.executeOpen({ customerId: customer.id, id, side, reference, at: now })
        if (Option.isSome(done)) return { row: done.value, reference }
        const found = yield* repo.find(customer.id, id)
        if (Option.isNone(found) || found.value.side !== side) return yield* notFound
        const row = found.value
        if (row.status === "EXECUTED") {
          return yield* new QuoteAlreadyExecuted({
            message: `The quote was already executed (reference ${row.reference}); request a new quote to trade again`
          })
        }
        if (now.getTime() >= row.expiresAt.getTime()) {
          return yield* new QuoteExpired({
            message: `The quote expired at ${row.expiresAt.toISOString()}; request a new quote`
          })
        }
        return yield* Effect.dieMessage(`trading: quote ${row.id} is OPEN and unexpired but was not executed`)
      })

    /** A buy: the quote EXECUTED, `purchase.completed`, the exchange's order, the journal carrying both, the fill. */
    const buyLocked = (partnerId: string, customer: Customer, quoteId: string) =>
      Effect.gen(function*() {
        const { reference, row } = yield* executed(customer, "buy", quoteId)
        const execution = toBuyExecution(row)
        // The event is written by the journal statement (`Ledger.Carried`).
        const event = yield* outbox.prepare({
          partnerId,
          customerId: customer.id,
          type: "purchase.completed",
          data: { customerId: customer.id, ...execution }
        })
        const fiat = row.fiatCurrency
        const order = yield* filling(exchange, row)
        const posted = yield* ledger.post({
          partnerId,
          customerId: customer.id,
          reason: "buy",
          resourceType,
          resourceId: row.id,
          reference,
          eventId: event.id,
          postings: [
            { account: Ledger.available(customer.id, fiat), amount: -row.fiatAmount },
            { account: Ledger.house(inventory, fiat), amount: row.fiatAmount },
            { account: Ledger.house(inventory, "USDT"), amount: -row.usdtAmount },
            { account: Ledger.available(customer.id, "USDT"), amount: row.usdtAmount }
          ],
          carry: Ledger.carryAll(event.carried, order.carried)
        })
        yield* event.recorded(posted.carried)
        yield* order.filled(posted.carried)
        return execution
      })

    /**
     * The journal of a sell: the exchange's fee first (reason `fee`), then the sale. A refusal of either posting
     * (INSUFFICIENT_BALANCE, BALANCE_LIMIT_EXCEEDED) fails the command, and the command's transaction (or savepoint)
     * takes back everything it wrote: the quote stays OPEN.
     */
    const postSell = (
      partnerId: string,
      customer: Customer,
      row: TradingRepo.QuoteRow,
      reference: string,
      event: PreparedEvent,
      order: Ledger.Carried
    ) =>
      Effect.gen(function*() {
        const fiat = row.fiatCurrency
        const sold = row.usdtAmount - row.feeUsdt
        const common = { partnerId, customerId: customer.id, resourceType, resourceId: row.id, reference, eventId: event.id }
        const fee: Ledger.JournalInput = {
          ...common,
          reason: "fee",
          postings: [
            { account: Ledger.available(customer.id, "USDT"), amount: -row.feeUsdt },
            { account: Ledger.house(feeRevenue, "USDT"), amount: row.feeUsdt }
          ]
        }
        const sale: Ledger.JournalInput = {
          ...common,
          reason: "sell",
          postings: [
            { account: Ledger.available(customer.id, "USDT"), amount: -sold },
            { account: Ledger.house(inventory, "USDT"), amount: sold },
            { account: Ledger.house(inventory, fiat), amount: -row.fiatAmount },
            { account: Ledger.available(customer.id, fiat), amount: row.fiatAmount }
          ]
        }
        // The event and the exchange's fill are written by the first journal statement (`Ledger.Carried`); the second
        // refers to the event.
        const [first, ...rest] = row.feeUsdt > 0n ? [fee, sale] : [sale]
        const posted = yield* ledger.post({ ...first!, carry: Ledger.carryAll(event.carried, order) })
        for (const journal of rest) yield* ledger.post(journal)
        yield* event.recorded(posted.carried)
        return posted.carried
      })

    /** A sell: the quote EXECUTED, `sale.completed`, the exchange's order, the journals (the first carries both), the fill. */
    const sellLocked = (partnerId: string, customer: Customer, quoteId: string) =>
      Effect.gen(function*() {
        const { reference, row } = yield* executed(customer, "sell", quoteId)
        const execution = toSellExecution(row)
        const event = yield* outbox.prepare({
          partnerId,
          customerId: customer.id,
          type: "sale.completed",
          data: { customerId: customer.id, ...execution }
        })
        const order = yield* filling(exchange, row)
        const carried = yield* postSell(partnerId, customer, row, reference, event, order.carried)
        yield* order.filled(carried)
        return execution
      })

    /** Executes the customer's buy quote exactly once, under the customer's lock, in one transaction. */
    const executeBuy = Command.fn("Trading.executeBuy")((partnerId: PartnerId, customerId: CustomerId, quoteId: string) =>
      actors.run(partnerId, customerId, (customer) => buyLocked(partnerId, customer, quoteId))
    )

    /** Executes the customer's sell quote exactly once, under the customer's lock, in one transaction. */
    const executeSell = Command.fn("Trading.executeSell")((partnerId: PartnerId, customerId: CustomerId, quoteId: string) =>
      actors.run(partnerId, customerId, (customer) => sellLocked(partnerId, customer, quoteId))
    )

    return { rate, quoteBuy, quoteSell, executeBuy, executeSell } as const
  }),
  dependencies: [TradingRepo.TradingRepo.Default, Outbox.Default, Ledger.Ledger.Default, Idempotency.Default, CustomerActors.Default]
}) {}

export const layer = Trading.Default
