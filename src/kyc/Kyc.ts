import * as Command from "../observability/Command.js"
import { SqlClient } from "@effect/sql"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { Effect, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { Outbox } from "../events/Events.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import type { KycItem, KycStatus, RecordStatus } from "./Api.js"
import { Documents } from "./Documents.js"
import * as KycRepo from "./KycRepo.js"
import * as KycReverifications from "./KycReverifications.js"
import * as KycSteps from "./KycSteps.js"
import * as KycSubmissions from "./KycSubmissions.js"
import { summarise, toRecord, toReverification } from "./KycViews.js"
import * as Tier3Records from "./Tier3Records.js"

type Level = KycSteps.Level

/**
 * KYC of a partner's customers: the Tier 1 registry check, the Tier 2 document check and its verdict, a reviewer's
 * decisions, re-verification requests and the views. The one writer of `kyc_records` and `kyc_reverifications`;
 * tier 3's records are written for the international enrolments (src/kyc/Tier3Records.ts).
 */
export class Kyc extends Effect.Service<Kyc>()("Kyc", {
  effect: Effect.gen(function*() {
    const repo = yield* KycRepo.KycRepo
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const clock = yield* ServiceClock
    const customers = yield* Customers
    const steps = yield* KycSteps.make(repo)
    const tier3 = Tier3Records.make(repo, outbox, clock)
    const { checkDecision, decide, settleDocumentCheck, submitTier1, submitTier2 } = yield* KycSubmissions.make(repo, steps)
    const { requestReverification, satisfyReverificationOf } = yield* KycReverifications.make(repo, steps)

    /** The customer's KYC records, every tier. */
    const records = Command.fn("Kyc.records")(function*(partnerId: PartnerId, customerId: CustomerId) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      return (yield* repo.listRecords(customer.id)).map(toRecord)
    })

    /** The customer's open re-verification request, or null. */
    const reverification = Command.fn("Kyc.reverification")(function*(partnerId: PartnerId, customerId: CustomerId) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      const open = Option.getOrUndefined(yield* repo.findOpenReverification(customer.id, false))
      return open === undefined ? null : toReverification(open)
    })

    /** The customer's tiers, records and what is required next. */
    const summary = Command.fn("Kyc.summary")(function*(partnerId: PartnerId, customerId: CustomerId) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      // One snapshot, so that the tiers, the records and nextRequired agree with each other.
      const { open, rows } = yield* sql.withTransaction(Effect.all({
        rows: repo.listRecords(customer.id),
        open: Effect.map(repo.findOpenReverification(customer.id, false), Option.getOrUndefined)
      })).pipe(Effect.orDie)
      return summarise(rows, open)
    })

    /** The status of the customer's newest submission of a tier (NOT_STARTED when none): for other modules' gates. */
    const tierStatus = Command.fn("Kyc.tierStatus")((customerId: string, level: Level) =>
      repo.findLatestRecord(customerId, level, false).pipe(
        Effect.map(Option.match({ onNone: (): KycStatus => "NOT_STARTED", onSome: (row) => row.status }))
      )
    )

    /**
     * The partner's tiers awaiting a decision (the newest record of a tier, PENDING or REVIEW), newest first by
     * (createdAt, id), with the reason a record went to review.
     */
    const awaitingDecision = Command.fn("Kyc.awaitingDecision")((query: CreatedPageQuery) =>
      repo.awaitingDecision(query).pipe(
        Effect.map((rows) => rows.map((row) => ({ record: toRecord(row), reviewReason: row.reviewReason })))
      )
    )

    /** The newest level-3 record (its content is the held submission), if any. */
    const latestTier3 = Command.fn("Kyc.latestTier3")((customerId: string) => tier3.latestTier3(customerId))

    /** Writes a Tier 3 submission's record. */
    const insertTier3 = Command.fn("Kyc.insertTier3")((input: Parameters<Tier3Records.Tier3Records["insertTier3"]>[0]) =>
      tier3.insertTier3(input)
    )

    /**
     * Sets the newest level-3 record to tier 3's status (and reason when REJECTED); when the status changes to REVIEW,
     * APPROVED or REJECTED, emits `kyc.status_updated`. No record (nothing submitted yet): nothing to do.
     */
    const syncTier3 = Command.fn("Kyc.syncTier3")((customerId: string, status: RecordStatus, reason: string | null) =>
      tier3.syncTier3(customerId, status, reason)
    )

    /** The open re-verification's outstanding items (empty when none is open). */
    const outstandingItems = Command.fn("Kyc.outstandingItems")((customerId: string) => tier3.outstandingItems(customerId))

    /** Marks these items of the open re-verification as re-submitted (it completes when none are left). */
    const satisfyItems = Command.fn("Kyc.satisfyItems")((customerId: string, items: ReadonlyArray<KycItem>) =>
      tier3.satisfyItems(customerId, items)
    )

    return {
      latestTier3,
      insertTier3,
      syncTier3,
      outstandingItems,
      satisfyItems,
      awaitingDecision,
      submitTier1,
      submitTier2,
      checkDecision,
      decide,
      settleDocumentCheck,
      records,
      summary,
      reverification,
      requestReverification,
      satisfyReverification: satisfyReverificationOf,
      tierStatus
    } as const
  }),
  dependencies: [KycRepo.KycRepo.Default, Customers.Default, Documents.Default, CustomerActors.Default]
}) {}

export const layer = Kyc.Default
