import * as Command from "../observability/Command.js"
import { Duration, Effect, Option } from "effect"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { Customer } from "../customers/Customer.js"
import { BadRequest, NotFound } from "../api/ApiError.js"
import { Ids, isUuid } from "../ids/Ids.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import type { BankRailUnavailable } from "../rails/Errors.js"
import { Bank, BankUnavailable as BankUnavailableRail, nameEnquiryTimeoutMs } from "../rails/Bank.js"
import { type CountryCode, fiatCurrencyOf } from "../reference/Countries.js"
import {
  type BankAccount,
  BankAccountAlreadySaved,
  BankAccountLimitReached,
  BankAccountNotFound,
  BankUnavailable,
  type ResolvedAccount,
  type SaveAccountBody,
  type VerifyAccountBody
} from "./Api.js"
import * as BankAccountsRepo from "./BankAccountsRepo.js"

export type { PayoutAccount } from "./BankAccountsRepo.js"

/** Saved accounts per customer at most (a limit on everything). */
export const savedAccountsMax = 20


export const last4 = (accountNumber: string) => accountNumber.slice(-4)
export const masked = (accountNumber: string) => "*".repeat(Math.max(0, accountNumber.length - 4)) + last4(accountNumber)

export const toBankAccount = (row: BankAccountsRepo.BankAccountRow): BankAccount => ({
  id: row.id,
  customerId: row.customerId,
  bankCode: row.bankCode,
  bankName: row.bankName,
  accountName: row.accountName,
  accountNumberLast4: last4(row.accountNumber),
  accountNumberMasked: masked(row.accountNumber),
  country: row.country,
  currency: row.currency,
  isDefault: row.isDefault,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

export type EnquiryError = BadRequest | BankAccountNotFound | BankUnavailable | BankRailUnavailable

/**
 * A customer's saved bank accounts: the bank list and name enquiry through the bank rail, saving (at most
 * `savedAccountsMax`), the default account a withdrawal pays to.
 */
export class BankAccounts extends Effect.Service<BankAccounts>()("BankAccounts", {
  effect: Effect.gen(function*() {
    const repo = yield* BankAccountsRepo.BankAccountsRepo
    const actors = yield* CustomerActors
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const bank = yield* Bank
    const customers = yield* Customers

    const banks = Command.fn("BankAccounts.banks")((country: CountryCode) =>
      Effect.map(bank.banks(country), (list) =>
        list.map(({ code, name }) => ({ code, name, country, currency: fiatCurrencyOf(country) }))))

    const resolve = (country: CountryCode, bankCode: string, accountNumber: string) =>
      Effect.gen(function*() {
        const result = yield* bank.nameEnquiry(country, bankCode, accountNumber).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(nameEnquiryTimeoutMs),
            onTimeout: () => new BankUnavailableRail({ reason: "name enquiry timed out" })
          }),
          Effect.catchTag("BankUnavailable", () =>
            Effect.fail(new BankUnavailable({ message: "The bank did not answer the name enquiry; retry shortly" })))
        )
        switch (result._tag) {
          case "UnknownBank":
            return yield* new BadRequest({ message: `bankCode: ${bankCode} is not a bank in ${country}; see GET .../banks?country=${country}` })
          case "InvalidAccountNumber":
            return yield* new BadRequest({ message: `accountNumber: ${result.expected}` })
          case "NotFound":
            return yield* new BankAccountNotFound({ message: `The bank has no account ${accountNumber}; check the number and the bank` })
          case "Resolved":
            return {
              bankCode,
              bankName: result.bankName,
              accountNumber,
              accountName: result.accountName,
              country,
              currency: fiatCurrencyOf(country)
            } satisfies ResolvedAccount
        }
      })

    /** Name enquiry through the bank rail; moves nothing and stores nothing. */
    const verify = Command.fn("BankAccounts.verify")((customer: Customer, input: VerifyAccountBody) =>
      resolve(input.country ?? customer.country, input.bankCode, input.accountNumber))

    type Resolved = Effect.Effect.Success<ReturnType<typeof resolve>>

    /** Stores a resolved account for a customer whose command is running (the first one becomes the default). */
    const insertResolved = (partnerId: string, customer: Customer, input: SaveAccountBody, resolved: Resolved) =>
      Effect.gen(function*() {
        if (Option.isSome(yield* repo.findByNumber(customer.id, input.bankCode, input.accountNumber))) {
          return yield* new BankAccountAlreadySaved({
            message: "This bank account is already saved for the customer; make it the default with POST .../accounts/{id}/default"
          })
        }
        if ((yield* repo.count(customer.id)) >= savedAccountsMax) {
          return yield* new BankAccountLimitReached({ message: `A customer can save at most ${savedAccountsMax} bank accounts` })
        }
        const now = yield* clock.now
        const hasDefault = Option.isSome(yield* repo.findDefault(customer.id))
        const row = yield* repo.insert({
          id: yield* ids.uuid,
          partnerId,
          customerId: customer.id,
          country: resolved.country,
          currency: resolved.currency,
          bankCode: resolved.bankCode,
          bankName: resolved.bankName,
          accountNumber: resolved.accountNumber,
          accountName: resolved.accountName,
          isDefault: false,
          createdAt: now,
          updatedAt: now
        })
        if (hasDefault && input.isDefault !== true) return toBankAccount(row)
        const made = yield* repo.setDefault(customer.id, row.id, now)
        if (Option.isNone(made)) return yield* Effect.dieMessage(`bank accounts: account ${row.id} vanished`)
        return toBankAccount(made.value)
      })

    const save = Command.fn("BankAccounts.save")(function*(partnerId: PartnerId, customerId: CustomerId, input: SaveAccountBody) {
      // The enquiry runs before the command: a slow bank must not hold the customer's lock.
      const owner = yield* customers.getOwned(partnerId, customerId)
      const resolved = yield* resolve(owner.country, input.bankCode, input.accountNumber)
      return yield* actors.run(partnerId, customerId, (customer) => insertResolved(partnerId, customer, input, resolved))
    })

    const list = Command.fn("BankAccounts.list")((customer: Customer) =>
      repo.list(customer.id).pipe(Effect.map((rows) => rows.map(toBankAccount))))

    const notFound = () => new NotFound({ message: "No saved bank account with this id for this customer" })

    const get = Command.fn("BankAccounts.get")(function*(customer: Customer, accountId: string) {
      if (!isUuid(accountId)) return yield* notFound()
      const row = yield* repo.find(customer.id, accountId.toLowerCase())
      if (Option.isNone(row)) return yield* notFound()
      return toBankAccount(row.value)
    })

    const makeDefault = Command.fn("BankAccounts.makeDefault")((partnerId: PartnerId, customerId: CustomerId, accountId: string) =>
      actors.run(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          if (!isUuid(accountId)) return yield* notFound()
          const row = yield* repo.setDefault(customer.id, accountId.toLowerCase(), yield* clock.now)
          if (Option.isNone(row)) return yield* notFound()
          return toBankAccount(row.value)
        })))

    /**
     * The customer's default account with its full number (for a payout), as a read along another statement
     * (src/db/Rows.ts `Along`): the withdrawal reads it in its idempotency claim's statement.
     */
    const defaultAlong = (customerId: string) => repo.defaultAlong(customerId)

    return { banks, verify, save, list, get, makeDefault, defaultAlong } as const
  }),
  dependencies: [BankAccountsRepo.BankAccountsRepo.Default, Customers.Default, CustomerActors.Default]
}) {}

export const layer = BankAccounts.Default
