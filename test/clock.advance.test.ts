import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { ClockAdvance } from "../src/clock/ClockAdvance.js"
import * as ServiceClock from "../src/clock/ServiceClock.js"
import { Jobs } from "../src/jobs/Jobs.js"
import { WebhookDispatcher } from "../src/webhooks/WebhookDispatcher.js"

const startAt = new Date("2030-01-01T00:00:00.000Z")

/** Offsets kept in memory (the clock's store is the database in the service). */
const memoryStore = (): ServiceClock.ClockStore => {
  let instanceMs = 0
  const partners = new Map<string, number>()
  return {
    load: Effect.sync(() => ({ instanceMs, partners: new Map(partners) })),
    advanceInstance: (deltaMs) => Effect.sync(() => (instanceMs += deltaMs)),
    advancePartner: (partnerId, deltaMs) => Effect.sync(() => {
      partners.set(partnerId, (partners.get(partnerId) ?? 0) + deltaMs)
      return partners.get(partnerId)!
    })
  }
}

const unused = () => Effect.dieMessage("not used by ClockAdvance")

/**
 * ClockAdvance over a clock fixed at `startAt` (offsets in memory), with stand-ins for the two workers it drains:
 * each drain notes the clock's reading when it runs (`jobsDrain` may fail).
 */
const run = (jobsDrain: Effect.Effect<number>) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const clockLayer = Layer.scoped(ServiceClock.ServiceClock, ServiceClock.make({ instanceMs: 0, partners: new Map() }, memoryStore(), () => startAt.getTime()))
    const reading = (name: string) =>
      Effect.flatMap(ServiceClock.ServiceClock, (clock) => clock.now).pipe(Effect.map((now) => seen.push(`${name} ${now.toISOString()}`)))
    const workers = Layer.mergeAll(
      Layer.effect(Jobs, Effect.map(Effect.context<ServiceClock.ServiceClock>(), (context) => Jobs.make({
        schedule: unused,
        carry: unused,
        register: unused,
        get: unused,
        runDue: Effect.zipRight(Effect.provide(reading("jobs"), context), jobsDrain),
        nextDueAt: unused(),
        awaitScheduled: unused(),
        duePage: unused,
        pendingRunAt: unused
      }))),
      Layer.effect(WebhookDispatcher, Effect.map(Effect.context<ServiceClock.ServiceClock>(), (context) =>
        WebhookDispatcher.make({ drain: Effect.asVoid(Effect.provide(reading("webhooks"), context)) })))
    )
    const layer = ClockAdvance.DefaultWithoutDependencies.pipe(Layer.provide(workers), Layer.provideMerge(clockLayer))
    const returned = yield* Effect.flatMap(ClockAdvance, (advance) => advance.advance(90)).pipe(Effect.provide(layer))
    return { returned: returned.toISOString(), seen }
  }).pipe(Effect.scoped, Effect.runPromise)

describe("ClockAdvance", () => {
  it("moves the clock, then drains the jobs, then the webhook deliveries, and returns the new reading", async () => {
    const outcome = await run(Effect.succeed(0))
    expect(outcome.returned).toBe("2030-01-01T00:01:30.000Z")
    expect(outcome.seen).toEqual(["jobs 2030-01-01T00:01:30.000Z", "webhooks 2030-01-01T00:01:30.000Z"])
  })

  it("still drains the webhook deliveries when the jobs' drain fails", async () => {
    const outcome = await run(Effect.dieMessage("jobs drain broke"))
    expect(outcome.seen).toEqual(["jobs 2030-01-01T00:01:30.000Z", "webhooks 2030-01-01T00:01:30.000Z"])
  })
})
