import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden, InvalidCursor, NotFound } from "../http/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../http/Auth.js"
import { Envelope, PageEnvelope } from "../http/Envelope.js"
import { PageParams } from "../http/PageParams.js"
import { CustomerBusy, InsufficientBalance, ReferenceInUse } from "../ledger/Errors.js"
import { Reference } from "../ledger/Reference.js"
import { AmountNumber } from "../money/Money.js"

/** PROCESSING until the bank answers; COMPLETED, FAILED and REVERSED are our literal values (SPEC.md leaves them open). */
export const WithdrawalStatus = Schema.Literal("PROCESSING", "COMPLETED", "FAILED", "REVERSED")
export type WithdrawalStatus = typeof WithdrawalStatus.Type

/** SPEC.md "Withdrawal": amounts are decimal strings with the currency's full scale. */
export const Withdrawal = Schema.Struct({
  id: Schema.UUID,
  reference: Schema.String,
  /** What the bank receives. */
  amount: Schema.String,
  fee: Schema.String,
  /** The amount requested: what left the balance. */
  totalDebited: Schema.String,
  currency: Schema.String,
  status: WithdrawalStatus,
  failureReason: Schema.NullOr(Schema.String),
  bankAccount: Schema.Struct({ bankName: Schema.String, accountName: Schema.String, accountNumberLast4: Schema.String }),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
})
export type Withdrawal = typeof Withdrawal.Type

/** SPEC.md "Withdrawal quote": numbers. */
export const WithdrawalQuote = Schema.Struct({
  currency: Schema.String,
  amount: Schema.Number,
  fee: Schema.Number,
  totalDebited: Schema.Number,
  feeBps: Schema.Number,
  feeFlat: Schema.Number
})
export type WithdrawalQuote = typeof WithdrawalQuote.Type

/** A query amount: plain decimal digits (no sign, exponent or spaces), then the same rules as a JSON amount. */
export const QueryAmount = Schema.String.pipe(
  Schema.pattern(/^\d{1,16}(\.\d{1,16})?$/, { message: () => "must be a positive decimal number such as 1500.50" }),
  Schema.compose(Schema.NumberFromString),
  Schema.compose(AmountNumber)
)

export const QuoteQuery = Schema.Struct({ amount: QueryAmount })

export const WithdrawBody = Schema.Struct({
  amount: AmountNumber,
  reference: Schema.optional(Reference)
})
export type WithdrawBody = typeof WithdrawBody.Type

export const WithdrawalPath = Schema.Struct({ customerId: Schema.String, withdrawalId: Schema.String })
export const SandboxWithdrawalPath = Schema.Struct({ withdrawalId: Schema.String })

export const FailBody = Schema.Struct({
  reason: Schema.compose(
    Schema.Trim,
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must be 1 to 500 characters" }),
      Schema.maxLength(500, { message: () => "must be 1 to 500 characters" })
    )
  )
})

export class WithdrawalBelowMinimum extends ApiError("WithdrawalBelowMinimum", 400, "WITHDRAWAL_BELOW_MINIMUM", { minimumAmount: Schema.Number, currency: Schema.String }) {}

export class NoDefaultBankAccount extends ApiError("NoDefaultBankAccount", 400, "NO_DEFAULT_BANK_ACCOUNT") {}

export class WithdrawalStateConflict extends ApiError("WithdrawalStateConflict", 400, "WITHDRAWAL_STATE_CONFLICT") {}

const withdrawEndpoint = <const Name extends string>(name: Name, path: "/customers/:customerId/withdraw" | "/customers/:customerId/wallet/withdraw") =>
  HttpApiEndpoint.post(name, path)
    .setPath(CustomerIdPath)
    .setPayload(WithdrawBody)
    .addSuccess(Envelope(Withdrawal), { status: 201 })
    .addError(BadRequest)
    .addError(CustomerForbidden)
    .addError(WithdrawalBelowMinimum)
    .addError(NoDefaultBankAccount)
    .addError(InsufficientBalance)
    .addError(ReferenceInUse)
    .addError(CustomerBusy)

export class WithdrawalsApi extends HttpApiGroup.make("withdrawals")
  .add(
    HttpApiEndpoint.get("quote", "/customers/:customerId/withdraw/quote")
      .setPath(CustomerIdPath)
      .setUrlParams(QuoteQuery)
      .addSuccess(Envelope(WithdrawalQuote))
      .addError(BadRequest)
      .addError(CustomerForbidden)
      .addError(WithdrawalBelowMinimum)
  )
  .add(withdrawEndpoint("withdraw", "/customers/:customerId/withdraw"))
  // The same endpoint (and idempotency scope) under the path SPEC.md's idempotency list names.
  .add(withdrawEndpoint("withdrawWallet", "/customers/:customerId/wallet/withdraw"))
  .add(
    HttpApiEndpoint.get("list", "/customers/:customerId/withdrawals")
      .setPath(CustomerIdPath)
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(PageEnvelope(Withdrawal))
      .addError(CustomerForbidden)
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:customerId/withdrawals/:withdrawalId")
      .setPath(WithdrawalPath)
      .addSuccess(Envelope(Withdrawal))
      .addError(CustomerForbidden)
      .addError(NotFound)
  )
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

/** The bank's outcome of a payout, decided by hand (sandbox). */
export class SandboxWithdrawalsApi extends HttpApiGroup.make("sandboxWithdrawals")
  .add(
    HttpApiEndpoint.post("complete", "/withdrawals/:withdrawalId/complete")
      .setPath(SandboxWithdrawalPath)
      .addSuccess(Envelope(Withdrawal))
      .addError(NotFound)
      .addError(WithdrawalStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("fail", "/withdrawals/:withdrawalId/fail")
      .setPath(SandboxWithdrawalPath)
      .setPayload(FailBody)
      .addSuccess(Envelope(Withdrawal))
      .addError(BadRequest)
      .addError(NotFound)
      .addError(WithdrawalStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("reverse", "/withdrawals/:withdrawalId/reverse")
      .setPath(SandboxWithdrawalPath)
      .addSuccess(Envelope(Withdrawal))
      .addError(NotFound)
      .addError(WithdrawalStateConflict)
      .addError(CustomerBusy)
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
