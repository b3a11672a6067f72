import { type Asset, bps, parseDecimalString, toDecimalString } from "../money/Money.js"
import { type FiatCurrency, supportedCountries } from "../reference/Countries.js"

/**
 * Withdrawal fees and minimums per fiat currency (docs/contract.md "Withdrawals", "Limits").
 *
 * fee = ceil(requested x feeBps / 10000) + feeFlat. The percentage part rounds UP (the customer pays it, so it
 * never rounds below its stated rate); the bank receives `requested - fee` exactly, so nothing is lost. No cap.
 * The bank must receive at least `minimumReceipt` after the fee (NGN 100 by the contract; the other currencies'
 * minimums are our decision, documented in docs/withdrawals.md).
 *
 * Configuration: WITHDRAWAL_FEES (read in AppConfig) overrides entries of the default table, e.g.
 * `NGN:50:10.00:100.00;KES:100:15.00:100.00` = currency:feeBps:feeFlat:minimumReceipt.
 */
export interface WithdrawalFee {
  /** Percentage part in basis points of the requested amount (1 bp = 0.01%). */
  readonly feeBps: bigint
  /** Fixed part, minor units. */
  readonly feeFlat: bigint
  /** Least the bank must receive after the fee, minor units. */
  readonly minimumReceipt: bigint
}

export type WithdrawalFeeTable = Readonly<Record<FiatCurrency, WithdrawalFee>>

const fee = (currency: FiatCurrency, feeBps: number, feeFlat: string, minimumReceipt: string): WithdrawalFee => ({
  feeBps: BigInt(feeBps),
  feeFlat: parseDecimalString(currency, feeFlat),
  minimumReceipt: parseDecimalString(currency, minimumReceipt)
})

export const defaultWithdrawalFees: WithdrawalFeeTable = {
  NGN: fee("NGN", 50, "10.00", "100.00"),
  GHS: fee("GHS", 100, "1.00", "10.00"),
  KES: fee("KES", 100, "15.00", "100.00"),
  ZAR: fee("ZAR", 50, "2.00", "20.00"),
  UGX: fee("UGX", 100, "500", "5000"),
  USD: fee("USD", 25, "1.00", "5.00")
}

/** Basis points may not reach 100%: the bank must receive something from every unit requested. */
export const feeBpsMax = 5_000

const fiatCodes: ReadonlyArray<string> = supportedCountries.map((c) => c.currency)

/**
 * Parses WITHDRAWAL_FEES over the defaults. Returns the table, or a message naming the bad entry.
 */
export const parseWithdrawalFees = (text: string): { readonly ok: true; readonly table: WithdrawalFeeTable } | { readonly ok: false; readonly message: string } => {
  const table: Record<string, WithdrawalFee> = { ...defaultWithdrawalFees }
  for (const raw of text.split(";").map((part) => part.trim()).filter((part) => part !== "")) {
    const match = /^([A-Z]{3}):(\d{1,4}):(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(raw)
    if (match === null || !fiatCodes.includes(match[1]!)) {
      return { ok: false, message: `entry "${raw}" must be CURRENCY:feeBps:feeFlat:minimumReceipt with a supported fiat currency` }
    }
    const currency = match[1] as FiatCurrency
    const feeBps = Number(match[2])
    if (feeBps > feeBpsMax) return { ok: false, message: `entry "${raw}": feeBps must be at most ${feeBpsMax}` }
    try {
      table[currency] = fee(currency, feeBps, match[3]!, match[4]!)
    } catch (error) {
      return { ok: false, message: `entry "${raw}": ${error instanceof Error ? error.message : String(error)}` }
    }
    if (table[currency]!.minimumReceipt <= 0n) return { ok: false, message: `entry "${raw}": minimumReceipt must be positive` }
  }
  return { ok: true, table: table as WithdrawalFeeTable }
}

export interface FeeSplit {
  /** What the bank receives. */
  readonly amount: bigint
  readonly fee: bigint
  /** The requested amount: what leaves the balance. */
  readonly totalDebited: bigint
}

/** Splits a requested amount into fee + what the bank receives; the two always sum to the request. */
export const splitWithdrawal = (schedule: WithdrawalFee, requested: bigint): FeeSplit => {
  const charged = bps(requested, schedule.feeBps, "up") + schedule.feeFlat
  return { amount: requested - charged, fee: charged, totalDebited: requested }
}

/**
 * The smallest requested amount whose receipt after the fee reaches the minimum. Receipt is non-decreasing in
 * the request (one more unit requested raises the percentage fee by at most one unit, since feeBps < 10000), so
 * the answer is found from the closed form and corrected by a few steps.
 */
export const minimumRequest = (schedule: WithdrawalFee): bigint => {
  const target = schedule.minimumReceipt + schedule.feeFlat
  const receipt = (requested: bigint) => requested - bps(requested, schedule.feeBps, "up")
  let requested = (target * 10_000n + (10_000n - schedule.feeBps) - 1n) / (10_000n - schedule.feeBps)
  for (let steps = 0; steps < 1_000 && receipt(requested) < target; steps++) requested++
  for (let steps = 0; steps < 1_000 && requested > 1n && receipt(requested - 1n) >= target; steps++) requested--
  if (receipt(requested) < target) throw new Error("withdrawal fees: minimum request not found")
  return requested
}

export const describeFee = (currency: Asset, schedule: WithdrawalFee): string =>
  `${Number(schedule.feeBps) / 100}% + ${currency} ${toDecimalString(currency, schedule.feeFlat)}`
