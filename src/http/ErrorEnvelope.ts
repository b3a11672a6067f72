import { HttpServerResponse } from "@effect/platform"
import type { ErrorBody } from "../api/ApiError.js"

/**
 * Turns any error response into the SPEC.md error envelope. Endpoint errors already carry `code`, `message` and
 * `error` (ApiError.ts); schema failures arrive as HttpApiDecodeError and become BAD_REQUEST with a message naming
 * the field; responses produced by the router or server (unknown route, defects) get a code from their status.
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
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** An echoed input value is cut after this many characters (`…` added). */
export const echoedValueMax = 64
/** A whole error message is cut after this many characters (`…` added). */
export const messageMax = 500

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`)

const expectedPattern = /^Expected (.+), actual (.+)$/s
const literalPattern = /^"((?:[^"\\]|\\.)*)"$|^(-?\d+(?:\.\d+)?|true|false)$/

/**
 * What a schema's "Expected X" means, in the partner's terms (no schema internals such as patterns or type
 * literals). `undefined` for an X that has no better wording than "is not valid".
 */
const expectedInPartnerTerms = (expected: string): string | undefined => {
  const literal = literalPattern.exec(expected)
  if (literal !== null) return literal[1] ?? literal[2]
  switch (expected) {
    case "string":
      return "a string"
    case "number":
      return "a JSON number"
    case "boolean":
      return "true or false"
    case "null":
      return "null"
    case "a Universally Unique Identifier":
      return "a uuid"
    case "an integer":
      return "an integer"
    case "a valid Date":
      return "a valid date"
  }
  if (/^(ReadonlyArray<|readonly \[|Array<)/.test(expected)) return "an array"
  if (/^\{/.test(expected)) return "a JSON object"
  const between = /^a number between (\S+) and (\S+)$/.exec(expected)
  if (between !== null) return `a number from ${between[1]} to ${between[2]}`
  const atMost = /^a string at most (\d+) character\(s\) long$/.exec(expected)
  if (atMost !== null) return `at most ${atMost[1]} characters long`
  const atLeast = /^a string at least (\d+) character\(s\) long$/.exec(expected)
  if (atLeast !== null) return `at least ${atLeast[1]} characters long`
  if (expected === "a non empty string") return "a non-empty string"
  return undefined
}

/** "must be a string", "must be one of NG, GH", or "is not valid" for a schema detail with no partner wording. */
const mustBe = (expected: ReadonlyArray<string>): string => {
  const relevant = expected.filter((x) => x !== "undefined")
  const terms = relevant.map(expectedInPartnerTerms)
  if (terms.length === 0 || terms.some((term) => term === undefined)) return "is not valid"
  const allLiterals = relevant.every((x) => literalPattern.test(x))
  if (allLiterals && terms.length > 1) return `must be one of ${terms.join(", ")}`
  return `must be ${terms.join(" or ")}`
}

const describeActual = (actual: string) => ` (got ${cut(actual, echoedValueMax)})`

/** One issue's message in the partner's terms: what the value must be, and the value given, cut short. */
const partnerMessage = (message: string): string => {
  const firstLine = message.split("\n")[0] ?? message
  const expected = expectedPattern.exec(firstLine)
  if (expected !== null) return mustBe([expected[1]!]) + describeActual(expected[2]!)
  const transformation = /^Unable to decode (.+) into a number$/s.exec(firstLine)
  if (transformation !== null) return "must be a number" + describeActual(transformation[1]!)
  return cut(firstLine, messageMax)
}

const describeIssue = (issue: DecodeIssue): string => {
  const field = issue.path.map(String).join(".")
  if (field === "") {
    if (/^Expected .+, actual (null|undefined)$/s.test(issue.message)) return "request body is required and must be a JSON object"
    const expected = expectedPattern.exec(issue.message)
    if (expected !== null && expected[1]!.startsWith("{")) return `request body must be a JSON object${describeActual(expected[2]!)}`
    return `request body: ${partnerMessage(issue.message)}`
  }
  if (issue.message === "is missing") return `${field}: is required`
  return `${field}: ${partnerMessage(issue.message)}`
}

/**
 * One issue per field. A union (an enum such as `country`, or `NullOr(String)`) fails once per member, and the
 * array formatter ignores the union's own message; the members' "Expected X, actual Y" issues are merged into one
 * that lists every accepted value instead of naming only the first.
 */
const mergePerField = (issues: ReadonlyArray<DecodeIssue>): Array<DecodeIssue> => {
  const byField = new Map<string, Array<DecodeIssue>>()
  for (const issue of issues) {
    const key = issue.path.map(String).join(".")
    const group = byField.get(key)
    if (group === undefined) byField.set(key, [issue])
    else group.push(issue)
  }
  return [...byField.values()].map((group) => {
    const first = group[0]!
    if (group.length === 1) return first
    const parts = group.map((issue) => expectedPattern.exec(issue.message))
    if (parts.some((match) => match === null) || new Set(parts.map((match) => match![2])).size !== 1) return first
    const expected = [...new Set(parts.map((match) => match![1]!))]
    // Already in partner terms: describeIssue passes a message without "Expected" through.
    return { path: first.path, message: mustBe(expected) + describeActual(parts[0]![2]!) }
  })
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
    const issues = parsed.issues as ReadonlyArray<DecodeIssue>
    code = "BAD_REQUEST"
    error = "BadRequest"
    message = mergePerField(issues).slice(0, 5).map(describeIssue).join("; ") || "The request is not valid"
  } else if (typeof parsed?.code === "string" && typeof parsed.message === "string") {
    code = parsed.code
    message = parsed.message
    error = typeof parsed.error === "string" ? parsed.error : typeof parsed._tag === "string" ? parsed._tag : undefined
    if (typeof parsed.details === "object" && parsed.details !== null) details = parsed.details as Record<string, unknown>
  }
  const body = errorBody({ status: response.status, code, message, error, details, path: context.path, timestamp: context.timestamp })
  return HttpServerResponse.unsafeJson(body, { status: response.status, headers: response.headers })
}
