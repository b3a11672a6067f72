import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/**
 * The HTTP side of the limits on abuse (docs/operations.md "Limits on abuse"; the limits themselves are
 * src/limits/Limits.ts, applied by the services): every 429 answer gets a `Retry-After` header with the whole
 * seconds of its `details.retryAfterSeconds` (RFC 9110 section 10.2.3), whoever refused. The middleware
 * (src/http/Middleware.ts) applies it, and provides each request's client address.
 */
export const retryAfterSecondsOf = (response: HttpServerResponse.HttpServerResponse): number | undefined => {
  if (response.status !== 429 || response.body._tag !== "Uint8Array") return undefined
  try {
    const body: unknown = JSON.parse(new TextDecoder().decode(response.body.body))
    const seconds = (body as { details?: { retryAfterSeconds?: unknown } } | null)?.details?.retryAfterSeconds
    return typeof seconds === "number" && Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds)) : undefined
  } catch {
    return undefined
  }
}

/** A 429 answer with `Retry-After`, from its `details.retryAfterSeconds`, unless it has one (src/http/Middleware.ts). */
export const withRetryAfter = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
  if (response.status !== 429 || response.headers["retry-after"] !== undefined) return response
  const seconds = retryAfterSecondsOf(response)
  return seconds === undefined ? response : HttpServerResponse.setHeader(response, "retry-after", String(seconds))
}
