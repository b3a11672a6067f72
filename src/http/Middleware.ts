import {
  HttpApi,
  HttpApp,
  HttpIncomingMessage,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { ServiceClock } from "../clock/ServiceClock.js"
import { errorBody, errorResponse, normalizeError } from "./ErrorEnvelope.js"

/** Method and path pattern of every route, to tell an unknown path (404) from a wrong method (405). */
export interface RouteTable {
  readonly allowedMethods: (path: string) => ReadonlyArray<string>
}

export const routeTable = (
  api: HttpApi.HttpApi.Any,
  extra: ReadonlyArray<{ readonly method: string; readonly path: string }>
): RouteTable => {
  const routes: Array<{ method: string; pattern: RegExp }> = []
  const add = (method: string, path: string) =>
    routes.push({ method, pattern: new RegExp("^" + path.replace(/:[A-Za-z0-9_]+/g, "[^/]+") + "/?$") })
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path)
  })
  for (const route of extra) add(route.method, route.path)
  return {
    allowedMethods: (path) => [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))]
  }
}

const bodyMethods = new Set(["POST", "PUT", "PATCH"])

const requestIdPattern = /^[A-Za-z0-9._-]{8,64}$/

/**
 * Checks that must happen before a handler reads the body: the content type, the size and the JSON syntax. The
 * body text is read here once (bounded) and cached by the request, so the handler reuses it.
 */
interface Rejection {
  readonly status: number
  readonly code?: string | undefined
  readonly message: string
}

const precheckBody = (request: HttpServerRequest.HttpServerRequest, maxJsonBodyBytes: number) =>
  Effect.gen(function*(): Effect.fn.Return<Option.Option<Rejection>> {
    if (!bodyMethods.has(request.method)) return Option.none<Rejection>()
    const contentType = (request.headers["content-type"] ?? "").toLowerCase()
    if (contentType.startsWith("multipart/form-data")) return Option.none()
    const declared = Number(request.headers["content-length"] ?? "0")
    const hasBody = declared > 0 || request.headers["transfer-encoding"] !== undefined
    if (!hasBody) return Option.none()
    if (!/^application\/json\s*(;|$)/.test(contentType)) {
      return Option.some({
        status: 415,
        message: `Content-Type must be application/json${contentType ? `, got ${contentType.split(";")[0]}` : ""}`
      })
    }
    const tooLarge = { status: 413, message: `Request body must be at most ${maxJsonBodyBytes} bytes` }
    if (declared > maxJsonBodyBytes) return Option.some(tooLarge)
    const text = yield* request.text.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(maxJsonBodyBytes)),
      Effect.either
    )
    if (text._tag === "Left") {
      return Option.some(
        String(text.left.cause ?? "").includes("maxBytes") ? tooLarge : { status: 400, message: "Could not read the request body" }
      )
    }
    if (text.right.trim() === "") return Option.none()
    try {
      JSON.parse(text.right)
      return Option.none()
    } catch (error) {
      return Option.some({
        status: 400,
        code: "MALFORMED_JSON",
        message: `Request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`
      })
    }
  })

/**
 * The server middleware: request id, body pre-checks, the error envelope on every error response (whoever made
 * it), 405 for a known path with the wrong method, and one structured log line per request (never headers, so
 * never an API key).
 */
export const makeHttpMiddleware = (options: { readonly maxJsonBodyBytes: number; readonly routes: RouteTable }) =>
(app: HttpApp.Default): HttpApp.Default<never, ServiceClock> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const clock = yield* ServiceClock
    const incomingId = request.headers["x-request-id"]
    const requestId = incomingId !== undefined && requestIdPattern.test(incomingId)
      ? incomingId
      : `req_${Crypto.randomBytes(12).toString("hex")}`
    const started = performance.now()
    const path = request.url.split("?")[0] ?? request.url

    // Runs on the response about to be written, whoever produced it (handler, router, defect).
    const finalize = (produced: HttpServerResponse.HttpServerResponse) =>
      Effect.gen(function*() {
        const timestamp = yield* clock.now
        let response = produced
        if (response.status === 404 && response.body._tag === "Empty") {
          const allowed = options.routes.allowedMethods(path)
          response = allowed.length > 0 && !allowed.includes(request.method)
            ? errorResponse(
              errorBody({
                status: 405,
                message: `Method ${request.method} is not allowed on ${path}; allowed: ${allowed.join(", ")}`,
                path,
                timestamp
              }),
              { allow: allowed.join(", ") }
            )
            : errorResponse(errorBody({ status: 404, message: `No route for ${request.method} ${path}`, path, timestamp }))
        }
        response = normalizeError(response, { path, timestamp })
        yield* Effect.logInfo("http").pipe(
          Effect.annotateLogs({
            requestId,
            method: request.method,
            path,
            status: response.status,
            durationMs: Math.round((performance.now() - started) * 10) / 10
          })
        )
        return HttpServerResponse.setHeader(response, "x-request-id", requestId)
      })

    const rejected = yield* precheckBody(request, options.maxJsonBodyBytes)
    if (Option.isSome(rejected)) {
      const { status, code, message } = rejected.value
      return yield* finalize(errorResponse(errorBody({ status, code, message, path, timestamp: yield* clock.now })))
    }
    yield* HttpApp.appendPreResponseHandler((_request, response) => finalize(response))
    return yield* app.pipe(
      Effect.tapErrorCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.void
          : Effect.logError("request failed", cause).pipe(Effect.annotateLogs({ requestId, path }))
      )
    )
  }) as HttpApp.Default<never, ServiceClock>
