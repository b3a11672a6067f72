import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Either, LogLevel, Option } from "effect"
import * as Crypto from "node:crypto"
import { ServiceClock } from "../clock/ServiceClock.js"
import { describeFields, errorBody, errorResponse, normalizeError } from "./ErrorEnvelope.js"
import { checkQuery, controlCharacterSegments, controlCharactersMessage, scanJson } from "./JsonBody.js"
import { type Body, BodyReadRequest, readBody } from "./BodyReadRequest.js"
import { boundaryOf } from "./MultipartBody.js"
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
    // An unknown path or a wrong method is left to the router (404, 405), whatever the request carries.
    if (!routes.allowedMethods(path).includes(request.method)) return passed
    const refusedUrl = precheckUrl(request, path, routes)
    if (Option.isSome(refusedUrl)) return Either.left(refusedUrl.value)
    if (!bodyMethods.has(request.method)) return passed
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
 * response (whoever made it), 405 for a known path with the wrong method, and one structured log line per request
 * (never headers, so never an API key).
 */
export const makeHttpMiddleware = (options: { readonly maxJsonBodyBytes: number; readonly routes: RouteTable }) =>
<E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | ServiceClock> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const clock = yield* ServiceClock
    const requestId = requestIdOf(request.headers["x-request-id"])
    const started = performance.now()
    // The request target in origin form (`/api/v1/...`): an absolute form (`http://host/api/v1/...`) without its
    // origin, as the router reads it.
    const target = originForm(request.url)
    const path = target.split("?")[0] ?? target

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
        // The line and its annotations are built only when it is written (LOG_LEVEL at info or below).
        yield* Effect.whenLogLevel(
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
        )
        return HttpServerResponse.setHeader(response, "x-request-id", requestId)
      })

    // An empty segment (`/customers//kyc`): no operation has one, so no route (the router would drop it and reach
    // `/customers/kyc`, i.e. the customer "kyc").
    if (path.includes("//")) {
      const message = `No route for ${request.method} ${path}`
      return yield* finalize(errorResponse(errorBody({ status: 404, message, path, timestamp: yield* clock.now })))
    }
    const checked = yield* precheckBody(request, path, options.routes, options.maxJsonBodyBytes)
    if (Either.isLeft(checked)) {
      const { status, code, message, headers, details } = checked.left
      return yield* finalize(errorResponse(errorBody({ status, code, message, details, path, timestamp: yield* clock.now }), headers))
    }
    yield* HttpApp.appendPreResponseHandler((_request, response) => finalize(response))
    // The request the API sees: the body read above, if any, and a URL the router can route — a segment it cannot
    // is routed as its well-formed text (`routableSegment`), and the handler answers it. Responses, logs and the
    // error envelope keep the original `path`.
    let routedRequest = checked.right === undefined ? request : new BodyReadRequest(request, checked.right)
    const url = routableUrl(target)
    if (url !== request.url) routedRequest = routedRequest.modify({ url })
    const routed = routedRequest === request ? app : Effect.provideService(app, HttpServerRequest.HttpServerRequest, routedRequest)
    return yield* routed.pipe(
      Effect.tapErrorCause((cause) =>
        Cause.isInterruptedOnly(cause) || isRouteNotFoundOnly(cause)
          ? Effect.void
          : Effect.logError("request failed", cause).pipe(Effect.annotateLogs({ requestId, path }))
      )
    )
  })
