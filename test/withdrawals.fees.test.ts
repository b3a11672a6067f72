import { Effect, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { bps } from "../src/money/Money.js"
import { defaultWithdrawalFees, minimumRequest, parseWithdrawalFees, splitWithdrawal, type WithdrawalFee } from "../src/withdrawals/Fees.js"

const schedule = fc.record({
  feeBps: fc.bigInt({ min: 0n, max: 5_000n }),
  feeFlat: fc.bigInt({ min: 0n, max: 100_000n }),
  minimumReceipt: fc.bigInt({ min: 1n, max: 1_000_000n })
})

describe("withdrawal fee arithmetic", () => {
  it("splits every request into fee + receipt with nothing lost, the percentage rounded up", () => {
    fc.assert(fc.property(schedule, fc.bigInt({ min: 1n, max: 10n ** 15n }), (s: WithdrawalFee, requested) => {
      const split = splitWithdrawal(s, requested)
      expect(split.amount + split.fee).toBe(requested)
      expect(split.totalDebited).toBe(requested)
      // Rounded up: the percentage part is never below the exact rate, and less than one unit above it.
      const percentage = split.fee - s.feeFlat
      expect(percentage * 10_000n >= requested * s.feeBps).toBe(true)
      expect((percentage - 1n) * 10_000n < requested * s.feeBps).toBe(true)
    }))
  })

  it("finds the smallest request whose receipt reaches the minimum (one unit less does not)", () => {
    fc.assert(fc.property(schedule, (s: WithdrawalFee) => {
      const minimum = minimumRequest(s)
      expect(splitWithdrawal(s, minimum).amount >= s.minimumReceipt).toBe(true)
      expect(minimum - 1n - bps(minimum - 1n, s.feeBps, "up") - s.feeFlat < s.minimumReceipt).toBe(true)
    }))
  })

  it("has the documented defaults: NGN 0.5% + 10.00, at least NGN 100.00 received (smallest request 110.56)", () => {
    expect(defaultWithdrawalFees.NGN).toEqual({ feeBps: 50n, feeFlat: 1_000n, minimumReceipt: 10_000n })
    expect(minimumRequest(defaultWithdrawalFees.NGN)).toBe(11_056n)
  })
})

describe("WITHDRAWAL_FEES", () => {
  it("overrides entries of the default table; the others keep their defaults", () => {
    const parsed = parseWithdrawalFees("NGN:75:25.00:150.00; UGX:0:1000:2000")
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(parsed.table.NGN).toEqual({ feeBps: 75n, feeFlat: 2_500n, minimumReceipt: 15_000n })
    expect(parsed.table.UGX).toEqual({ feeBps: 0n, feeFlat: 1_000n, minimumReceipt: 2_000n })
    expect(parsed.table.KES).toEqual(defaultWithdrawalFees.KES)
    expect(parseWithdrawalFees("")).toEqual({ ok: true, table: defaultWithdrawalFees })
  })

  it("refuses malformed entries, unknown currencies, too many decimals, a rate above 50% and a zero minimum", () => {
    for (const text of ["NGN:50:10.00", "EUR:50:1.00:5.00", "NGN:50:10.001:100.00", "UGX:10:1.5:100", "NGN:5001:1.00:100.00", "NGN:50:1.00:0"]) {
      const parsed = parseWithdrawalFees(text)
      expect(parsed.ok, text).toBe(false)
    }
  })
})

describe("a configured fee table", () => {
  it("is what quotes and withdrawals use (Withdrawals.quote over the services, no HTTP)", async () => {
    const { asId, startServices } = await import("./support/ServiceHarness.js")
    const { Customers } = await import("../src/customers/Customers.js")
    const { Withdrawals } = await import("../src/withdrawals/Withdrawals.js")
    const { WithdrawalBelowMinimum } = await import("../src/withdrawals/Api.js")
    const parsed = parseWithdrawalFees("NGN:100:0.00:50.00")
    if (!parsed.ok) throw new Error(parsed.message)
    const services = await startServices({ config: { withdrawalFees: parsed.table } })
    try {
      const { partnerId } = await services.newPartner()
      const id = await services.newCustomer(partnerId)
      const quote = (amount: number) =>
        services.attempt(partnerId, Effect.gen(function*() {
          const customer = yield* (yield* Customers).getOwned(asId(partnerId), asId(id))
          return yield* (yield* Withdrawals).quote(customer, amount)
        }))
      expect(await quote(1000)).toEqual({ ok: true, value: { currency: "NGN", amount: 990, fee: 10, totalDebited: 1000, feeBps: 100, feeFlat: 0 } })
      const below = await quote(50.50)
      expect(below.ok).toBe(false)
      if (below.ok) return
      expect(below.error).toBeInstanceOf(WithdrawalBelowMinimum)
      expect(below.code).toBe("WITHDRAWAL_BELOW_MINIMUM")
      const error = below.error as InstanceType<typeof WithdrawalBelowMinimum>
      expect(error.message).toContain("smallest amount that works is NGN 50.51")
      expect(error.details).toEqual({ minimumAmount: 50.51, currency: "NGN" })
    } finally {
      await services.close()
    }
  })
})
