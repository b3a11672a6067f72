import { HttpApiSchema } from "@effect/platform"
import { type Cause, Schema } from "effect"

/**
 * Every error the service returns has the seven fields of SPEC.md "Errors". An error class carries them all as
 * schema fields with constructor defaults, so that a handler writes `new CustomerForbidden({ message })` and the
 * OpenAPI document shows the real envelope. `timestamp` and `path` belong to the request: the HTTP middleware
 * fills them in (see ErrorEnvelope.ts).
 */
const fixed = <const L extends string | number | boolean>(value: L) =>
  Schema.Literal(value).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => value))

const envelopeFields = <const Tag extends string, const Status extends number, const Code extends string>(
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

type EnvelopeFields<Tag extends string, Status extends number, Code extends string> = ReturnType<
  typeof envelopeFields<Tag, Status, Code>
>

type DetailsFields<Details extends Schema.Struct.Fields | undefined> = Details extends Schema.Struct.Fields
  ? { readonly details: Schema.Struct<Details> }
  : {}

/** What `new NotFound({ message })` is: the envelope on a yieldable error (named so that types print short). */
export interface ApiErrorInstance<Tag extends string, Status extends number, Code extends string>
  extends Cause.YieldableError
{
  readonly _tag: Tag
  readonly success: false
  readonly statusCode: Status
  readonly code: Code
  readonly message: string
  readonly error: Tag
  readonly timestamp: string
  readonly path: string
}

type Instance<Tag extends string, Status extends number, Code extends string, Details> = Details extends
  Schema.Struct.Fields ? ApiErrorInstance<Tag, Status, Code> & { readonly details: Schema.Struct.Type<Details> }
  : ApiErrorInstance<Tag, Status, Code>

export interface ApiErrorClass<
  Tag extends string,
  Status extends number,
  Code extends string,
  Details extends Schema.Struct.Fields | undefined
> extends
  Schema.TaggedErrorClass<
    Instance<Tag, Status, Code, Details>,
    Tag,
    { readonly _tag: Schema.tag<Tag> } & EnvelopeFields<Tag, Status, Code> & DetailsFields<Details>
  >
{}

/**
 * Declares a tagged error with its HTTP status and stable code once (in the manner of `HttpApiSchema.EmptyError`):
 * `class NotFound extends ApiError("NotFound", 404, "NOT_FOUND") {}`. The optional `details` fields are the
 * machine-readable facts of the refusal, documented with its code. The class is a `Schema.TaggedError`: its
 * encoded form is the envelope (plus `details`), annotated with the status for HttpApi and the OpenAPI document.
 */
export const ApiError = <
  const Tag extends string,
  const Status extends number,
  const Code extends string,
  const Details extends Schema.Struct.Fields | undefined = undefined
>(
  tag: Tag,
  status: Status,
  code: Code,
  details?: Details
): ApiErrorClass<Tag, Status, Code, Details> => {
  const fields = {
    ...envelopeFields(tag, status, code),
    ...(details === undefined ? {} : { details: Schema.Struct(details) })
  }
  return Schema.TaggedError<any>()(tag, fields, HttpApiSchema.annotations({ status })) as any
}

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

export class BadRequest extends ApiError("BadRequest", 400, "BAD_REQUEST") {}

export class InvalidCursor extends ApiError("InvalidCursor", 400, "INVALID_CURSOR") {}

export class Unauthorized extends ApiError("Unauthorized", 401, "UNAUTHORIZED") {}

export class PartnerNotApproved extends ApiError("PartnerNotApproved", 403, "PARTNER_NOT_APPROVED") {}

export class CustomerForbidden extends ApiError("CustomerForbidden", 403, "CUSTOMER_FORBIDDEN") {
  static readonly standard = () =>
    new CustomerForbidden({ message: "The customer does not exist or does not belong to this partner" })
}

export class NotFound extends ApiError("NotFound", 404, "NOT_FOUND") {}
