import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CustomerIdPath } from "../customers/Api.js"
import { CustomerForbidden, InvalidCursor } from "../http/ApiError.js"
import { PartnerAuth } from "../http/Auth.js"
import { Envelope, PageEnvelope } from "../http/Envelope.js"
import { PageParams } from "../http/PageParams.js"
import { AssetCode } from "../money/Money.js"

export const BalanceEntry = Schema.Struct({ currency: Schema.String, balance: Schema.Number })

export const LedgerEntry = Schema.Struct({
  id: Schema.UUID,
  type: Schema.Literal("CREDIT", "DEBIT"),
  reason: Schema.String,
  amount: Schema.Number,
  currency: Schema.String,
  balanceAfter: Schema.Number,
  reference: Schema.NullOr(Schema.String),
  resourceType: Schema.String,
  resourceId: Schema.String,
  transactionId: Schema.UUID,
  createdAt: Schema.Date
})

export class LedgerApi extends HttpApiGroup.make("ledger")
  .add(
    HttpApiEndpoint.get("balance", "/customers/:customerId/balance")
      .annotateContext(OpenApi.annotations({
        summary: "Get balances",
        description: "The customer's available balances as a plain array of `{ currency, balance }`: the customer's " +
          "fiat currency first (0 before any money arrives), then every other currency held. Money reserved " +
          "for a withdrawal or send in flight is not included."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(Schema.Array(BalanceEntry)))
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.get("balanceStream", "/customers/:customerId/balance/stream")
      .annotateContext(OpenApi.annotations({
        summary: "Stream balances",
        description: "Server-sent events (`text/event-stream`): an `event: balance` with `{ customerId, balances, at " +
          "}` on connect and after every change, and a `: heartbeat` comment every 15 seconds. Reconnect " +
          "for a fresh snapshot."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }).annotations({
        description: "Server-sent events: `event: balance` with `{ customerId, balances, at }` on connect and after " +
          "every change; `: heartbeat` comments every 15 seconds."
      }))
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.get("transactions", "/customers/:customerId/transactions")
      .annotateContext(OpenApi.annotations({
        summary: "List ledger entries",
        description: "The entries on the customer's available balances, newest first, as a cursor list, optionally for " +
          "one `currency`. Each entry has its `reason`, `balanceAfter`, the operation's `reference` and the " +
          "resource the money moved for."
      }))
      .setPath(CustomerIdPath)
      .setUrlParams(Schema.Struct({ ...PageParams, currency: Schema.optional(AssetCode) }))
      .addSuccess(PageEnvelope(LedgerEntry))
      .addError(CustomerForbidden)
      .addError(InvalidCursor)
  )
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}
