import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { resourceTag } from "../api/Docs.js"
import { ApiError, BadRequest, InvalidCursor } from "../api/ApiError.js"
import { SandboxAuth } from "../api/Auth.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { PageParams } from "../api/PageParams.js"
import { RailName, railNames } from "../rails/RailPolicy.js"
import { WebhookDelivery } from "../webhooks/Api.js"
import { Event } from "./Api.js"

/**
 * What the sandbox is waiting on and what it will do next, for any client (the TUI is one): the pending operations
 * of every rail with the controls that settle them, the work that falls due on the service clock before a time,
 * and an event's chain (its resource, the resource's ledger transactions and the event's webhook delivery).
 */

/**
 * A sandbox control that settles a pending operation: send `method` to `path` (under the service's origin, the
 * `/api/v1/sandbox/...` path in full) with `body`, plus `{ reason }` when `reason` is `required`.
 */
export const OperationAction = Schema.Struct({
  /** Stable name: `complete`, `fail`, `reverse`, `pay`, `approve`, `reject`, ... */
  name: Schema.String,
  label: Schema.String,
  method: Schema.Literal("POST", "PUT"),
  path: Schema.String,
  body: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  reason: Schema.Literal("none", "required")
})
export type OperationAction = typeof OperationAction.Type

/** One operation a rail has started and not finished: a withdrawal payout, an unpaid funding charge, a KYC review. */
export const PendingOperation = Schema.Struct({
  /** The resource's id (withdrawal, funding charge, KYC record). */
  id: Schema.String,
  /** What is pending: `withdrawal`, `funding_charge`, `kyc_review`, ... (later flows add their own). */
  kind: Schema.String,
  rail: RailName,
  customerId: Schema.UUID,
  status: Schema.String,
  reference: Schema.NullOr(Schema.String),
  /** One line for people: amount, currency, destination or tier. */
  summary: Schema.String,
  createdAt: Schema.Date,
  /** When the rail answers by itself on the service clock; null when it waits for a control (manual policy). */
  dueAt: Schema.NullOr(Schema.Date),
  actions: Schema.Array(OperationAction)
})
export type PendingOperation = typeof PendingOperation.Type

export const OperationFilter = Schema.Struct({
  ...PageParams,
  rail: Schema.optional(RailName.annotations({ message: () => `must be one of ${railNames.join(", ")}` })),
  customerId: Schema.optional(Schema.UUID.annotations({ message: () => "must be a customer id (uuid)" }))
})

/** Something the service will do on its own when the service clock reaches `at`. */
export const DueItem = Schema.Struct({
  /** Stable id of the work: the job id, or the event id of a webhook delivery. */
  id: Schema.String,
  at: Schema.Date,
  /** `job` or `webhook_delivery`. */
  kind: Schema.Literal("job", "webhook_delivery"),
  /** The job kind (`bank.payout`, ...) or the event type of the delivery. */
  name: Schema.String,
  /** One line for people: what happens. */
  description: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  resourceId: Schema.NullOr(Schema.String)
})
export type DueItem = typeof DueItem.Type

const secondsMessage = () => "must be a whole number of seconds from 0 to 34560000 (400 days)"

/** At most 400 days ahead, like an advance. Digits only: NumberFromString alone would also take "1e3" or " 5". */
export const DueFilter = Schema.Struct({
  ...PageParams,
  seconds: Schema.optional(Schema.String.pipe(
    // The query text is decimal digits; the document shows it with its meaning.
    Schema.pattern(/^[0-9]{1,8}$/, {
      message: secondsMessage,
      description: "how far ahead of the service clock to look, in whole seconds from 0 to 34560000 (400 days); default 0"
    }),
    Schema.compose(Schema.NumberFromString),
    Schema.int({ message: secondsMessage }),
    Schema.between(0, 400 * 86_400, { message: secondsMessage })
  ))
})

export const ChainEntry = Schema.Struct({
  /** `available` or `held` (the customer's), or the house account's code. */
  account: Schema.String,
  currency: Schema.String,
  /** Signed: positive credits the account. */
  amount: Schema.Number
})

export const ChainTransaction = Schema.Struct({
  id: Schema.UUID,
  eventId: Schema.UUID,
  reason: Schema.String,
  resourceType: Schema.String,
  resourceId: Schema.String,
  reference: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  entries: Schema.Array(ChainEntry)
})

export const EventChain = Schema.Struct({
  event: Event,
  /** The resource the event is about, when it names one. */
  resource: Schema.NullOr(Schema.Struct({ type: Schema.String, id: Schema.String })),
  /** Every ledger transaction of the resource (not only this event's), oldest first. */
  transactions: Schema.Array(ChainTransaction),
  /** The event's webhook delivery; null when no webhook URL was set when it happened. */
  delivery: Schema.NullOr(WebhookDelivery),
  /** The other events of the same resource, oldest first. */
  related: Schema.Array(Event)
})
export type EventChain = typeof EventChain.Type

export class EventNotFound extends ApiError("EventNotFound", 404, "EVENT_NOT_FOUND") {
  static readonly standard = () => new EventNotFound({ message: "No event with this id exists for this partner" })
}

/** Any string: a malformed id answers the same 404 as an unknown or foreign one. */
export const EventIdPath = Schema.Struct({ eventId: Schema.String })

export class SandboxInspectApi extends HttpApiGroup.make("sandboxInspect").annotateContext(resourceTag("sandboxInspect"))
  .add(
    HttpApiEndpoint.get("operations", "/operations")
      .annotateContext(OpenApi.annotations({
        summary: "List pending rail operations",
        description: "Every operation a simulated rail has started and not finished for the calling partner, " +
          "newest first, as a cursor list (optionally for one `rail` and one `customerId`): withdrawals being paid " +
          "out, unpaid funding charges, KYC tiers awaiting a decision. Each carries `dueAt` (when the rail answers by " +
          "itself; null under a manual policy) and the `actions`: the sandbox controls that settle it, with their " +
          "method, path and body."
      }))
      .setUrlParams(OperationFilter)
      .addSuccess(PageEnvelope(PendingOperation))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("due", "/clock/due")
      .annotateContext(OpenApi.annotations({
        summary: "List work due on the clock",
        description: "What the service will do by itself for the calling partner when the service clock has moved " +
          "`seconds` ahead (default 0: what is due now): scheduled jobs (rail answers, expiries) and webhook " +
          "attempts, soonest first, as a cursor list. Advancing the clock by `seconds` runs exactly these."
      }))
      .setUrlParams(DueFilter)
      .addSuccess(PageEnvelope(DueItem))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("event", "/events/:eventId")
      .annotateContext(OpenApi.annotations({
        summary: "Get an event and its chain",
        description: "One event of the calling partner with what it is linked to: the resource it is about, the " +
          "resource's ledger transactions with their entries, the event's webhook delivery, and the resource's " +
          "other events."
      }))
      .setPath(EventIdPath)
      .addSuccess(Envelope(EventChain))
      .addError(EventNotFound)
      .addError(BadRequest)
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
