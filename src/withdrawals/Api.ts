import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { described, example, resourceTag, sample } from "../api/Docs.js"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden, InvalidCursor, NotFound } from "../api/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { PageParams } from "../api/PageParams.js"
import { BalanceLimitExceeded, CustomerBusy, InsufficientBalance, ReferenceInUse } from "../ledger/Errors.js"
import { Reference } from "../ledger/Reference.js"
import { AmountNumber } from "../money/Money.js"
import { BankRailUnavailable } from "../rails/Errors.js"

/** PROCESSING until the bank answers; COMPLETED, FAILED and REVERSED are our literal values (docs/contract.md "Withdrawal"). */
export const WithdrawalStatus = Schema.Literal("PROCESSING", "COMPLETED", "FAILED", "REVERSED")
export type WithdrawalStatus = typeof WithdrawalStatus.Type

/** docs/contract.md "Withdrawal": amounts are decimal strings with the currency's full scale. */
export const Withdrawal = example(Schema.Struct({
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
}), {
  id: sample.withdrawalId,
  reference: "wd-2026-03-02-001",
  amount: "19890.00",
  fee: "110.00",
  totalDebited: "20000.00",
  currency: "NGN",
  status: "PROCESSING",
  failureReason: null,
  bankAccount: { bankName: "Guaranty Trust Bank", accountName: "OBI ADA CHIOMA", accountNumberLast4: "7896" },
  createdAt: sample.at,
  updatedAt: sample.at
})
export type Withdrawal = typeof Withdrawal.Type

/** docs/contract.md "Withdrawal quote": numbers. */
export const WithdrawalQuote = example(Schema.Struct({
  currency: Schema.String,
  amount: described(Schema.Number, "What the bank receives."),
  fee: Schema.Number,
  totalDebited: described(Schema.Number, "What leaves the balance: the amount asked for."),
  feeBps: described(Schema.Number, "The percentage part of the fee, in basis points (50 is 0.5 %)."),
  feeFlat: described(Schema.Number, "The flat part of the fee, in major units.")
}), { currency: "NGN", amount: 19890, fee: 110, totalDebited: 20000, feeBps: 50, feeFlat: 10 })
export type WithdrawalQuote = typeof WithdrawalQuote.Type

/** A query amount: plain decimal digits (no sign, exponent or spaces), then the same rules as a JSON amount. */
export const QueryAmount = Schema.String.pipe(
  Schema.pattern(/^\d{1,16}(\.\d{1,16})?$/, { message: () => "must be a positive decimal number such as 1500.50" }),
  Schema.compose(Schema.NumberFromString),
  Schema.compose(AmountNumber)
).annotations({
  jsonSchema: {
    type: "number",
    exclusiveMinimum: 0,
    description: "The amount to withdraw in major units, written as plain decimal digits (e.g. 1500.50): no sign, " +
      "exponent or spaces, at most 16 digits on each side of the point"
  }
})

export const QuoteQuery = Schema.Struct({ amount: QueryAmount })

export const WithdrawBody = example(Schema.Struct({
  amount: described(AmountNumber, "How much leaves the customer's balance, fee included, in their fiat currency and major units."),
  reference: Schema.optional(described(Reference, "Your id for this withdrawal (letters, digits, `.`, `_`, `-`; up to 120): the same reference again returns the original withdrawal and moves nothing."))
}), { amount: 20000, reference: "wd-2026-03-02-001" })
export type WithdrawBody = typeof WithdrawBody.Type

export const WithdrawalPath = Schema.Struct({ customerId: Schema.String, withdrawalId: Schema.String })
export const SandboxWithdrawalPath = Schema.Struct({ withdrawalId: Schema.String })

export const FailBody = example(Schema.Struct({
  reason: Schema.compose(
    Schema.Trim,
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must be 1 to 500 characters" }),
      Schema.maxLength(500, { message: () => "must be 1 to 500 characters" })
    )
  )
}), { reason: "Beneficiary account is dormant" })

export class WithdrawalBelowMinimum extends ApiError("WithdrawalBelowMinimum", 400, "WITHDRAWAL_BELOW_MINIMUM", { minimumAmount: Schema.Number, currency: Schema.String }) {}

export class NoDefaultBankAccount extends ApiError("NoDefaultBankAccount", 400, "NO_DEFAULT_BANK_ACCOUNT") {}

export class WithdrawalStateConflict extends ApiError("WithdrawalStateConflict", 400, "WITHDRAWAL_STATE_CONFLICT") {}

const withdrawEndpoint = <const Name extends string>(name: Name, path: "/customers/:customerId/withdraw" | "/customers/:customerId/wallet/withdraw") =>
  HttpApiEndpoint.post(name, path)
    .setPath(CustomerIdPath)
    .setPayload(WithdrawBody)
    .addSuccess(Envelope(Withdrawal), { status: 201 })
    .addError(BadRequest)
    .addError(WithdrawalBelowMinimum)
    .addError(NoDefaultBankAccount)
    .addError(InsufficientBalance)
    .addError(ReferenceInUse)
    .addError(CustomerBusy)
    .addError(BankRailUnavailable)

export class WithdrawalsApi extends HttpApiGroup.make("withdrawals").annotateContext(resourceTag("withdrawals"))
  .add(
    HttpApiEndpoint.get("quote", "/customers/:customerId/withdraw/quote")
      .annotateContext(OpenApi.annotations({
        summary: "Quote a withdrawal",
        description: "The fee (a percentage rounded up plus a flat fee per currency, taken out of the amount) and what " +
          "the bank would receive for `amount`. Moves nothing and checks neither the balance nor the " +
          "default account; an amount under the minimum is refused as the withdrawal would be (400 " +
          "`WITHDRAWAL_BELOW_MINIMUM`, with `details.minimumAmount`)."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(QuoteQuery)
      .addSuccess(Envelope(WithdrawalQuote))
      .addError(BadRequest)
      .addError(WithdrawalBelowMinimum)
  )
  .add(withdrawEndpoint("withdraw", "/customers/:customerId/withdraw")
    .annotateContext(OpenApi.annotations({
      summary: "Withdraw to the default bank account",
      description: "Reserves `amount` from the available balance and pays it, less the fee, to the customer's " +
        "default bank account. Answers 201 with status `PROCESSING` and emits `withdrawal.submitted`. " +
        "Idempotent by `reference`: the same reference again returns the original withdrawal and moves " +
        "nothing; a reference of another customer of the partner answers 409 `REFERENCE_IN_USE`. A " +
        "refusal moves nothing."
    })))
  // The same endpoint (and idempotency scope) under its alias path (docs/contract.md "Idempotency and references").
  .add(withdrawEndpoint("withdrawWallet", "/customers/:customerId/wallet/withdraw")
    .annotateContext(OpenApi.annotations({
      summary: "Withdraw (wallet path)",
      description: "The same endpoint as `POST /customers/{customerId}/withdraw`, under the path the idempotency rules " +
        "name; both paths share one `reference` scope."
    })))
  .add(
    HttpApiEndpoint.get("list", "/customers/:customerId/withdrawals")
      .annotateContext(OpenApi.annotations({
        summary: "List withdrawals",
        description: "The customer's withdrawals, newest first, as a cursor list."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(PageEnvelope(Withdrawal))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:customerId/withdrawals/:withdrawalId")
      .annotateContext(OpenApi.annotations({
        summary: "Get a withdrawal",
        description: "One withdrawal with its status (`PROCESSING`, `COMPLETED`, `FAILED` or `REVERSED`). An unknown " +
          "withdrawal or another customer's answers 404 `NOT_FOUND`."
      }))
      .setPath(WithdrawalPath)
      .addSuccess(Envelope(Withdrawal))
      .addError(NotFound)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

/** The bank's outcome of a payout, decided by hand (sandbox). */
export class SandboxWithdrawalsApi extends HttpApiGroup.make("sandboxWithdrawals").annotateContext(resourceTag("sandboxWithdrawals"))
  .add(
    HttpApiEndpoint.post("complete", "/withdrawals/:withdrawalId/complete")
      .annotateContext(OpenApi.annotations({
        summary: "Complete a withdrawal (sandbox)",
        description: "The bank confirms a `PROCESSING` withdrawal: it becomes `COMPLETED` and `withdrawal.completed` " +
          "is emitted. Any other status: 400 `WITHDRAWAL_STATE_CONFLICT`. Another partner's withdrawal: " +
          "404."
      }))
      .setPath(SandboxWithdrawalPath)
      .addSuccess(Envelope(Withdrawal))
      .addError(NotFound)
      .addError(WithdrawalStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("fail", "/withdrawals/:withdrawalId/fail")
      .annotateContext(OpenApi.annotations({
        summary: "Fail a withdrawal (sandbox)",
        description: "The bank rejects a `PROCESSING` withdrawal with `reason`: it becomes `FAILED`, the whole " +
          "`totalDebited` (fee included) returns to the balance and `withdrawal.failed` is emitted. Any " +
          "other status: 400 `WITHDRAWAL_STATE_CONFLICT`."
      }))
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
      .annotateContext(OpenApi.annotations({
        summary: "Reverse a withdrawal (sandbox)",
        description: "An operator reverses a `PROCESSING` or `COMPLETED` withdrawal: it becomes `REVERSED`, the money " +
          "returns to the balance (the fee is kept when it had completed) and `withdrawal.reversed` is " +
          "emitted. A `FAILED` or `REVERSED` one: 400 `WITHDRAWAL_STATE_CONFLICT`."
      }))
      .setPath(SandboxWithdrawalPath)
      .addSuccess(Envelope(Withdrawal))
      .addError(NotFound)
      .addError(WithdrawalStateConflict)
      .addError(CustomerBusy)
      .addError(BalanceLimitExceeded)
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
