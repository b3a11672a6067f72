import {
  HttpApi,
  HttpApiSchema,
  HttpApp,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Effect, Either, LogLevel, Option } from "effect"
import * as Crypto from "node:crypto"
import { ServiceClock } from "../clock/ServiceClock.js"
import { errorBody, errorResponse, normalizeError } from "./ErrorEnvelope.js"
import { checkQuery, controlCharacterSegments, controlCharactersMessage, scanJson } from "./JsonBody.js"
import { boundaryOf } from "./MultipartBody.js"

/** Method and path pattern of every route, to tell an unknown path (404) from a wrong method (405). */
export interface RouteTable {
  readonly allowedMethods: (path: string) => ReadonlyArray<string>
  /** Whether the route takes a `multipart/form-data` body (the KYC document upload) instead of JSON. */
  readonly takesMultipart: (method: string, path: string) => boolean
  /** The name of the path parameter at a segment index of the path (`customerId`), if a route has one there. */
  readonly parameterAt: (path: string, index: number) => string | undefined
}

export const routeTable = (
  api: HttpApi.HttpApi.Any,
  extra: ReadonlyArray<{ readonly method: string; readonly path: string }>
): RouteTable => {
  // A path's length: its non-empty segments (a parameter matches one non-empty segment; a trailing slash adds none).
  const lengthOf = (path: string) => path.split("/").filter((segment) => segment !== "").length
  const routes: Array<{ method: string; pattern: RegExp; segments: ReadonlyArray<string>; length: number; multipart: boolean }> = []
  const add = (method: string, path: string, multipart: boolean) =>
    routes.push({
      method,
      pattern: new RegExp("^" + path.replace(/:[A-Za-z0-9_]+/g, "[^/]+") + "/?$"),
      segments: path.split("/"),
      length: lengthOf(path),
      multipart
    })
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) =>
      add(
        endpoint.method,
        endpoint.path,
        Option.match(endpoint.payloadSchema, {
          onNone: () => false,
          onSome: ({ ast }) => HttpApiSchema.getMultipartStream(ast) !== undefined || HttpApiSchema.getMultipart(ast) !== undefined
        })
      )
  })
  for (const route of extra) add(route.method, route.path, false)
  // Routes by length: a path is tested only against the patterns of its own length, a fifth of the hundred or so.
  const byLength = new Map<number, Array<(typeof routes)[number]>>()
  for (const route of routes) {
    const same = byLength.get(route.length)
    if (same === undefined) byLength.set(route.length, [route])
    else same.push(route)
  }
  // A request asks about its path several times (allowed methods, multipart, parameters): the last path's routes are
  // kept, so the patterns are tested once per request.
  let lastPath: string | undefined
  let lastRoutes: typeof routes = []
  const matching = (path: string) => {
    if (path !== lastPath) {
      lastRoutes = (byLength.get(lengthOf(path)) ?? []).filter((r) => r.pattern.test(path))
      lastPath = path
    }
    return lastRoutes
  }
  return {
    allowedMethods: (path) => [...new Set(matching(path).map((r) => r.method))],
    takesMultipart: (method, path) => matching(path).some((r) => r.method === method && r.multipart),
    parameterAt: (path, index) =>
      matching(path).map((r) => r.segments[index]).find((segment) => segment?.startsWith(":"))?.slice(1)
  }
}

const bodyMethods = new Set(["POST", "PUT", "PATCH"])

/** An unknown route or wrong method is the client's mistake, answered 404/405: not worth an ERROR log line. */
const isRouteNotFoundOnly = (cause: Cause.Cause<unknown>) => {
  // The router fails with RouteNotFound and the platform carries the response it rendered as a defect beside it.
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
 * The router's (find-my-way's) `maxParamLength`, which @effect/platform leaves at its default: a longer path
 * parameter makes the router answer "no route".
 */
export const routerParamLengthMax = 100

/** The first `max` UTF-16 code units of a text at most, never splitting a surrogate pair, and `…`. */
const cutParameter = (text: string, max: number) => {
  let end = max - 1
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}…`
}

const unroutableCharacter = /[%;#]/

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * A path segment the router can route, or `undefined` when it can route it as it is. The router refuses (answers
 * "no route" for) a segment that is not valid percent-encoding (`%zz`, `%FF`, a truncated UTF-8 sequence) or that
 * is, decoded, longer than `routerParamLengthMax`; and it cuts the path at a `;` or `#` (`x;y=1/kyc` would reach
 * another route). Such a segment becomes the percent-encoding of its own text: undecodable text as written (`%zz`
 * is the three characters `%zz`), `;` and `#` as characters, a long value cut to 99 characters plus `…`. That
 * value is well formed for the router but holds a `%`, `;`, `#` or `…`, so it is no id, rail or level: in a
 * parameter's place the route's own validation answers it as it answers any invalid value (403
 * `CUSTOMER_FORBIDDEN`, the resource's 404, 400 naming the field); in a literal segment's place no route matches.
 */
export const routableSegment = (segment: string): string | undefined => {
  // Nearly every segment: nothing encoded, nothing cut, short enough (it decodes to itself).
  if (segment.length <= routerParamLengthMax && !unroutableCharacter.test(segment)) return undefined
  let text: string
  let decodable = true
  try {
    text = decodeURIComponent(segment)
  } catch {
    text = segment
    decodable = false
  }
  if (decodable && text.length <= routerParamLengthMax && !segment.includes(";") && !segment.includes("#")) return undefined
  if (text.length > routerParamLengthMax) text = cutParameter(text, routerParamLengthMax)
  return encodeURIComponent(text.replace(loneSurrogate, "\ufffd"))
}

/** An absolute-form request target's origin (`http://host:port`, RFC 9112 section 3.2.2; what proxies are sent). */
const absoluteOrigin = /^https?:\/\/[^/?#]*/i

/** A request target in origin form: `http://host/a?b` is `/a?b` (as the router reads it), `/a?b` itself. */
export const originForm = (url: string): string => {
  const origin = absoluteOrigin.exec(url)
  if (origin === null) return url
  const rest = url.slice(origin[0].length)
  return rest.startsWith("/") ? rest : `/${rest}`
}

/** The URL to route: `url` with every segment of its path that the router cannot route made routable. */
export const routableUrl = (url: string): string => {
  const query = url.indexOf("?")
  const path = query < 0 ? url : url.slice(0, query)
  let changed = false
  const segments = path.split("/").map((segment) => {
    const routable = routableSegment(segment)
    if (routable === undefined) return segment
    changed = true
    return routable
  })
  return changed ? segments.join("/") + (query < 0 ? "" : url.slice(query)) : url
}

/**
 * Checks that must happen before a handler reads its input: control characters in path values and the query
 * string, the content type (JSON routes take `application/json` only, the upload route `multipart/form-data`
 * only), the size, the JSON syntax, then the JSON text itself (depth, exact numbers, control characters; see
 * JsonBody.ts). The body text is read here once (bounded) and cached by the request, so the handler reuses it.
 */
interface Rejection {
  readonly status: number
  readonly code?: string | undefined
  readonly message: string
  readonly headers?: Record<string, string> | undefined
}

/** Sets the text `request.text` answers (the platform's Node request caches it in `textEffect`). */
const cacheText = (request: HttpServerRequest.HttpServerRequest, text: string) => {
  ;(request as { textEffect?: Effect.Effect<string> }).textEffect = Effect.succeed(text)
}

/** `modified` (the same request with another URL) reading the body text already read from `request`, if any. */
const withCachedText = (request: HttpServerRequest.HttpServerRequest, modified: HttpServerRequest.HttpServerRequest) => {
  const cached = (request as { textEffect?: Effect.Effect<string> }).textEffect
  if (cached !== undefined) (modified as { textEffect?: Effect.Effect<string> }).textEffect = cached
  return modified
}

/**
 * Reads a body up to `max` bytes, sent with a content-length (already checked against `max`) or chunked. The
 * platform's bounded reader destroys the request stream, and with it the socket, when the limit is passed, so the
 * client would see a reset instead of the 413; here the rest of an oversized body is discarded instead and the
 * answer closes the connection. A body within the limit is cached on the request, where `request.text` (and so the
 * handler) finds it.
 */
const readBody = (request: HttpServerRequest.HttpServerRequest, max: number) =>
  Effect.async<Either.Either<string, "tooLarge" | "unreadable">>((resume) => {
    const raw = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let bytes = 0
    let settled = false
    const settle = (result: Either.Either<string, "tooLarge" | "unreadable">) => {
      if (settled) return
      settled = true
      raw.off("data", onData)
      raw.off("end", onEnd)
      raw.off("error", onError)
      resume(Effect.succeed(result))
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= max) return void chunks.push(chunk)
      chunks.length = 0
      settle(Either.left("tooLarge"))
      raw.on("error", () => {})
      raw.resume()
    }
    const onEnd = () => {
      const text = Buffer.concat(chunks).toString("utf8")
      cacheText(request, text)
      settle(Either.right(text))
    }
    const onError = () => settle(Either.left("unreadable"))
    raw.on("data", onData)
    raw.once("end", onEnd)
    raw.once("error", onError)
  })

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
  const problem = query < 0 ? undefined : checkQuery(request.url.slice(query + 1))
  return problem === undefined ? Option.none() : Option.some(badRequest(problem.message))
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

const precheckBody = (
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  routes: RouteTable,
  maxJsonBodyBytes: number
) =>
  Effect.gen(function*(): Effect.fn.Return<Option.Option<Rejection>> {
    // An unknown path or a wrong method is left to the router (404, 405), whatever the request carries.
    if (!routes.allowedMethods(path).includes(request.method)) return Option.none<Rejection>()
    const refusedUrl = precheckUrl(request, path, routes)
    if (Option.isSome(refusedUrl)) return refusedUrl
    if (!bodyMethods.has(request.method)) return Option.none<Rejection>()
    const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
    const declared = Number(request.headers["content-length"] ?? "0")
    const hasBody = declared > 0 || request.headers["transfer-encoding"] !== undefined
    if (routes.takesMultipart(request.method, path)) return precheckMultipart(request, mediaType, hasBody)
    // Every other route takes JSON only: any other declared type is refused before a byte of the body is read
    // (a multipart body would otherwise be parsed, even spooled to disk, past MAX_JSON_BODY_BYTES).
    const unsupported = (): Option.Option<Rejection> =>
      Option.some({ status: 415, message: `Content-Type must be application/json${mediaType ? `, got ${mediaType}` : ""}` })
    if (mediaType !== "" && mediaType !== "application/json") return unsupported()
    if (!hasBody) {
      // No body and no content type on a sandbox control reads as `{}`: a payload with only optional fields
      // decodes, one with a required field answers 400 naming it (the platform would decode `null` and refuse
      // every payload). Partner routes keep refusing an empty body.
      if (mediaType === "" && sandboxControlPath.test(path)) cacheText(request, "{}")
      return Option.none()
    }
    if (mediaType === "") return unsupported()
    const tooLarge = { status: 413, message: `Request body must be at most ${maxJsonBodyBytes} bytes` }
    if (declared > maxJsonBodyBytes) return Option.some(tooLarge)
    // Read from the socket's stream directly, with or without a content-length (the platform's reader builds a
    // stream per body: ~20 effects per request).
    const text = yield* readBody(request, maxJsonBodyBytes)
    if (text._tag === "Left") {
      return Option.some(
        // Only a chunked body passes the limit here (a declared length was checked above, and node reads no more).
        text.left === "tooLarge"
          ? { ...tooLarge, headers: { connection: "close" } }
          : { status: 400, message: "Could not read the request body" }
      )
    }
    if (text.right.trim() === "") {
      // A whitespace-only body counts as an empty one (JSON.parse would fail on it later, logged as a defect).
      cacheText(request, "")
      return Option.none()
    }
    try {
      JSON.parse(text.right)
    } catch (error) {
      return Option.some({
        status: 400,
        code: "MALFORMED_JSON",
        message: `Request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`
      })
    }
    // Before any schema sees the value: nesting depth, exact numbers, control characters (JsonBody.ts).
    const problem = scanJson(text.right)
    return problem === undefined ? Option.none() : Option.some(badRequest(problem.message))
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
    const rejected = yield* precheckBody(request, path, options.routes, options.maxJsonBodyBytes)
    if (Option.isSome(rejected)) {
      const { status, code, message, headers } = rejected.value
      return yield* finalize(errorResponse(errorBody({ status, code, message, path, timestamp: yield* clock.now }), headers))
    }
    yield* HttpApp.appendPreResponseHandler((_request, response) => finalize(response))
    // A segment the router cannot route is routed as its well-formed text (`routableSegment`): the handler answers
    // it. Responses, logs and the error envelope keep the original `path`.
    const url = routableUrl(target)
    const routed = url === request.url
      ? app
      : Effect.provideService(app, HttpServerRequest.HttpServerRequest, withCachedText(request, request.modify({ url })))
    return yield* routed.pipe(
      // No trace exporter is configured (src/App.ts): no spans for the handler's SQL statements either.
      Effect.withTracerEnabled(false),
      Effect.tapErrorCause((cause) =>
        Cause.isInterruptedOnly(cause) || isRouteNotFoundOnly(cause)
          ? Effect.void
          : Effect.logError("request failed", cause).pipe(Effect.annotateLogs({ requestId, path }))
      )
    )
  }) as HttpApp.Default<never, ServiceClock>
