import { Schema } from "effect"

/**
 * Exact money. Amounts are bigint minor units with a scale per asset; a float never takes part in arithmetic.
 * Every conversion and rounding lives in this module and names its direction:
 * - `parseAmount` never rounds: an input with more decimals than the asset allows is refused (400).
 * - `mulRatio(..., "down")` rounds toward zero: used for what the customer RECEIVES (payouts, conversions out), so
 *   the service never pays out a fraction it does not have.
 * - `mulRatio(..., "up")` rounds away from zero: used for what the customer PAYS as a fee, so a fee never rounds
 *   to less than its stated rate.
 * A split (`amount = net + fee`) is always computed as one rounded part and the remainder, so no unit is lost.
 */
/**
 * Every asset with its scale and its limits, in major units:
 * - `maxAmount`: the largest amount of one request (a deposit, credit, charge, payment, withdrawal, ...); more is
 *   400 `BAD_REQUEST` (`amount: must be at most ...`).
 * - `maxBalance`: the largest balance of one customer in the asset (available + held); a posting that would take
 *   it higher is refused by the ledger with 400 `BALANCE_LIMIT_EXCEEDED` and writes nothing.
 * Both fit the 64-bit minor-unit columns with room (at most 10^15 minor units against 9.2 * 10^18), and every
 * balance up to the maximum has at most 15 significant digits, so it renders exactly as a JSON number.
 */
export const assets = {
  NGN: { scale: 2, kind: "fiat", maxAmount: 1_000_000_000_000n, maxBalance: 10_000_000_000_000n },
  GHS: { scale: 2, kind: "fiat", maxAmount: 1_000_000_000_000n, maxBalance: 10_000_000_000_000n },
  KES: { scale: 2, kind: "fiat", maxAmount: 1_000_000_000_000n, maxBalance: 10_000_000_000_000n },
  ZAR: { scale: 2, kind: "fiat", maxAmount: 1_000_000_000_000n, maxBalance: 10_000_000_000_000n },
  UGX: { scale: 0, kind: "fiat", maxAmount: 1_000_000_000_000n, maxBalance: 10_000_000_000_000n },
  USD: { scale: 2, kind: "fiat", maxAmount: 1_000_000_000_000n, maxBalance: 10_000_000_000_000n },
  USDT: { scale: 6, kind: "stablecoin", maxAmount: 100_000_000n, maxBalance: 1_000_000_000n },
  USDC: { scale: 6, kind: "stablecoin", maxAmount: 100_000_000n, maxBalance: 1_000_000_000n }
} as const

export type Asset = keyof typeof assets

export const assetCodes = Object.keys(assets) as ReadonlyArray<Asset>

export const AssetCode = Schema.Literal(...(assetCodes as [Asset, ...Array<Asset>]))

export const scaleOf = (asset: Asset): number => assets[asset].scale

export const isAsset = (value: string): value is Asset => Object.prototype.hasOwnProperty.call(assets, value)

/** The largest amount of one request, in minor units of the asset. */
export const maxAmountMinor = (asset: Asset): bigint => assets[asset].maxAmount * 10n ** BigInt(assets[asset].scale)

/** The largest balance (available + held) a customer may have in the asset, in minor units. */
export const maxBalanceMinor = (asset: Asset): bigint => assets[asset].maxBalance * 10n ** BigInt(assets[asset].scale)

/** The most significant digits an API amount may carry: beyond 15, a JSON number no longer maps to one decimal. */
export const significantDigitsMax = 15

export type AmountProblem =
  | { readonly _tag: "NotANumber" }
  | { readonly _tag: "NotPositive" }
  | { readonly _tag: "OutOfRange" }
  | { readonly _tag: "TooManyDecimals"; readonly scale: number }
  | { readonly _tag: "AboveMaximum"; readonly asset: Asset }

/** The decimal text of a finite JSON number, or undefined when it needs an exponent. */
const plainDecimal = (value: number): string | undefined => {
  const text = String(value)
  return /^-?\d+(\.\d+)?$/.test(text) ? text : undefined
}

/** Checks that hold whatever the asset: a finite positive number within the safe range. */
export const amountShapeProblem = (value: unknown): AmountProblem | undefined => {
  if (typeof value !== "number" || !Number.isFinite(value)) return { _tag: "NotANumber" }
  if (value <= 0) return { _tag: "NotPositive" }
  const text = plainDecimal(value)
  if (text === undefined) return value < 1 ? { _tag: "TooManyDecimals", scale: 0 } : { _tag: "OutOfRange" }
  const digits = text.replace(".", "").replace(/^0+/, "")
  if (digits.length > significantDigitsMax) return { _tag: "OutOfRange" }
  return undefined
}

export const describeAmountProblem = (problem: AmountProblem, asset?: Asset): string => {
  switch (problem._tag) {
    case "NotANumber":
      return "must be a JSON number (not a string), finite"
    case "NotPositive":
      return "must be greater than zero"
    case "OutOfRange":
      return `must have at most ${significantDigitsMax} significant digits and no exponent`
    case "TooManyDecimals":
      return asset === undefined
        ? "has too many decimal places"
        : `${asset} allows at most ${scaleOf(asset)} decimal place${scaleOf(asset) === 1 ? "" : "s"}`
    case "AboveMaximum":
      return `must be at most ${assets[problem.asset].maxAmount} ${problem.asset}`
  }
}

/**
 * A positive JSON number with at most 15 significant digits. Whether its decimals fit the asset is checked by
 * `parseAmount` once the asset is known (it often depends on the customer's country).
 */
export const AmountNumber = Schema.Number.pipe(
  Schema.filter((value) => {
    const problem = amountShapeProblem(value)
    return problem === undefined ? undefined : describeAmountProblem(problem)
  }, { jsonSchema: { exclusiveMinimum: 0 } })
).annotations({ description: "A positive amount in major units (e.g. 1500.5), a JSON number" })

/** Parses an API amount (major units, JSON number) to minor units of `asset`; never rounds; refuses more than `maxAmount`. */
export const parseAmount = (asset: Asset, value: number): { readonly ok: true; readonly minor: bigint } | { readonly ok: false; readonly problem: AmountProblem } => {
  const shape = amountShapeProblem(value)
  if (shape !== undefined) return { ok: false, problem: shape._tag === "TooManyDecimals" ? { _tag: "TooManyDecimals", scale: scaleOf(asset) } : shape }
  const text = plainDecimal(value)!
  const [whole, fraction = ""] = text.split(".")
  const scale = scaleOf(asset)
  if (fraction.length > scale) return { ok: false, problem: { _tag: "TooManyDecimals", scale } }
  const minor = BigInt(whole! + fraction.padEnd(scale, "0"))
  if (minor > maxAmountMinor(asset)) return { ok: false, problem: { _tag: "AboveMaximum", asset } }
  return { ok: true, minor }
}

/** Parses a decimal string ("1234.50") to minor units; for configuration and stored decimals. Never rounds. */
export const parseDecimalString = (asset: Asset, text: string): bigint => {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim())
  if (match === null) throw new Error(`not a decimal: ${text}`)
  const scale = scaleOf(asset)
  const fraction = match[3] ?? ""
  if (fraction.length > scale) throw new Error(`${text} has more than ${scale} decimals for ${asset}`)
  const minor = BigInt(match[2]! + fraction.padEnd(scale, "0"))
  return match[1] === "-" ? -minor : minor
}

/** Exact decimal string with the asset's full scale: 150050n NGN -> "1500.50". */
export const toDecimalString = (asset: Asset, minor: bigint): string => {
  const scale = scaleOf(asset)
  const negative = minor < 0n
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, "0")
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
  return negative ? `-${text}` : text
}

/**
 * The JSON number for an amount: the shortest decimal that reads back as the same double. Exact for amounts
 * within 15 significant digits (every amount the API accepts); rendered from the decimal string, never computed
 * in floating point.
 */
export const toNumber = (asset: Asset, minor: bigint): number => Number(toDecimalString(asset, minor))

export type Rounding = "down" | "up"

/** `amount * numerator / denominator`, rounded in the named direction (toward or away from zero). */
export const mulRatio = (amount: bigint, numerator: bigint, denominator: bigint, rounding: Rounding): bigint => {
  if (denominator <= 0n) throw new Error("denominator must be positive")
  const product = amount * numerator
  const quotient = product / denominator
  const remainder = product % denominator
  if (remainder === 0n || rounding === "down") return quotient
  return product > 0n ? quotient + 1n : quotient - 1n
}

/** Basis points of an amount (1 bp = 0.01%). */
export const bps = (amount: bigint, basisPoints: bigint, rounding: Rounding): bigint => mulRatio(amount, basisPoints, 10_000n, rounding)

/** Moves an amount between scales (e.g. USDT 6 -> NGN 2) at a rate given as an exact decimal string. */
export const convert = (
  amount: bigint,
  from: Asset,
  to: Asset,
  rate: string,
  rounding: Rounding
): bigint => {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(rate)
  if (match === null) throw new Error(`not a rate: ${rate}`)
  const rateFraction = match[2] ?? ""
  const rateNumerator = BigInt(match[1]! + rateFraction)
  const rateDenominator = 10n ** BigInt(rateFraction.length)
  const scaleShift = scaleOf(to) - scaleOf(from)
  const numerator = rateNumerator * (scaleShift >= 0 ? 10n ** BigInt(scaleShift) : 1n)
  const denominator = rateDenominator * (scaleShift < 0 ? 10n ** BigInt(-scaleShift) : 1n)
  return mulRatio(amount, numerator, denominator, rounding)
}
