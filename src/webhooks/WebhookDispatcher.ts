import { SqlClient } from "@effect/sql"
import { Chunk, Effect, FiberSet, Layer, PubSub, Queue, Ref } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { EventBus } from "../events/Events.js"
import { Ids } from "../ids/Ids.js"
import { WebhookSender } from "./WebhookSender.js"
import * as WebhooksRepo from "./WebhooksRepo.js"

/** Attempts in flight in this process, over all partners. */
export const concurrencyMax = 32
/** Attempts in flight per partner in this process: a slow or dead endpoint holds only these. */
export const perPartnerMax = 4
/** Longest sleep between looks at the table: picks up leases left by a crashed process and other processes' work. */
const pollMs = 5_000
/** A limit on the rounds of one drain (each round starts or waits for at least one attempt). */
const drainRoundsMax = 100_000

/**
 * The durable webhook dispatcher: a daemon that claims due deliveries from the database and attempts them with
 * bounded concurrency. It wakes on committed events (EventBus), on replays and finished attempts, and on clock
 * advances; otherwise it sleeps until the next attempt falls due on the service clock. Deliveries live in the
 * database, so pending ones resume after a restart, and several processes can share the work (rows are claimed
 * with FOR UPDATE SKIP LOCKED and leased while in flight).
 *
 * `POST /sandbox/clock/advance` runs `drain` before answering: every attempt due at the new time has been made
 * (and recorded) when the call returns.
 */
export const layer = Layer.scopedDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* WebhooksRepo.make
  const clock = yield* ServiceClock
  const bus = yield* EventBus
  const ids = yield* Ids
  const sender = yield* WebhookSender
  const running = yield* Ref.make(0)
  const perPartner = new Map<string, number>()
  const adjust = (partnerId: string, delta: number) => {
    const next = (perPartner.get(partnerId) ?? 0) + delta
    if (next <= 0) perPartner.delete(partnerId)
    else perPartner.set(partnerId, next)
  }
  const inFlight = yield* FiberSet.make<void>()
  const claimLock = yield* Effect.makeSemaphore(1)

  const runAttempt = (claimed: WebhooksRepo.ClaimedDelivery) =>
    sender.attempt(claimed).pipe(
      Effect.asVoid,
      // Shutting down mid-attempt: give the row back now rather than when its lease runs out, so that the next
      // start (or another process) sends it without waiting; its result was not recorded, so it is not counted.
      Effect.onInterrupt(() =>
        Effect.ignore(repo.release([claimed.eventId], claimed.leaseToken))
      ),
      Effect.catchAllCause((cause) =>
        Effect.logError("webhook attempt failed unexpectedly", cause).pipe(Effect.annotateLogs({ eventId: claimed.eventId }))
      ),
      Effect.ensuring(
        Effect.sync(() => adjust(claimed.partnerId, -1)).pipe(Effect.zipRight(Ref.update(running, (n) => n - 1)), Effect.zipRight(sender.wake))
      )
    )

  /** Claims as many due deliveries as there is room for and starts their attempts; returns how many started. */
  const startDue = claimLock.withPermits(1)(Effect.gen(function*() {
    const free = concurrencyMax - (yield* Ref.get(running))
    if (free <= 0) return 0
    const leaseToken = yield* ids.uuid
    const claimed = yield* repo.claimDue({
      now: yield* clock.now,
      limit: free,
      perPartnerMax,
      excludedPartners: [...perPartner].filter(([, n]) => n >= perPartnerMax).map(([partnerId]) => partnerId),
      leaseToken,
      leaseSeconds: sender.leaseSeconds
    })
    const surplus: Array<string> = []
    let started = 0
    for (const delivery of claimed) {
      if ((perPartner.get(delivery.partnerId) ?? 0) >= perPartnerMax) {
        surplus.push(delivery.eventId)
        continue
      }
      adjust(delivery.partnerId, 1)
      yield* Ref.update(running, (n) => n + 1)
      yield* FiberSet.run(inFlight, runAttempt(delivery))
      started++
    }
    yield* repo.release(surplus, leaseToken)
    return started
  })).pipe(
    Effect.catchTag("SqlError", (error) => Effect.as(Effect.logError("claiming webhook deliveries failed", error), 0)),
    Effect.provideService(SqlClient.SqlClient, sql)
  )

  /** Until nothing due is left to start and nothing started is still in flight. */
  const drain = Effect.gen(function*() {
    for (let round = 0; round < drainRoundsMax; round++) {
      const finished = yield* sender.nextWake
      if ((yield* startDue) > 0) continue
      if ((yield* Ref.get(running)) === 0) return
      yield* finished
    }
  })

  const nextDueAt = repo.nextDueAt.pipe(
    Effect.catchTag("SqlError", (error) => Effect.as(Effect.logError("reading the next webhook due time failed", error), null))
  )

  const loop = Effect.gen(function*() {
    while (true) {
      const woken = yield* sender.nextWake
      const started = yield* startDue
      const saturated = (yield* Ref.get(running)) >= concurrencyMax
      const nextAt = saturated ? null : yield* nextDueAt
      const now = yield* clock.now
      // Due now but nothing started: held back by per-partner limits or other processes; wait for a wake-up.
      const wait = nextAt === null
        ? Effect.never
        : nextAt.getTime() > now.getTime()
        ? clock.sleepUntil(nextAt)
        : started > 0
        ? Effect.void
        : Effect.never
      yield* Effect.raceAll([wait, woken, Effect.sleep(pollMs)])
    }
  })

  const events = yield* PubSub.subscribe(bus)
  // One wake-up per burst of committed events that queued a delivery: take blocks for the first, takeAll drains
  // the rest of the burst; events of partners without a URL never wake the dispatcher.
  yield* Effect.forkScoped(Effect.forever(
    Effect.gen(function*() {
      const first = yield* Queue.take(events)
      const rest = yield* Queue.takeAll(events)
      if (first.webhookQueued === true || Chunk.some(rest, (event) => event.webhookQueued === true)) yield* sender.wake
    })
  ))
  yield* clock.registerDrain(drain)
  yield* Effect.forkScoped(loop)
}))
