import { SqlClient } from "@effect/sql"
import { Chunk, Duration, Effect, FiberSet, Layer, PubSub, Queue, Schedule } from "effect"
import { forInstance, forPartner, ServiceClock } from "../clock/ServiceClock.js"
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
 * Outcomes waiting to be recorded, at most: an attempt leaves its slot when its answer arrives and its outcome is
 * written with others in one statement; claims stop while this many (plus the attempts in flight) are unwritten.
 */
const unrecordedMax = 512
/** Outcomes written per statement at most. */
const recordBatchMax = 256
/** How long the writer waits for more outcomes before a statement (they free no slot by being written sooner). */
const recordLingerMs = 2
/** A failed write of outcomes is tried again this many times before their rows are left to their leases. */
const recordRetries = 3

/**
 * The durable webhook dispatcher: a daemon that claims due deliveries from the database and attempts them with
 * bounded concurrency. It wakes on committed events (EventBus), on replays and finished attempts, and on clock
 * advances; otherwise it sleeps until the next attempt falls due on the service clock. Deliveries live in the
 * database, so pending ones resume after a restart, and several processes can share the work (rows are claimed
 * with FOR UPDATE SKIP LOCKED and leased while in flight).
 *
 * Throughput: one statement claims (and leases) every delivery there is room for; an attempt's outcome is queued
 * when its answer arrives and a writer records the queued outcomes many per statement, each only while its lease
 * is the claimer's. An outcome is never lost silently: until it is written the row stays leased, so a process
 * that dies with outcomes unwritten leaves rows that are claimed and sent again when their leases end
 * (at-least-once, as for an attempt cut by a crash).
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
  /** Attempts in flight (HTTP) here, in all and per partner; outcomes not yet written. */
  const state = { running: 0, unrecorded: 0 }
  const perPartner = new Map<string, number>()
  const adjust = (partnerId: string, delta: number) => {
    const next = (perPartner.get(partnerId) ?? 0) + delta
    if (next <= 0) perPartner.delete(partnerId)
    else perPartner.set(partnerId, next)
  }
  /**
   * The earliest known future due time on the instance's clock (a retry this process scheduled, or the table's
   * next one).
   */
  let knownNextAt: Date | null = null
  /** An attempt's outcome, with its partner's own clock offset (its times are on that partner's clock). */
  interface Outcome {
    readonly record: WebhooksRepo.AttemptRecord
    readonly partnerOffsetMs: number
  }
  const learnDue = ({ partnerOffsetMs, record }: Outcome) => {
    if (record.nextAttemptAt === null) return
    const at = record.nextAttemptAt.getTime() - partnerOffsetMs
    // A known time already past (it was claimed since) is replaced; the attempt time stands in for "now".
    if (knownNextAt === null || knownNextAt.getTime() <= record.attemptedAt.getTime() - partnerOffsetMs || at < knownNextAt.getTime()) {
      knownNextAt = new Date(at)
    }
  }

  const outcomes = yield* Queue.unbounded<Outcome>()
  const write = (outcomesBatch: ReadonlyArray<Outcome>) => {
    const batch = outcomesBatch.map((outcome) => outcome.record)
    return repo.recordAttempts(batch).pipe(
      Effect.retry({ times: recordRetries, schedule: Schedule.exponential(Duration.millis(50)) }),
      Effect.flatMap((recorded) =>
        recorded.size === batch.length ? Effect.void : Effect.forEach(
          batch.filter((record) => !recorded.has(record.eventId)),
          (record) =>
            Effect.logWarning("webhook attempt finished after its lease was taken over; result not recorded").pipe(
              Effect.annotateLogs({ eventId: record.eventId })
            ),
          { discard: true }
        )
      ),
      // The rows stay leased: they are claimed and sent again when their leases end (at-least-once).
      Effect.catchAllCause((cause) => Effect.logError("recording webhook attempts failed", cause)),
      Effect.ensuring(Effect.sync(() => {
        state.unrecorded -= batch.length
        for (const outcome of outcomesBatch) learnDue(outcome)
      })),
      Effect.zipRight(sender.wake),
      Effect.provideService(SqlClient.SqlClient, sql),
      // A write under way finishes even on shutdown: its outcomes are not written twice nor lost.
      Effect.uninterruptible
    )
  }
  // On shutdown (after the writer and the attempts have stopped), whatever is still queued is written.
  yield* Effect.addFinalizer(() =>
    Effect.flatMap(Queue.takeAll(outcomes), (rest) => rest.length === 0 ? Effect.void : write(Chunk.toReadonlyArray(rest)))
  )
  yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
    const first = yield* Queue.takeBetween(outcomes, 1, recordBatchMax)
    // Outcomes arrive one answer at a time: a short wait gathers the answers close behind into the same statement.
    const rest = first.length < recordBatchMax
      ? yield* Effect.zipRight(Effect.sleep(recordLingerMs), Queue.takeUpTo(outcomes, recordBatchMax - first.length))
      : Chunk.empty()
    yield* write(Chunk.toReadonlyArray(Chunk.appendAll(first, rest)))
  })))

  const inFlight = yield* FiberSet.make<void>()
  const claimLock = yield* Effect.makeSemaphore(1)

  const runAttempt = (claimed: WebhooksRepo.ClaimedDelivery) =>
    Effect.uninterruptibleMask((restore) =>
      // On the delivery's partner's clock: its attempt time, retry time and chaos delays.
      restore(forPartner(claimed.partnerId)(sender.send(claimed))).pipe(
        // Shutting down mid-attempt: give the row back now rather than when its lease runs out, so that the next
        // start (or another process) sends it without waiting; its result was not recorded, so it is not counted.
        Effect.onInterrupt(() => Effect.ignore(repo.release([claimed.eventId], claimed.leaseToken))),
        Effect.flatMap((sent) =>
          Effect.sync(() => {
            state.unrecorded++
          }).pipe(
            Effect.zipRight(clock.partnerOffsetMs(claimed.partnerId)),
            Effect.flatMap((partnerOffsetMs) => Queue.offer(outcomes, { record: sent.record, partnerOffsetMs }))
          )
        )
      )
    ).pipe(
      Effect.asVoid,
      Effect.catchAllCause((cause) =>
        Effect.logError("webhook attempt failed unexpectedly", cause).pipe(Effect.annotateLogs({ eventId: claimed.eventId }))
      ),
      Effect.ensuring(Effect.sync(() => {
        adjust(claimed.partnerId, -1)
        state.running--
      }).pipe(Effect.zipRight(sender.wake)))
    )

  /**
   * Claims as many due deliveries as there is room for, in one statement, and starts their attempts. `short`: fewer
   * came back than there was room for; `filled`: a partner reached its in-flight limit with this claim (the next
   * claim skips it, and may reach other partners' rows that this one's scan window did not).
   */
  const startDue = claimLock.withPermits(1)(Effect.gen(function*() {
    const free = Math.min(concurrencyMax - state.running, unrecordedMax - state.running - state.unrecorded)
    if (free <= 0) return { started: 0, short: false, filled: false }
    const leaseToken = yield* ids.uuid
    const excludedPartners: Array<string> = []
    const busy: Record<string, number> = {}
    for (const [partnerId, n] of perPartner) {
      if (n >= perPartnerMax) excludedPartners.push(partnerId)
      else busy[partnerId] = n
    }
    const claimed = yield* repo.claimDue({
      // Due by each delivery's partner's own clock (docs/sandbox.md "A clock per partner").
      now: yield* clock.instanceNow,
      partnersAhead: yield* clock.partnersAhead,
      limit: free,
      perPartnerMax,
      excludedPartners,
      busy,
      leaseToken,
      leaseSeconds: sender.leaseSeconds
    })
    const surplus: Array<string> = []
    let started = 0
    let filled = false
    for (const { scanned: _, ...delivery } of claimed) {
      const n = perPartner.get(delivery.partnerId) ?? 0
      if (n >= perPartnerMax) {
        surplus.push(delivery.eventId)
        continue
      }
      // Only worth another claim if this one's window may have left other partners' rows unseen.
      if (n + 1 >= perPartnerMax && (claimed[0]?.scanned ?? 0) >= WebhooksRepo.claimWindow(free)) filled = true
      adjust(delivery.partnerId, 1)
      state.running++
      yield* FiberSet.run(inFlight, runAttempt(delivery))
      started++
    }
    yield* repo.release(surplus, leaseToken)
    return { started, short: claimed.length < free, filled }
  })).pipe(
    Effect.catchTag("SqlError", (error) =>
      Effect.as(Effect.logError("claiming webhook deliveries failed", error), { started: 0, short: true, filled: false })),
    Effect.provideService(SqlClient.SqlClient, sql)
  )

  const idle = () => state.running === 0 && state.unrecorded === 0

  /** Until nothing due is left to start and nothing started is still in flight or unrecorded. */
  const drain = Effect.gen(function*() {
    for (let round = 0; round < drainRoundsMax; round++) {
      const finished = yield* sender.nextWake
      const { short, started } = yield* startDue
      if (started > 0 && !short) continue
      if (idle() && started === 0) return
      if (started > 0) continue
      yield* finished
    }
  })

  const nextDueAt = Effect.flatMap(clock.partnersAhead, repo.nextDueAt).pipe(
    Effect.catchTag("SqlError", (error) => Effect.as(Effect.logError("reading the next webhook due time failed", error), null))
  )

  const loop = Effect.gen(function*() {
    let startedInBurst = 0
    while (true) {
      const woken = yield* sender.nextWake
      const { filled, short, started } = yield* startDue
      startedInBurst += started
      // A partner just reached its limit and the claim came back short: the next claim skips it and may find others.
      if (short && filled) continue
      if (short && startedInBurst === 0) {
        // Nothing was due (or everything due is held back): read the table's next due time.
        knownNextAt = yield* nextDueAt
      }
      startedInBurst = 0
      const now = yield* clock.instanceNow
      const nextAt = knownNextAt
      // Not short: every slot is taken; a finished attempt wakes the loop. Short: sleep until the next known due
      // time; due already but nothing started (per-partner limits, other processes): wait for a wake-up. Attempts
      // started since the table was read wake the loop when they finish, and their claims read it again.
      const wait = !short || nextAt === null
        ? Effect.never
        : nextAt.getTime() > now.getTime()
        ? clock.sleepUntil(nextAt)
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
  yield* Effect.forkScoped(forInstance(loop))
}))
