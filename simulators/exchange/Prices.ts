import * as Command from "../../src/observability/Command.js"
import { SqlClient } from "@effect/sql"
import { BigDecimal, Data, Effect, Option } from "effect"
import { ServiceClock } from "../../src/clock/ServiceClock.js"
import { Caches } from "../../src/db/Caches.js"
import { EventBus, transaction } from "../../src/events/Events.js"
import { scaleOf, toDecimalString } from "../../src/money/Money.js"
import { type FiatCurrency, supportedCountries } from "../../src/reference/Countries.js"

/**
 * The simulated exchange's prices per partner and fiat currency (sandbox), stored in `exchange_prices`: the
 * exchange simulator reads them (`Exchange.prices`), `GET/PUT /sandbox/rates` read and change them. A partner that
 * never set a currency's prices gets the defaults below. Rates are exact decimals (fiat per 1 USDT, spread
 * included), stored as `numeric` and read back as text, never through a JS float; the fee is USDT minor units.
 */
export interface PriceSheet {
  readonly currency: FiatCurrency
  /** Fiat the customer pays per USDT bought. */
  readonly buyRate: BigDecimal.BigDecimal
  /** Fiat the customer receives per USDT sold, before the fee. */
  readonly sellRate: BigDecimal.BigDecimal
  /** The fixed fee per sell execution, in USDT minor units (6 decimals). */
  readonly exchangeFeeUsdt: bigint
  /** True when the partner never set this currency's prices. */
  readonly isDefault: boolean
  /** Null for default prices. */
  readonly updatedAt: Date | null
}

/** A change of one currency's prices: omitted fields keep their current value. */
export interface PriceChange {
  readonly buyRate?: BigDecimal.BigDecimal | undefined
  readonly sellRate?: BigDecimal.BigDecimal | undefined
  readonly exchangeFeeUsdt?: bigint | undefined
}

/** The change would leave `buyRate` below `sellRate` (the exchange would pay out more than it takes in). */
export class PricesInverted extends Data.TaggedError("PricesInverted")<{
  readonly buyRate: BigDecimal.BigDecimal
  readonly sellRate: BigDecimal.BigDecimal
}> {}

/**
 * Default prices, fiat per 1 USDT with the spread included (docs/sandbox-rails.md "Exchange rail"): about a 1-3 %
 * spread around a plausible mid rate. The fee is the same for every currency.
 */
const defaultRates: Readonly<Record<FiatCurrency, { readonly buyRate: string; readonly sellRate: string }>> = {
  NGN: { buyRate: "1550", sellRate: "1520" },
  GHS: { buyRate: "15.6", sellRate: "15.2" },
  KES: { buyRate: "131.5", sellRate: "128.5" },
  ZAR: { buyRate: "18.6", sellRate: "18.1" },
  UGX: { buyRate: "3760", sellRate: "3680" },
  USD: { buyRate: "1.01", sellRate: "0.99" }
}

/** 0.5 USDT per sell execution. */
export const defaultExchangeFeeUsdt = 500_000n

/** The currencies the simulated exchange quotes: every supported fiat currency, in the countries' order. */
export const exchangeCurrencies: ReadonlyArray<FiatCurrency> = supportedCountries.map((c) => c.currency)

export const isExchangeCurrency = (currency: string): currency is FiatCurrency =>
  (exchangeCurrencies as ReadonlyArray<string>).includes(currency)

export const defaultPrices = (currency: FiatCurrency): PriceSheet => ({
  currency,
  buyRate: BigDecimal.unsafeFromString(defaultRates[currency].buyRate),
  sellRate: BigDecimal.unsafeFromString(defaultRates[currency].sellRate),
  exchangeFeeUsdt: defaultExchangeFeeUsdt,
  isDefault: true,
  updatedAt: null
})

/** A rate as plain decimal text without trailing zeros ("1550", "15.6"): what is stored and rendered. */
export const rateText = (rate: BigDecimal.BigDecimal): string => BigDecimal.format(BigDecimal.normalize(rate))

/**
 * A rate as a JSON number: parsed from its exact decimal text, so it renders as written (1550, 15.6) for rates
 * of at most 15 significant digits (every rate the routes accept).
 */
export const rateNumber = (rate: BigDecimal.BigDecimal): number => Number(rateText(rate))

/** A USDT fee in minor units as a JSON number (500000n -> 0.5). */
export const feeNumber = (minor: bigint): number => Number(toDecimalString("USDT", minor))

/**
 * A JSON number of the routes as an exact decimal. The body's text was checked to be written exactly (at most 15
 * significant digits, no exponent: src/http/JsonBody.ts), so the number's shortest text is that decimal.
 */
export const exactDecimal = (value: number): BigDecimal.BigDecimal => BigDecimal.unsafeFromString(String(value))

/** A USDT amount of at most 6 decimals (checked by the schema) in minor units. */
export const usdtMinor = (value: number): bigint => {
  const scaled = BigDecimal.scale(exactDecimal(value), scaleOf("USDT"))
  return scaled.value
}

/** The cache topic of prices, invalidated per partner by `set`. */
export const cacheTopic = "exchange-prices"

interface PriceRow {
  readonly currency: FiatCurrency
  readonly buyRate: string
  readonly sellRate: string
  readonly feeUsdt: string
  readonly updatedAt: Date | string
}

const fromRow = (row: PriceRow): PriceSheet => ({
  currency: row.currency,
  buyRate: BigDecimal.normalize(BigDecimal.unsafeFromString(row.buyRate)),
  sellRate: BigDecimal.normalize(BigDecimal.unsafeFromString(row.sellRate)),
  exchangeFeeUsdt: BigInt(row.feeUsdt),
  isDefault: false,
  updatedAt: new Date(row.updatedAt)
})

/** The simulated exchange's prices per partner (`exchange_prices`), cached per partner. */
export class ExchangePriceStore extends Effect.Service<ExchangePriceStore>()("simulators/ExchangePriceStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const caches = yield* Caches
    const bus = yield* EventBus

    /** The partner's prices in every currency, in `exchangeCurrencies` order. */
    const list = Command.fn("ExchangePriceStore.list")((partnerId: string) =>
      sql<PriceRow>`
        SELECT currency, buy_rate::text AS buy_rate, sell_rate::text AS sell_rate, fee_usdt::text AS fee_usdt, updated_at
        FROM exchange_prices WHERE partner_id = ${partnerId}`.pipe(
        Effect.map((rows) =>
          exchangeCurrencies.map((currency) => {
            const row = rows.find((r) => r.currency === currency)
            return row === undefined ? defaultPrices(currency) : fromRow(row)
          })
        ),
        Effect.orDie
      ))

    // Read by every rate, quote and execution, changed by a sandbox control: cached per partner (src/db/Caches.ts).
    const cache = caches.make<PriceSheet>(cacheTopic, { capacity: 10_000 })
    /** The partner's prices in `currency` (the defaults when never set). */
    const get = Command.fn("ExchangePriceStore.get")((partnerId: string, currency: FiatCurrency) =>
      Effect.map(
        cache.get(
          `${partnerId}/${currency}`,
          partnerId,
          sql<PriceRow>`
            SELECT currency, buy_rate::text AS buy_rate, sell_rate::text AS sell_rate, fee_usdt::text AS fee_usdt, updated_at
            FROM exchange_prices WHERE partner_id = ${partnerId} AND currency = ${currency}`.pipe(
            Effect.map((rows) => Option.some(rows[0] === undefined ? defaultPrices(currency) : fromRow(rows[0]))),
            Effect.orDie
          )
        ),
        Option.getOrElse(() => defaultPrices(currency))
      ))

    /** Merges `change` with the current prices and stores them; refuses a `buyRate` below the `sellRate`. */
    const set = Command.fn("ExchangePriceStore.set")((partnerId: string, currency: FiatCurrency, change: PriceChange) =>
      transaction(Effect.gen(function*() {
        const now = yield* clock.now
        const defaults = defaultPrices(currency)
        // The row exists from here on (the defaults when it did not), locked, so that concurrent changes of other
        // fields merge instead of overwriting each other. A refusal below rolls this back.
        yield* sql`
          INSERT INTO exchange_prices (partner_id, currency, buy_rate, sell_rate, fee_usdt, updated_at)
          VALUES (${partnerId}, ${currency}, ${rateText(defaults.buyRate)}, ${rateText(defaults.sellRate)},
                  ${defaults.exchangeFeeUsdt.toString()}, ${now})
          ON CONFLICT (partner_id, currency) DO NOTHING`
        const current = yield* sql<PriceRow>`
          SELECT currency, buy_rate::text AS buy_rate, sell_rate::text AS sell_rate, fee_usdt::text AS fee_usdt, updated_at
          FROM exchange_prices WHERE partner_id = ${partnerId} AND currency = ${currency} FOR UPDATE`
        const before = fromRow(current[0]!)
        const buyRate = change.buyRate ?? before.buyRate
        const sellRate = change.sellRate ?? before.sellRate
        const exchangeFeeUsdt = change.exchangeFeeUsdt ?? before.exchangeFeeUsdt
        if (BigDecimal.lessThan(buyRate, sellRate)) return yield* Effect.fail(new PricesInverted({ buyRate, sellRate }))
        const rows = yield* sql<PriceRow>`
          UPDATE exchange_prices SET buy_rate = ${rateText(buyRate)}, sell_rate = ${rateText(sellRate)},
            fee_usdt = ${exchangeFeeUsdt.toString()}, updated_at = ${now}
          WHERE partner_id = ${partnerId} AND currency = ${currency}
          RETURNING currency, buy_rate::text AS buy_rate, sell_rate::text AS sell_rate, fee_usdt::text AS fee_usdt, updated_at`
        yield* caches.announce(cacheTopic, partnerId)
        return fromRow(rows[0]!)
      })).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(EventBus, bus),
        Effect.catchTag("SqlError", Effect.die)
      ))

    return { get, list, set } as const
  }),
  dependencies: [Caches.Default]
}) {}

export const layer = ExchangePriceStore.Default
