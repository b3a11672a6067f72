import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import { Keys } from "../crypto/Keys.js"
import { EventBus, Outbox, transaction } from "../events/Events.js"
import { BadRequest, type InvalidCursor } from "../api/ApiError.js"
import type { Page } from "../api/Envelope.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { Ids, isUuid } from "../ids/Ids.js"
import {
  type ChaosReport,
  type ChaosSettings,
  type DeliveryStatus,
  type WebhookConfig,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  WebhookDeliveryNotFound,
  type WebhookSecretIssued,
  WebhookUrlNotSet
} from "./Api.js"
import { formatSecret, sealSecret, secretIvBytes } from "./Signing.js"
import { checkWebhookUrl } from "./UrlRules.js"
import { WebhookSender } from "./WebhookSender.js"
import * as WebhooksRepo from "./WebhooksRepo.js"


export const toDelivery = (row: WebhooksRepo.DeliveryRow): WebhookDelivery => ({
  id: row.eventId,
  type: row.type,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.nextAttemptAt,
  lastAttemptAt: row.lastAttemptAt,
  lastResponseStatus: row.lastResponseStatus,
  lastError: row.lastError,
  createdAt: row.createdAt,
  deliveredAt: row.deliveredAt
})

/**
 * Webhook configuration and the delivery log of SPEC.md "Webhook management". Setting a URL or rotating the
 * secret records a `webhook.test` event; its delivery is leased in the same transaction and attempted right away,
 * synchronously, so the dispatcher never sends it a second time. If that first attempt fails, the test delivery
 * follows the ordinary retry schedule like any other delivery.
 */
export class Webhooks extends Context.Tag("Webhooks")<Webhooks, {
  readonly get: (partnerId: string) => Effect.Effect<WebhookConfig>
  /** Sets the URL (the self-serve rules) and mints a secret, or seals the one supplied (the console's update-webhook). */
  readonly setUrl: (partnerId: string, url: string, suppliedSecret?: string) => Effect.Effect<WebhookSecretIssued, BadRequest>
  readonly rotateSecret: (partnerId: string) => Effect.Effect<WebhookSecretIssued, WebhookUrlNotSet>
  /** Sandbox webhook chaos: the settings (all 0 without a webhook configuration), set, and the report. */
  readonly chaos: (partnerId: string) => Effect.Effect<ChaosSettings>
  readonly setChaos: (partnerId: string, settings: ChaosSettings) => Effect.Effect<ChaosSettings, WebhookUrlNotSet>
  readonly chaosReport: (partnerId: string) => Effect.Effect<typeof ChaosReport.Type>
  readonly deliveries: (
    partnerId: string,
    query: PageRequest & { readonly status?: DeliveryStatus | undefined }
  ) => Effect.Effect<Page<WebhookDelivery>, InvalidCursor>
  readonly delivery: (partnerId: string, id: string) => Effect.Effect<WebhookDeliveryDetail, WebhookDeliveryNotFound>
  readonly replay: (partnerId: string, id: string) => Effect.Effect<WebhookDelivery, WebhookDeliveryNotFound>
  /**
   * The partner's pending deliveries whose next attempt is due by `until` (what a clock advance to `until` sends),
   * soonest first (next attempt, then event id), after `after`; with the event's customer.
   */
  readonly due: (query: {
    readonly partnerId: string
    readonly until: Date
    readonly after?: { readonly at: Date; readonly id: string } | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<{ readonly delivery: WebhookDelivery; readonly customerId: string | null }>>
}>() {}

export const layer = Layer.effect(
  Webhooks,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WebhooksRepo.make
    const config = yield* AppConfig
    const clock = yield* ServiceClock
    const keys = yield* Keys
    const ids = yield* Ids
    const outbox = yield* Outbox
    const bus = yield* EventBus
    const cursors = yield* Cursors
    const sender = yield* WebhookSender

    /** Stores `url` with a new secret and sends the test event with it; the previous secret is gone at commit. */
    const issueSecret = (partnerId: string, url: string | undefined, supplied?: string) =>
      Effect.gen(function*() {
        const secret = supplied ?? formatSecret(yield* ids.bytes(32))
        const iv = yield* ids.bytes(secretIvBytes)
        const leaseToken = yield* ids.uuid
        const claimed = yield* transaction(Effect.gen(function*() {
          const current = yield* repo.lockConfig(partnerId)
          const target = url ?? Option.getOrUndefined(current)?.url
          if (target === undefined) return yield* new WebhookUrlNotSet({ message: "No webhook URL is set: PUT /webhook with a url first" })
          yield* repo.upsertConfig({
            partnerId,
            url: target,
            secretCiphertext: sealSecret(keys.encryption, iv, secret, partnerId),
            updatedAt: yield* clock.now
          })
          const event = yield* outbox.record({ partnerId, type: "webhook.test", data: { partnerId } })
          const leased = yield* repo.leaseOne(event.envelope.id, leaseToken, sender.leaseSeconds)
          if (Option.isNone(leased)) return yield* Effect.dieMessage("webhook.test delivery was not queued")
          return leased.value
        })).pipe(
          Effect.catchTag("SqlError", Effect.die),
          Effect.provideService(SqlClient.SqlClient, sql),
          Effect.provideService(EventBus, bus)
        )
        const outcome = yield* sender.attempt(claimed)
        return {
          url: claimed.url,
          secret,
          test: { delivered: outcome.delivered, statusCode: outcome.statusCode, error: outcome.error }
        }
      })

    const get = (partnerId: string) =>
      repo.findConfig(partnerId).pipe(
        Effect.map(Option.match({
          onNone: (): WebhookConfig => ({ url: null, hasSecret: false, updatedAt: null }),
          onSome: (row): WebhookConfig => ({ url: row.url, hasSecret: true, updatedAt: row.updatedAt })
        })),
        Effect.orDie
      )

    const setUrl = (partnerId: string, raw: string, suppliedSecret?: string) =>
      Effect.gen(function*() {
        const verdict = checkWebhookUrl(raw, config.mode)
        if (!verdict.ok) return yield* new BadRequest({ message: `url: ${verdict.rule}` })
        return yield* issueSecret(partnerId, verdict.url, suppliedSecret).pipe(Effect.catchTag("WebhookUrlNotSet", Effect.die))
      })

    const rotateSecret = (partnerId: string) => issueSecret(partnerId, undefined)

    const deliveries = (partnerId: string, query: PageRequest & { readonly status?: DeliveryStatus | undefined }) =>
      paginate(
        { list: "webhook-deliveries", partnerId, filters: { status: query.status } },
        query,
        ({ beforeSeq, limit }) => repo.page(partnerId, query.status, beforeSeq, limit),
        (row) => String(row.seq)
      ).pipe(
        Effect.map((page) => ({ items: page.items.map(toDelivery), nextCursor: page.nextCursor })),
        Effect.provideService(Cursors, cursors),
        Effect.catchTag("SqlError", Effect.die)
      )

    const delivery = (partnerId: string, id: string) =>
      Effect.gen(function*() {
        if (!isUuid(id)) return yield* WebhookDeliveryNotFound.standard()
        const found = yield* repo.findOwned(partnerId, id.toLowerCase()).pipe(Effect.orDie)
        if (Option.isNone(found)) return yield* WebhookDeliveryNotFound.standard()
        const row = found.value
        return {
          ...toDelivery(row),
          payload: { id: row.eventId, type: row.type, createdAt: row.eventCreatedAt.toISOString(), data: row.data }
        }
      })

    const replay = (partnerId: string, id: string) =>
      Effect.gen(function*() {
        if (!isUuid(id)) return yield* WebhookDeliveryNotFound.standard()
        const row = yield* repo.replay(partnerId, id.toLowerCase(), yield* clock.now).pipe(Effect.orDie)
        if (Option.isNone(row)) return yield* WebhookDeliveryNotFound.standard()
        yield* sender.wake
        return toDelivery(row.value)
      })

    const due: typeof Webhooks.Service["due"] = (query) =>
      repo.due(query).pipe(
        Effect.map((rows) => rows.map((row) => ({ delivery: toDelivery(row), customerId: row.customerId }))),
        Effect.orDie
      )

    const noChaos: ChaosSettings = { duplicates: 0, reorderWindowSeconds: 0, extraDelaySeconds: 0, failFirstAttempts: 0 }

    const chaos = (partnerId: string) =>
      Effect.map(repo.chaosOf(partnerId), Option.getOrElse(() => noChaos)).pipe(Effect.orDie)

    const setChaos = (partnerId: string, settings: ChaosSettings) =>
      transaction(Effect.gen(function*() {
        const current = yield* repo.lockConfig(partnerId)
        if (Option.isNone(current)) {
          return yield* new WebhookUrlNotSet({ message: "No webhook URL is set: PUT /partner/v1/webhook with a url first" })
        }
        yield* repo.setChaos(partnerId, settings)
        return settings
      })).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(EventBus, bus)
      )

    const chaosReport = (partnerId: string) =>
      Effect.gen(function*() {
        const settings = yield* chaos(partnerId)
        const rows = yield* repo.chaosLog(partnerId).pipe(Effect.orDie)
        const byEvent = new Map<string, { eventId: string; type: string; sent: number; acknowledged: number; failedOnPurpose: number; acknowledgedAt: Array<number>; firstSentAt: Date }>()
        const order: Array<string> = []
        for (const row of rows) {
          const item = byEvent.get(row.eventId) ??
            { eventId: row.eventId, type: row.type, sent: 0, acknowledged: 0, failedOnPurpose: 0, acknowledgedAt: [], firstSentAt: row.at }
          byEvent.set(row.eventId, item)
          if (row.failedOnPurpose) item.failedOnPurpose++
          else item.sent++
          if (row.acknowledged) {
            item.acknowledged++
            order.push(row.eventId)
            item.acknowledgedAt.push(order.length)
          }
        }
        return { settings, events: [...byEvent.values()], acknowledgementOrder: order }
      })

    return Webhooks.of({ get, setUrl, rotateSecret, deliveries, delivery, replay, due, chaos, setChaos, chaosReport })
  })
)
