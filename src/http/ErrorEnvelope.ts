import { HttpServerResponse } from "@effect/platform"
import type { ErrorBody } from "./ApiError.js"

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
  413: { code: "PAYLOAD_TOO_LARGE", error: "PayloadTooLarge", message: "Request body is too large" },
  415: { code: "UNSUPPORTED_MEDIA_TYPE", error: "UnsupportedMediaType", message: "Unsupported content type" },
  499: { code: "CLIENT_CLOSED_REQUEST", error: "ClientClosedRequest", message: "The client closed the request" },
  500: { code: "INTERNAL_ERROR", error: "InternalError", message: "Something went wrong on our side; retry with the same reference" },
  503: { code: "SERVICE_UNAVAILABLE", error: "ServiceUnavailable", message: "The service is busy; retry with the same reference" }
}

interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const describeIssue = (issue: DecodeIssue): string => {
  const field = issue.path.map(String).join(".")
  if (field === "") {
    return /actual null|actual undefined/.test(issue.message)
      ? "request body is required and must be a JSON object"
      : issue.message.split("\n")[0] ?? issue.message
  }
  if (issue.message === "is missing") return `${field}: is required`
  return `${field}: ${issue.message.split("\n")[0]}`
}

const expectedPattern = /^Expected (.+), actual (.+)$/s

/**
 * One issue per field. A union (an enum such as `country`) fails once per member, and the array formatter ignores
 * the union's own message; the members' "Expected X, actual Y" issues are merged into one that lists every
 * accepted value instead of naming only the first.
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
    return { path: first.path, message: `Expected one of ${expected.join(", ")}, actual ${parts[0]![2]}` }
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
    message: options.message ?? defaults.message,
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
