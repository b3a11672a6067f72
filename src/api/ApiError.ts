import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { type Cause, JSONSchema, Schema } from "effect"

/**
 * Every error the service returns has the seven fields of docs/contract.md "Errors". An error class carries them all as
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
  const detailsSchema = details === undefined ? undefined : Schema.Struct(details)
  const fields = {
    ...envelopeFields(tag, status, code),
    ...(detailsSchema === undefined ? {} : { details: detailsSchema })
  }
  // The class decodes by `_tag` (the typed client copies `error` into it), but the wire body has no `_tag`: the
  // OpenAPI document describes the body as sent, through the transformation's JSON Schema.
  const jsonSchema = errorJsonSchema({
    status,
    code,
    error: tag,
    ...(detailsSchema === undefined ? {} : {
      details: JSONSchema.fromAST(detailsSchema.ast, {
        definitions: errorSchemaDefinitions as Record<string, JSONSchema.JsonSchema7>,
        definitionPath: "#/components/schemas/",
        target: "openApi3.1"
      })
    })
  })
  return Schema.TaggedError<any>()(tag, fields, [HttpApiSchema.annotations({ status }), { jsonSchema }]) as any
}

/**
 * Schemas that the `details` of an error refer to by `$ref` (a detail field with an identifier): the OpenAPI
 * document adds them to `components.schemas` (see `describeErrors`).
 */
export const errorSchemaDefinitions: Record<string, unknown> = {}

/**
 * The JSON Schema of one error body exactly as the middleware writes it (ErrorEnvelope.ts): the seven fields of
 * docs/contract.md "Errors", `details` when the refusal has them, nothing else (no `_tag`).
 */
export const errorJsonSchema = (options: {
  readonly status: number
  readonly code: string
  readonly error: string
  readonly details?: unknown
  readonly description?: string | undefined
}): Record<string, unknown> => ({
  type: "object",
  required: ["success", "statusCode", "code", "message", "error", "timestamp", "path", ...(options.details === undefined ? [] : ["details"])],
  properties: {
    success: { type: "boolean", enum: [false] },
    statusCode: { type: "integer", enum: [options.status], description: "the HTTP status" },
    code: { type: "string", enum: [options.code], description: "stable code; branch on `statusCode` and `code`" },
    message: { type: "string", description: "human-readable; may change" },
    error: { type: "string", enum: [options.error], description: "error class name" },
    timestamp: { type: "string", format: "date-time" },
    path: { type: "string", description: "the request path" },
    ...(options.details === undefined ? {} : { details: options.details })
  },
  additionalProperties: false,
  ...(options.description === undefined ? {} : { description: options.description })
})

/**
 * `details` of a 400 `BAD_REQUEST` from a request's schemas (src/http/ErrorEnvelope.ts): every field it got wrong,
 * missing or invalid, each with what is wrong, and its unknown fields up to 20 per object or query string, the rest
 * counted in one more problem (src/api/UnknownFields.ts); `field` is dot-separated, "" for the body or query as a whole.
 */
export const fieldProblemsJsonSchema = {
  type: "object",
  required: ["fields"],
  properties: {
    fields: {
      type: "array",
      items: {
        type: "object",
        required: ["field", "message"],
        properties: { field: { type: "string" }, message: { type: "string" } },
        additionalProperties: false
      }
    }
  },
  additionalProperties: false,
  description:
    "The fields the request got wrong: every missing or invalid one, and unknown ones up to 20 per object or query string (past 20, one more problem counts the rest, its `field` the object's path). The message names the first five."
} as const

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

/**
 * Error bodies the middleware writes outside any endpoint's declared errors (ErrorEnvelope.ts, Middleware.ts): the
 * body pre-checks, defects, and requests that match no operation. Named as in `components.schemas`.
 */
const middlewareErrors = {
  MalformedJson: errorJsonSchema({ status: 400, code: "MALFORMED_JSON", error: "BadRequest", description: "The body is not valid JSON" }),
  PayloadTooLarge: errorJsonSchema({ status: 413, code: "PAYLOAD_TOO_LARGE", error: "PayloadTooLarge", description: "The body is over the size limit" }),
  UnsupportedMediaType: errorJsonSchema({ status: 415, code: "UNSUPPORTED_MEDIA_TYPE", error: "UnsupportedMediaType", description: "A Content-Type the route does not take (application/json; multipart/form-data for the upload)" }),
  InternalError: errorJsonSchema({ status: 500, code: "INTERNAL_ERROR", error: "InternalError", description: "A bug on the service's side; retry with the same reference" }),
  RouteNotFound: errorJsonSchema({ status: 404, code: "NOT_FOUND", error: "NotFound", description: "No route has this path" }),
  MethodNotAllowed: errorJsonSchema({ status: 405, code: "METHOD_NOT_ALLOWED", error: "MethodNotAllowed", description: "The path exists with other methods (listed in the Allow header)" }),
  RequestHeaderFieldsTooLarge: errorJsonSchema({ status: 431, code: "REQUEST_HEADER_FIELDS_TOO_LARGE", error: "RequestHeaderFieldsTooLarge", description: "The request line and headers are over 16 KB in all (answered before any route is chosen, with Connection: close)" })
} as const

type Json = Record<string, any>

const schemaRef = (name: string) => `#/components/schemas/${name}`

/** The component names an error response's schema refers to (one `$ref` or an `anyOf` of them). */
const errorRefs = (schema: Json | undefined): Array<string> => {
  if (schema === undefined) return []
  if (typeof schema.$ref === "string") return [schema.$ref]
  if (Array.isArray(schema.anyOf)) return schema.anyOf.flatMap((member: Json) => errorRefs(member))
  return []
}

/**
 * Makes the generated OpenAPI document describe the error bodies that are really sent (run once, as the
 * document's `OpenApi.Transform`, see src/Api.ts):
 *
 * - HttpApi documents a decode failure as `HttpApiDecodeError` (`_tag`, `issues`); the middleware turns every one
 *   into the envelope with code `BAD_REQUEST`, i.e. the `BadRequest` schema.
 * - Every operation can answer 500 `INTERNAL_ERROR` and 431 `REQUEST_HEADER_FIELDS_TOO_LARGE` (headers over
 *   16 KB, answered by the server before routing, `answerClientError` in Middleware.ts; also
 *   `components.responses.RequestHeaderFieldsTooLarge`); every POST, PUT or PATCH 415 `UNSUPPORTED_MEDIA_TYPE`,
 *   and those with a JSON body (not the multipart upload) 400 `MALFORMED_JSON` and 413 `PAYLOAD_TOO_LARGE` (the
 *   body pre-checks of Middleware.ts).
 * - A request that matches no operation answers 404 `NOT_FOUND` (unknown path) or 405 `METHOD_NOT_ALLOWED` (known
 *   path, other method): `components.responses.RouteNotFound` and `components.responses.MethodNotAllowed`.
 * - Each error response's description lists the codes it may carry.
 */
export const describeErrors = (spec: Json): Json => {
  const schemas: Json = (spec.components.schemas ??= {})
  for (const [name, definition] of Object.entries(errorSchemaDefinitions)) schemas[name] ??= structuredClone(definition)
  schemas.BadRequest ??= errorJsonSchema({ status: 400, code: "BAD_REQUEST", error: "BadRequest" })
  // A request its schemas refuse lists every field it got wrong (the message names the first five).
  schemas.BadRequest.properties.details = structuredClone(fieldProblemsJsonSchema)
  for (const [name, definition] of Object.entries(middlewareErrors)) schemas[name] = structuredClone(definition)
  const decodeError = schemaRef("HttpApiDecodeError")
  const codesOf = (ref: string): Array<string> =>
    schemas[ref.slice(schemaRef("").length)]?.properties?.code?.enum ?? []

  for (const pathItem of Object.values(spec.paths as Json)) {
    for (const [method, operation] of Object.entries(pathItem as Json)) {
      const responses: Json = operation.responses
      const add = (status: number, name: string) => {
        responses[status] ??= { description: "" }
        const content = responses[status].content ??= {}
        const current = content["application/json"]?.schema
        content["application/json"] = { schema: { anyOf: [...errorRefs(current), schemaRef(name)].map(($ref) => ({ $ref })) } }
      }
      add(500, "InternalError")
      add(431, "RequestHeaderFieldsTooLarge")
      if (method === "post" || method === "put" || method === "patch") {
        add(415, "UnsupportedMediaType")
        // A multipart route (the document upload) reads its body with its own limits and refusals.
        if (operation.requestBody?.content?.["multipart/form-data"] === undefined) {
          add(400, "MalformedJson")
          add(413, "PayloadTooLarge")
        }
      }
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400) continue
        const refs = [...new Set(errorRefs(response.content?.["application/json"]?.schema)
          .map((ref) => ref === decodeError ? schemaRef("BadRequest") : ref))]
        if (refs.length === 0) continue
        response.content["application/json"].schema = refs.length === 1 ? { $ref: refs[0] } : { anyOf: refs.map(($ref) => ({ $ref })) }
        response.description = `Error envelope; \`code\` is ${refs.flatMap(codesOf).map((code) => `\`${code}\``).join(" or ")}`
      }
    }
  }

  const errorResponse = (name: keyof typeof middlewareErrors, headers?: Json) => ({
    description: middlewareErrors[name].description as string,
    ...(headers === undefined ? {} : { headers }),
    content: { "application/json": { schema: { $ref: schemaRef(name) } } }
  })
  spec.components.responses = {
    ...spec.components.responses,
    RouteNotFound: errorResponse("RouteNotFound"),
    MethodNotAllowed: errorResponse("MethodNotAllowed", {
      Allow: { description: "The methods the path accepts", schema: { type: "string" } }
    }),
    RequestHeaderFieldsTooLarge: errorResponse("RequestHeaderFieldsTooLarge")
  }

  // The decode error's own schemas are referred to by nothing now.
  const decodeSchemas = ["HttpApiDecodeError", "Issue", "PropertyKey"]
  const rest = JSON.stringify({
    ...spec,
    components: { ...spec.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => !decodeSchemas.includes(name))) }
  })
  if (decodeSchemas.every((name) => !rest.includes(`"${schemaRef(name)}"`))) for (const name of decodeSchemas) delete schemas[name]
  return spec
}
