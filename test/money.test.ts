import { it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { describe, expect } from "vitest"
import {
  amountShapeProblem,
  bps,
  convert,
  maxAmountMinor,
  mulRatio,
  parseAmount,
  parseDecimalString,
  toDecimalString,
  toNumber
} from "../src/money/Money.js"

describe("parseAmount", () => {
  it("parses within the asset's scale, never rounding", () => {
    expect(parseAmount("NGN", 1500.5)).toEqual({ ok: true, minor: 150050n })
    expect(parseAmount("NGN", 0.01)).toEqual({ ok: true, minor: 1n })
    expect(parseAmount("USDT", 12.345678)).toEqual({ ok: true, minor: 12345678n })
    expect(parseAmount("UGX", 5000)).toEqual({ ok: true, minor: 5000n })
  })
  it("refuses too many decimals, zero, negatives, non-finite, exponents and strings", () => {
    expect(parseAmount("NGN", 1.005)).toEqual({ ok: false, problem: { _tag: "TooManyDecimals", scale: 2 } })
    expect(parseAmount("UGX", 1.5)).toEqual({ ok: false, problem: { _tag: "TooManyDecimals", scale: 0 } })
    expect(parseAmount("USDT", 1e-7)).toEqual({ ok: false, problem: { _tag: "TooManyDecimals", scale: 6 } })
    expect(parseAmount("NGN", 0)).toEqual({ ok: false, problem: { _tag: "NotPositive" } })
    expect(parseAmount("NGN", -5)).toEqual({ ok: false, problem: { _tag: "NotPositive" } })
    expect(parseAmount("NGN", Number.NaN)).toEqual({ ok: false, problem: { _tag: "NotANumber" } })
    expect(parseAmount("NGN", Number.POSITIVE_INFINITY)).toEqual({ ok: false, problem: { _tag: "NotANumber" } })
    expect(parseAmount("NGN", 1e21)).toEqual({ ok: false, problem: { _tag: "OutOfRange" } })
    expect(parseAmount("NGN", 1234567890123456)).toEqual({ ok: false, problem: { _tag: "OutOfRange" } })
    expect(amountShapeProblem("100")).toEqual({ _tag: "NotANumber" })
  })
  it.prop("round-trips every amount it accepts", { minor: fc.bigInt({ min: 1n, max: 999_999_999_999_999n }) }, ({ minor }) => {
    for (const asset of ["NGN", "USDT", "UGX"] as const) {
      const rendered = toNumber(asset, minor)
      const digits = minor.toString().length
      if (digits > 15) continue
      if (minor > maxAmountMinor(asset)) {
        expect(parseAmount(asset, rendered)).toEqual({ ok: false, problem: { _tag: "AboveMaximum", asset } })
        continue
      }
      expect(parseAmount(asset, rendered)).toEqual({ ok: true, minor })
      expect(parseDecimalString(asset, toDecimalString(asset, minor))).toBe(minor)
    }
  })
})

describe("rendering", () => {
  it("renders exact decimal strings and numbers", () => {
    expect(toDecimalString("NGN", 150050n)).toBe("1500.50")
    expect(toDecimalString("NGN", 5n)).toBe("0.05")
    expect(toDecimalString("USDT", -1n)).toBe("-0.000001")
    expect(toDecimalString("UGX", 42n)).toBe("42")
    expect(toNumber("NGN", 150050n)).toBe(1500.5)
    expect(toNumber("USDT", 100000001n)).toBe(100.000001)
  })
})

describe("rounding", () => {
  it("rounds in the named direction", () => {
    expect(mulRatio(10n, 1n, 3n, "down")).toBe(3n)
    expect(mulRatio(10n, 1n, 3n, "up")).toBe(4n)
    expect(mulRatio(9n, 1n, 3n, "up")).toBe(3n)
    expect(bps(10001n, 150n, "up")).toBe(151n) // 1.5% of 100.01 = 1.50015 -> 1.51
    expect(bps(10001n, 150n, "down")).toBe(150n)
    expect(convert(1_000_000n, "USDT", "NGN", "1520.55", "down")).toBe(152055n)
    expect(convert(152056n, "NGN", "USDT", "0.000657", "down")).toBe(999007n) // 1520.56 * 0.000657 = 0.99900792
  })
  it.prop(
    "a split into a rounded fee and the remainder never loses a unit",
    { amount: fc.bigInt({ min: 1n, max: 10n ** 15n }), rate: fc.bigInt({ min: 0n, max: 10_000n }) },
    ({ amount, rate }) => {
      const fee = bps(amount, rate, "up")
      const net = amount - fee
      expect(fee + net).toBe(amount)
      expect(fee >= 0n && fee <= amount).toBe(true)
      expect(fee * 10_000n >= amount * rate).toBe(true)
      expect((fee - 1n) * 10_000n < amount * rate).toBe(true)
    }
  )
})
