import { SqlClient, type Statement } from "@effect/sql"
import { Context, Deferred, Duration, Effect, FiberRef, Layer, Ref } from "effect"

/**
 * The only source of time in the service. In sandbox mode it is wall-clock time plus offsets that the control API
 * advances: the instance's offset, and each partner's own (docs/sandbox.md "A clock per partner"). Which partner
 * a reading is for is the fiber's `ClockPartner` (set by authentication, the customer actor, a job, a webhook
 * attempt); a fiber acting for no partner reads the instance clock. The offsets live in the database (so several
 * processes agree) and in memory (so reads are free). Advancing wakes every `sleepUntil`, which is how time-driven
 * jobs (expiries, rail delays, webhook retries) notice that their moment has come. Advancing is a plain clock
 * operation: running the work that became due is `ClockAdvance` (src/clock/ClockAdvance.ts), which depends on the
 * clock and on the workers it drains.
 */
export interface ServiceClockShape {
  /** The current fiber's partner's time (the instance's time when it acts for no partner). */
  readonly now: Effect.Effect<Date>
  readonly nowMillis: Effect.Effect<number>
  /** How far the current fiber's partner's time is ahead of real time (instance offset plus its own). */
  readonly offsetMs: Effect.Effect<number>
  /**
   * The instance's time, whoever the fiber acts for: what a daemon compares due times with in SQL, adding each
   * row's partner offset (`partner_clock_offsets`).
   */
  readonly instanceNow: Effect.Effect<Date>
  /** A partner's own offset over the instance's time (0 for a partner that never advanced its clock). */
  readonly partnerOffsetMs: (partnerId: string) => Effect.Effect<number>
  /**
   * Whether some partner has advanced its own clock, as this process knows (its own advances, and the stored offsets
   * it reads again every few seconds): without one, the daemons read due work exactly as on one clock.
   */
  readonly partnersAhead: Effect.Effect<boolean>
  /**
   * Moves the current fiber's partner's clock forward (the instance's clock, so every partner's, when it acts for
   * no partner), wakes every sleeper, and returns the new reading. It runs no due work itself: `ClockAdvance.advance`
   * does (the sandbox control API's advance).
   */
  readonly advance: (seconds: number) => Effect.Effect<Date>
  /** Sleeps until the current fiber's partner's clock reads `at` or later, waking early when a clock is advanced. */
  readonly sleepUntil: (at: Date) => Effect.Effect<void>
  /** Completes at the next advance (of any clock). */
  readonly nextAdvance: Effect.Effect<void>
}

export class ServiceClock extends Context.Tag("ServiceClock")<ServiceClock, ServiceClockShape>() {}

/** The partner whose clock the current fiber reads; undefined: the instance's clock. */
export const ClockPartner: FiberRef.FiberRef<string | undefined> = FiberRef.unsafeMake<string | undefined>(undefined)

/** Runs `self` on `partnerId`'s clock. */
export const forPartner = (partnerId: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(self, ClockPartner, partnerId)

/** The rest of the current fiber reads `partnerId`'s clock (authentication: the request acts for this partner). */
export const enterPartner = (partnerId: string): Effect.Effect<void> => FiberRef.set(ClockPartner, partnerId)

/** Runs `self` on the instance's clock (a daemon that serves every partner). */
export const forInstance = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(self, ClockPartner, undefined)

/**
 * An instance-clock time as a SQL expression for rows of partner `partnerColumn`: the row's partner's time.
 * `instanceNow` is a bound parameter; the offset is read per row from `partner_clock_offsets`.
 */
export const partnerTimeSql = (sql: SqlClient.SqlClient, instanceNow: Date, partnerColumn: string) =>
  sql`(${instanceNow}::timestamptz + coalesce((SELECT o.offset_ms FROM partner_clock_offsets o WHERE o.partner_id = ${
    sql.literal(partnerColumn)
  }), 0) * interval '1 millisecond')`

/**
 * When the earliest pending row of `table` falls due on the instance's clock, as a SQL expression: the plain
 * `min(<column>)` of the rows matching `pending`, and, once some partner has advanced its own clock
 * (`partnersAhead`), the least of that and the same minimum per advanced partner converted to instance time
 * (`partner_clock_offsets o`, each partner's rows read through its own index). A row of an advanced partner is due
 * on the instance's clock no later than at its own due time, so the least of the two is the earliest due time, and
 * both read indexes (no expression over every pending row). The daemons of jobs and webhook deliveries use it.
 */
export const earliestDueSql = (
  sql: SqlClient.SqlClient,
  options: { readonly table: string; readonly column: string; readonly pending: Statement.Fragment; readonly partnersAhead: boolean }
) => {
  const table = sql.literal(options.table)
  const column = sql.literal(options.column)
  const earliest = sql`SELECT min(${column}) FROM ${table} WHERE ${options.pending}`
  if (!options.partnersAhead) return sql`(${earliest})`
  const perPartner = sql`SELECT min(${column}) AS at FROM ${table} WHERE partner_id = o.partner_id AND ${options.pending}`
  return sql`least((${earliest}), (SELECT min(m.at - o.offset_ms * interval '1 millisecond') FROM partner_clock_offsets o CROSS JOIN LATERAL (${perPartner}) m))`
}

/**
 * The longest a sleeper waits before re-reading the clock, and how often the stored offsets are read again: bounds
 * the drift when another process advanced a clock.
 */
const recheckMs = 5_000

/** What the offsets are added to: wall-clock time (the default), or a fixed instant for replayable readings. */
export type BaseMillis = () => number

const wallMillis: BaseMillis = () => Date.now()

/** Where the offsets are kept: the database. */
export interface ClockStore {
  /** Every offset as stored now (another process may have advanced one). */
  readonly load: Effect.Effect<{ readonly instanceMs: number; readonly partners: ReadonlyMap<string, number> }>
  /** Adds `deltaMs` to the instance's offset; the new offset. */
  readonly advanceInstance: (deltaMs: number) => Effect.Effect<number>
  /** Adds `deltaMs` to a partner's own offset; its new offset. */
  readonly advancePartner: (partnerId: string, deltaMs: number) => Effect.Effect<number>
}

export const make = (
  initial: { readonly instanceMs: number; readonly partners: ReadonlyMap<string, number> },
  store: ClockStore,
  base: BaseMillis = wallMillis
) =>
  Effect.gen(function*() {
    const instanceOffset = yield* Ref.make(initial.instanceMs)
    const partnerOffsets = new Map(initial.partners)
    const advanced = yield* Ref.make(yield* Deferred.make<void>())
    // Keyed by the lower-case id (as the database writes a uuid).
    const ownOffset = (partnerId: string | undefined) =>
      partnerId === undefined ? 0 : partnerOffsets.get(partnerId) ?? partnerOffsets.get(partnerId.toLowerCase()) ?? 0
    const partnerOffsetMs = (partnerId: string) => Effect.sync(() => ownOffset(partnerId))
    const offsetMs = Effect.flatMap(FiberRef.get(ClockPartner), (partnerId) =>
      Effect.map(Ref.get(instanceOffset), (ms) => ms + ownOffset(partnerId)))
    const nowMillis = Effect.map(offsetMs, (ms) => base() + ms)
    const instanceNow = Effect.map(Ref.get(instanceOffset), (ms) => new Date(base() + ms))
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
        const deltaMs = Math.round(seconds * 1000)
        const partnerId = yield* FiberRef.get(ClockPartner)
        // Offsets only grow: of two concurrent advances, whichever answer arrives last keeps the larger offset.
        if (partnerId === undefined) {
          const stored = yield* store.advanceInstance(deltaMs)
          yield* Ref.update(instanceOffset, (current) => Math.max(current, stored))
        } else {
          const key = partnerId.toLowerCase()
          const stored = yield* store.advancePartner(key, deltaMs)
          partnerOffsets.set(key, Math.max(partnerOffsets.get(key) ?? 0, stored))
        }
        const fresh = yield* Deferred.make<void>()
        const previous = yield* Ref.getAndSet(advanced, fresh)
        yield* Deferred.succeed(previous, undefined)
        return new Date(yield* nowMillis)
      })
    /**
     * Takes in the stored offsets (advances made by other processes). Offsets only grow, so the larger of the two
     * readings is the newer: a load that raced with an advance of this process never moves a clock back.
     */
    const refresh = Effect.gen(function*() {
      const stored = yield* store.load
      const before = yield* Ref.get(instanceOffset)
      let moved = stored.instanceMs > before
      if (moved) yield* Ref.set(instanceOffset, stored.instanceMs)
      for (const [partnerId, ms] of stored.partners) {
        if (ms > (partnerOffsets.get(partnerId) ?? 0)) {
          partnerOffsets.set(partnerId, ms)
          moved = true
        }
      }
      if (moved) yield* Deferred.succeed(yield* Ref.getAndSet(advanced, yield* Deferred.make<void>()), undefined)
    })
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(
      Effect.sleep(Duration.millis(recheckMs)),
      // A failed read is tried again at the next interval.
      refresh.pipe(Effect.catchAllCause((cause) => Effect.logError("reading the stored clock offsets failed", cause)))
    )))
    return ServiceClock.of({
      now: Effect.map(nowMillis, (ms) => new Date(ms)),
      nowMillis,
      offsetMs,
      instanceNow,
      partnerOffsetMs,
      partnersAhead: Effect.sync(() => partnerOffsets.size > 0),
      advance,
      sleepUntil,
      nextAdvance
    })
  })

const persisted = (base: BaseMillis) =>
  Layer.scoped(
    ServiceClock,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const load = Effect.gen(function*() {
        const rows = yield* sql<{ offsetMs: string }>`SELECT offset_ms FROM service_clock WHERE id = 1`
        const partners = yield* sql<{ partnerId: string; offsetMs: string }>`SELECT partner_id, offset_ms FROM partner_clock_offsets`
        return {
          instanceMs: Number(rows[0]?.offsetMs ?? 0),
          partners: new Map(partners.map((row) => [row.partnerId.toLowerCase(), Number(row.offsetMs)]))
        }
      }).pipe(Effect.orDie)
      return yield* make(
        yield* load,
        {
          load,
          advanceInstance: (deltaMs) =>
            sql<{ offsetMs: string }>`
              UPDATE service_clock SET offset_ms = offset_ms + ${deltaMs} WHERE id = 1 RETURNING offset_ms
            `.pipe(Effect.map((r) => Number(r[0]!.offsetMs)), Effect.orDie),
          advancePartner: (partnerId, deltaMs) =>
            sql<{ offsetMs: string }>`
              INSERT INTO partner_clock_offsets (partner_id, offset_ms) VALUES (${partnerId}, ${deltaMs})
              ON CONFLICT (partner_id) DO UPDATE SET offset_ms = partner_clock_offsets.offset_ms + excluded.offset_ms
              RETURNING offset_ms
            `.pipe(Effect.map((r) => Number(r[0]!.offsetMs)), Effect.orDie)
        },
        base
      )
    })
  )

export type ClockLayer = Layer.Layer<ServiceClock, never, SqlClient.SqlClient>

/** The clock backed by `service_clock` and `partner_clock_offsets`: wall-clock time plus the offsets. */
export const layer: ClockLayer = persisted(wallMillis)

/**
 * The same clock, but `now` is `startAt` plus the offsets and never moves by itself: only `advance` moves it
 * (sleepers and the persisted offsets work as with `layer`). Two services started at the same instant
 * read the same times at the same points of the same steps, which makes scenario replays agree on timestamps.
 * Work that waits on real time (webhook answer time-outs, HTTP) is unaffected.
 */
export const layerFixed = (startAt: Date): ClockLayer => {
  const startMs = startAt.getTime()
  if (!Number.isFinite(startMs)) throw new Error("layerFixed: startAt is not a valid date")
  return persisted(() => startMs)
}
