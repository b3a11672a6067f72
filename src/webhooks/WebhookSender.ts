import * as Command from "../observability/Command.js"
import { Clock, Deferred, Effect, Either, Option, Ref } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import { Keys } from "../crypto/Keys.js"
import type { TestResult } from "./Api.js"
import { delayAfterFailure } from "./RetrySchedule.js"
import { deliveryBody, deliveryHeaders, openSecret } from "./Signing.js"
import { type Answer, makePost } from "./WebhookTransport.js"
import * as WebhooksRepo from "./WebhooksRepo.js"

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

/** Opens a delivery's sealed secret, from a bounded cache of the recently opened ones. */
const makeSecretOpener = (encryptionKey: Buffer) => {
  const opened = new Map<string, string>()
  return (claimed: WebhooksRepo.ClaimedDelivery) => {
    const sealed = Buffer.from(claimed.secretCiphertext)
    const key = `${claimed.partnerId}:${sealed.toString("base64")}`
    const cached = opened.get(key)
    if (cached !== undefined) return cached
    const secret = openSecret(encryptionKey, sealed, claimed.partnerId)
    if (opened.size >= openedSecretsMax) opened.delete(opened.keys().next().value!)
    opened.set(key, secret)
    return secret
  }
}

/** The error of an attempt whose signing secret could not be opened (nothing was sent). */
export const unopenableSecret = "the webhook signing secret could not be opened with this instance's ENCRYPTION_KEY " +
  "(sealed with another key, or damaged); nothing was sent. Set the webhook again (PUT /partner/v1/webhook) to seal a new one"

const isDelivered = (answer: Answer) => answer._tag === "Answered" && answer.status >= 200 && answer.status < 300

/** What an attempt's answer comes to: delivered, gone (410) or failed, and the next step of the retry schedule. */
/**
 * The `t` of a delivery's signature: the wall-clock time of the attempt in unix seconds, in every mode. A partner's
 * receiver checks it against its own clock (a 5-minute tolerance), so it never follows the sandbox clock; the event's
 * `createdAt` and the attempt's records stay on the partner's service clock.
 */
const signingTime = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

const outcomeOf = (claimed: WebhooksRepo.ClaimedDelivery, answer: Answer, attemptedAt: Date, deliveredAt: Date | null): SentAttempt => {
  const delivered = isDelivered(answer)
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
    deliveredAt: delivered ? deliveredAt : null
  }
  return { delivered, statusCode, error, record }
}

/**
 * Makes one attempt of a leased delivery: signs it with the partner's current secret at send time, POSTs it with
 * the answer time-out, and records the result and the next step of the schedule.
 */
export class WebhookSender extends Effect.Service<WebhookSender>()("WebhookSender", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const clock = yield* ServiceClock
    const keys = yield* Keys
    const repo = yield* WebhooksRepo.WebhooksRepo
    const post = yield* makePost(config)
    const secretOf = makeSecretOpener(keys.encryption)

    /** Sandbox chaos: one copy of an attempt in the partner's chaos log (`result` undefined: failed on purpose). */
    const logChaos = (claimed: WebhooksRepo.ClaimedDelivery, copy: number, result: Answer | undefined, at: Date) =>
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

    /** Sandbox chaos: the same body and id again, freshly signed (only its timestamp changes), right after. */
    const sendDuplicates = (claimed: WebhooksRepo.ClaimedDelivery, body: string, headersAt: (seconds: number) => Record<string, string>) =>
      Effect.gen(function*() {
        for (let copy = 1; copy <= claimed.chaosDuplicates; copy++) {
          const at = yield* clock.now
          const duplicate = yield* post(claimed.url, body, headersAt(yield* signingTime))
          yield* logChaos(claimed, copy, duplicate, at)
        }
      })

    /** The attempt without recording it: the caller records it (the dispatcher, many per statement). */
    const send = Command.fn("WebhookSender.send")(function*(claimed: WebhooksRepo.ClaimedDelivery) {
      const attemptedAt = yield* clock.now
      const timestamp = yield* signingTime
      const body = deliveryBody({ id: claimed.eventId, type: claimed.type, createdAt: claimed.eventCreatedAt.toISOString(), data: claimed.data })
      const opened = yield* Effect.either(Effect.try(() => secretOf(claimed)))
      // A secret this instance cannot open (sealed with another key, or damaged) is a failed attempt, recorded with its
      // reason where the delivery log shows it, on the retry schedule: never a claim silently given up and re-leased.
      if (Either.isLeft(opened)) return outcomeOf(claimed, { _tag: "Failed", error: unopenableSecret }, attemptedAt, null)
      const secret = opened.right
      const headersAt = (seconds: number) => ({ "content-type": "application/json", ...deliveryHeaders(secret, seconds, claimed.eventId, body) })
      // The synchronous webhook.test of a URL or secret change is never disturbed: it answers the partner's PUT.
      const test = claimed.type === "webhook.test"
      const chaos = !test && (claimed.chaosDuplicates > 0 || claimed.chaosFailFirstAttempts > 0)
      // Sandbox chaos: the first attempts fail on purpose (nothing is sent), the retry schedule applies as for any failure.
      const failOnPurpose = !test && claimed.attempts < claimed.chaosFailFirstAttempts
      const answer: Answer = failOnPurpose
        ? { _tag: "Failed", error: `sandbox webhook chaos: attempt ${claimed.attempts + 1} of the first ${claimed.chaosFailFirstAttempts} fails on purpose (nothing was sent)` }
        : yield* post(claimed.url, body, headersAt(timestamp))
      if (chaos) yield* logChaos(claimed, 0, failOnPurpose ? undefined : answer, attemptedAt)
      if (!failOnPurpose && !test) yield* sendDuplicates(claimed, body, headersAt)
      return outcomeOf(claimed, answer, attemptedAt, isDelivered(answer) ? yield* clock.now : null)
    })

    /** One attempt, recorded (the synchronous `webhook.test` of a URL or secret change). */
    const attempt = Command.fn("WebhookSender.attempt")(function*(claimed: WebhooksRepo.ClaimedDelivery) {
      const { delivered, error, record, statusCode } = yield* send(claimed)
      const delivery = yield* repo.recordAttempt(record)
      if (Option.isNone(delivery)) {
        yield* Effect.logWarning("webhook attempt finished after its lease was taken over; result not recorded").pipe(
          Effect.annotateLogs({ eventId: claimed.eventId })
        )
      }
      return { delivered, statusCode, error, delivery } satisfies AttemptOutcome
    })

    const signal = yield* Ref.make(yield* Deferred.make<void>())
    /** Wakes the dispatcher: something may have become due (an event, a replay, a finished attempt). */
    const wake = Effect.gen(function*() {
      const previous = yield* Ref.getAndSet(signal, yield* Deferred.make<void>())
      yield* Deferred.succeed(previous, undefined)
    })
    /** The wake-up after this moment: awaiting the returned effect waits for the next `wake`. */
    const nextWake = Effect.map(Ref.get(signal), Deferred.await)

    return { attempt, send, leaseSeconds: leaseSecondsFor(config.webhookTimeoutMs), wake, nextWake } as const
  }),
  dependencies: [WebhooksRepo.WebhooksRepo.Default]
}) {}

export const layer = WebhookSender.Default
