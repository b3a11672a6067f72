import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { described, example, resourceTag, sample } from "../api/Docs.js"
import { CustomerIdPath } from "../customers/Api.js"
import { ApiError, BadRequest, CustomerForbidden, InvalidCursor } from "../api/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { PageParams } from "../api/PageParams.js"
import { KycDocumentNotFound } from "../kyc/Api.js"
import { CustomerBusy, InsufficientBalance, ReferenceInUse } from "../ledger/Errors.js"
import { Reference } from "../ledger/Reference.js"
import { AmountNumber } from "../money/Money.js"
import { BankRailUnavailable, ExchangeRailUnavailable, PayoutRailUnavailable } from "../rails/Errors.js"
import { SendPurpose } from "../reference/Corridors.js"

/**
 * Global send (docs/contract.md "Global send", the `global_send.*` events): a payout through a corridor, cross-border through
 * the corridor's payout partner (PayoutSubmissions port) or, on the domestic NG corridor, through the bank rail as a
 * withdrawal. Decisions: docs/global-send.md.
 */
export const GlobalSendStatus = Schema.Literal("PROCESSING", "COMPLETED", "FAILED")
export type GlobalSendStatus = typeof GlobalSendStatus.Type

/** How the sender's funds were taken (`settledBy`, docs/global-send.md). */
export const SettledBy = Schema.Literal("USDT_BALANCE", "LOCAL_CONVERSION", "LOCAL_BALANCE")
export type SettledBy = typeof SettledBy.Type

export const GlobalSendBody = example(Schema.Struct({
  reference: Schema.optional(described(Reference, "Your id for this payout (letters, digits, `.`, `_`, `-`; up to 120): the same reference again returns the original.")),
  /** The corridor's key, as `GET .../global-send/corridors` lists it (`KE-KES-mobile`). */
  corridor: described(
    Schema.String.pipe(Schema.minLength(1, { message: () => "must be a corridor key such as KE-KES-mobile" })),
    "The corridor's key from `GET .../global-send/corridors`, e.g. GB-GBP-bank or KE-KES-mobile."
  ),
  /** What the sender sends, fees included: USDT on a cross-border corridor, the customer's currency on the domestic one. */
  amount: described(AmountNumber, "What the customer sends, fees included: USDT on a cross-border corridor, their own currency on the domestic one."),
  /**
   * Which balance pays a cross-border send: `USDT` (the default) or the customer's own currency, converted at the
   * exchange's live buy rate. Ignored on the domestic corridor (always the customer's currency).
   */
  fundingCurrency: Schema.optional(described(Schema.String, "USDT (the default) or the customer's own currency, converted at the live buy rate.")),
  purpose: SendPurpose.annotations({ message: () => `must be one of ${SendPurpose.literals.join(", ")}` }),
  purposeNote: Schema.optional(Schema.compose(
    Schema.Trim,
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must be 1 to 200 characters" }),
      Schema.maxLength(200, { message: () => "must be 1 to 200 characters" })
    )
  )),
  /** `beneficiary[key]` for each key of the corridor's `recipientSchema` (China: also `logisticsTracking`, `documents`). */
  beneficiary: described(Schema.Record({ key: Schema.String, value: Schema.Unknown }), "The recipient: the fields of the corridor's `recipientSchema`.")
}), {
  reference: "gs-2026-03-02-001",
  corridor: "GB-GBP-bank",
  amount: 123.45,
  fundingCurrency: "NGN",
  purpose: "EDUCATION",
  purposeNote: "Spring term tuition",
  beneficiary: { sortCode: "200000", accountNumber: "55779911", accountName: "James Smith" }
})
export type GlobalSendBody = typeof GlobalSendBody.Type

export const GlobalSend = example(Schema.Struct({
  id: Schema.String,
  customerId: Schema.String,
  reference: Schema.String,
  corridor: Schema.String,
  status: GlobalSendStatus,
  destinationCountry: Schema.String,
  destinationCurrency: Schema.String,
  /** What the send is denominated in: USDT cross-border, the customer's currency on the domestic corridor. */
  asset: Schema.String,
  /** What the sender sent, fees included, in `asset`. */
  amount: Schema.Number,
  /** Our fee, taken from `amount` before conversion (0 when none applies; always 0 on the domestic corridor). */
  transferFee: Schema.Number,
  /** The payout partner's fee (the bank's withdrawal fee on the domestic corridor, added to what is debited). */
  partnerFee: Schema.Number,
  /** What reaches the payout partner for conversion (cross-border), or the bank payout (domestic), in `asset`. */
  assetAmount: Schema.Number,
  settledBy: SettledBy,
  /** The balance debited and how much: `asset` itself, or the customer's currency at `rate`. */
  fundingCurrency: Schema.String,
  fundingAmount: Schema.Number,
  /** The live buy rate (customer's currency per USDT) a LOCAL_CONVERSION used; null otherwise. */
  rate: Schema.NullOr(Schema.Number),
  purpose: SendPurpose,
  purposeNote: Schema.NullOr(Schema.String),
  beneficiary: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  failureReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}), {
  id: "9c4e2a7f-1d3b-4f6e-8a5c-7b0d3e9f1a46",
  customerId: sample.customerId,
  reference: "gs-2026-03-02-001",
  corridor: "GB-GBP-bank",
  status: "PROCESSING",
  destinationCountry: "GB",
  destinationCurrency: "GBP",
  asset: "USDT",
  amount: 123.45,
  transferFee: 2,
  partnerFee: 1.5,
  assetAmount: 126.95,
  settledBy: "LOCAL_CONVERSION",
  fundingCurrency: "NGN",
  fundingAmount: 209467.5,
  rate: 1650,
  purpose: "EDUCATION",
  purposeNote: "Spring term tuition",
  beneficiary: { sortCode: "200000", accountNumber: "55779911", accountName: "James Smith" },
  failureReason: null,
  createdAt: sample.at,
  updatedAt: sample.at
})
export type GlobalSend = typeof GlobalSend.Type

export const GlobalSendPath = Schema.Struct({ customerId: Schema.String, reference: Schema.String })

export class InvalidBeneficiary extends ApiError("InvalidBeneficiary", 400, "INVALID_BENEFICIARY") {}

export class GlobalSendNotEnabled extends ApiError("GlobalSendNotEnabled", 400, "GLOBAL_SEND_NOT_ENABLED", {
  group: Schema.String,
  status: Schema.String
}) {}

export class GlobalSendBelowMinimum extends ApiError("GlobalSendBelowMinimum", 400, "GLOBAL_SEND_BELOW_MINIMUM", {
  minimumAmount: Schema.Number,
  asset: Schema.String
}) {}

export class GlobalSendStateConflict extends ApiError("GlobalSendStateConflict", 400, "GLOBAL_SEND_STATE_CONFLICT") {}

export class GlobalSendNotFound extends ApiError("GlobalSendNotFound", 404, "GLOBAL_SEND_NOT_FOUND") {
  static readonly standard = () => new GlobalSendNotFound({ message: "No global send with this reference exists for this customer" })
}

const initiate = <const Name extends string>(name: Name, path: `/${string}`, summary: string) =>
  HttpApiEndpoint.post(name, path)
    .annotateContext(OpenApi.annotations({
      summary,
      description: "Pays `amount` out through `corridor` to `beneficiary` (the corridor's `recipientSchema`; China also " +
        "`logisticsTracking` and `documents`) for `purpose`. Cross-border: USDT (or the customer's currency with " +
        "`fundingCurrency`, converted at the live buy rate) is reserved, less our `transferFee` and the payout " +
        "partner's `partnerFee`; needs the corridor's destination group APPROVED. Domestic NG: a bank payout with the " +
        "withdrawal fee and minimum, also emitting `withdrawal.*` under the same `reference`. Answers 201 `PROCESSING` " +
        "and emits `global_send.initiated`; a repeated `reference` (on either path) answers the original."
    }))
    .setPath(CustomerIdPath)
    .setPayload(GlobalSendBody)
    .addSuccess(Envelope(GlobalSend), { status: 201 })
    .addError(BadRequest)
    .addError(InvalidBeneficiary)
    .addError(KycDocumentNotFound)
    .addError(GlobalSendNotEnabled)
    .addError(GlobalSendBelowMinimum)
    .addError(InsufficientBalance)
    .addError(CustomerForbidden)
    .addError(ReferenceInUse)
    .addError(CustomerBusy)
    .addError(PayoutRailUnavailable)
    .addError(BankRailUnavailable)
    .addError(ExchangeRailUnavailable)

export class GlobalSendApi extends HttpApiGroup.make("globalSend").annotateContext(resourceTag("globalSend"))
  .add(initiate("initiate", "/customers/:customerId/global-send/initiate", "Initiate a global send"))
  .add(initiate("initiateAlias", "/customers/:customerId/global-send", "Initiate a global send (alias of .../global-send/initiate)"))
  .add(
    HttpApiEndpoint.get("list", "/customers/:customerId/global-sends")
      .annotateContext(OpenApi.annotations({ summary: "List global sends", description: "The customer's global sends, newest first, cursor-paginated." }))
      .setPath(CustomerIdPath)
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(PageEnvelope(GlobalSend))
      .addError(BadRequest)
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:customerId/global-sends/:reference")
      .annotateContext(OpenApi.annotations({
        summary: "Get a global send",
        description: "One global send by its `reference`. Unknown, or another customer's: 404 `GLOBAL_SEND_NOT_FOUND`."
      }))
      .setPath(GlobalSendPath)
      .addSuccess(Envelope(GlobalSend))
      .addError(GlobalSendNotFound)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

export const FailGlobalSendBody = Schema.Struct({
  reason: Schema.compose(
    Schema.Trim,
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must be 1 to 500 characters" }),
      Schema.maxLength(500, { message: () => "must be 1 to 500 characters" })
    )
  )
})

/** The payout partner's outcome of a cross-border global send, decided by hand (sandbox). */
export class SandboxGlobalSendsApi extends HttpApiGroup.make("sandboxGlobalSends").annotateContext(resourceTag("sandboxGlobalSends"))
  .add(
    HttpApiEndpoint.post("complete", "/customers/:customerId/global-sends/:reference/complete")
      .annotateContext(OpenApi.annotations({
        summary: "Complete a global send (sandbox)",
        description: "The payout partner confirms delivery of a `PROCESSING` cross-border send: `COMPLETED`, the " +
          "reservation posted, `global_send.completed`. A domestic send completes through its withdrawal " +
          "(`/sandbox/withdrawals/{id}/complete`). Any other status: 400 `GLOBAL_SEND_STATE_CONFLICT`."
      }))
      .setPath(GlobalSendPath)
      .addSuccess(Envelope(GlobalSend))
      .addError(GlobalSendNotFound)
      .addError(GlobalSendStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("fail", "/customers/:customerId/global-sends/:reference/fail")
      .annotateContext(OpenApi.annotations({
        summary: "Fail a global send (sandbox)",
        description: "`{ reason }`: the payout partner fails a `PROCESSING` cross-border send: `FAILED` with the reason, " +
          "everything reserved returned, `global_send.failed`. Any other status: 400 `GLOBAL_SEND_STATE_CONFLICT`."
      }))
      .setPath(GlobalSendPath)
      .setPayload(FailGlobalSendBody)
      .addSuccess(Envelope(GlobalSend))
      .addError(BadRequest)
      .addError(GlobalSendNotFound)
      .addError(GlobalSendStateConflict)
      .addError(CustomerBusy)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
