import { SqlClient } from "@effect/sql"
import { Chunk, Effect, FiberRef, PubSub, Queue } from "effect"
import { ClockPartner, forInstance, ServiceClock } from "../clock/ServiceClock.js"
import { catchSqlDefect } from "../db/Rows.js"
import { EventBus } from "../events/Events.js"
import * as DispatchClaims from "./DispatchClaims.js"
import * as DispatchOutcomes from "./DispatchOutcomes.js"
import { idle, idleFor, makeState } from "./DispatchState.js"
import { WebhookSender } from "./WebhookSender.js"
import * as WebhooksRepo from "./WebhooksRepo.js"
import { recordWebhookAttempt } from "../observability/Metrics.js"

export { concurrencyMax, perPartnerMax } from "./DispatchClaims.js"

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
 * Throughput: one statement claims (and leases) every delivery there is room for (src/webhooks/DispatchClaims.ts);
 * an attempt's outcome is queued when its answer arrives and a writer records the queued outcomes many per
 * statement (src/webhooks/DispatchOutcomes.ts), each only while its lease is the claimer's. An outcome is never lost
 * silently: until it is written the row stays leased, so a process that dies with outcomes unwritten leaves rows
 * that are claimed and sent again when their leases end (at-least-once, as for an attempt cut by a crash).
 *
 * `POST /sandbox/clock/advance` runs `drain` before answering (`ClockAdvance`, src/clock/ClockAdvance.ts): every
 * attempt due at the new time has been made (and recorded) when the call returns.
 */
export class WebhookDispatcher extends Effect.Service<WebhookDispatcher>()("WebhookDispatcher", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WebhooksRepo.WebhooksRepo
    const clock = yield* ServiceClock
    const bus = yield* EventBus
    const sender = yield* WebhookSender
    const state = makeState()
    // The writer first: on shutdown it stops after the attempts, and writes what they left queued.
    const offer = yield* DispatchOutcomes.make({ state, repo, sql, sender })
    const startDue = yield* DispatchClaims.make({
      state,
      repo,
      sql,
      clock,
      sender,
      // Each attempt's outcome is counted (delivered, retrying, dead, and why) as it is queued for the writer.
      offer: (outcome) => Effect.zipRight(Effect.sync(() => recordWebhookAttempt(outcome.record)), offer(outcome))
    })

    /**
     * Until nothing due is left to start and nothing started is still in flight or unrecorded: the instance's (a
     * drain for no partner), or the fiber's partner's. A partner's advance makes only its own work due (the others'
     * clocks stand still), so it waits for its own attempts, not for another partner's that are slow to answer.
     */
    const drain: Effect.Effect<void> = Effect.gen(function*() {
      const partnerId = yield* FiberRef.get(ClockPartner)
      for (let round = 0; round < drainRoundsMax; round++) {
        const finished = yield* sender.nextWake
        const { short, started } = yield* startDue
        if (started > 0 && !short) continue
        // For a partner: its own attempts settled, and the claim had room and found nothing more to start.
        const settled = partnerId === undefined ? idle(state) : short && idleFor(state, partnerId)
        if (settled && started === 0) return
        if (started > 0) continue
        yield* finished
      }
    })

    const nextDueAt = Effect.flatMap(clock.partnersAhead, repo.nextDueAt).pipe(
      catchSqlDefect((error) => Effect.as(Effect.logError("reading the next webhook due time failed", error), null))
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
          state.knownNextAt = yield* nextDueAt
        }
        startedInBurst = 0
        const now = yield* clock.instanceNow
        const nextAt = state.knownNextAt
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
    yield* Effect.forkScoped(forInstance(loop))

    return {
      /**
       * Makes every attempt due now, and waits until each one started is recorded: what a clock advance runs
       * after moving the clock (`ClockAdvance`).
       */
      drain
    } as const
  }),
  dependencies: [WebhooksRepo.WebhooksRepo.Default, WebhookSender.Default]
}) {}

export const layer = WebhookDispatcher.Default
