import { type Context, Effect, Option } from "effect"
import type { ServiceClock } from "../clock/ServiceClock.js"
import type { Outbox } from "../events/Events.js"
import type { KycItem, KycRecord, RecordStatus } from "./Api.js"
import type * as KycRepo from "./KycRepo.js"
import { toRecord } from "./KycViews.js"

/**
 * Tier 3's KYC records (docs/contract.md "Verification summary": tier 3 follows the payout partners' decisions). Each
 * Tier 3 submission writes a level-3 record holding its content; the international enrolments (src/international)
 * then keep the newest record's status equal to the tier status their groups add up to, through `syncTier3`, which
 * emits `kyc.status_updated` when tier 3 moves to REVIEW, APPROVED or REJECTED. Part of the Kyc service (the one
 * writer of `kyc_records` and `kyc_reverifications`).
 */
export interface Tier3Records {
  /** The newest level-3 record (its content is the held submission), if any. */
  readonly latestTier3: (customerId: string) => Effect.Effect<KycRepo.KycRecordRow | undefined>
  /** Writes a Tier 3 submission's record. */
  readonly insertTier3: (input: {
    readonly id: string
    readonly partnerId: string
    readonly customerId: string
    readonly status: RecordStatus
    readonly rejectionReason: string | null
    readonly details: Readonly<Record<string, unknown>>
  }) => Effect.Effect<KycRecord>
  /**
   * Sets the newest level-3 record to tier 3's status (and reason when REJECTED); when the status changes to REVIEW,
   * APPROVED or REJECTED, emits `kyc.status_updated`. No record (nothing submitted yet): nothing to do.
   */
  readonly syncTier3: (customerId: string, status: RecordStatus, reason: string | null) => Effect.Effect<void>
  /** The open re-verification's outstanding items (empty when none is open). */
  readonly outstandingItems: (customerId: string) => Effect.Effect<ReadonlyArray<KycItem>>
  /** Marks these items of the open re-verification as re-submitted (it completes when none are left). */
  readonly satisfyItems: (customerId: string, items: ReadonlyArray<KycItem>) => Effect.Effect<void>
}

export const make = (repo: KycRepo.KycRepo, outbox: Outbox, clock: Context.Tag.Service<ServiceClock>): Tier3Records => {
  const latestTier3 = (customerId: string) => Effect.map(repo.findLatestRecord(customerId, 3, false), Option.getOrUndefined)

  const insertTier3: Tier3Records["insertTier3"] = (input) =>
    Effect.gen(function*() {
      const now = yield* clock.now
      const row = yield* repo.insertRecord({
        id: input.id,
        partnerId: input.partnerId,
        customerId: input.customerId,
        level: 3,
        status: input.status,
        idType: null,
        details: input.details,
        reviewReason: null,
        rejectionReason: input.status === "REJECTED" ? input.rejectionReason ?? "Rejected by the payout partner" : null,
        decidedBy: null,
        createdAt: now,
        updatedAt: now
      })
      return toRecord(row)
    })

  const syncTier3: Tier3Records["syncTier3"] = (customerId, status, reason) =>
    Effect.gen(function*() {
      const found = Option.getOrUndefined(yield* repo.findLatestRecord(customerId, 3, true))
      if (found === undefined) return
      const rejectionReason = status === "REJECTED" ? reason ?? "Rejected by the payout partner" : null
      if (found.status === status && found.rejectionReason === rejectionReason) return
      const decided = yield* repo.decideRecord({
        id: found.id,
        status,
        reviewReason: null,
        rejectionReason,
        decidedBy: "rail",
        at: yield* clock.now
      })
      if (status === found.status || status === "PENDING") return
      yield* outbox.record({
        partnerId: decided.partnerId,
        customerId: decided.customerId,
        type: "kyc.status_updated",
        data: {
          customerId: decided.customerId,
          kycId: decided.id,
          level: 3,
          status,
          ...(rejectionReason === null ? {} : { reason: rejectionReason })
        }
      })
    })

  const outstandingItems = (customerId: string) =>
    Effect.map(repo.findOpenReverification(customerId, false), Option.match({ onNone: () => [], onSome: (row) => row.outstanding }))

  const satisfyItems = (customerId: string, items: ReadonlyArray<KycItem>) =>
    Effect.gen(function*() {
      const found = Option.getOrUndefined(yield* repo.findOpenReverification(customerId, true))
      if (found === undefined) return
      const remaining = found.outstanding.filter((item) => !items.includes(item))
      if (remaining.length !== found.outstanding.length) yield* repo.updateOutstanding(found.id, remaining, yield* clock.now)
    })

  return { latestTier3, insertTier3, syncTier3, outstandingItems, satisfyItems }
}
