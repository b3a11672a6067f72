import { Effect } from "effect"
import { FundingCharges } from "../../src/funding/FundingCharges.js"
import { Jobs } from "../../src/jobs/Jobs.js"
import { isAsset, parseAmount, toDecimalString } from "../../src/money/Money.js"
import { type OperationSource, postAction } from "../../src/sandbox/Operations.js"
import { Withdrawals } from "../../src/withdrawals/Withdrawals.js"
import { chargePaymentJobKind, payoutJobKind } from "./BankSimulator.js"

/**
 * The bank rail's pending operations for `GET /sandbox/operations`: withdrawals being paid out (PROCESSING: the
 * bank has not answered) and funding charges waiting for the payer (PENDING, not expired). A COMPLETED withdrawal
 * can still be reversed, but it is finished: it is not listed. `dueAt` is the run time of the job that answers by
 * itself (`withdrawal.payout`, `funding.charge_autopay`); null under the manual policy (or, for a charge, any policy
 * but auto + success: the payer then pays only through the control, or the charge expires).
 */
export const withdrawalKind = "withdrawal"
export const fundingChargeKind = "funding_charge"

/** An amount of the API's number form written with the currency's full scale: 2000 NGN -> "2000.00". */
const money = (currency: string, amount: number): string => {
  if (!isAsset(currency)) return `${currency} ${amount}`
  const parsed = parseAmount(currency, amount)
  return `${currency} ${parsed.ok ? toDecimalString(currency, parsed.minor) : String(amount)}`
}

export const operationSources = Effect.gen(function*() {
  const sources: Array<OperationSource> = []
  const withdrawals = yield* Withdrawals
  const charges = yield* FundingCharges
  const jobs = yield* Jobs

  sources.push({
    kind: withdrawalKind,
    rail: "bank",
    pending: (query) =>
      Effect.gen(function*() {
        const rows = yield* withdrawals.processing(query)
        const due = yield* jobs.pendingRunAt(query.partnerId, payoutJobKind, "withdrawalId", rows.map((row) => row.withdrawal.id))
        return rows.map(({ customerId, withdrawal }) => {
          const path = `/withdrawals/${withdrawal.id}`
          const account = withdrawal.bankAccount
          return {
            id: withdrawal.id,
            kind: withdrawalKind,
            rail: "bank" as const,
            customerId,
            status: withdrawal.status,
            reference: withdrawal.reference,
            summary: `${withdrawal.currency} ${withdrawal.amount} to ${account.bankName} ****${account.accountNumberLast4} ` +
              `(${account.accountName})`,
            createdAt: withdrawal.createdAt,
            dueAt: due.get(withdrawal.id) ?? null,
            actions: [
              postAction("complete", "Complete", `${path}/complete`),
              postAction("fail", "Fail", `${path}/fail`, { reason: "required" }),
              postAction("reverse", "Reverse", `${path}/reverse`)
            ]
          }
        })
      }).pipe(Effect.orDie)
  })

  sources.push({
    kind: fundingChargeKind,
    rail: "bank",
    pending: (query) =>
      Effect.gen(function*() {
        const rows = yield* charges.pending(query)
        const due = yield* jobs.pendingRunAt(query.partnerId, chargePaymentJobKind, "chargeId", rows.map((charge) => charge.id))
        return rows.map((charge) => {
          const how = charge.type === "eft"
            ? "by instant EFT"
            : `by bank transfer to ${charge.bankName ?? "the bank"} ${charge.accountNumber ?? ""}`.trimEnd()
          return {
            id: charge.id,
            kind: fundingChargeKind,
            rail: "bank" as const,
            customerId: charge.customerId,
            status: charge.status,
            reference: charge.reference,
            summary: `Funding charge ${money(charge.currency, charge.amount)} ${how}, expires ${charge.expiresAt.toISOString()}`,
            createdAt: charge.createdAt,
            dueAt: due.get(charge.id) ?? null,
            // `{}` pays the whole amount (the control's `amount` is optional).
            actions: [postAction("pay", "Pay", `/funding/charges/${charge.id}/pay`, { body: {} })]
          }
        })
      }).pipe(Effect.orDie)
  })
  return sources
})
