import { SqlClient } from "@effect/sql"
import { Context, Deferred, Duration, Effect, Layer, Option, Ref } from "effect"
import * as NodeDns from "node:dns"
import * as NodeHttp from "node:http"
import * as NodeHttps from "node:https"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import { Keys } from "../crypto/Keys.js"
import type { TestResult } from "./Api.js"
import { delayAfterFailure } from "./RetrySchedule.js"
import { deliveryBody, deliveryHeaders, openSecret } from "./Signing.js"
import { checkWebhookUrl, hostOf, publicOnlyLookup, refuseNonPublic } from "./UrlRules.js"
import * as WebhooksRepo from "./WebhooksRepo.js"

/** What one HTTP attempt came to. */
type Answer =
  | { readonly _tag: "Answered"; readonly status: number }
  | { readonly _tag: "Failed"; readonly error: string }

/** Connections per receiving host (as many as the dispatcher's attempts in flight), and in all. */
const socketsPerHostMax = 32
const socketsMax = 256

/** How much of an answer body is read (and thrown away) so that the connection can be reused. */
const answerBodyBytesMax = 64 * 1024

/** A lease outlives any attempt: the answer time-out plus a margin for the database round trips. */
export const leaseSecondsFor = (timeoutMs: number) => Math.ceil(timeoutMs / 1000) + 60

export interface AttemptOutcome extends TestResult {
  /** The delivery after the attempt was recorded; none when the lease was lost meanwhile (replayed). */
  readonly delivery: Option.Option<WebhooksRepo.DeliveryRow>
}

/** An attempt made but not yet recorded: the result and what to write (`WebhooksRepo.recordAttempts`). */
export interface SentAttempt extends TestResult {
  readonly record: WebhooksRepo.AttemptRecord
}

/** Secrets opened recently, by sealed value: a rotation seals a new value, so an entry never outlives its secret. */
const openedSecretsMax = 1024

/**
 * Makes one attempt of a leased delivery: signs it with the partner's current secret at send time, POSTs it with
 * the answer time-out, and records the result and the next step of the schedule.
 */
export class WebhookSender extends Context.Tag("WebhookSender")<WebhookSender, {
  readonly attempt: (claimed: WebhooksRepo.ClaimedDelivery) => Effect.Effect<AttemptOutcome>
  /** The attempt without recording it: the caller records it (the dispatcher, many per statement). */
  readonly send: (claimed: WebhooksRepo.ClaimedDelivery) => Effect.Effect<SentAttempt>
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
    // A bounded keep-alive pool per scheme; production connections resolve through `publicOnlyLookup`.
    const agentOptions = {
      keepAlive: true,
      maxSockets: socketsPerHostMax,
      maxFreeSockets: socketsPerHostMax,
      maxTotalSockets: socketsMax,
      scheduling: "lifo" as const,
      ...(production ? { lookup: publicOnlyLookup } : {})
    }
    const httpAgent = new NodeHttp.Agent(agentOptions)
    const httpsAgent = new NodeHttps.Agent(agentOptions)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        httpAgent.destroy()
        httpsAgent.destroy()
      })
    )
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

    /**
     * One POST on the keep-alive pool: the answer's status once its body has been read (at most
     * `answerBodyBytesMax`, the rest is cut), or why there is none. The time-out covers the connection, the request
     * and the answer; interrupting the effect destroys the request.
     */
    const request = (url: string, body: string, headers: Record<string, string>, timeoutMs: number): Effect.Effect<Answer> =>
      Effect.async<Answer>((resume) => {
        let settled = false
        let timer: ReturnType<typeof setTimeout> | undefined
        const settle = (answer: Answer) => {
          if (settled) return
          settled = true
          if (timer !== undefined) clearTimeout(timer)
          resume(Effect.succeed(answer))
        }
        let target: URL
        try {
          target = new URL(url)
        } catch {
          settle({ _tag: "Failed", error: "connection failed: invalid URL" })
          return
        }
        const https = target.protocol === "https:"
        const req = (https ? NodeHttps : NodeHttp).request(target, {
          method: "POST",
          agent: https ? httpsAgent : httpAgent,
          headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }
        }, (res) => {
          const answered: Answer = { _tag: "Answered", status: res.statusCode ?? 0 }
          let read = 0
          res.on("data", (chunk: Buffer) => {
            read += chunk.length
            if (read >= answerBodyBytesMax) {
              settle(answered)
              res.destroy()
            }
          })
          res.on("end", () => settle(answered))
          // The status arrived; a body cut short does not change it.
          res.on("close", () => settle(answered))
          res.on("error", () => settle(answered))
        })
        req.on("error", (error) => settle({ _tag: "Failed", error: describeTransportError(error) }))
        timer = setTimeout(() => {
          settle({ _tag: "Failed", error: `timed out after ${config.webhookTimeoutMs} ms` })
          req.destroy()
        }, timeoutMs)
        req.end(body)
        return Effect.sync(() => {
          settled = true
          if (timer !== undefined) clearTimeout(timer)
          req.destroy()
        })
      })

    const post = (url: string, body: string, headers: Record<string, string>): Effect.Effect<Answer> => {
      if (!production) return request(url, body, headers, config.webhookTimeoutMs)
      // The attempt's time limit is real elapsed time (not the service clock): a monotonic reading.
      const started = performance.now()
      return checkResolved(url).pipe(
        Effect.timeoutTo({
          duration: timeout,
          onSuccess: (refusal): Answer | undefined => refusal === undefined ? undefined : { _tag: "Failed", error: refusal },
          onTimeout: (): Answer => ({ _tag: "Failed", error: `timed out after ${config.webhookTimeoutMs} ms` })
        }),
        Effect.flatMap((refused) =>
          refused !== undefined
            ? Effect.succeed(refused)
            : request(url, body, headers, Math.max(1, config.webhookTimeoutMs - (performance.now() - started)))
        )
      )
    }

    const opened = new Map<string, string>()
    const secretOf = (claimed: WebhooksRepo.ClaimedDelivery) => {
      const sealed = Buffer.from(claimed.secretCiphertext)
      const key = `${claimed.partnerId}:${sealed.toString("base64")}`
      const cached = opened.get(key)
      if (cached !== undefined) return cached
      const secret = openSecret(keys.encryption, sealed, claimed.partnerId)
      if (opened.size >= openedSecretsMax) opened.delete(opened.keys().next().value!)
      opened.set(key, secret)
      return secret
    }

    const send = (claimed: WebhooksRepo.ClaimedDelivery) =>
      Effect.gen(function*() {
        const attemptedAt = yield* clock.now
        const timestamp = Math.floor(attemptedAt.getTime() / 1000)
        const body = deliveryBody({ id: claimed.eventId, type: claimed.type, createdAt: claimed.eventCreatedAt.toISOString(), data: claimed.data })
        const secret = secretOf(claimed)
        const headersAt = (seconds: number) => ({ "content-type": "application/json", ...deliveryHeaders(secret, seconds, claimed.eventId, body) })
        // The synchronous webhook.test of a URL or secret change is never disturbed: it answers the partner's PUT.
        const test = claimed.type === "webhook.test"
        const chaos = !test && (claimed.chaosDuplicates > 0 || claimed.chaosFailFirstAttempts > 0)
        const log = (copy: number, result: Answer | undefined, at: Date) =>
          repo.logChaos({
            partnerId: claimed.partnerId,
            eventId: claimed.eventId,
            type: claimed.type,
            copy,
            attempt: claimed.attempts + 1,
            failedOnPurpose: result === undefined,
            responseStatus: result?._tag === "Answered" ? result.status : null,
            error: result === undefined ? "failed on purpose (failFirstAttempts)" : result._tag === "Failed" ? result.error : null,
            acknowledged: result?._tag === "Answered" && result.status >= 200 && result.status < 300,
            at
          }).pipe(Effect.ignore)
        // Sandbox chaos: the first attempts fail on purpose (nothing is sent), the retry schedule applies as for any failure.
        const failOnPurpose = !test && claimed.attempts < claimed.chaosFailFirstAttempts
        const answer: Answer = failOnPurpose
          ? { _tag: "Failed", error: `sandbox webhook chaos: attempt ${claimed.attempts + 1} of the first ${claimed.chaosFailFirstAttempts} fails on purpose (nothing was sent)` }
          : yield* post(claimed.url, body, headersAt(timestamp))
        if (chaos) yield* log(0, failOnPurpose ? undefined : answer, attemptedAt)
        if (!failOnPurpose && !test) {
          // Sandbox chaos: the same body and id again, freshly signed (only its timestamp changes), right after.
          for (let copy = 1; copy <= claimed.chaosDuplicates; copy++) {
            const at = yield* clock.now
            const duplicate = yield* post(claimed.url, body, headersAt(Math.floor(at.getTime() / 1000)))
            yield* log(copy, duplicate, at)
          }
        }
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
        const record: WebhooksRepo.AttemptRecord = {
          eventId: claimed.eventId,
          leaseToken: claimed.leaseToken,
          status: delivered ? "DELIVERED" : delaySeconds === undefined ? "DEAD" : "PENDING",
          attemptedAt,
          nextAttemptAt: delaySeconds === undefined ? null : new Date(attemptedAt.getTime() + delaySeconds * 1000),
          responseStatus: statusCode,
          error,
          deliveredAt: delivered ? yield* clock.now : null
        }
        return { delivered, statusCode, error, record }
      })

    const attempt = (claimed: WebhooksRepo.ClaimedDelivery) =>
      Effect.gen(function*() {
        const { delivered, error, record, statusCode } = yield* send(claimed)
        const delivery = yield* repo.recordAttempt(record).pipe(Effect.orDie)
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

    return WebhookSender.of({ attempt, send, leaseSeconds: leaseSecondsFor(config.webhookTimeoutMs), wake, nextWake })
  })
)
