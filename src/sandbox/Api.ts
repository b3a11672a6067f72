import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { example, resourceTag } from "../api/Docs.js"
import { BadRequest, InvalidCursor } from "../api/ApiError.js"
import { SandboxAuth } from "../api/Auth.js"
import { Envelope, PageEnvelope } from "../api/Envelope.js"
import { PageParams } from "../api/PageParams.js"

export const KybStatus = Schema.Literal("PENDING", "APPROVED", "REJECTED")

export const CreatePartner = example(Schema.Struct({
  name: Schema.optional(Schema.Trim.pipe(Schema.compose(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))))),
  kybStatus: Schema.optional(KybStatus)
}), { name: "Acme Wallet", kybStatus: "APPROVED" })

export const CreatedPartner = Schema.Struct({
  partnerId: Schema.UUID,
  name: Schema.String,
  apiKey: Schema.String,
  kybStatus: KybStatus
})

export const PartnerView = Schema.Struct({
  partnerId: Schema.UUID,
  name: Schema.String,
  kybStatus: KybStatus,
  kybReason: Schema.NullOr(Schema.String),
  updatedAt: Schema.Date
})

export const SetKyb = example(Schema.Struct({
  status: KybStatus,
  reason: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)))
}), { status: "APPROVED" })

/** The calling partner's clock (docs/sandbox.md "A clock per partner"). */
export const ClockReading = Schema.Struct({
  now: Schema.Date,
  /** How far the partner's clock is ahead of real time. */
  offsetSeconds: Schema.Number,
  /** The part of `offsetSeconds` that the partner's own advances made (the rest is the instance's offset). */
  partnerOffsetSeconds: Schema.Number
})

/** At most 400 days per call: enough to walk any schedule, small enough to catch a unit mistake. */
export const AdvanceClock = example(Schema.Struct({
  seconds: Schema.Number.pipe(
    Schema.int({ message: () => "must be a whole number of seconds" }),
    Schema.between(1, 400 * 86_400, { message: () => "must be from 1 to 34560000 (400 days)" })
  )
}), { seconds: 1800 })

export const Event = Schema.Struct({
  id: Schema.UUID,
  type: Schema.String,
  createdAt: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

export const EventFilter = Schema.Struct({
  ...PageParams,
  customerId: Schema.optional(Schema.UUID.annotations({ message: () => "must be a customer id (uuid)" })),
  type: Schema.optional(Schema.String.pipe(Schema.pattern(/^[a-z_]+\.[a-z_]+$/, { message: () => "must be an event type such as customer.registered" })))
})

/** Creating a partner is the one unauthenticated sandbox route: it is how a tester gets a key. */
export class SandboxPartnersApi extends HttpApiGroup.make("sandboxPartners").annotateContext(resourceTag("sandboxPartners"))
  .add(
    HttpApiEndpoint.post("create", "/partners")
      .annotateContext(OpenApi.annotations({
        summary: "Create a sandbox partner",
        description: "Creates a partner and its API key, shown only in this response. Needs no API key, and the body " +
          "is optional: `name` defaults to `Sandbox Partner`, `kybStatus` to `APPROVED`."
      }))
      .setPayload(Schema.NullOr(CreatePartner).annotations({ description: "Optional: an empty body creates an APPROVED partner" }))
      .addSuccess(Envelope(CreatedPartner), { status: 201 })
      .addError(BadRequest)
  )
  .prefix("/sandbox")
{}

export class SandboxApi extends HttpApiGroup.make("sandbox").annotateContext(resourceTag("sandbox"))
  .add(HttpApiEndpoint.get("partner", "/partner")
    .annotateContext(OpenApi.annotations({
      summary: "Get the calling partner",
      description: "The partner of the API key with its KYB status; works whatever that status is."
    }))
    .addSuccess(Envelope(PartnerView)))
  .add(
    HttpApiEndpoint.post("setKyb", "/partner/kyb")
      .annotateContext(OpenApi.annotations({
        summary: "Decide the partner's KYB",
        description: "Plays compliance's decision on the calling partner's KYB: `APPROVED`, `REJECTED` or `PENDING` " +
          "(the last two need a `reason`). Emits `partner.approved`, `partner.rejected` or " +
          "`partner.resubmission_requested`."
      }))
      .setPayload(SetKyb)
      .addSuccess(Envelope(PartnerView))
      .addError(BadRequest)
  )
  .add(HttpApiEndpoint.get("clock", "/clock")
    .annotateContext(OpenApi.annotations({
      summary: "Read the service clock",
      description: "`{ now, offsetSeconds, partnerOffsetSeconds }`: the calling partner's clock, which every " +
        "timestamp, expiry, rail delay and webhook retry of that partner reads (real time plus an offset that only " +
        "moves forward; each partner has its own, moved only by its own advances)."
    }))
    .addSuccess(Envelope(ClockReading)))
  .add(
    HttpApiEndpoint.post("advanceClock", "/clock/advance")
      .annotateContext(OpenApi.annotations({
        summary: "Advance the service clock",
        description: "Moves the calling partner's clock forward by `seconds` (1 second to 400 days) and answers after " +
          "every job and webhook attempt of the partner due by its new time has run. Other partners' clocks do not move."
      }))
      .setPayload(AdvanceClock)
      .addSuccess(Envelope(ClockReading))
  )
  .add(
    HttpApiEndpoint.get("events", "/events")
      .annotateContext(OpenApi.annotations({
        summary: "List events",
        description: "Every event of the partner, newest first, as a cursor list, whether or not a webhook URL is set; " +
          "optionally for one `customerId` and one `type`."
      }))
      .setUrlParams(EventFilter)
      .addSuccess(PageEnvelope(Event))
      .addError(InvalidCursor)
  )
  .add(
    HttpApiEndpoint.get("eventsStream", "/events/stream")
      .annotateContext(OpenApi.annotations({
        summary: "Stream events",
        description: "The partner's new events as server-sent events (`text/event-stream`), optionally for one " +
          "`customerId` and one `type`. Send `Last-Event-ID` on reconnect to replay up to 1000 events after " +
          "it; a `: heartbeat` comment comes every 15 seconds."
      }))
      .setUrlParams(Schema.Struct({ customerId: EventFilter.fields.customerId, type: EventFilter.fields.type }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }).annotations({
        description: "Server-sent events: every new event of the partner as `id: <sequence>`, `event: <type>`, " +
          "`data: { id, type, createdAt, customerId, data }`; a `Last-Event-ID` header replays what came after it; " +
          "`: heartbeat` comments every 15 seconds."
      }))
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
