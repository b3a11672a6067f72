import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { ErrorBody } from "../api/ApiError.js"

/**
 * Turns any error response into the error envelope of docs/contract.md "Errors". Endpoint errors already carry `code`, `message` and
 * `error` (ApiError.ts); schema failures arrive as HttpApiDecodeError and become BAD_REQUEST with a message naming
 * the field (worded by the schemas' message annotations, src/api/Messages.ts); responses produced by the router or server (unknown route, defects) get a code from their status.
 */
const statusDefaults: Record<number, { code: string; error: string; message: string }> = {
  400: { code: "BAD_REQUEST", error: "BadRequest", message: "The request is not valid" },
  401: { code: "UNAUTHORIZED", error: "Unauthorized", message: "Missing or unknown API key" },
  403: { code: "FORBIDDEN", error: "Forbidden", message: "Forbidden" },
  404: { code: "NOT_FOUND", error: "NotFound", message: "Not found" },
  405: { code: "METHOD_NOT_ALLOWED", error: "MethodNotAllowed", message: "Method not allowed" },
  408: { code: "REQUEST_TIMEOUT", error: "RequestTimeout", message: "The request did not arrive in time" },
  413: { code: "PAYLOAD_TOO_LARGE", error: "PayloadTooLarge", message: "Request body is too large" },
  415: { code: "UNSUPPORTED_MEDIA_TYPE", error: "UnsupportedMediaType", message: "Unsupported content type" },
  431: {
    code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
    error: "RequestHeaderFieldsTooLarge",
    message: "The request's headers are too large"
  },
  499: { code: "CLIENT_CLOSED_REQUEST", error: "ClientClosedRequest", message: "The client closed the request" },
  500: { code: "INTERNAL_ERROR", error: "InternalError", message: "Something went wrong on our side; retry with the same reference" },
  503: { code: "SERVICE_UNAVAILABLE", error: "ServiceUnavailable", message: "The service is busy; retry with the same reference" }
}

interface DecodeIssue {
  readonly _tag?: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** A whole error message is cut after this many characters (`…` added). */
export const messageMax = 500

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`)

/** One field a request got wrong: its path (dot-separated; "" for the body or query as a whole) and what is wrong. */
export interface FieldProblem {
  readonly field: string
  readonly message: string
}

/** How many field problems `message` names; `details.fields` lists them all. */
export const messageFieldsMax = 5

/**
 * One issue as the partner reads it. The message is already in the partner's terms: every endpoint's schemas carry
 * message annotations (src/api/Messages.ts) that word the structured issue, and at the top of the body they name
 * the request body themselves; a missing field says "is required".
 */
const fieldProblem = (issue: DecodeIssue): FieldProblem => ({
  field: issue.path.map(String).join("."),
  message: issue._tag === "Missing" ? "is required" : cut(issue.message, messageMax)
})

/** `field: message; ...` for the first problems (a whole-body problem without its empty field name). */
export const describeFields = (fields: ReadonlyArray<FieldProblem>): string =>
  fields.slice(0, messageFieldsMax).map(({ field, message }) => (field === "" ? message : `${field}: ${message}`)).join("; ")

/** One issue per field: the first the schema reports (a union's members are already one issue). */
const firstPerField = (issues: ReadonlyArray<DecodeIssue>): Array<DecodeIssue> => {
  const byField = new Map<string, DecodeIssue>()
  for (const issue of issues) {
    const key = issue.path.map(String).join(".")
    if (!byField.has(key)) byField.set(key, issue)
  }
  return [...byField.values()]
}

const parseBody = (response: HttpServerResponse.HttpServerResponse): Record<string, unknown> | undefined => {
  if (response.body._tag !== "Uint8Array") return undefined
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(response.body.body))
    return typeof value === "object" && value !== null ? value as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}

export const errorBody = (options: {
  readonly status: number
  readonly code?: string | undefined
  readonly message?: string | undefined
  readonly error?: string | undefined
  readonly path: string
  readonly timestamp: Date
  readonly details?: Record<string, unknown> | undefined
}): ErrorBody => {
  const defaults = statusDefaults[options.status] ?? statusDefaults[options.status >= 500 ? 500 : 400]!
  return {
    success: false,
    statusCode: options.status,
    code: options.code ?? defaults.code,
    message: cut(options.message ?? defaults.message, messageMax),
    error: options.error ?? defaults.error,
    timestamp: options.timestamp.toISOString(),
    path: options.path,
    ...(options.details !== undefined ? { details: options.details } : {})
  }
}

export const errorResponse = (body: ErrorBody, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson(body, { status: body.statusCode, ...(headers ? { headers } : {}) })

/** Rewrites an error response (status 400 and up) into the envelope; leaves every other response alone. */
export const normalizeError = (
  response: HttpServerResponse.HttpServerResponse,
  context: { readonly path: string; readonly timestamp: Date }
): HttpServerResponse.HttpServerResponse => {
  if (response.status < 400) return response
  const parsed = parseBody(response)
  let code: string | undefined
  let message: string | undefined
  let error: string | undefined
  let details: Record<string, unknown> | undefined
  if (parsed?._tag === "HttpApiDecodeError" && Array.isArray(parsed.issues)) {
    const fields = firstPerField(parsed.issues as ReadonlyArray<DecodeIssue>).map(fieldProblem)
    code = "BAD_REQUEST"
    error = "BadRequest"
    message = describeFields(fields) || "The request is not valid"
    details = { fields }
  } else if (typeof parsed?.code === "string" && typeof parsed.message === "string") {
    code = parsed.code
    message = parsed.message
    error = typeof parsed.error === "string" ? parsed.error : typeof parsed._tag === "string" ? parsed._tag : undefined
    if (typeof parsed.details === "object" && parsed.details !== null) details = parsed.details as Record<string, unknown>
  }
  const body = errorBody({ status: response.status, code, message, error, details, path: context.path, timestamp: context.timestamp })
  return HttpServerResponse.unsafeJson(body, { status: response.status, headers: response.headers })
}
