import { Deferred, Effect, Fiber, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as ServiceClock from "../src/clock/ServiceClock.js"
import { MigrationsLayer, pgliteLayer } from "../src/db/Database.js"
import { pgliteTemplate } from "./support/TestApp.js"

const startAt = new Date("2030-01-01T00:00:00.000Z")

/** The fixed clock over a fresh in-memory database (a copy of the run's migrated template) with the service_clock row. */
const fixedClock = (start: Date) =>
  ServiceClock.layerFixed(start).pipe(
    Layer.provide(MigrationsLayer.pipe(Layer.provideMerge(pgliteLayer({ loadDataDir: pgliteTemplate() })))),
    Layer.orDie
  )

const run = <A>(effect: Effect.Effect<A, never, ServiceClock.ServiceClock>, start = startAt) =>
  Effect.runPromise(Effect.scoped(effect.pipe(Effect.provide(fixedClock(start)))))

describe("ServiceClock.layerFixed", () => {
  it("reads startAt plus the offset and does not move by itself", async () => {
    const readings = await run(Effect.gen(function*() {
      const clock = yield* ServiceClock.ServiceClock
      const first = yield* clock.now
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 60)))
      const later = yield* clock.now
      const advanced = yield* clock.advance(90)
      return { first, later, advanced, now: yield* clock.now, offsetMs: yield* clock.offsetMs }
    }))
    expect(readings.first.toISOString()).toBe("2030-01-01T00:00:00.000Z")
    expect(readings.later.toISOString()).toBe("2030-01-01T00:00:00.000Z")
    expect(readings.advanced.toISOString()).toBe("2030-01-01T00:01:30.000Z")
    expect(readings.now.toISOString()).toBe("2030-01-01T00:01:30.000Z")
    expect(readings.offsetMs).toBe(90_000)
  }, 60_000)

  it("wakes sleepUntil only when an advance reaches the instant", async () => {
    const outcome = await run(Effect.gen(function*() {
      const clock = yield* ServiceClock.ServiceClock
      const woke = yield* Deferred.make<Date>()
      const sleeper = yield* Effect.fork(clock.sleepUntil(new Date(startAt.getTime() + 60_000)).pipe(
        Effect.zipRight(clock.now),
        Effect.flatMap((at) => Deferred.succeed(woke, at))
      ))
      yield* clock.advance(30)
      yield* Effect.sleep("50 millis")
      const earlyDone = yield* Deferred.isDone(woke)
      yield* clock.advance(30)
      const at = yield* Deferred.await(woke)
      yield* Fiber.join(sleeper)
      return { earlyDone, at }
    }))
    expect(outcome.earlyDone).toBe(false)
    expect(outcome.at.toISOString()).toBe("2030-01-01T00:01:00.000Z")
  }, 60_000)

  it("refuses an invalid start", () => {
    expect(() => ServiceClock.layerFixed(new Date(Number.NaN))).toThrow(/not a valid date/)
  })
})
