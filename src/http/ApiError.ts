import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * Every error the service returns has the seven fields of SPEC.md "Errors". The error classes below carry them
 * all as schema fields with constructor defaults, so that a handler writes `new CustomerForbidden({ message })`
 * and the OpenAPI document shows the real envelope. `timestamp` and `path` belong to the request: the HTTP
 * middleware fills them in (see ErrorEnvelope.ts).
 */
const fixed = <const L extends string | number | boolean>(value: L) =>
  Schema.Literal(value).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => value))

export const envelopeFields = <const Tag extends string, const Status extends number, const Code extends string>(
  tag: Tag,
  status: Status,
  code: Code
) => ({
  success: fixed(false),
  statusCode: fixed(status),
  code: fixed(code),
  message: Schema.String,
  error: fixed(tag),
  timestamp: Schema.String.pipe(Schema.propertySignature, Schema.withConstructorDefault(() => "")),
  path: Schema.String.pipe(Schema.propertySignature, Schema.withConstructorDefault(() => ""))
})

export const status = <A>(status: number) => HttpApiSchema.annotations<A>({ status })

/** The plain error body, for responses produced outside an endpoint (unknown route, malformed JSON, ...). */
export const ErrorBody = Schema.Struct({
  success: Schema.Literal(false),
  statusCode: Schema.Int,
  code: Schema.String,
  message: Schema.String,
  error: Schema.String,
  timestamp: Schema.String,
  path: Schema.String,
  /** Machine-readable facts of some refusals (e.g. the minimum amount); documented with each code. */
  details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type ErrorBody = typeof ErrorBody.Type

/** The optional `details` field of an error class. */
export const detailsField = <F extends Schema.Struct.Fields>(fields: F) => ({ details: Schema.Struct(fields) })

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { ...envelopeFields("BadRequest", 400, "BAD_REQUEST") },
  status(400)
) {}

export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()(
  "InvalidCursor",
  { ...envelopeFields("InvalidCursor", 400, "INVALID_CURSOR") },
  status(400)
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { ...envelopeFields("Unauthorized", 401, "UNAUTHORIZED") },
  status(401)
) {}

export class PartnerNotApproved extends Schema.TaggedError<PartnerNotApproved>()(
  "PartnerNotApproved",
  { ...envelopeFields("PartnerNotApproved", 403, "PARTNER_NOT_APPROVED") },
  status(403)
) {}

export class CustomerForbidden extends Schema.TaggedError<CustomerForbidden>()(
  "CustomerForbidden",
  { ...envelopeFields("CustomerForbidden", 403, "CUSTOMER_FORBIDDEN") },
  status(403)
) {
  static readonly standard = () =>
    new CustomerForbidden({ message: "The customer does not exist or does not belong to this partner" })
}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { ...envelopeFields("NotFound", 404, "NOT_FOUND") },
  status(404)
) {}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { ...envelopeFields("Conflict", 409, "CONFLICT") },
  status(409)
) {}

export class ServiceBusy extends Schema.TaggedError<ServiceBusy>()(
  "ServiceBusy",
  { ...envelopeFields("ServiceBusy", 503, "CUSTOMER_BUSY") },
  status(503)
) {}
