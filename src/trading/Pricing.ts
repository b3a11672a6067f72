import { BigDecimal } from "effect"
import { type Asset, mulRatio, scaleOf } from "../money/Money.js"

/**
 * The arithmetic of a trade, exact: amounts are bigint minor units (USDT 6 decimals, fiat per its scale), rates
 * exact decimals (fiat per 1 USDT). Every rounding is named, and each favours the service by at most one minor
 * unit of what the customer receives; what the customer gives is never rounded (it is the amount they typed).
 *
 * - Buy: the customer spends `fiat` (exact) and receives `fiat / buyRate` USDT rounded DOWN to 6 decimals.
 * - Sell: the customer gives `usdt` (exact, the fee included); `usdt - fee` is sold and the customer receives
 *   `(usdt - fee) * sellRate` fiat rounded DOWN to the fiat's scale.
 * - The smallest trade receives 1 USDT (buy) or sells 1 USDT net of the fee (sell).
 */

const usdtScale = scaleOf("USDT")

/** 1 USDT in minor units: the smallest USDT a buy delivers, and the smallest net USDT a sell sells. */
export const minimumUsdt = 10n ** BigInt(usdtScale)

/** The rate as an integer fraction `numerator / denominator` (exact). */
const fraction = (rate: BigDecimal.BigDecimal) => {
  const normal = BigDecimal.normalize(rate)
  if (normal.value <= 0n) throw new Error("pricing: a rate must be positive")
  return normal.scale >= 0
    ? { numerator: normal.value, denominator: 10n ** BigInt(normal.scale) }
    : { numerator: normal.value * 10n ** BigInt(-normal.scale), denominator: 1n }
}

/** Fiat minor units -> USDT minor units at `rate` (fiat per USDT), rounded as named. */
export const fiatToUsdt = (fiatMinor: bigint, fiat: Asset, rate: BigDecimal.BigDecimal, rounding: "down" | "up"): bigint => {
  const { denominator, numerator } = fraction(rate)
  // usdt = fiat / 10^fs / rate * 10^6 = fiat * den * 10^(6 - fs) / num   (every fiat scale is at most 6)
  return mulRatio(fiatMinor, denominator * 10n ** BigInt(usdtScale - scaleOf(fiat)), numerator, rounding)
}

/** USDT minor units -> fiat minor units at `rate` (fiat per USDT), rounded as named. */
export const usdtToFiat = (usdtMinor: bigint, fiat: Asset, rate: BigDecimal.BigDecimal, rounding: "down" | "up"): bigint => {
  const { denominator, numerator } = fraction(rate)
  // fiat = usdt / 10^6 * rate * 10^fs = usdt * num / (den * 10^(6 - fs))
  return mulRatio(usdtMinor, numerator, denominator * 10n ** BigInt(usdtScale - scaleOf(fiat)), rounding)
}

export interface BuyPrice {
  readonly fiat: bigint
  readonly usdt: bigint
}

/** What spending `fiatMinor` buys. */
export const priceBuy = (fiatMinor: bigint, fiat: Asset, buyRate: BigDecimal.BigDecimal): BuyPrice => ({
  fiat: fiatMinor,
  usdt: fiatToUsdt(fiatMinor, fiat, buyRate, "down")
})

/** The smallest fiat amount whose buy delivers at least `minimumUsdt`. */
export const minimumBuyFiat = (fiat: Asset, buyRate: BigDecimal.BigDecimal): bigint =>
  usdtToFiat(minimumUsdt, fiat, buyRate, "up")

export interface SellPrice {
  /** USDT given, the fee included. */
  readonly usdt: bigint
  readonly fee: bigint
  /** Fiat received. */
  readonly fiat: bigint
}

/** What selling `usdtMinor` (the fee included) pays. Only for `usdtMinor >= minimumSellUsdt(fee)`. */
export const priceSell = (usdtMinor: bigint, fee: bigint, fiat: Asset, sellRate: BigDecimal.BigDecimal): SellPrice => ({
  usdt: usdtMinor,
  fee,
  fiat: usdtToFiat(usdtMinor - fee, fiat, sellRate, "down")
})

/** The smallest sell: 1 USDT net of the fee. */
export const minimumSellUsdt = (fee: bigint): bigint => fee + minimumUsdt

/** Decimal places of an indicative all-in rate. */
export const indicativeScale = 8

/**
 * The indicative all-in sell rate for `usdtMinor`: `sellRate * (usdt - fee) / usdt`, rounded DOWN to 8 decimals
 * (so `amount * rate` never promises more than the sell pays before its rounding to the fiat's minor unit).
 */
export const allInSellRate = (usdtMinor: bigint, fee: bigint, sellRate: BigDecimal.BigDecimal): BigDecimal.BigDecimal => {
  const { denominator, numerator } = fraction(sellRate)
  const scaled = mulRatio((usdtMinor - fee) * numerator, 10n ** BigInt(indicativeScale), denominator * usdtMinor, "down")
  return BigDecimal.normalize(BigDecimal.make(scaled, indicativeScale))
}

/** An exact decimal as a JSON number (exact for at most 15 significant digits, which prices and amounts keep). */
export const rateNumber = (rate: BigDecimal.BigDecimal): number => Number(BigDecimal.format(BigDecimal.normalize(rate)))
