import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { ClientAddress, clientAddressOf, type TrustedProxy } from "../limits/ClientAddress.js"

/**
 * The HTTP side of the limits on abuse (docs/operations.md "Limits on abuse"; the limits themselves are
 * src/limits/Limits.ts, applied by the services): every request gets its client address (the socket's peer, or a
 * trusted proxy's header when one is configured), and every 429 answer a `Retry-After` header with the whole
 * seconds of its `details.retryAfterSeconds` (RFC 9110 section 10.2.3), whoever refused.
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

const withRetryAfter = (_request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 429 || response.headers["retry-after"] !== undefined) return Effect.succeed(response)
  const seconds = retryAfterSecondsOf(response)
  return Effect.succeed(seconds === undefined ? response : HttpServerResponse.setHeader(response, "retry-after", String(seconds)))
}

/** Wraps the API's app (src/App.ts): provides `ClientAddress` to it and adds `Retry-After` to its 429 answers. */
export const makeClientLimits = (trusted: TrustedProxy) =>
<E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, Exclude<R, ClientAddress>> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const address = clientAddressOf(request.remoteAddress, request.headers, trusted)
    yield* HttpApp.appendPreResponseHandler(withRetryAfter)
    return yield* Effect.provideService(app, ClientAddress, address)
  })
