import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Api } from "../Api.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Outbox, type StoredEvent } from "../events/Events.js"
import { CurrentPartner } from "../api/Auth.js"
import { Cursors, paginateByKey } from "../api/Pagination.js"
import { isUuid } from "../ids/Ids.js"
import { Jobs } from "../jobs/Jobs.js"
import { LedgerReads } from "../ledger/LedgerReads.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import { dataMatchesOf, resourceFromData } from "./EventResources.js"
import { type DueItem, EventNotFound } from "./InspectApi.js"
import { PendingOperations } from "./Operations.js"

/**
 * `GET /sandbox/operations`, `GET /sandbox/clock/due` and `GET /sandbox/events/{eventId}` (docs/sandbox-inspect.md).
 * Both lists are merged from several tables, so they page on a composite key `<epoch ms>_<uuid>` (time, then id:
 * uuids come from one generator and never repeat across tables) with `paginateByKey`.
 */

/** Related events shown at most. */
export const relatedMax = 100

const keyPattern = /^(\d{1,15})_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/

const keyOf = (at: Date, id: string) => `${at.getTime()}_${id.toLowerCase()}`

/** A key this list issued (its cursor is signed), so it always parses; a defect otherwise. */
const parseKey = (key: string | undefined) => {
  if (key === undefined) return Effect.succeed(undefined)
  const match = keyPattern.exec(key)
  return match === null
    ? Effect.dieMessage(`inspect: a signed cursor key does not parse: ${key}`)
    : Effect.succeed({ at: new Date(Number(match[1])), id: match[2]! })
}

const eventView = (event: StoredEvent) => ({ ...event.envelope, customerId: event.customerId })

/** Soonest first: earlier `at` first, then the smaller id. */
const soonestFirst = (a: DueItem, b: DueItem) => a.at.getTime() - b.at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export const SandboxInspectHttp = HttpApiBuilder.group(Api, "sandboxInspect", (handlers) =>
  Effect.gen(function*() {
    const operations = yield* PendingOperations
    const clock = yield* ServiceClock
    const jobs = yield* Jobs
    const webhooks = yield* Webhooks
    const outbox = yield* Outbox
    const ledger = yield* LedgerReads
    const cursors = yield* Cursors

    return handlers
      .handle("operations", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const customerId = urlParams.customerId?.toLowerCase()
          return yield* paginateByKey(
            cursors,
            { list: "sandbox-operations", partnerId: partner.id, customerId, filters: { rail: urlParams.rail } },
            urlParams,
            ({ afterKey, limit }) =>
              Effect.flatMap(parseKey(afterKey), (before) =>
                operations.page({ partnerId: partner.id, customerId, rail: urlParams.rail, before, limit })),
            (operation) => keyOf(operation.createdAt, operation.id)
          )
        }))
      .handle("due", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const seconds = urlParams.seconds ?? 0
          const until = new Date((yield* clock.nowMillis) + seconds * 1000)
          return yield* paginateByKey(
            cursors,
            { list: "sandbox-due", partnerId: partner.id, filters: { seconds } },
            urlParams,
            ({ afterKey, limit }) =>
              Effect.gen(function*() {
                const after = yield* parseKey(afterKey)
                const query = { partnerId: partner.id, until, after, limit }
                const due = yield* jobs.duePage(query)
                const deliveries = yield* webhooks.due(query)
                const items: Array<DueItem> = [
                  ...due.map(({ description, job, resourceId }): DueItem => ({
                    id: job.id,
                    at: job.runAt,
                    kind: "job",
                    name: job.kind,
                    description,
                    customerId: job.customerId,
                    resourceId
                  })),
                  ...deliveries.flatMap(({ customerId, delivery }): Array<DueItem> =>
                    delivery.nextAttemptAt === null ? [] : [{
                      id: delivery.id,
                      at: delivery.nextAttemptAt,
                      kind: "webhook_delivery",
                      name: delivery.type,
                      description: `webhook attempt ${delivery.attempts + 1} of ${delivery.type} (event ${delivery.id})`,
                      customerId,
                      resourceId: null
                    }])
                ]
                return items.sort(soonestFirst).slice(0, limit)
              }),
            (item) => keyOf(item.at, item.id)
          )
        }))
      .handle("event", ({ path }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          if (!isUuid(path.eventId)) return yield* EventNotFound.standard()
          const found = yield* outbox.find(partner.id, path.eventId.toLowerCase())
          if (Option.isNone(found)) return yield* EventNotFound.standard()
          const event = found.value
          const eventId = event.envelope.id
          const fromLedger = event.customerId === null ? undefined : yield* ledger.resourceOfEvent(event.customerId, eventId)
          const resource = fromLedger ?? resourceFromData(event)
          const transactions = resource === undefined ? [] : yield* ledger.resourceTransactions(partner.id, resource.type, resource.id)
          const delivery = yield* webhooks.delivery(partner.id, eventId).pipe(
            Effect.map(({ payload: _payload, ...delivery }) => delivery),
            Effect.catchTag("WebhookDeliveryNotFound", () => Effect.succeed(null))
          )
          const related = resource === undefined ? [] : yield* outbox.related({
            partnerId: partner.id,
            customerId: event.customerId,
            eventIds: [...new Set(transactions.map((transaction) => transaction.eventId))],
            dataMatches: dataMatchesOf(resource.type, resource.id),
            excludeId: eventId,
            limit: relatedMax
          })
          return {
            event: eventView(event),
            resource: resource === undefined ? null : { type: resource.type, id: resource.id },
            transactions,
            delivery,
            related: related.map(eventView)
          }
        }))
  }))
