import * as Crypto from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, FiberSet } from "effect"
import { forPartner, type ServiceClockShape } from "../clock/ServiceClock.js"
import { catchSqlDefect } from "../db/Rows.js"
import { adjust, adjustUnrecorded, type DispatchState, type Outcome } from "./DispatchState.js"
import type { WebhookSender } from "./WebhookSender.js"
import * as WebhooksRepo from "./WebhooksRepo.js"

/** Attempts in flight in this process, over all partners. */
export const concurrencyMax = 32
/** Attempts in flight per partner in this process: a slow or dead endpoint holds only these. */
export const perPartnerMax = 4

/**
 * Outcomes waiting to be recorded, at most: an attempt leaves its slot when its answer arrives and its outcome is
 * written with others in one statement; claims stop while this many (plus the attempts in flight) are unwritten.
 */
const unrecordedMax = 512

/**
 * What a claim came to. `short`: fewer came back than there was room for; `filled`: a partner reached its in-flight
 * limit with this claim (the next claim skips it, and may reach other partners' rows that this one's scan window
 * did not).
 */
export interface Started {
  readonly started: number
  readonly short: boolean
  readonly filled: boolean
}

export interface ClaimsDeps {
  readonly state: DispatchState
  readonly repo: WebhooksRepo.WebhooksRepo
  readonly sql: SqlClient.SqlClient
  readonly clock: ServiceClockShape
  readonly sender: WebhookSender
  /** Queues an attempt's outcome for the writer (src/webhooks/DispatchOutcomes.ts). */
  readonly offer: (outcome: Outcome) => Effect.Effect<boolean>
}

/**
 * The dispatcher's claims: `startDue` claims as many due deliveries as there is room for, in one statement, and
 * starts their attempts in the scope's FiberSet (interrupted on shutdown, their rows given back).
 */
export const make = ({ clock, offer, repo, sender, sql, state }: ClaimsDeps) =>
  Effect.gen(function*() {
    const inFlight = yield* FiberSet.make<void>()
    const claimLock = yield* Effect.makeSemaphore(1)

    const runAttempt = (claimed: WebhooksRepo.ClaimedDelivery) =>
      Effect.uninterruptibleMask((restore) =>
        // On the delivery's partner's clock: its attempt time, retry time and chaos delays.
        restore(forPartner(claimed.partnerId)(sender.send(claimed))).pipe(
          // Shutting down mid-attempt: end the lease now rather than when it runs out, so that the next start (or
          // another process) sends it without waiting. The request may have reached the receiver, so the next claim
          // counts this attempt as made without an outcome (`WebhooksRepo.outcomeLostError`), as after a crash.
          Effect.onInterrupt(() => Effect.ignore(repo.abandon([claimed.eventId], claimed.leaseToken))),
          Effect.flatMap((sent) =>
            Effect.sync(() => adjustUnrecorded(state, claimed.partnerId, 1)).pipe(
              Effect.zipRight(clock.partnerOffsetMs(claimed.partnerId)),
              Effect.flatMap((partnerOffsetMs) => offer({ record: sent.record, partnerId: claimed.partnerId, partnerOffsetMs }))
            )
          )
        )
      ).pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) =>
          Effect.logError("webhook attempt failed unexpectedly", cause).pipe(Effect.annotateLogs({ eventId: claimed.eventId }))
        ),
        Effect.ensuring(Effect.sync(() => {
          adjust(state, claimed.partnerId, -1)
          state.running--
        }).pipe(Effect.zipRight(sender.wake)))
      )

    /** Starts what a claim returned, up to each partner's limit; the rest is given back. */
    const startClaimed = (claimed: ReadonlyArray<typeof WebhooksRepo.ClaimedRow.Type>, free: number, leaseToken: string) =>
      Effect.gen(function*() {
        const surplus: Array<string> = []
        let started = 0
        let filled = false
        for (const { scanned: _, ...delivery } of claimed) {
          const n = state.perPartner.get(delivery.partnerId) ?? 0
          if (n >= perPartnerMax) {
            surplus.push(delivery.eventId)
            continue
          }
          // Only worth another claim if this one's window may have left other partners' rows unseen.
          if (n + 1 >= perPartnerMax && (claimed[0]?.scanned ?? 0) >= WebhooksRepo.claimWindow(free)) filled = true
          adjust(state, delivery.partnerId, 1)
          state.running++
          yield* FiberSet.run(inFlight, runAttempt(delivery))
          started++
        }
        yield* repo.release(surplus, leaseToken)
        return { started, short: claimed.length < free, filled }
      })

    const startDue: Effect.Effect<Started> = claimLock.withPermits(1)(Effect.gen(function*() {
      const free = Math.min(concurrencyMax - state.running, unrecordedMax - state.running - state.unrecorded)
      if (free <= 0) return { started: 0, short: false, filled: false }
      // Random, never from `Ids`: a claim runs whenever the dispatcher wakes, so drawing from a seeded generator here
      // would shift every id a scenario or seeded test draws after it by a timing accident. A lease token is internal
      // (it only proves which claim holds a delivery) and never appears in a response.
      const leaseToken = Crypto.randomUUID()
      const excludedPartners: Array<string> = []
      const busy: Record<string, number> = {}
      for (const [partnerId, n] of state.perPartner) {
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
      return yield* startClaimed(claimed, free, leaseToken)
    })).pipe(
      // A database error (a defect of the repository) ends this claim only: the dispatcher logs it and goes on.
      catchSqlDefect((error) =>
        Effect.as(Effect.logError("claiming webhook deliveries failed", error), { started: 0, short: true, filled: false })),
      Effect.provideService(SqlClient.SqlClient, sql)
    )
    return startDue
  })
