import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer, Redacted } from "effect"
import * as Crypto from "node:crypto"
import { Api } from "../Api.js"
import { Unauthorized } from "../api/ApiError.js"
import { Cursors, paginateByKey } from "../api/Pagination.js"
import { ClockAdvance } from "../clock/ClockAdvance.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { PendingOperations } from "../sandbox/Operations.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import { ConsoleAuth, CurrentConsoleSession, type Session } from "./Api.js"
import { Console } from "./Console.js"

export const ConsoleAuthLive = Layer.effect(
  ConsoleAuth,
  Effect.map(Console, (console) => ConsoleAuth.of({ bearer: (token) => console.authenticate(Redacted.value(token)) }))
)

/**
 * The web console's session cookies (docs/console.md "The web console"): the refresh token in an HttpOnly cookie
 * sent only to the refresh route, and a readable CSRF cookie whose value the page echoes in `X-CSRF-Token`
 * (double submit). Both `SameSite=Strict`, `Secure` unless the request's host is a loopback name.
 */
export const refreshCookie = "pmm_console_refresh"
export const csrfCookie = "pmm_console_csrf"
export const csrfHeader = "x-csrf-token"
export const refreshCookiePath = "/api/v1/partner/token/refresh"

/** Whether the request's Host names the machine itself (127.0.0.1, ::1, localhost): cookies without `Secure`. */
export const isLoopbackHost = (host: string | undefined): boolean => {
  if (host === undefined) return false
  const name = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d+$/, "")
  return name === "127.0.0.1" || name === "::1" || name.toLowerCase() === "localhost"
}

const cookieOptions = (secure: boolean, path: string, httpOnly: boolean, maxAgeSeconds: number) => ({
  httpOnly,
  secure,
  sameSite: "strict" as const,
  path,
  maxAge: `${maxAgeSeconds} seconds` as const
})

/** Sets (or, with `undefined`, clears) both cookies on the answer to this request. */
const writeCookies = (session: Pick<Session, "refreshToken" | "refreshExpiresAt" | "expiresAt"> | undefined) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const secure = !isLoopbackHost(request.headers["host"])
    const seconds = session === undefined ? 0 : Math.max(1, Math.floor((session.refreshExpiresAt.getTime() - session.expiresAt.getTime()) / 1000) + 900)
    const csrf = session === undefined ? "" : Crypto.randomBytes(24).toString("base64url")
    return HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(
        response.pipe(
          HttpServerResponse.unsafeSetCookie(refreshCookie, session?.refreshToken ?? "", cookieOptions(secure, refreshCookiePath, true, seconds)),
          HttpServerResponse.unsafeSetCookie(csrfCookie, csrf, cookieOptions(secure, "/", false, seconds))
        )
      ))
  })

/** A session answer that also sets the cookies. */
const withCookies = <A extends Pick<Session, "refreshToken" | "refreshExpiresAt" | "expiresAt">, E, R>(answer: Effect.Effect<A, E, R>) =>
  Effect.tap(answer, (session) => writeCookies(session))

const sameSecret = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && Crypto.timingSafeEqual(left, right)
}

/**
 * The refresh token of a refresh request: the body's (API clients), else the cookie's, which needs the CSRF header
 * to equal the CSRF cookie (a cross-site form or script cannot read the cookie to echo it).
 */
const refreshTokenOf = (fromBody: string | undefined) =>
  Effect.gen(function*() {
    if (fromBody !== undefined) return fromBody
    const request = yield* HttpServerRequest.HttpServerRequest
    const token = request.cookies[refreshCookie]
    if (token === undefined || token === "") {
      return yield* new Unauthorized({ message: "No refresh token: send { refreshToken } or the console's refresh cookie" })
    }
    const cookie = request.cookies[csrfCookie] ?? ""
    const header = request.headers[csrfHeader] ?? ""
    if (cookie === "" || !sameSecret(cookie, header)) {
      return yield* new Unauthorized({ message: "The refresh cookie needs the X-CSRF-Token header equal to the pmm_console_csrf cookie" })
    }
    return token
  })

export const ConsolePublicHttp = HttpApiBuilder.group(Api, "consolePublic", (handlers) =>
  Effect.map(Console, (console) =>
    handlers
      .handle("signUp", ({ payload }) => Effect.tap(console.signUp(payload), (result) => writeCookies(result.session)))
      .handle("signIn", ({ payload }) => withCookies(console.signIn(payload)))
      .handle("refresh", ({ payload }) => withCookies(Effect.flatMap(refreshTokenOf(payload.refreshToken), console.refresh)))))

export const ConsoleHttp = HttpApiBuilder.group(Api, "console", (handlers) =>
  Effect.gen(function*() {
    const console = yield* Console
    const webhooks = yield* Webhooks
    const partnerId = Effect.map(CurrentConsoleSession, (session) => session.partnerId)
    return handlers
      .handle("signOut", () =>
        Effect.flatMap(CurrentConsoleSession, (session) =>
          Effect.as(Effect.zipRight(console.signOut(session), writeCookies(undefined)), { signedOut: true as const })))
      .handle("me", () => Effect.flatMap(CurrentConsoleSession, console.view))
      .handle("setCompany", ({ payload }) => Effect.flatMap(CurrentConsoleSession, (session) => console.setCompany(session, payload)))
      .handle("submitKyb", () => Effect.flatMap(CurrentConsoleSession, console.submitKyb))
      .handle("listKeys", () => Effect.flatMap(CurrentConsoleSession, console.listKeys))
      .handle("rotateKey", () => Effect.flatMap(CurrentConsoleSession, console.rotateKey))
      .handle("updateWebhook", ({ payload }) =>
        Effect.flatMap(CurrentConsoleSession, (session) => console.updateWebhook(session, payload.url, payload.secret)))
      .handle("getWebhook", () => Effect.flatMap(partnerId, webhooks.get))
      .handle("rotateWebhookSecret", () => Effect.flatMap(partnerId, webhooks.rotateSecret))
      .handle("webhookDeliveries", ({ urlParams }) => Effect.flatMap(partnerId, (id) => webhooks.deliveries(id, urlParams)))
      .handle("webhookDelivery", ({ path }) => Effect.flatMap(partnerId, (id) => webhooks.delivery(id, path.id)))
      .handle("replayWebhookDelivery", ({ path }) => Effect.flatMap(partnerId, (id) => webhooks.replay(id, path.id)))
  }))

/** The operations list's composite key, as `GET /sandbox/operations` pages it (src/sandbox/InspectHttp.ts). */
const operationKey = /^(\d{1,15})_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/
const parseOperationKey = (key: string | undefined) => {
  if (key === undefined) return Effect.succeed(undefined)
  const match = operationKey.exec(key)
  return match === null
    ? Effect.dieMessage(`console: a signed cursor key does not parse: ${key}`)
    : Effect.succeed({ at: new Date(Number(match[1])), id: match[2]! })
}

export const SandboxConsoleHttp = HttpApiBuilder.group(Api, "sandboxConsole", (handlers) =>
  Effect.gen(function*() {
    const console = yield* Console
    const clock = yield* ServiceClock
    const clockAdvance = yield* ClockAdvance
    const operations = yield* PendingOperations
    const cursors = yield* Cursors
    // Authentication made the request read the session's partner's clock.
    const reading = Effect.flatMap(CurrentConsoleSession, (session) =>
      Effect.all({
        now: clock.now,
        offsetSeconds: Effect.map(clock.offsetMs, (ms) => ms / 1000),
        partnerOffsetSeconds: Effect.map(clock.partnerOffsetMs(session.partnerId), (ms) => ms / 1000)
      }))
    return handlers
      .handle("decideKyb", ({ payload }) =>
        Effect.flatMap(CurrentConsoleSession, (session) =>
          Effect.zipRight(console.decideKyb(session.partnerId, payload), console.view(session))))
      .handle("clock", () => reading)
      .handle("advanceClock", ({ payload }) => Effect.zipRight(clockAdvance.advance(payload.seconds), reading))
      .handle("operations", ({ urlParams }) =>
        Effect.flatMap(CurrentConsoleSession, (session) => {
          const customerId = urlParams.customerId?.toLowerCase()
          return paginateByKey(
            cursors,
            { list: "sandbox-operations", partnerId: session.partnerId, customerId, filters: { rail: urlParams.rail } },
            urlParams,
            ({ afterKey, limit }) =>
              Effect.flatMap(parseOperationKey(afterKey), (before) =>
                operations.page({ partnerId: session.partnerId, customerId, rail: urlParams.rail, before, limit })),
            (operation) => `${operation.createdAt.getTime()}_${operation.id.toLowerCase()}`
          )
        }))
  }))
