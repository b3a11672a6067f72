import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { described, example, resourceTag, sample } from "../api/Docs.js"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden, NotFound } from "../api/ApiError.js"
import { PartnerAuth } from "../api/Auth.js"
import { Envelope } from "../api/Envelope.js"
import { CustomerBusy } from "../ledger/Errors.js"
import { CountryCode } from "../reference/Countries.js"
import { BankRailUnavailable } from "../rails/Errors.js"

/** A bank of the catalogue (`GET .../banks`). */
export const BankView = Schema.Struct({
  code: described(Schema.String, "The bank's code: what `bankCode` takes."),
  name: Schema.String,
  country: Schema.String,
  currency: Schema.String
})

export const BanksQuery = Schema.Struct({ country: CountryCode })

const bankCode = described(Schema.String.pipe(
  Schema.pattern(/^\d{2,9}$/, { message: () => "must be a bank code from GET .../banks (2 to 9 digits)" })
), "The bank's `code` from `GET .../banks`, e.g. 058 (Guaranty Trust Bank).")
const accountNumber = described(Schema.String.pipe(
  Schema.pattern(/^\d{6,20}$/, { message: () => "must be the account number's digits only" })
), "The account number, digits only (10 in Nigeria).")

export const VerifyAccountBody = example(Schema.Struct({
  bankCode,
  accountNumber,
  /** Defaults to the customer's country. */
  country: Schema.optional(described(CountryCode, "The bank's country; the customer's country when left out."))
}), { bankCode: sample.bankCode, accountNumber: sample.accountNumber })
export type VerifyAccountBody = typeof VerifyAccountBody.Type

/** Name enquiry result: the number is shown in full here because the caller just sent it. */
export const ResolvedAccount = example(Schema.Struct({
  bankCode: Schema.String,
  bankName: Schema.String,
  accountNumber: Schema.String,
  accountName: described(Schema.String, "The account holder's name as the bank has it: show it to the customer before saving."),
  country: Schema.String,
  currency: Schema.String
}), {
  bankCode: sample.bankCode,
  bankName: "Guaranty Trust Bank",
  accountNumber: sample.accountNumber,
  accountName: "OBI ADA CHIOMA",
  country: "NG",
  currency: "NGN"
})
export type ResolvedAccount = typeof ResolvedAccount.Type

/** Saving an account always uses the customer's country (withdrawals pay out in the customer's currency). */
export const SaveAccountBody = example(Schema.Struct({
  bankCode,
  accountNumber,
  /** true makes this account the default even when another one is; the first account is always the default. */
  isDefault: Schema.optional(described(Schema.Boolean, "Make this the account withdrawals go to (the first saved account always is)."))
}), { bankCode: sample.bankCode, accountNumber: sample.accountNumber, isDefault: true })
export type SaveAccountBody = typeof SaveAccountBody.Type

/** A saved bank account; the account number is masked everywhere after saving. */
export const BankAccount = example(Schema.Struct({
  id: Schema.UUID,
  customerId: Schema.UUID,
  bankCode: Schema.String,
  bankName: Schema.String,
  accountName: Schema.String,
  accountNumberLast4: Schema.String,
  accountNumberMasked: Schema.String,
  country: Schema.String,
  currency: Schema.String,
  isDefault: Schema.Boolean,
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}), {
  id: sample.accountId,
  customerId: sample.customerId,
  bankCode: sample.bankCode,
  bankName: "Guaranty Trust Bank",
  accountName: "OBI ADA CHIOMA",
  accountNumberLast4: "7896",
  accountNumberMasked: "******7896",
  country: "NG",
  currency: "NGN",
  isDefault: true,
  createdAt: sample.at,
  updatedAt: sample.at
})
export type BankAccount = typeof BankAccount.Type

export const AccountPath = Schema.Struct({ customerId: Schema.String, accountId: Schema.String })

export class BankAccountNotFound extends ApiError("BankAccountNotFound", 400, "BANK_ACCOUNT_NOT_FOUND") {}

export class BankUnavailable extends ApiError("BankUnavailable", 503, "BANK_UNAVAILABLE") {}

export class BankAccountAlreadySaved extends ApiError("BankAccountAlreadySaved", 409, "BANK_ACCOUNT_ALREADY_SAVED") {}

export class BankAccountLimitReached extends ApiError("BankAccountLimitReached", 400, "BANK_ACCOUNT_LIMIT_REACHED") {}

export class BankAccountsApi extends HttpApiGroup.make("bankAccounts").annotateContext(resourceTag("bankAccounts"))
  .add(
    HttpApiEndpoint.get("banks", "/customers/:customerId/banks")
      .annotateContext(OpenApi.annotations({
        summary: "List banks",
        description: "The banks of `country` (a plain array); a bank's `code` is what `bankCode` takes."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(BanksQuery)
      .addSuccess(Envelope(example(Schema.Array(BankView), [
        { code: "044", name: "Access Bank", country: "NG", currency: "NGN" },
        { code: "058", name: "Guaranty Trust Bank", country: "NG", currency: "NGN" }
      ])))
      .addError(BadRequest)
      .addError(BankRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("verifyAccount", "/customers/:customerId/bank/verify-account")
      .annotateContext(OpenApi.annotations({
        summary: "Resolve an account holder's name",
        description: "Name enquiry: asks the bank for the holder of `accountNumber` at `bankCode` (`country` defaults " +
          "to the customer's). Stores nothing. 400 `BANK_ACCOUNT_NOT_FOUND` when the bank has no such " +
          "account; 503 `BANK_UNAVAILABLE` when it does not answer (retry)."
      }))
      .setPath(CustomerIdPath)
      .setPayload(VerifyAccountBody)
      .addSuccess(Envelope(ResolvedAccount))
      .addError(BadRequest)
      .addError(BankAccountNotFound)
      .addError(BankUnavailable)
      .addError(BankRailUnavailable)
  )
  .add(
    HttpApiEndpoint.post("save", "/customers/:customerId/accounts")
      .annotateContext(OpenApi.annotations({
        summary: "Save a bank account",
        description: "Runs the name enquiry and saves the account in the customer's country. The first saved account " +
          "becomes the default, and so does one saved with `isDefault: true`. The same bank and number " +
          "twice: 409 `BANK_ACCOUNT_ALREADY_SAVED`; at most 20 accounts per customer."
      }))
      .setPath(CustomerIdPath)
      .setPayload(SaveAccountBody)
      .addSuccess(Envelope(BankAccount), { status: 201 })
      .addError(BadRequest)
      .addError(BankAccountNotFound)
      .addError(BankUnavailable)
      .addError(BankAccountAlreadySaved)
      .addError(BankAccountLimitReached)
      .addError(CustomerBusy)
      .addError(BankRailUnavailable)
  )
  .add(
    HttpApiEndpoint.get("list", "/customers/:customerId/accounts")
      .annotateContext(OpenApi.annotations({
        summary: "List saved bank accounts",
        description: "The customer's saved accounts, oldest first (a plain array); account numbers are masked."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(Schema.Array(BankAccount)))
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:customerId/accounts/:accountId")
      .annotateContext(OpenApi.annotations({
        summary: "Get a saved bank account",
        description: "One saved account. An unknown account or another customer's answers 404 `NOT_FOUND`."
      }))
      .setPath(AccountPath)
      .addSuccess(Envelope(BankAccount))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("makeDefault", "/customers/:customerId/accounts/:accountId/default")
      .annotateContext(OpenApi.annotations({
        summary: "Make a bank account the default",
        description: "Makes this saved account the one withdrawals pay to; the previous default stops being the " +
          "default."
      }))
      .setPath(AccountPath)
      .addSuccess(Envelope(BankAccount))
      .addError(NotFound)
      .addError(CustomerBusy)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}
