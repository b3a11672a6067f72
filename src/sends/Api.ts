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
import { CustomerBusy, InsufficientBalance, ReferenceInUse } from "../ledger/Errors.js"
import { Reference } from "../ledger/Reference.js"
import { AmountNumber } from "../money/Money.js"
import { ChainRailUnavailable } from "../rails/Errors.js"
import { StablecoinAsset } from "../reference/Networks.js"

/**
 * Crypto sends: USDT or USDC on-chain to an external address (docs/contract.md "Send network", "Send quote", "Send",
 * "Crypto send"). Amounts are JSON numbers. Decisions the spec leaves open: docs/sends.md.
 */

const networkList = "TRON, ETHEREUM, BSC, POLYGON, SOLANA"

/** docs/contract.md "Send network". */
export const SendNetwork = Schema.Struct({
  network: Schema.String,
  displayName: Schema.String,
  evm: Schema.Boolean,
  flatFeeUsdt: Schema.Number,
  minSendUsdt: Schema.Number,
  recommended: Schema.Boolean,
  assets: Schema.Array(StablecoinAsset)
})
export type SendNetwork = typeof SendNetwork.Type

const NetworkField = described(Schema.String.pipe(
  Schema.minLength(1, { message: () => `must be one of ${networkList}` }),
  Schema.maxLength(40, { message: () => `must be one of ${networkList}` })
), `The chain to send on: ${networkList} (\`GET .../send/networks\` lists them with their fees).`)

const AssetField = StablecoinAsset.annotations({ message: () => "must be USDT or USDC" })

export const SendQuoteBody = example(Schema.Struct({
  asset: AssetField,
  amount: AmountNumber,
  network: NetworkField
}), { asset: "USDT", amount: 50, network: "TRON" })
export type SendQuoteBody = typeof SendQuoteBody.Type

/** docs/contract.md "Send quote". */
export const SendQuote = example(Schema.Struct({
  asset: Schema.String,
  network: Schema.String,
  amount: Schema.Number,
  fee: Schema.Number,
  netAmount: Schema.Number,
  minSendUsdt: Schema.Number,
  /** The customer's available balance in `asset`. */
  balance: Schema.Number,
  meetsMin: Schema.Boolean,
  sufficientBalance: Schema.Boolean,
  valid: Schema.Boolean
}), {
  asset: "USDT",
  network: "TRON",
  amount: 50,
  fee: 1,
  netAmount: 49,
  minSendUsdt: 5,
  balance: 120.5,
  meetsMin: true,
  sufficientBalance: true,
  valid: true
})
export type SendQuote = typeof SendQuote.Type

export const SendBody = example(Schema.Struct({
  asset: AssetField,
  amount: AmountNumber,
  network: NetworkField,
  toAddress: described(Schema.String.pipe(
    Schema.minLength(1, { message: () => "is required" }),
    Schema.maxLength(200, { message: () => "must be at most 200 characters" })
  ), "The receiving address on `network` (a Tron T... address, a 0x... EVM address, a Solana address)."),
  reference: Schema.optional(described(Reference, "Your id for this send (letters, digits, `.`, `_`, `-`; up to 120): the same reference again returns the original send and moves nothing."))
}), { asset: "USDT", amount: 50, network: "TRON", toAddress: sample.tronAddress, reference: "send-2026-03-02-001" })
export type SendBody = typeof SendBody.Type

/** `PENDING`, then `CONFIRMED` or `FAILED` (docs/contract.md "Crypto send"). */
export const SendStatus = Schema.Literal("PENDING", "CONFIRMED", "FAILED")
export type SendStatus = typeof SendStatus.Type

/** Why a send failed, one of the causes docs/contract.md "Crypto send" names. */
export const SendFailureCause = Schema.Literal("rejected", "reverted", "dropped", "undeliverable")
export type SendFailureCause = typeof SendFailureCause.Type

/** docs/contract.md "Send", plus `id`, `failureReason`, `createdAt` and `updatedAt`. */
export const Send = example(Schema.Struct({
  id: Schema.UUID,
  reference: Schema.String,
  asset: Schema.String,
  network: Schema.String,
  amount: Schema.Number,
  fee: Schema.Number,
  netAmount: Schema.Number,
  toAddress: Schema.String,
  txHash: Schema.NullOr(Schema.String),
  status: SendStatus,
  failureReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}), {
  id: sample.sendId,
  reference: "send-2026-03-02-001",
  asset: "USDT",
  network: "TRON",
  amount: 50,
  fee: 1,
  netAmount: 49,
  toAddress: sample.tronAddress,
  txHash: null,
  status: "PENDING",
  failureReason: null,
  createdAt: sample.at,
  updatedAt: sample.at
})
export type Send = typeof Send.Type

export const SendPath = Schema.Struct({ customerId: Schema.String, reference: Schema.String })

export class InvalidAddress extends ApiError("InvalidAddress", 400, "INVALID_ADDRESS") {}

export class SendBelowMinimum extends ApiError("SendBelowMinimum", 400, "SEND_BELOW_MINIMUM", {
  minimumAmount: Schema.Number,
  asset: Schema.String,
  network: Schema.String
}) {}

export class SendToOwnAddress extends ApiError("SendToOwnAddress", 400, "SEND_TO_OWN_ADDRESS") {}

export class SendStateConflict extends ApiError("SendStateConflict", 400, "SEND_STATE_CONFLICT") {}

export class SendNotFound extends ApiError("SendNotFound", 404, "SEND_NOT_FOUND") {
  static readonly standard = () => new SendNotFound({ message: "No send with this reference exists for this customer" })
}

export class SendsApi extends HttpApiGroup.make("sends").annotateContext(resourceTag("sends"))
  .add(
    HttpApiEndpoint.get("networks", "/customers/:customerId/send/networks")
      .annotateContext(OpenApi.annotations({
        summary: "List send networks",
        description: "The networks a send can use, as a plain array: flat fee and minimum in USDT, the assets each " +
          "carries, and `recommended` on the cheapest."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(example(Schema.Array(SendNetwork), [
        { network: "TRON", displayName: "Tron (TRC-20)", evm: false, flatFeeUsdt: 1, minSendUsdt: 5, recommended: true, assets: ["USDT"] },
        { network: "ETHEREUM", displayName: "Ethereum (ERC-20)", evm: true, flatFeeUsdt: 4, minSendUsdt: 10, recommended: false, assets: ["USDT", "USDC"] }
      ])))
  )
  .add(
    HttpApiEndpoint.post("quote", "/customers/:customerId/send/quote")
      .annotateContext(OpenApi.annotations({
        summary: "Quote a send",
        description: "Checks a send against the network's minimum and the customer's balance and moves nothing. " +
          "`fee` is the network's flat fee; `netAmount` = `amount` - `fee`. Send only when `valid` is true. An " +
          "unknown network or an asset the network does not carry: 400."
      }))
      .setPath(CustomerIdPath)
      .setPayload(SendQuoteBody)
      .addSuccess(Envelope(SendQuote))
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.post("send", "/customers/:customerId/send")
      .annotateContext(OpenApi.annotations({
        summary: "Send stablecoin",
        description: "Reserves `amount` (available -> held), hands the transaction to the chain and answers 201 " +
          "with the send `PENDING` (`send.pending`). The chain's outcome follows: `CONFIRMED` (`send.confirmed`) or " +
          "`FAILED` (`send.failed`, the whole amount back). Idempotent by `reference`."
      }))
      .setPath(CustomerIdPath)
      .setPayload(SendBody)
      .addSuccess(Envelope(Send), { status: 201 })
      .addError(BadRequest)
      .addError(InvalidAddress)
      .addError(SendBelowMinimum)
      .addError(SendToOwnAddress)
      .addError(InsufficientBalance)
      .addError(ReferenceInUse)
      .addError(CustomerBusy)
      .addError(ChainRailUnavailable)
  )
  .add(
    HttpApiEndpoint.get("list", "/customers/:customerId/sends")
      .annotateContext(OpenApi.annotations({
        summary: "List sends",
        description: "The customer's sends, newest first, as a cursor list."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(PageEnvelope(Send))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("get", "/customers/:customerId/sends/:reference")
      .annotateContext(OpenApi.annotations({
        summary: "Get a send",
        description: "One send by its `reference`. Unknown, or another customer's: 404 `SEND_NOT_FOUND`."
      }))
      .setPath(SendPath)
      .addSuccess(Envelope(Send))
      .addError(SendNotFound)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

export const FailSendBody = example(Schema.Struct({
  reason: SendFailureCause.annotations({ message: () => "must be one of rejected, reverted, dropped, undeliverable" })
}), { reason: "rejected" })

/** The chain's outcome of a send, decided by hand (sandbox). */
export class SandboxSendsApi extends HttpApiGroup.make("sandboxSends").annotateContext(resourceTag("sandboxSends"))
  .add(
    HttpApiEndpoint.post("confirm", "/customers/:customerId/sends/:reference/confirm")
      .annotateContext(OpenApi.annotations({
        summary: "Confirm a send (sandbox)",
        description: "The chain mines a `PENDING` send: it becomes `CONFIRMED` with a `txHash` in the network's format " +
          "and `send.confirmed` is emitted. Any other status: 400 `SEND_STATE_CONFLICT`."
      }))
      .setPath(SendPath)
      .addSuccess(Envelope(Send))
      .addError(SendNotFound)
      .addError(SendStateConflict)
      .addError(CustomerBusy)
  )
  .add(
    HttpApiEndpoint.post("fail", "/customers/:customerId/sends/:reference/fail")
      .annotateContext(OpenApi.annotations({
        summary: "Fail a send (sandbox)",
        description: "The chain fails a `PENDING` send for `reason`: `rejected` (before broadcast, no `txHash`), " +
          "`reverted`, `dropped` (from the mempool) or `undeliverable` (at the receiving exchange). It becomes " +
          "`FAILED`, the whole amount returns and `send.failed` is emitted. Any other status: 400 `SEND_STATE_CONFLICT`."
      }))
      .setPath(SendPath)
      .setPayload(FailSendBody)
      .addSuccess(Envelope(Send))
      .addError(BadRequest)
      .addError(SendNotFound)
      .addError(SendStateConflict)
      .addError(CustomerBusy)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
