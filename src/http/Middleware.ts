import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Either, Layer, LogLevel, Option } from "effect"
import * as Crypto from "node:crypto"
import type { ServiceClock } from "../clock/ServiceClock.js"
import { ClientAddress, clientAddressOf, type TrustedProxy } from "../limits/ClientAddress.js"
import { describeFields, errorBody, errorResponse, normalizeError } from "./ErrorEnvelope.js"
import { checkQuery, controlCharacterSegments, controlCharactersMessage, scanJson } from "./JsonBody.js"
import { type Body, BodyReadRequest, readBody } from "./BodyReadRequest.js"
import { boundaryOf } from "./MultipartBody.js"
import { withRetryAfter } from "./RateLimits.js"
import { originForm, type RouteTable, routableUrl } from "./RouteTable.js"
import { moreUnknownMessage, unknownFieldMessage, unknownProblems } from "../api/UnknownFields.js"

const bodyMethods = new Set(["POST", "PUT", "PATCH"])

/** An unknown route or wrong method is the client's mistake, answered 404/405: not worth an ERROR log line. */
const isRouteNotFoundOnly = (cause: Cause.Cause<unknown>) => {
  // The router fails with RouteNotFound (the server renders it as a 404 afterwards; were this middleware around the
  // server's handling, the rendered response would ride along as a defect).
  const failures = [...Cause.failures(cause)]
  return failures.length > 0 &&
    failures.every((error) => typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RouteNotFound") &&
    [...Cause.defects(cause)].every(HttpServerResponse.isServerResponse)
}

const requestIdPattern = /^[A-Za-z0-9._-]{8,64}$/

/**
 * The id of a response: a valid incoming `x-request-id` is kept, any other replaced by a fresh one — 24 hex digits of
 * a random UUID (node draws those from a pooled buffer; a `randomBytes` call per request cost ~20 µs).
 */
export const requestIdOf = (incoming: string | undefined) =>
  incoming !== undefined && requestIdPattern.test(incoming) ? incoming : `req_${Crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`

/**
 * Checks that must happen before a handler reads its input: control characters in path values and the query
 * string, the content type (JSON routes take `application/json` only, the upload route `multipart/form-data`
 * only), the size, the JSON syntax, then the JSON text itself (depth, exact numbers, control characters; see
 * JsonBody.ts). The body text is read here once (bounded); the API is handed a request that answers it
 * (`BodyReadRequest`), so the handler reuses it.
 */
interface Rejection {
  readonly status: number
  readonly code?: string | undefined
  readonly message: string
  readonly headers?: Record<string, string> | undefined
  readonly details?: Record<string, unknown> | undefined
}

/** Sandbox control routes: a control that needs no input works with no body (DESIGN "Sandbox control API"). */
const sandboxControlPath = /^\/api\/v1\/sandbox\//

const badRequest = (message: string): Rejection => ({ status: 400, code: "BAD_REQUEST", message })

/**
 * Path values and query parameters: no control characters; amounts in a query string written exactly. A
 * `customerId` is left to its route: a malformed customer id answers the one documented 403 CUSTOMER_FORBIDDEN.
 */
const precheckUrl = (request: HttpServerRequest.HttpServerRequest, path: string, routes: RouteTable): Option.Option<Rejection> => {
  const parameter = controlCharacterSegments(path)
    .map((segment) => routes.parameterAt(path, segment) ?? "path")
    .find((name) => name !== "customerId")
  if (parameter !== undefined) return Option.some(badRequest(`${parameter}: ${controlCharactersMessage}`))
  const query = request.url.indexOf("?")
  if (query < 0) return Option.none()
  const search = request.url.slice(query + 1)
  const problem = checkQuery(search)
  if (problem !== undefined) return Option.some(badRequest(problem.message))
  if (!routes.takesQuery(request.method, path)) {
    const names = [...new Set(new URLSearchParams(search).keys())]
    if (names.length > 0) {
      const fields = unknownProblems(
        names,
        (name) => ({ field: name, message: unknownFieldMessage(name, [], "query") }),
        (count) => ({ field: "", message: moreUnknownMessage(count, "query") })
      )
      return Option.some({ ...badRequest(describeFields(fields)), details: { fields } })
    }
  }
  return Option.none()
}

const fileRequired = "file: is required; send the document as multipart/form-data with a file part named \"file\""

/**
 * The upload route takes `multipart/form-data` with a valid boundary, and nothing else; its body is read (with its
 * own limits) by the handler.
 */
const precheckMultipart = (request: HttpServerRequest.HttpServerRequest, mediaType: string, hasBody: boolean): Option.Option<Rejection> => {
  if (mediaType === "multipart/form-data") {
    return boundaryOf(request.headers["content-type"] ?? "") === undefined
      ? Option.some(badRequest("file: the Content-Type multipart/form-data needs a valid boundary parameter (RFC 2046)"))
      : Option.none()
  }
  if (mediaType === "" && !hasBody) return Option.some(badRequest(fileRequired))
  return Option.some({
    status: 415,
    message: `Content-Type must be multipart/form-data${mediaType ? `, got ${mediaType}` : ""}`
  })
}

/** The pre-checks' verdict: a refusal (left), or the body read for the API, if one was (right). */
type Precheck = Either.Either<Body | undefined, Rejection>

const passed: Precheck = Either.right(undefined)

const refusedBy = (rejection: Option.Option<Rejection>): Precheck =>
  Option.isSome(rejection) ? Either.left(rejection.value) : passed

const precheckBody = (
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  routes: RouteTable,
  maxJsonBodyBytes: number
) =>
  Effect.gen(function*(): Effect.fn.Return<Precheck> {
    const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
    const declared = Number(request.headers["content-length"] ?? "0")
    const hasBody = declared > 0 || request.headers["transfer-encoding"] !== undefined
    if (routes.takesMultipart(request.method, path)) return refusedBy(precheckMultipart(request, mediaType, hasBody))
    // Every other route takes JSON only: any other declared type is refused before a byte of the body is read
    // (a multipart body would otherwise be parsed, even spooled to disk, past MAX_JSON_BODY_BYTES).
    const unsupported = (): Precheck =>
      Either.left({ status: 415, message: `Content-Type must be application/json${mediaType ? `, got ${mediaType}` : ""}` })
    if (mediaType !== "" && mediaType !== "application/json") return unsupported()
    if (!hasBody) {
      // No body and no content type on a sandbox control reads as `{}`: a payload with only optional fields
      // decodes, one with a required field answers 400 naming it (the platform would decode `null` and refuse
      // every payload). Partner routes keep refusing an empty body.
      return mediaType === "" && sandboxControlPath.test(path) ? Either.right({ text: "{}", json: {} }) : passed
    }
    if (mediaType === "") return unsupported()
    const tooLarge = { status: 413, message: `Request body must be at most ${maxJsonBodyBytes} bytes` }
    if (declared > maxJsonBodyBytes) return Either.left(tooLarge)
    // Read from the socket's stream directly, with or without a content-length (the platform's reader builds a
    // stream per body: ~20 effects per request).
    const text = yield* readBody(request, maxJsonBodyBytes)
    if (text._tag === "Left") {
      return Either.left(
        // Only a chunked body passes the limit here (a declared length was checked above, and node reads no more).
        text.left === "tooLarge"
          ? { ...tooLarge, headers: { connection: "close" } }
          : { status: 400, message: "Could not read the request body" }
      )
    }
    // A whitespace-only body counts as an empty one: `null`, as the platform reads an empty body (JSON.parse would
    // fail on it, logged as a defect).
    if (text.right.trim() === "") return Either.right({ text: "", json: null })
    let json: unknown
    try {
      json = JSON.parse(text.right)
    } catch (error) {
      return Either.left({
        status: 400,
        code: "MALFORMED_JSON",
        message: `Request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`
      })
    }
    // Before any schema sees the value: nesting depth, exact numbers, control characters (JsonBody.ts).
    const problem = scanJson(text.right)
    return problem === undefined ? Either.right({ text: text.right, json }) : Either.left(badRequest(problem.message))
  })

/**
 * The middleware around the API's app (src/App.ts): request id, body pre-checks, the error envelope on every error
 * response (whoever made it), 405 for a known path with the wrong method, `Retry-After` on every 429, and one
 * structured log line per request (never headers, so never an API key).
 *
 * Built for the path every request takes: a request without a body is checked without an effect, a successful
 * answer is finished without reading the clock, and nothing is provided to the API but a request it must see instead
 * (a body read, a URL made routable).
 */
export const makeHttpMiddleware = (options: {
  readonly maxJsonBodyBytes: number
  readonly routes: RouteTable
  readonly clock: ServiceClock["Type"]
}) =>
<E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const { clock, routes } = options
    const requestId = requestIdOf(request.headers["x-request-id"])
    const started = performance.now()
    // The request target in origin form (`/api/v1/...`): an absolute form (`http://host/api/v1/...`) without its
    // origin, as the router reads it.
    const target = originForm(request.url)
    const path = target.split("?")[0] ?? target

    const answer = (response: HttpServerResponse.HttpServerResponse) =>
      // The line and its annotations are built only when it is written (LOG_LEVEL at info or below).
      Effect.as(
        Effect.whenLogLevel(
          Effect.suspend(() =>
            Effect.logInfo("http").pipe(
              Effect.annotateLogs({
                requestId,
                method: request.method,
                path,
                status: response.status,
                durationMs: Math.round((performance.now() - started) * 10) / 10
              })
            )
          ),
          LogLevel.Info
        ),
        HttpServerResponse.setHeader(response, "x-request-id", requestId)
      )

    // An error response, whoever produced it (handler, router, defect, a pre-check): the envelope, with the path
    // and the time of the partner's clock.
    const answerErrorAt = (produced: HttpServerResponse.HttpServerResponse, timestamp: Date) => {
      if (produced.status === 404 && produced.body._tag === "Empty") {
        const allowed = routes.allowedMethods(path)
        return answer(
          allowed.length > 0 && !allowed.includes(request.method)
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
        )
      }
      return answer(withRetryAfter(normalizeError(produced, { path, timestamp })))
    }

    // Runs on the response about to be written, whoever produced it.
    const finalize = (_request: HttpServerRequest.HttpServerRequest, produced: HttpServerResponse.HttpServerResponse) =>
      produced.status < 400 ? answer(produced) : Effect.flatMap(clock.now, (timestamp) => answerErrorAt(produced, timestamp))

    const refuse = ({ status, code, message, headers, details }: Rejection) =>
      Effect.flatMap(clock.now, (timestamp) =>
        answerErrorAt(errorResponse(errorBody({ status, code, message, details, path, timestamp }), headers), timestamp))

    const route = (body: Body | undefined) => {
      // The request the API sees: the body read above, if any, and a URL the router can route — a segment it cannot
      // is routed as its well-formed text (`routableSegment`), and the handler answers it. Responses, logs and the
      // error envelope keep the original `path`.
      let routedRequest = body === undefined ? request : new BodyReadRequest(request, body)
      const url = routableUrl(target)
      if (url !== request.url) routedRequest = routedRequest.modify({ url })
      const provided = routedRequest === request ? app : Effect.provideService(app, HttpServerRequest.HttpServerRequest, routedRequest)
      return Effect.zipRight(
        HttpApp.appendPreResponseHandler(finalize),
        Effect.tapErrorCause(provided, (cause) =>
          Cause.isInterruptedOnly(cause) || isRouteNotFoundOnly(cause)
            ? Effect.void
            : Effect.logError("request failed", cause).pipe(Effect.annotateLogs({ requestId, path })))
      )
    }

    // An empty segment (`/customers//kyc`): no operation has one, so no route (the router would drop it and reach
    // `/customers/kyc`, i.e. the customer "kyc").
    if (path.includes("//")) return refuse({ status: 404, message: `No route for ${request.method} ${path}` })
    // An unknown path or a wrong method is left to the router (404, 405), whatever the request carries.
    if (!routes.allowedMethods(path).includes(request.method)) return route(undefined)
    // Path values and the query string, then — only for a method with a body — the body, read in an effect.
    const refusedUrl = precheckUrl(request, path, routes)
    if (Option.isSome(refusedUrl)) return refuse(refusedUrl.value)
    if (!bodyMethods.has(request.method)) return route(undefined)
    return Effect.flatMap(
      precheckBody(request, path, routes, options.maxJsonBodyBytes),
      (checked) => Either.isLeft(checked) ? refuse(checked.left) : route(checked.right)
    )
  })

/**
 * The client address of the request being served (src/limits/ClientAddress.ts), provided once to the server: the
 * effect reads it from the request only when a limit asks (an unknown key, a sign-in), so no request pays to provide
 * it.
 */
export const clientAddressLayer = (trusted: TrustedProxy) =>
  Layer.succeed(
    ClientAddress,
    Effect.map(
      Effect.serviceOption(HttpServerRequest.HttpServerRequest),
      Option.map((request) => clientAddressOf(request.remoteAddress, request.headers, trusted))
    )
  )
