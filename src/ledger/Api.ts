import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
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
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(Schema.Array(BalanceEntry)))
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.get("balanceStream", "/customers/:customerId/balance/stream")
      .setPath(CustomerIdPath)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }).annotations({
        description: "Server-sent events: `event: balance` with `{ customerId, balances, at }` on connect and after " +
          "every change; `: heartbeat` comments every 15 seconds."
      }))
      .addError(CustomerForbidden)
  )
  .add(
    HttpApiEndpoint.get("transactions", "/customers/:customerId/transactions")
      .setPath(CustomerIdPath)
      .setUrlParams(Schema.Struct({ ...PageParams, currency: Schema.optional(AssetCode) }))
      .addSuccess(PageEnvelope(LedgerEntry))
      .addError(CustomerForbidden)
      .addError(InvalidCursor)
  )
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}
