import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, PubSub, Stream } from "effect"
import { Api } from "../Api.js"
import { ClockAdvance } from "../clock/ClockAdvance.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { EventBus, Outbox, type StoredEvent } from "../events/Events.js"
import { BadRequest } from "../api/ApiError.js"
import { CurrentPartner, type Partner } from "../api/Auth.js"
import { Cursors, paginate } from "../api/Pagination.js"
import * as ServerSentEvents from "../http/ServerSentEvents.js"
import { Partners } from "../partners/Partners.js"

const partnerView = (partner: Partner) => ({
  partnerId: partner.id,
  name: partner.name,
  kybStatus: partner.kybStatus,
  kybReason: partner.kybReason,
  updatedAt: partner.updatedAt
})

/** Events replayed after a `Last-Event-ID` on reconnect, at most. */
const replayMax = 1000

const eventFrame = (event: StoredEvent) =>
  ServerSentEvents.frame({ id: event.seq, event: event.envelope.type, data: { ...event.envelope, customerId: event.customerId } })

export const SandboxPartnersHttp = HttpApiBuilder.group(Api, "sandboxPartners", (handlers) =>
  Effect.map(Partners, (partners) =>
    handlers.handle("create", ({ payload }) =>
      Effect.map(
        partners.create({ name: payload?.name ?? "Sandbox Partner", kybStatus: payload?.kybStatus ?? "APPROVED" }),
        ({ apiKey, partner }) => ({ partnerId: partner.id, name: partner.name, apiKey, kybStatus: partner.kybStatus })
      ))))

export const SandboxHttp = HttpApiBuilder.group(Api, "sandbox", (handlers) =>
  Effect.gen(function*() {
    const partners = yield* Partners
    const clock = yield* ServiceClock
    const clockAdvance = yield* ClockAdvance
    const outbox = yield* Outbox
    const cursors = yield* Cursors
    const bus = yield* EventBus
    // The calling partner's clock: authentication made the request read it.
    const reading = Effect.all({
      now: clock.now,
      offsetSeconds: Effect.map(clock.offsetMs, (ms) => ms / 1000),
      partnerOffsetSeconds: Effect.flatMap(CurrentPartner, (partner) => Effect.map(clock.partnerOffsetMs(partner.id), (ms) => ms / 1000))
    })
    return handlers
      .handle("partner", () => Effect.map(CurrentPartner, partnerView))
      .handle("setKyb", ({ payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          if (payload.status !== "APPROVED" && payload.reason === undefined) {
            return yield* new BadRequest({ message: `reason: is required when status is ${payload.status}` })
          }
          return partnerView(yield* partners.setKyb(partner.id, payload.status, payload.reason ?? null))
        }))
      .handle("eventsStream", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const request = yield* HttpServerRequest.HttpServerRequest
          const lastEventId = request.headers["last-event-id"]
          const matches = (event: StoredEvent) =>
            event.partnerId === partner.id &&
            (urlParams.customerId === undefined || event.customerId === urlParams.customerId) &&
            (urlParams.type === undefined || event.envelope.type === urlParams.type)
          // Subscribed before the `: connected` comment is sent (ServerSentEvents.responseScoped).
          const open = Effect.gen(function*() {
            // Subscribe before reading the backlog, then skip live events the backlog already sent.
            const subscription = yield* PubSub.subscribe(bus)
            const resumeAfter = lastEventId !== undefined && /^\d{1,19}$/.test(lastEventId) ? BigInt(lastEventId) : undefined
            const backlog = resumeAfter === undefined ? [] : yield* outbox.list({
              partnerId: partner.id,
              customerId: urlParams.customerId,
              type: urlParams.type,
              afterSeq: resumeAfter.toString(),
              limit: replayMax
            })
            // Each event once: not at or before `Last-Event-ID`, not twice (backlog and live). A live event with a
            // lower id than one already sent still goes out: concurrent transactions, and other instances' events
            // (src/events/Relay.ts), commit out of id order.
            const sent = new Set<string>()
            const fresh = (event: StoredEvent) => {
              if (resumeAfter !== undefined && BigInt(event.seq) <= resumeAfter) return false
              if (sent.has(event.seq)) return false
              sent.add(event.seq)
              if (sent.size > replayMax) sent.delete(sent.values().next().value!)
              return true
            }
            return Stream.fromIterable(backlog).pipe(
              Stream.concat(Stream.fromQueue(subscription).pipe(Stream.filter(matches))),
              Stream.filter(fresh),
              Stream.map(eventFrame)
            )
          })
          return yield* ServerSentEvents.responseScoped(open)
        }))
      .handle("clock", () => reading)
      .handle("advanceClock", ({ payload }) => Effect.zipRight(clockAdvance.advance(payload.seconds), reading))
      .handle("events", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const page = yield* paginate(
            cursors,
            { list: "events", partnerId: partner.id, customerId: urlParams.customerId, filters: { type: urlParams.type } },
            urlParams,
            ({ beforeSeq, limit }) =>
              outbox.list({
                partnerId: partner.id,
                customerId: urlParams.customerId,
                type: urlParams.type,
                beforeSeq,
                limit
              }),
            (event) => event.seq
          )
          return {
            items: page.items.map((event) => ({ ...event.envelope, customerId: event.customerId })),
            nextCursor: page.nextCursor
          }
        }))
  }))
