import { HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Context, Deferred, Duration, Effect, Layer, Option, Ref, Stream } from "effect"
import * as NodeDns from "node:dns"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import { Keys } from "../crypto/Keys.js"
import type { TestResult } from "./Api.js"
import { delayAfterFailure } from "./RetrySchedule.js"
import { openSecret, signatureHeader } from "./Signing.js"
import { checkWebhookUrl, hostOf, publicOnlyLookup, refuseNonPublic } from "./UrlRules.js"
import * as WebhooksRepo from "./WebhooksRepo.js"

/** What one HTTP attempt came to. */
type Answer =
  | { readonly _tag: "Answered"; readonly status: number }
  | { readonly _tag: "Failed"; readonly error: string }

/** How much of an answer body is read (and thrown away) so that the connection can be reused. */
const answerBodyBytesMax = 64 * 1024

/** A lease outlives any attempt: the answer time-out plus a margin for the database round trips. */
export const leaseSecondsFor = (timeoutMs: number) => Math.ceil(timeoutMs / 1000) + 60

export interface AttemptOutcome extends TestResult {
  /** The delivery after the attempt was recorded; none when the lease was lost meanwhile (replayed). */
  readonly delivery: Option.Option<WebhooksRepo.DeliveryRow>
}

/**
 * Makes one attempt of a leased delivery: signs it with the partner's current secret at send time, POSTs it with
 * the answer time-out, and records the result and the next step of the schedule.
 */
export class WebhookSender extends Context.Tag("WebhookSender")<WebhookSender, {
  readonly attempt: (claimed: WebhooksRepo.ClaimedDelivery) => Effect.Effect<AttemptOutcome>
  readonly leaseSeconds: number
  /** Wakes the dispatcher: something may have become due (an event, a replay, a finished attempt). */
  readonly wake: Effect.Effect<void>
  /** The wake-up after this moment: awaiting the returned effect waits for the next `wake`. */
  readonly nextWake: Effect.Effect<Effect.Effect<void>>
}>() {}

const describeTransportError = (cause: unknown): string => {
  const error = cause as { code?: unknown; message?: unknown; cause?: unknown } | undefined
  if (error?.code === "ENONPUBLIC" && typeof error.message === "string") return error.message
  if (typeof error?.code === "string") return `connection failed: ${error.code}`
  if (error?.cause !== undefined && error.cause !== cause) return describeTransportError(error.cause)
  return `connection failed: ${typeof error?.message === "string" && error.message !== "" ? error.message : "unknown error"}`
}

export const layer = Layer.scoped(
  WebhookSender,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const clock = yield* ServiceClock
    const keys = yield* Keys
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WebhooksRepo.make.pipe(Effect.provideService(SqlClient.SqlClient, sql))
    const production = config.mode === "production"
    const agent = yield* NodeHttpClient.makeAgent({ keepAlive: true, ...(production ? { lookup: publicOnlyLookup } : {}) })
    const client = yield* NodeHttpClient.make.pipe(Effect.provideService(NodeHttpClient.HttpAgent, agent))
    const timeout = Duration.millis(config.webhookTimeoutMs)

    /**
     * In production every attempt re-checks the stored URL against today's rules (a URL saved before a rule
     * existed is refused, not sent), then resolves the name and refuses it if any address is not public. The
     * connection's own lookup (`publicOnlyLookup`) checks the address actually connected to once more.
     */
    const checkResolved = (url: string) =>
      Effect.gen(function*() {
        if (!production) return undefined
        const verdict = checkWebhookUrl(url, "production")
        if (!verdict.ok) return `refused: url ${verdict.rule}`
        const host = hostOf(new URL(url))
        const addresses = yield* Effect.tryPromise(() => NodeDns.promises.lookup(host, { all: true, verbatim: true })).pipe(
          Effect.map((found) => found.map((a) => a.address)),
          Effect.catchAll((error) => Effect.succeed(describeTransportError(error.error)))
        )
        return typeof addresses === "string" ? addresses : refuseNonPublic(host, addresses)
      })

    const post = (url: string, body: string, headers: Record<string, string>): Effect.Effect<Answer> =>
      Effect.gen(function*() {
        const refusal = yield* checkResolved(url)
        if (refusal !== undefined) return { _tag: "Failed", error: refusal } as const
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.setHeaders(headers),
          HttpClientRequest.bodyText(body, "application/json")
        )
        const response = yield* client.execute(request)
        // Read a bounded part of the answer so that a keep-alive connection can be reused; the rest is cut.
        yield* response.stream.pipe(
          Stream.runFoldWhile(0, (read) => read < answerBodyBytesMax, (read, chunk) => read + chunk.length),
          Effect.ignore
        )
        return { _tag: "Answered", status: response.status } as const
      }).pipe(
        Effect.scoped,
        Effect.catchAll((error) => Effect.succeed<Answer>({ _tag: "Failed", error: describeTransportError(error.cause) })),
        Effect.timeoutTo({
          duration: timeout,
          onSuccess: (answer) => answer,
          onTimeout: (): Answer => ({ _tag: "Failed", error: `timed out after ${config.webhookTimeoutMs} ms` })
        })
      )

    const attempt = (claimed: WebhooksRepo.ClaimedDelivery) =>
      Effect.gen(function*() {
        const attemptedAt = yield* clock.now
        const timestamp = Math.floor(attemptedAt.getTime() / 1000)
        const body = JSON.stringify({
          id: claimed.eventId,
          type: claimed.type,
          createdAt: claimed.eventCreatedAt.toISOString(),
          data: claimed.data
        })
        const secret = openSecret(keys.encryption, claimed.secretCiphertext, claimed.partnerId)
        const answer = yield* post(claimed.url, body, {
          "content-type": "application/json",
          "x-service-event-id": claimed.eventId,
          "x-service-signature": signatureHeader(secret, timestamp, body),
          "user-agent": "PartnerMoneyMovement-Webhooks/1"
        })
        const delivered = answer._tag === "Answered" && answer.status >= 200 && answer.status < 300
        const gone = answer._tag === "Answered" && answer.status === 410
        const round = claimed.attempts + 1 - claimed.scheduleBase
        const delaySeconds = delivered || gone ? undefined : delayAfterFailure(round)
        const statusCode = answer._tag === "Answered" ? answer.status : null
        const error = answer._tag === "Failed"
          ? answer.error
          : delivered
          ? null
          : gone
          ? "HTTP 410: the endpoint is gone; not retried"
          : `HTTP ${answer.status}`
        const delivery = yield* repo.recordAttempt({
          eventId: claimed.eventId,
          leaseToken: claimed.leaseToken,
          status: delivered ? "DELIVERED" : delaySeconds === undefined ? "DEAD" : "PENDING",
          attemptedAt,
          nextAttemptAt: delaySeconds === undefined ? null : new Date(attemptedAt.getTime() + delaySeconds * 1000),
          responseStatus: statusCode,
          error,
          deliveredAt: delivered ? yield* clock.now : null
        }).pipe(Effect.orDie)
        if (Option.isNone(delivery)) {
          yield* Effect.logWarning("webhook attempt finished after its lease was taken over; result not recorded").pipe(
            Effect.annotateLogs({ eventId: claimed.eventId })
          )
        }
        return { delivered, statusCode, error, delivery }
      }).pipe(Effect.withSpan("WebhookSender.attempt"))

    const signal = yield* Ref.make(yield* Deferred.make<void>())
    const wake = Effect.gen(function*() {
      const previous = yield* Ref.getAndSet(signal, yield* Deferred.make<void>())
      yield* Deferred.succeed(previous, undefined)
    })
    const nextWake = Effect.map(Ref.get(signal), Deferred.await)

    return WebhookSender.of({ attempt, leaseSeconds: leaseSecondsFor(config.webhookTimeoutMs), wake, nextWake })
  })
)
