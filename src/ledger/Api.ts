import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { described, example, resourceTag, sample } from "../api/Docs.js"
import { CustomerIdPath } from "../customers/Api.js"
import { CustomerForbidden, InvalidCursor } from "../api/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { PageParams } from "../api/PageParams.js"
import { AssetCode } from "../money/Money.js"

export const BalanceEntry = Schema.Struct({
  currency: described(Schema.String, "NGN, GHS, KES, ZAR, UGX, USD (fiat) or USDT, USDC (stablecoins)."),
  balance: described(Schema.Number, "What the customer can spend now, in major units (250000.5 is NGN 250,000.50).")
})

export const LedgerEntry = example(Schema.Struct({
  id: Schema.UUID,
  type: Schema.Literal("CREDIT", "DEBIT"),
  reason: described(Schema.String, "Why the money moved, e.g. `funding`, `withdrawal`, `buy`."),
  amount: described(Schema.Number, "The amount moved, in major units."),
  currency: Schema.String,
  balanceAfter: described(Schema.Number, "The available balance of this currency right after the entry."),
  reference: described(Schema.NullOr(Schema.String), "The reference of the operation that moved the money, if it had one."),
  resourceType: described(Schema.String, "What the money moved for: `funding_charge`, `withdrawal`, `trade`, `send`, `global_send`, ..."),
  resourceId: described(Schema.String, "The id of that resource."),
  transactionId: described(Schema.UUID, "The ledger transaction: the entries of one movement share it."),
  createdAt: Schema.Date
}), {
  id: sample.transactionId,
  type: "CREDIT",
  reason: "funding",
  amount: 50000,
  currency: "NGN",
  balanceAfter: 250000,
  reference: "fund-2026-03-02-001",
  resourceType: "funding_charge",
  resourceId: sample.chargeId,
  transactionId: "a7d3f1b9-4c2e-4a8d-b6f0-9e1c3a5d7b28",
  createdAt: sample.at
})

export class LedgerApi extends HttpApiGroup.make("ledger").annotateContext(resourceTag("ledger"))
  .add(
    HttpApiEndpoint.get("balance", "/customers/:customerId/balance")
      .annotateContext(OpenApi.annotations({
        summary: "Get balances",
        description: "The customer's available balances as a plain array of `{ currency, balance }`: the customer's " +
          "fiat currency first (0 before any money arrives), then every other currency held. Money reserved " +
          "for a withdrawal or send in flight is not included."
      }))
      .setPath(CustomerIdPath)
      .addSuccess(Envelope(example(Schema.Array(BalanceEntry), [
        { currency: "NGN", balance: 250000 },
        { currency: "USDT", balance: 120.5 }
      ])))
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
      .addSuccess(example(HttpApiSchema.Text({ contentType: "text/event-stream" }), "event: balance\n" +
        `data: {"customerId":"${sample.customerId}","balances":[{"currency":"NGN","balance":250000}],"at":"${sample.at}"}\n\n` +
        ": heartbeat\n\n").annotations({
        description: "Server-sent events: `event: balance` with `{ customerId, balances, at }` on connect and after " +
          "every change; `: heartbeat` comments every 15 seconds."
      }))
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
      .addError(InvalidCursor)
  )
  // Every route of the group is a customer's: the 403 of a customer not the partner's, declared once.
  .addError(CustomerForbidden)
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

/** One currency of a customer: `available` (what the public balance route shows) and `held` (reserved). */
export const HeldBalanceEntry = Schema.Struct({
  currency: Schema.String,
  /** What the customer can spend: the public balance route's `balance`. */
  available: Schema.Number,
  /** Reserved for a withdrawal or send in flight; leaves when it completes, returns to available when it fails. */
  held: Schema.Number
})

export const CustomerBalances = Schema.Struct({
  customerId: Schema.UUID,
  firstName: Schema.String,
  lastName: Schema.String,
  email: Schema.String,
  country: Schema.String,
  /** The customer's fiat currency (from `country`); always the first of `balances`. */
  currency: Schema.String,
  createdAt: Schema.Date,
  balances: Schema.Array(HeldBalanceEntry)
})
export type CustomerBalances = typeof CustomerBalances.Type

export const CustomerBalancesFilter = Schema.Struct({
  ...PageParams,
  customerId: Schema.optional(Schema.UUID.annotations({ message: () => "must be a customer id (uuid)" }))
})

/** Sandbox view of the ledger: every customer's money, held included (for the terminal UI and any client). */
export class SandboxLedgerApi extends HttpApiGroup.make("sandboxLedger").annotateContext(resourceTag("sandboxLedger"))
  .add(
    HttpApiEndpoint.get("balances", "/balances")
      .annotateContext(OpenApi.annotations({
        summary: "List customers' balances, held included",
        description: "The calling partner's customers, newest first, as a cursor list (optionally one `customerId`), " +
          "each with its balances per currency: `available` (what `GET .../customers/{id}/balance` shows) and " +
          "`held` (reserved for a withdrawal or send in flight). The customer's fiat currency comes first (zeros " +
          "before any money), then every other currency the customer has an account in."
      }))
      .setUrlParams(CustomerBalancesFilter)
      .addSuccess(PageEnvelope(CustomerBalances))
      .addError(InvalidCursor)
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
