import { last4 } from "../bankaccounts/BankAccounts.js"
import { toDecimalString } from "../money/Money.js"
import type { Withdrawal } from "./Api.js"
import type * as WithdrawalsRepo from "./WithdrawalsRepo.js"

/** The API view of a withdrawal, stored or about to be (a draft has no reservation yet). */
export const toWithdrawal = (row: Omit<WithdrawalsRepo.NewWithdrawalRow, "reservationId">): Withdrawal => ({
  id: row.id,
  reference: row.reference,
  amount: toDecimalString(row.currency, row.amount),
  fee: toDecimalString(row.currency, row.fee),
  totalDebited: toDecimalString(row.currency, row.totalDebited),
  currency: row.currency,
  status: row.status,
  failureReason: row.failureReason,
  bankAccount: { bankName: row.bankName, accountName: row.accountName, accountNumberLast4: last4(row.accountNumber) },
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

/** Every withdrawal event's `data`: the withdrawal object as the API shows it, plus `customerId`. */
export const eventData = (customerId: string, withdrawal: Withdrawal) => ({
  customerId,
  ...withdrawal,
  createdAt: withdrawal.createdAt.toISOString(),
  updatedAt: withdrawal.updatedAt.toISOString()
})
