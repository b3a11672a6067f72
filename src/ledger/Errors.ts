import { Schema } from "effect"
import { ApiError } from "../api/ApiError.js"

export class InsufficientBalance extends ApiError("InsufficientBalance", 400, "INSUFFICIENT_BALANCE") {}

/**
 * A credit that would take a customer's balance in an asset (available + held) above its maximum balance
 * (src/money/Money.ts `assets`). Nothing is written; `details` carries the maximum and the currency.
 */
export class BalanceLimitExceeded extends ApiError("BalanceLimitExceeded", 400, "BALANCE_LIMIT_EXCEEDED", {
  maximumBalance: Schema.Number,
  currency: Schema.String
}) {}

export class ReferenceInUse extends ApiError("ReferenceInUse", 409, "REFERENCE_IN_USE") {}

export class CustomerBusy extends ApiError("CustomerBusy", 503, "CUSTOMER_BUSY") {}
