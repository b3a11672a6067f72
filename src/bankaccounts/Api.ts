import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden, NotFound } from "../http/ApiError.js"
import { PartnerAuth } from "../http/Auth.js"
import { Envelope } from "../http/Envelope.js"
import { CustomerBusy } from "../ledger/Errors.js"
import { CountryCode } from "../reference/Countries.js"

/** A bank of the catalogue (`GET .../banks`). */
export const BankView = Schema.Struct({
  code: Schema.String,
  name: Schema.String,
  country: Schema.String,
  currency: Schema.String
})

export const BanksQuery = Schema.Struct({ country: CountryCode })

const bankCode = Schema.String.pipe(
  Schema.pattern(/^\d{2,9}$/, { message: () => "must be a bank code from GET .../banks (2 to 9 digits)" })
)
const accountNumber = Schema.String.pipe(
  Schema.pattern(/^\d{6,20}$/, { message: () => "must be the account number's digits only" })
)

export const VerifyAccountBody = Schema.Struct({
  bankCode,
  accountNumber,
  /** Defaults to the customer's country. */
  country: Schema.optional(CountryCode)
})
export type VerifyAccountBody = typeof VerifyAccountBody.Type

/** Name enquiry result: the number is shown in full here because the caller just sent it. */
export const ResolvedAccount = Schema.Struct({
  bankCode: Schema.String,
  bankName: Schema.String,
  accountNumber: Schema.String,
  accountName: Schema.String,
  country: Schema.String,
  currency: Schema.String
})
export type ResolvedAccount = typeof ResolvedAccount.Type

/** Saving an account always uses the customer's country (withdrawals pay out in the customer's currency). */
export const SaveAccountBody = Schema.Struct({
  bankCode,
  accountNumber,
  /** true makes this account the default even when another one is; the first account is always the default. */
  isDefault: Schema.optional(Schema.Boolean)
})
export type SaveAccountBody = typeof SaveAccountBody.Type

/** A saved bank account; the account number is masked everywhere after saving. */
export const BankAccount = Schema.Struct({
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
})
export type BankAccount = typeof BankAccount.Type

export const AccountPath = Schema.Struct({ customerId: Schema.String, accountId: Schema.String })

export class BankAccountNotFound extends ApiError("BankAccountNotFound", 400, "BANK_ACCOUNT_NOT_FOUND") {}

export class BankUnavailable extends ApiError("BankUnavailable", 503, "BANK_UNAVAILABLE") {}

export class BankAccountAlreadySaved extends ApiError("BankAccountAlreadySaved", 409, "BANK_ACCOUNT_ALREADY_SAVED") {}

export class BankAccountLimitReached extends ApiError("BankAccountLimitReached", 400, "BANK_ACCOUNT_LIMIT_REACHED") {}

export class BankAccountsApi extends HttpApiGroup.make("bankAccounts")
  .add(
    HttpApiEndpoint.get("banks", "/customers/:customerId/banks")
      .setPath(CustomerIdPath)
      .setUrlParams(BanksQuery)
      .addSuccess(Envelope(Schema.Array(BankView)))
      .addError(BadRequest)
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.post("verifyAccount", "/customers/:customerId/bank/verify-account")
      .setPath(CustomerIdPath)
      .setPayload(VerifyAccountBody)
      .addSuccess(Envelope(ResolvedAccount))
      .addError(BadRequest)
      .addError(CustomerForbidden)
      .addError(BankAccountNotFound)
      .addError(BankUnavailable)
  )
  .add(
    HttpApiEndpoint.post("save", "/customers/:customerId/accounts")
      .setPath(CustomerIdPath)
      .setPayload(SaveAccountBody)
      .addSuccess(Envelope(BankAccount), { status: 201 })
      .addError(BadRequest)
      .addError(CustomerForbidden)
      .addError(BankAccountNotFound)
      .addError(BankUnavailable)
      .addError(BankAccountAlreadySaved)
      .addError(BankAccountLimitReached)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.get("list", "/customers/:customerId/accounts")
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(Schema.Array(BankAccount)))
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:customerId/accounts/:accountId")
      .setPath(AccountPath)
      .addSuccess(Envelope(BankAccount))
      .addError(CustomerForbidden)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("makeDefault", "/customers/:customerId/accounts/:accountId/default")
      .setPath(AccountPath)
      .addSuccess(Envelope(BankAccount))
      .addError(CustomerForbidden)
      .addError(NotFound)
      .addError(CustomerBusy)
  )
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}
