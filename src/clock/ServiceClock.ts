import { SqlClient } from "@effect/sql"
import { Context, Deferred, Duration, Effect, Layer, Ref } from "effect"

/**
 * The only source of time in the service. In sandbox mode it is wall-clock time plus an offset that the control
 * API advances; the offset lives in the database (so several processes agree) and in memory (so reads are free).
 * Advancing wakes every `sleepUntil`, which is how time-driven jobs (expiries, rail delays, webhook retries)
 * notice that their moment has come.
 */
export interface ServiceClockShape {
  readonly now: Effect.Effect<Date>
  readonly nowMillis: Effect.Effect<number>
  readonly offsetMs: Effect.Effect<number>
  /** Moves the clock forward; returns the new reading. */
  readonly advance: (seconds: number) => Effect.Effect<Date>
  /** Sleeps until the clock reads `at` or later, waking early when the clock is advanced. */
  readonly sleepUntil: (at: Date) => Effect.Effect<void>
  /** Completes at the next advance. */
  readonly nextAdvance: Effect.Effect<void>
  /**
   * Registers work that `advance` runs (and waits for) after moving the clock: each time-driven worker registers
   * "process everything now due", so that when an advance call returns, everything due by the new time has run.
   */
  readonly registerDrain: (drain: Effect.Effect<void>) => Effect.Effect<void>
}

export class ServiceClock extends Context.Tag("ServiceClock")<ServiceClock, ServiceClockShape>() {}

/** The longest a sleeper waits before re-reading the clock; bounds drift if another process advanced it. */
const recheckMs = 5_000

/** What the offset is added to: wall-clock time (the default), or a fixed instant for replayable readings. */
export type BaseMillis = () => number

const wallMillis: BaseMillis = () => Date.now()

export const make = (initialOffsetMs: number, persist: (offsetMs: number) => Effect.Effect<number>, base: BaseMillis = wallMillis) =>
  Effect.gen(function*() {
    const offset = yield* Ref.make(initialOffsetMs)
    const advanced = yield* Ref.make(yield* Deferred.make<void>())
    const drains = yield* Ref.make<ReadonlyArray<Effect.Effect<void>>>([])
    const nowMillis = Effect.map(Ref.get(offset), (ms) => base() + ms)
    const nextAdvance = Effect.flatMap(Ref.get(advanced), Deferred.await)
    const sleepUntil = (at: Date): Effect.Effect<void> =>
      Effect.gen(function*() {
        while (true) {
          const wait = yield* Ref.get(advanced)
          const remaining = at.getTime() - (yield* nowMillis)
          if (remaining <= 0) return
          yield* Effect.raceFirst(Effect.sleep(Duration.millis(Math.min(remaining, recheckMs))), Deferred.await(wait))
        }
      })
    const advance = (seconds: number) =>
      Effect.gen(function*() {
        const next = yield* persist(Math.round(seconds * 1000))
        yield* Ref.set(offset, next)
        const fresh = yield* Deferred.make<void>()
        const previous = yield* Ref.getAndSet(advanced, fresh)
        yield* Deferred.succeed(previous, undefined)
        for (const drain of yield* Ref.get(drains)) {
          yield* drain.pipe(Effect.catchAllCause((cause) => Effect.logError("drain after clock advance failed", cause)))
        }
        return new Date(yield* nowMillis)
      })
    return ServiceClock.of({
      now: Effect.map(nowMillis, (ms) => new Date(ms)),
      nowMillis,
      offsetMs: Ref.get(offset),
      advance,
      sleepUntil,
      nextAdvance,
      registerDrain: (drain) => Ref.update(drains, (all) => [...all, drain])
    })
  })

const persisted = (base: BaseMillis) =>
  Layer.effect(
    ServiceClock,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ offsetMs: string }>`SELECT offset_ms FROM service_clock WHERE id = 1`.pipe(Effect.orDie)
      const initial = Number(rows[0]?.offsetMs ?? 0)
      return yield* make(initial, (deltaMs) =>
        sql<{ offsetMs: string }>`
          UPDATE service_clock SET offset_ms = offset_ms + ${deltaMs} WHERE id = 1 RETURNING offset_ms
        `.pipe(Effect.map((r) => Number(r[0]!.offsetMs)), Effect.orDie), base)
    })
  )

export type ClockLayer = Layer.Layer<ServiceClock, never, SqlClient.SqlClient>

/** The clock backed by the `service_clock` row: wall-clock time plus the offset. */
export const layer: ClockLayer = persisted(wallMillis)

/**
 * The same clock, but `now` is `startAt` plus the offset and never moves by itself: only `advance` moves it
 * (sleepers, drains and the persisted offset work as with `layer`). Two services started at the same instant
 * read the same times at the same points of the same steps, which makes scenario replays agree on timestamps.
 * Work that waits on real time (webhook answer time-outs, HTTP) is unaffected.
 */
export const layerFixed = (startAt: Date): ClockLayer => {
  const startMs = startAt.getTime()
  if (!Number.isFinite(startMs)) throw new Error("layerFixed: startAt is not a valid date")
  return persisted(() => startMs)
}
