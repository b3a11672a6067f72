import { Duration, Effect } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { Customer } from "../customers/Customer.js"
import { nameWords } from "../kyc/KycRules.js"
import { Bank, nameEnquiryTimeoutMs } from "../rails/Bank.js"
import { BankRailUnavailable } from "../rails/Errors.js"
import type { Corridor } from "../reference/Corridors.js"
import { type OneOffAccount, Withdrawals } from "../withdrawals/Withdrawals.js"
import { GlobalSendBelowMinimum, type GlobalSendBody, InvalidBeneficiary } from "./Api.js"
import * as GlobalSendsRepo from "./GlobalSendsRepo.js"
import { commonFields, makeRecord, toGlobalSend } from "./View.js"

/**
 * The domestic global send (the NG corridor of an NG customer): a bank payout through `Withdrawals.payoutTo` under
 * the same reference; the send follows that withdrawal's settlement (src/globalsend/FollowWithdrawals.ts).
 */
export const make = Effect.gen(function*() {
  const repo = yield* GlobalSendsRepo.GlobalSendsRepo
  const clock = yield* ServiceClock
  const bank = yield* Bank
  const withdrawals = yield* Withdrawals
  const record = yield* makeRecord

  /** The beneficiary's account resolved by the bank's name enquiry (outside any transaction). */
  const resolveAccount = (customer: Customer, beneficiary: Readonly<Record<string, unknown>>) =>
    Effect.gen(function*() {
      const bankCode = String(beneficiary.bankCode)
      const accountNumber = String(beneficiary.accountNumber)
      const result = yield* bank.nameEnquiry(customer.country, bankCode, accountNumber).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(nameEnquiryTimeoutMs),
          onTimeout: () => new BankRailUnavailable({ message: "The bank's name enquiry timed out; retry with the same reference" })
        }),
        Effect.catchTag("BankUnavailable", (error) => new BankRailUnavailable({ message: `The bank's name enquiry failed (${error.reason}); retry with the same reference` }))
      )
      switch (result._tag) {
        case "Resolved": {
          // A name the partner gives is checked against the bank's record (the corridor's form says so): the same
          // words in any order, case, accents and spacing aside. Without one, the bank's name is used.
          const given = beneficiary.accountName
          if (typeof given === "string" && nameWords(given) !== nameWords(result.accountName)) {
            return yield* new InvalidBeneficiary({
              message: `beneficiary.accountName: does not match the account holder's name at the bank (${result.accountName}); ` +
                "send the bank's name or leave accountName out"
            })
          }
          return { bankCode, accountNumber, bankName: result.bankName, accountName: result.accountName }
        }
        case "UnknownBank":
          return yield* new InvalidBeneficiary({ message: `beneficiary.bankCode: no bank with code ${bankCode} in ${customer.country}` })
        case "InvalidAccountNumber":
          return yield* new InvalidBeneficiary({ message: `beneficiary.accountNumber: must be ${result.expected}` })
        case "NotFound":
          return yield* new InvalidBeneficiary({ message: `beneficiary.accountNumber: no account ${accountNumber} at bank ${bankCode}` })
      }
    })

  /** A new domestic send inside the customer's command: its withdrawal first, then the send that follows it. */
  const initiate = (
    customer: Customer,
    corridor: Corridor,
    body: GlobalSendBody,
    reference: string,
    beneficiary: Readonly<Record<string, unknown>>,
    account: OneOffAccount
  ) => (id: string) =>
    Effect.gen(function*() {
      const withdrawal = yield* withdrawals.payoutTo(customer, { reference, amount: body.amount, account }).pipe(
        Effect.catchTag("WithdrawalBelowMinimum", (error) =>
          new GlobalSendBelowMinimum({
            message: error.message,
            details: { minimumAmount: error.details.minimumAmount, asset: error.details.currency }
          }))
      )
      const draft: GlobalSendsRepo.NewGlobalSendRow = {
        ...commonFields(customer, corridor, body, reference, id, yield* clock.now),
        asset: withdrawal.currency,
        amount: withdrawal.totalDebited,
        transferFee: 0n,
        partnerFee: withdrawal.fee,
        assetAmount: withdrawal.amount,
        settledBy: "LOCAL_BALANCE",
        fundingCurrency: withdrawal.currency,
        fundingAmount: withdrawal.totalDebited,
        rate: null,
        beneficiary: { ...beneficiary, accountName: account.accountName },
        reservationId: null,
        withdrawalId: withdrawal.id
      }
      yield* record(draft, "global_send.initiated")
      return toGlobalSend(yield* repo.insert(draft))
    })

  return { resolveAccount, initiate } as const
})
