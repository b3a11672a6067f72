import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { described, example, exampleOf, resourceTag, sample } from "../api/Docs.js"
import { ApiError, BadRequest, InvalidCursor } from "../api/ApiError.js"
import { PartnerAuth, SandboxAuth } from "../api/Auth.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { PageParams } from "../api/PageParams.js"

/** `{ url, hasSecret, updatedAt }` (docs/contract.md "Webhook configuration"); before a URL is set: null, false, null. */
export const WebhookConfig = example(Schema.Struct({
  url: Schema.NullOr(Schema.String),
  hasSecret: Schema.Boolean,
  updatedAt: Schema.NullOr(Schema.Date)
}), { url: "https://hooks.example.com/pmm", hasSecret: true, updatedAt: sample.at })
export type WebhookConfig = typeof WebhookConfig.Type

export const SetWebhook = example(Schema.Struct({
  url: described(Schema.String, "Where to send events: an https URL on a public host (sandbox mode also takes http and local hosts).")
}), { url: "https://hooks.example.com/pmm" })

/** The outcome of the synchronous `webhook.test` delivery. */
export const TestResult = Schema.Struct({
  delivered: Schema.Boolean,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String)
})
export type TestResult = typeof TestResult.Type

/** The only response that carries the secret: PUT and rotate. */
export const WebhookSecretIssued = example(Schema.Struct({
  url: Schema.String,
  secret: described(Schema.String, "The signing secret: shown only here, keep it to verify each delivery's signature."),
  test: TestResult
}), {
  url: "https://hooks.example.com/pmm",
  secret: "whsec_3kTq9ZbX2mN7vR4pL8wY1cF6hJ0sD5gA",
  test: { delivered: true, statusCode: 200, error: null }
})
export type WebhookSecretIssued = typeof WebhookSecretIssued.Type

export const DeliveryStatus = Schema.Literal("PENDING", "DELIVERED", "DEAD")
export type DeliveryStatus = typeof DeliveryStatus.Type

/** docs/contract.md "Webhook delivery"; `id` is the event id. */
export const WebhookDelivery = example(Schema.Struct({
  id: Schema.UUID,
  type: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.Date),
  lastAttemptAt: Schema.NullOr(Schema.Date),
  lastResponseStatus: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  deliveredAt: Schema.NullOr(Schema.Date)
}), {
  id: sample.eventId,
  type: "customer.registered",
  status: "DELIVERED",
  attempts: 1,
  nextAttemptAt: null,
  lastAttemptAt: sample.at,
  lastResponseStatus: 200,
  lastError: null,
  createdAt: sample.at,
  deliveredAt: sample.at
})
export type WebhookDelivery = typeof WebhookDelivery.Type

/** The envelope as sent: `{ id, type, createdAt, data }`. */
export const DeliveryPayload = Schema.Struct({
  id: Schema.UUID,
  type: Schema.String,
  createdAt: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

export const WebhookDeliveryDetail = example(Schema.Struct({ ...WebhookDelivery.fields, payload: DeliveryPayload }), {
  ...exampleOf(WebhookDelivery),
  payload: {
    id: sample.eventId,
    type: "customer.registered",
    createdAt: sample.at,
    data: { customerId: sample.customerId, email: "ada.obi@example.com" }
  }
})
export type WebhookDeliveryDetail = typeof WebhookDeliveryDetail.Type

export const DeliveryFilter = Schema.Struct({
  ...PageParams,
  status: Schema.optional(DeliveryStatus.annotations({ message: () => "must be one of PENDING, DELIVERED, DEAD" }))
})

/** Any string: a malformed id answers the same 404 as an unknown or foreign one. */
export const DeliveryIdPath = Schema.Struct({ id: Schema.String })

export class WebhookUrlNotSet extends ApiError("WebhookUrlNotSet", 400, "WEBHOOK_URL_NOT_SET") {}

export class WebhookDeliveryNotFound extends ApiError("WebhookDeliveryNotFound", 404, "WEBHOOK_DELIVERY_NOT_FOUND") {
  static readonly standard = () =>
    new WebhookDeliveryNotFound({ message: "No webhook delivery with this id exists for this partner" })
}

export class WebhooksApi extends HttpApiGroup.make("webhooks").annotateContext(resourceTag("webhooks"))
  .add(HttpApiEndpoint.get("get", "/webhook")
    .annotateContext(OpenApi.annotations({
      summary: "Get the webhook configuration",
      description: "`{ url, hasSecret, updatedAt }`, or `{ url: null, hasSecret: false, updatedAt: null }` before a " +
        "URL is set. The secret is never returned by a read."
    }))
    .addSuccess(Envelope(WebhookConfig)))
  .add(
    HttpApiEndpoint.put("set", "/webhook")
      .annotateContext(OpenApi.annotations({
        summary: "Set the webhook URL",
        description: "Validates `url` (absolute http or https; https and a public host in production), mints a new " +
          "signing secret (the previous one stops working at once) and sends a signed `webhook.test` before " +
          "answering. The secret appears only in this response and in rotate's; `test.delivered: false` " +
          "does not fail the call."
      }))
      .setPayload(SetWebhook)
      .addSuccess(Envelope(WebhookSecretIssued))
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/webhook/rotate-secret")
      .annotateContext(OpenApi.annotations({
        summary: "Rotate the webhook secret",
        description: "Mints a new signing secret for the current URL and sends `webhook.test`, as PUT does. 400 " +
          "`WEBHOOK_URL_NOT_SET` when no URL was ever set."
      }))
      .addSuccess(Envelope(WebhookSecretIssued))
      .addError(WebhookUrlNotSet)
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/webhook/deliveries")
      .annotateContext(OpenApi.annotations({
        summary: "List webhook deliveries",
        description: "The delivery log, newest first, as a cursor list, optionally for one `status` (`PENDING`, " +
          "`DELIVERED` or `DEAD`)."
      }))
      .setUrlParams(DeliveryFilter)
      .addSuccess(PageEnvelope(WebhookDelivery))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("delivery", "/webhook/deliveries/:id")
      .annotateContext(OpenApi.annotations({
        summary: "Get a webhook delivery",
        description: "One delivery with the exact `payload` sent. An unknown, malformed or another partner's id " +
          "answers 404 `WEBHOOK_DELIVERY_NOT_FOUND`."
      }))
      .setPath(DeliveryIdPath)
      .addSuccess(Envelope(WebhookDeliveryDetail))
      .addError(WebhookDeliveryNotFound)
  )
  .add(
    HttpApiEndpoint.post("replay", "/webhook/deliveries/:id/replay")
      .annotateContext(OpenApi.annotations({
        summary: "Replay a webhook delivery",
        description: "Puts the delivery back to `PENDING`, due now, with the same event id and a fresh schedule of 8 " +
          "attempts."
      }))
      .setPath(DeliveryIdPath)
      .addSuccess(Envelope(WebhookDelivery))
      .addError(WebhookDeliveryNotFound)
  )
  .middleware(PartnerAuth)
  .prefix("/partner/v1")
{}

const chaosRange = (max: number) =>
  Schema.Int.pipe(Schema.between(0, max, { message: () => `must be a whole number from 0 to ${max}` }))

/** Sandbox webhook chaos settings (docs/sandbox.md "Webhook chaos"); an omitted field is 0 (off). */
export const ChaosSettings = Schema.Struct({
  /** Extra copies of every delivery, sent right after it (same body and id, freshly signed): 0 to 5. */
  duplicates: chaosRange(5),
  /** Each delivery's first attempt waits a random 0 to this many seconds more: deliveries arrive out of order. */
  reorderWindowSeconds: chaosRange(3600),
  /** Each delivery's first attempt waits this many seconds more (service clock): late deliveries. */
  extraDelaySeconds: chaosRange(86400),
  /** The first attempts of each delivery fail on purpose (nothing sent; retried on the schedule): 0 to 7. */
  failFirstAttempts: chaosRange(7)
})
export type ChaosSettings = typeof ChaosSettings.Type

export const SetChaosBody = example(Schema.Struct({
  duplicates: Schema.optional(ChaosSettings.fields.duplicates),
  reorderWindowSeconds: Schema.optional(ChaosSettings.fields.reorderWindowSeconds),
  extraDelaySeconds: Schema.optional(ChaosSettings.fields.extraDelaySeconds),
  failFirstAttempts: Schema.optional(ChaosSettings.fields.failFirstAttempts)
}), { duplicates: 1, failFirstAttempts: 2 })

export const ChaosReportItem = Schema.Struct({
  eventId: Schema.String,
  type: Schema.String,
  /** POSTs that reached the receiver's URL (the delivery's attempts and the duplicates). */
  sent: Schema.Int,
  /** Of those, the ones the receiver answered 2xx: more than 1 means the receiver took the event more than once. */
  acknowledged: Schema.Int,
  failedOnPurpose: Schema.Int,
  /** The positions (1-based) of this event's acknowledgements in the order the receiver gave them all. */
  acknowledgedAt: Schema.Array(Schema.Int),
  firstSentAt: Schema.Date
})

export const ChaosReport = Schema.Struct({
  settings: ChaosSettings,
  /** One item per event delivered under chaos since the settings were last set, in the order first sent. */
  events: Schema.Array(ChaosReportItem),
  /** Event ids in the order the receiver acknowledged them (each acknowledgement once). */
  acknowledgementOrder: Schema.Array(Schema.String)
})

export class SandboxWebhookChaosApi extends HttpApiGroup.make("sandboxWebhookChaos").annotateContext(resourceTag("sandboxWebhookChaos"))
  .add(
    HttpApiEndpoint.get("getChaos", "/webhook/chaos")
      .annotateContext(OpenApi.annotations({ summary: "Read webhook chaos (sandbox)", description: "The calling partner's chaos settings; all 0 is off." }))
      .addSuccess(Envelope(ChaosSettings))
  )
  .add(
    HttpApiEndpoint.put("setChaos", "/webhook/chaos")
      .annotateContext(OpenApi.annotations({
        summary: "Set webhook chaos (sandbox)",
        description: "`{ duplicates?, reorderWindowSeconds?, extraDelaySeconds?, failFirstAttempts? }` (omitted: 0) makes the " +
          "partner's deliveries arrive twice, out of order, late or failing first, never changing a body or an id; " +
          "starts a new report. Needs a webhook URL (400 `WEBHOOK_URL_NOT_SET`). Not applied to `webhook.test`."
      }))
      .setPayload(SetChaosBody)
      .addSuccess(Envelope(ChaosSettings))
      .addError(BadRequest)
      .addError(WebhookUrlNotSet)
  )
  .add(
    HttpApiEndpoint.get("chaosReport", "/webhook/chaos/report")
      .annotateContext(OpenApi.annotations({
        summary: "Webhook chaos report (sandbox)",
        description: "Per event delivered under chaos: POSTs sent, acknowledgements (2xx), attempts failed on purpose and " +
          "the acknowledgements' positions in the order the receiver gave them; the evidence that a receiver " +
          "dedupes on the event id and tolerates reordering."
      }))
      .addSuccess(Envelope(ChaosReport))
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
