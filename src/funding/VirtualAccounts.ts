import * as Command from "../observability/Command.js"
import { SqlClient } from "@effect/sql"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { Effect, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import type { Customer } from "../customers/Customer.js"
import { Outbox } from "../events/Events.js"
import { BadRequest } from "../api/ApiError.js"
import { Ids } from "../ids/Ids.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import { Ledger } from "../ledger/Ledger.js"
import { Kyc } from "../kyc/Kyc.js"
import { describeAmountProblem, parseAmount } from "../money/Money.js"
import { Bank } from "../rails/Bank.js"
import type { BankRailUnavailable } from "../rails/Errors.js"
import { Tier1Required, type VirtualAccount, VirtualAccountNotIssued } from "./Api.js"
import { creditFiat } from "./FundingReceipts.js"
import * as FundingRepo from "./FundingRepo.js"

/** Draws of a fresh account number before giving up (a collision needs two equal random serials). */
const issueAttemptsMax = 5

const toView = (row: FundingRepo.VirtualAccountRow): VirtualAccount => ({
  accountNumber: row.accountNumber,
  accountName: row.accountName,
  bankName: row.bankName,
  bankCode: row.bankCode,
  currency: row.currency,
  status: row.status
})

export const fullName = (customer: Customer) =>
  [customer.firstName, customer.middleName, customer.lastName].filter((part) => part !== null && part !== "").join(" ")

/**
 * A bank session reference for an incoming transfer, shaped like a NIP session id: 6-digit bank code, the
 * yymmddHHMMss of arrival on the service clock, and 12 random digits (30 digits).
 */
export const sessionReference = (bankCode: string, at: Date, random: Uint8Array) => {
  const stamp = at.toISOString().replace(/[-:T]/g, "").slice(2, 14)
  return bankCode.padStart(6, "0").slice(-6) + stamp + Array.from(random.subarray(0, 12), (b) => String(b % 10)).join("")
}

/** Each customer's dedicated collection account, and the transfers that arrive in it. */
export class VirtualAccounts extends Effect.Service<VirtualAccounts>()("VirtualAccounts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* FundingRepo.FundingRepo
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const outbox = yield* Outbox
    const ledger = yield* Ledger
    const actors = yield* CustomerActors
    const bank = yield* Bank
    const kyc = yield* Kyc

    const issue = (customer: Customer): Effect.Effect<FundingRepo.VirtualAccountRow, BankRailUnavailable> =>
      Effect.gen(function*() {
        for (let attempt = 0; attempt < issueAttemptsMax; attempt++) {
          const existing = yield* repo.virtualAccount(customer.id)
          if (Option.isSome(existing)) return existing.value
          const account = yield* bank.issueCollectionAccount({
            partnerId: customer.partnerId,
            customerId: customer.id,
            country: customer.country,
            purpose: "virtual_account"
          })
          // A concurrent first read inserts too: ON CONFLICT keeps exactly one, and both answer with it.
          yield* repo.insertVirtualAccount({
            customerId: customer.id,
            partnerId: customer.partnerId,
            accountNumber: account.accountNumber,
            accountName: fullName(customer),
            bankName: account.bankName,
            bankCode: account.bankCode,
            currency: customer.currency,
            status: "active",
            createdAt: yield* clock.now
          })
        }
        return yield* Effect.dieMessage(`virtual accounts: no free account number after ${issueAttemptsMax} draws`)
      })

    /**
     * The customer's dedicated account, issued on the first read; NGN needs Tier 1 approved first. Read first;
     * only a customer without an account issues one, as a command of the customer's actor.
     */
    const getOrIssue = Command.fn("VirtualAccounts.getOrIssue")(
      function*(customer: Customer) {
        const existing = yield* repo.virtualAccount(customer.id)
        if (Option.isSome(existing)) return toView(existing.value)
        return yield* actors.run(customer.partnerId, customer.id, (locked) =>
          Effect.gen(function*() {
            if (locked.currency === "NGN" && (yield* kyc.tierStatus(locked.id, 1)) !== "APPROVED") {
              return yield* new Tier1Required({
                message: "An NGN virtual account is issued only after KYC Tier 1 (BVN and NIN) is approved"
              })
            }
            return toView(yield* issue(locked))
          })).pipe(
            Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("virtual accounts: a customer vanished"))
          )
      },
      Effect.provideService(SqlClient.SqlClient, sql)
    )

    /**
     * The bank rail's entry point for a transfer that arrived in the customer's virtual account: from the sandbox
     * control, or a live bank's callback.
     */
    const credit = Command.fn("VirtualAccounts.credit")((
      partnerId: PartnerId,
      customerId: CustomerId,
      input: { readonly amount: number; readonly narration?: string | undefined }
    ) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const currency = customer.currency
          const parsed = parseAmount(currency, input.amount)
          if (!parsed.ok) return yield* new BadRequest({ message: `amount: ${describeAmountProblem(parsed.problem, currency)}` })
          const found = yield* repo.virtualAccount(customer.id)
          if (Option.isNone(found)) {
            return yield* new VirtualAccountNotIssued({
              message: "The customer has no virtual account yet; read GET .../virtual-account first to issue it"
            })
          }
          const account = found.value
          const at = yield* clock.now
          return yield* creditFiat({ repo, outbox, ledger, ids }, {
            partnerId,
            customerId: customer.id,
            method: "virtual_account",
            chargeId: null,
            currency,
            amount: parsed.minor,
            reference: sessionReference(account.bankCode, at, yield* ids.bytes(12)),
            narration: input.narration ?? `Transfer to ${account.accountName}`,
            at
          })
        }))
    )

    return { getOrIssue, credit } as const
  }),
  dependencies: [FundingRepo.FundingRepo.Default, Outbox.Default, Ledger.Default, CustomerActors.Default, Kyc.Default]
}) {}

export const layer = VirtualAccounts.Default
