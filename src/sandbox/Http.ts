import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Outbox } from "../events/Events.js"
import { BadRequest } from "../http/ApiError.js"
import { CurrentPartner, type Partner } from "../http/Auth.js"
import { Cursors, paginate } from "../http/Pagination.js"
import { Partners } from "../partners/Partners.js"

const partnerView = (partner: Partner) => ({
  partnerId: partner.id,
  name: partner.name,
  kybStatus: partner.kybStatus,
  kybReason: partner.kybReason,
  updatedAt: partner.updatedAt
})

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
    const outbox = yield* Outbox
    const cursors = yield* Cursors
    const reading = Effect.all({
      now: clock.now,
      offsetSeconds: Effect.map(clock.offsetMs, (ms) => ms / 1000)
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
      .handle("clock", () => reading)
      .handle("advanceClock", ({ payload }) => Effect.zipRight(clock.advance(payload.seconds), reading))
      .handle("events", ({ urlParams }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const page = yield* paginate(
            "events",
            urlParams,
            ({ beforeSeq, limit }) =>
              outbox.list({
                partnerId: partner.id,
                customerId: urlParams.customerId,
                type: urlParams.type,
                beforeSeq,
                limit
              }).pipe(Effect.orDie),
            (event) => event.seq
          )
          return {
            items: page.items.map((event) => ({ ...event.envelope, customerId: event.customerId })),
            nextCursor: page.nextCursor
          }
        }).pipe(Effect.provideService(Cursors, cursors)))
  }))
