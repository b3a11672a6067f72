import * as Command from "../observability/Command.js"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import { Keys } from "../crypto/Keys.js"
import { EventBus, Outbox, transaction } from "../events/Events.js"
import { BadRequest } from "../api/ApiError.js"
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

/** A due delivery with the event's customer (`Webhooks.due`). */
export interface DueDelivery {
  readonly delivery: WebhookDelivery
  readonly customerId: string | null
}

/** The partner's pending deliveries due by `until`, after `after`, at most `limit` (`Webhooks.due`). */
export interface DueDeliveriesQuery {
  readonly partnerId: string
  readonly until: Date
  readonly after?: { readonly at: Date; readonly id: string } | undefined
  readonly limit: number
}

const noChaos: ChaosSettings = { duplicates: 0, reorderWindowSeconds: 0, extraDelaySeconds: 0, failFirstAttempts: 0 }

interface ChaosEventReport {
  eventId: string
  type: string
  sent: number
  acknowledged: number
  failedOnPurpose: number
  acknowledgedAt: Array<number>
  firstSentAt: Date
}

/** The chaos log per event (copies sent, acknowledged, failed on purpose) and the order of acknowledgements. */
const summariseChaos = (settings: ChaosSettings, rows: ReadonlyArray<WebhooksRepo.ChaosLogRow>): typeof ChaosReport.Type => {
  const byEvent = new Map<string, ChaosEventReport>()
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
}

/**
 * Webhook configuration and the delivery log of docs/contract.md "Webhook management". Setting a URL or rotating the
 * secret records a `webhook.test` event; its delivery is leased in the same transaction and attempted right away,
 * synchronously, so the dispatcher never sends it a second time. If that first attempt fails, the test delivery
 * follows the ordinary retry schedule like any other delivery.
 */
export class Webhooks extends Effect.Service<Webhooks>()("Webhooks", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WebhooksRepo.WebhooksRepo
    const config = yield* AppConfig
    const clock = yield* ServiceClock
    const keys = yield* Keys
    const ids = yield* Ids
    const outbox = yield* Outbox
    const bus = yield* EventBus
    const cursors = yield* Cursors
    const sender = yield* WebhookSender

    /** Stores the URL and the sealed secret, records `webhook.test` and leases its delivery, in one transaction. */
    const storeAndLeaseTest = (partnerId: string, url: string | undefined, secret: string) =>
      Effect.gen(function*() {
        const iv = yield* ids.bytes(secretIvBytes)
        const leaseToken = yield* ids.uuid
        return yield* transaction(Effect.gen(function*() {
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
        }))
      }).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(EventBus, bus)
      )

    /** Stores `url` with a new secret and sends the test event with it; the previous secret is gone at commit. */
    const issueSecret = (partnerId: string, url: string | undefined, supplied?: string) =>
      Effect.gen(function*() {
        const secret = supplied ?? formatSecret(yield* ids.bytes(32))
        const claimed = yield* storeAndLeaseTest(partnerId, url, secret)
        const outcome = yield* sender.attempt(claimed)
        return {
          url: claimed.url,
          secret,
          test: { delivered: outcome.delivered, statusCode: outcome.statusCode, error: outcome.error }
        } satisfies WebhookSecretIssued
      })

    const get = Command.fn("Webhooks.get")((partnerId: string) =>
      repo.findConfig(partnerId).pipe(
        Effect.map(Option.match({
          onNone: (): WebhookConfig => ({ url: null, hasSecret: false, updatedAt: null }),
          onSome: (row): WebhookConfig => ({ url: row.url, hasSecret: true, updatedAt: row.updatedAt })
        }))
      ))

    /** Sets the URL (the self-serve rules) and mints a secret, or seals the one supplied (the console's update-webhook). */
    const setUrl = Command.fn("Webhooks.setUrl")(function*(partnerId: string, raw: string, suppliedSecret?: string) {
      const verdict = checkWebhookUrl(raw, config.mode)
      if (!verdict.ok) return yield* new BadRequest({ message: `url: ${verdict.rule}` })
      return yield* issueSecret(partnerId, verdict.url, suppliedSecret).pipe(Effect.catchTag("WebhookUrlNotSet", Effect.die))
    })

    const rotateSecret = Command.fn("Webhooks.rotateSecret")((partnerId: string) => issueSecret(partnerId, undefined))

    const deliveries = Command.fn("Webhooks.deliveries")(
      (partnerId: string, query: PageRequest & { readonly status?: DeliveryStatus | undefined }) =>
        paginate(
          cursors,
          { list: "webhook-deliveries", partnerId, filters: { status: query.status } },
          query,
          ({ beforeSeq, limit }) => repo.page(partnerId, query.status, beforeSeq, limit),
          (row) => String(row.seq)
        ),
      Effect.map((page): Page<WebhookDelivery> => ({ items: page.items.map(toDelivery), nextCursor: page.nextCursor }))
    )

    const delivery = Command.fn("Webhooks.delivery")(function*(partnerId: string, id: string) {
      if (!isUuid(id)) return yield* WebhookDeliveryNotFound.standard()
      const found = yield* repo.findOwned(partnerId, id.toLowerCase())
      if (Option.isNone(found)) return yield* WebhookDeliveryNotFound.standard()
      const row = found.value
      return {
        ...toDelivery(row),
        payload: { id: row.eventId, type: row.type, createdAt: row.eventCreatedAt.toISOString(), data: row.data }
      } satisfies WebhookDeliveryDetail
    })

    const replay = Command.fn("Webhooks.replay")(function*(partnerId: string, id: string) {
      if (!isUuid(id)) return yield* WebhookDeliveryNotFound.standard()
      const row = yield* repo.replay(partnerId, id.toLowerCase(), yield* clock.now)
      if (Option.isNone(row)) return yield* WebhookDeliveryNotFound.standard()
      yield* sender.wake
      return toDelivery(row.value)
    })

    /**
     * The partner's pending deliveries whose next attempt is due by `until` (what a clock advance to `until` sends),
     * soonest first (next attempt, then event id), after `after`; with the event's customer.
     */
    const due = Command.fn("Webhooks.due")((query: DueDeliveriesQuery) =>
      repo.due(query).pipe(
        Effect.map((rows) => rows.map((row): DueDelivery => ({ delivery: toDelivery(row), customerId: row.customerId })))
      ))

    /** Sandbox webhook chaos: the settings (all 0 without a webhook configuration). */
    const chaos = Command.fn("Webhooks.chaos")((partnerId: string) =>
      Effect.map(repo.chaosOf(partnerId), Option.getOrElse(() => noChaos)))

    /** Sandbox webhook chaos: sets the settings (and clears the chaos log); needs a webhook URL. */
    const setChaos = Command.fn("Webhooks.setChaos")(
      (partnerId: string, settings: ChaosSettings) =>
        transaction(Effect.gen(function*() {
          const current = yield* repo.lockConfig(partnerId)
          if (Option.isNone(current)) {
            return yield* new WebhookUrlNotSet({ message: "No webhook URL is set: PUT /partner/v1/webhook with a url first" })
          }
          yield* repo.setChaos(partnerId, settings)
          return settings
        })),
      Effect.catchTag("SqlError", Effect.die),
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.provideService(EventBus, bus)
    )

    /** Sandbox webhook chaos: the report of what the chaos log saw. */
    const chaosReport = Command.fn("Webhooks.chaosReport")(function*(partnerId: string) {
      const settings = yield* chaos(partnerId)
      const rows = yield* repo.chaosLog(partnerId)
      return summariseChaos(settings, rows)
    })

    return { get, setUrl, rotateSecret, deliveries, delivery, replay, due, chaos, setChaos, chaosReport } as const
  }),
  dependencies: [WebhooksRepo.WebhooksRepo.Default, Outbox.Default, WebhookSender.Default]
}) {}

export const layer = Webhooks.Default
