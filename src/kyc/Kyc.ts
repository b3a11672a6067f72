import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { Outbox } from "../events/Events.js"
import { BadRequest, NotFound } from "../api/ApiError.js"
import { Ids, isUuid } from "../ids/Ids.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import { type DocumentCheckVerdict, Identity } from "../rails/Identity.js"
import { type KycItem, KycNotAwaitingDecision, type KycStatus, type RecordStatus, type Tier2Body } from "./Api.js"
import { Documents, type StoredDocument } from "./Documents.js"
import * as KycRepo from "./KycRepo.js"
import * as KycSteps from "./KycSteps.js"
import { type Tier1Verdict, tier1Verdict } from "./KycRules.js"
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
    const repo = yield* KycRepo.make
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const customers = yield* Customers
    const identity = yield* Identity
    const steps = yield* KycSteps.make(repo)
    const { applyDecision, checkEligible, command, satisfyReverification } = steps
    const tier3 = Tier3Records.make(repo, outbox, clock)

    /** Tier 1's record with the registries' verdict, in the customer's actor (eligibility checked again there). */
    const recordTier1 = (
      partnerId: string,
      customerId: string,
      input: { readonly bvn: string; readonly nin: string },
      verdict: Tier1Verdict
    ) =>
      command(partnerId, customerId, () =>
        Effect.gen(function*() {
          yield* checkEligible(customerId, 1)
          const now = yield* clock.now
          const row = yield* repo.insertRecord({
            id: yield* ids.uuid,
            partnerId,
            customerId,
            level: 1,
            status: verdict.status,
            idType: "BVN",
            details: { bvn: KycSteps.mask(input.bvn), nin: KycSteps.mask(input.nin) },
            reviewReason: verdict.reason,
            rejectionReason: null,
            decidedBy: "registry",
            createdAt: now,
            updatedAt: now
          })
          if (verdict.status === "APPROVED") yield* customers.markVerified(customerId, now)
          yield* steps.statusEvent(row, verdict.reason)
          yield* satisfyReverification(customerId, 1)
          return { status: row.status, record: toRecord(row) }
        }))

    /** Tier 1: the BVN and NIN looked up in the registries (outside any transaction), then the record. */
    const submitTier1 = Effect.fn("Kyc.submitTier1")(
      function*(partnerId: string, customerId: string, input: { readonly bvn: string; readonly nin: string }) {
        const customer = yield* customers.getOwned(partnerId, customerId)
        yield* checkEligible(customer.id, 1).pipe(Effect.catchTag("SqlError", Effect.die))
        const profile = { firstName: customer.firstName, lastName: customer.lastName, middleName: customer.middleName }
        const verdict = tier1Verdict(profile, yield* steps.lookupRegistries(input, profile))
        return yield* recordTier1(partnerId, customer.id, input, verdict)
      },
      // Tier 1 has no previous tier.
      Effect.catchTag("KycPreviousTierNotApproved", Effect.die)
    )

    /** Tier 2's PENDING record, in the customer's actor, and the identity rail's document check it awaits. */
    const recordTier2 = (
      partnerId: string,
      customerId: string,
      input: Tier2Body,
      uploads: { readonly front: StoredDocument; readonly back: StoredDocument | null; readonly selfie: StoredDocument }
    ) =>
      command(partnerId, customerId, () =>
        Effect.gen(function*() {
          yield* checkEligible(customerId, 2)
          const { back, front, selfie } = uploads
          const now = yield* clock.now
          const row = yield* repo.insertRecord({
            id: yield* ids.uuid,
            partnerId,
            customerId,
            level: 2,
            status: "PENDING",
            idType: input.idDocument.type,
            details: {
              idDocument: {
                type: input.idDocument.type,
                number: input.idDocument.number,
                frontDocumentId: front.id,
                backDocumentId: back?.id ?? null
              },
              selfieDocumentId: selfie.id
            },
            reviewReason: null,
            rejectionReason: null,
            decidedBy: null,
            createdAt: now,
            updatedAt: now
          })
          yield* identity.submitDocumentCheck({
            partnerId,
            customerId,
            checkId: row.id,
            idType: input.idDocument.type,
            idNumber: input.idDocument.number,
            frontDocumentId: front.id,
            backDocumentId: back?.id ?? null,
            selfieDocumentId: selfie.id
          })
          yield* satisfyReverification(customerId, 2)
          return { status: row.status, record: toRecord(row) }
        }))

    /** Tier 2: the ID document and the selfie (uploads of this customer), sent to the identity rail's check. */
    const submitTier2 = Effect.fn("Kyc.submitTier2")(function*(partnerId: string, customerId: string, input: Tier2Body) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      yield* checkEligible(customer.id, 2).pipe(Effect.catchTag("SqlError", Effect.die))
      const front = yield* steps.documentOf(customer.id, input.idDocument.frontUrl, "idDocument.frontUrl", false)
      const back = input.idDocument.backUrl === undefined
        ? null
        : yield* steps.documentOf(customer.id, input.idDocument.backUrl, "idDocument.backUrl", false)
      const selfie = yield* steps.documentOf(customer.id, input.selfieUrl, "selfieUrl", true)
      return yield* recordTier2(partnerId, customer.id, input, { front, back, selfie })
    })

    /**
     * The identity rail's verdict on a Tier 2 document check (`checkId` is the KYC record's id): the one entry point
     * for it, from a simulator job or a live provider's callback. A record decided meanwhile (a reviewer was faster)
     * is left as it is: the verdict has nothing left to decide.
     */
    const settleDocumentCheck = Effect.fn("Kyc.settleDocumentCheck")(
      function*(partnerId: string, checkId: string, verdict: DocumentCheckVerdict) {
        const notFound = new NotFound({ message: "No document check with this id" })
        if (!isUuid(checkId)) return yield* notFound
        const record = yield* repo.findPartnerRecord(partnerId, checkId.toLowerCase()).pipe(Effect.orDie)
        if (Option.isNone(record) || record.value.level !== 2) return yield* notFound
        const found = record.value
        yield* command(partnerId, found.customerId, () =>
          Effect.gen(function*() {
            const row = Option.getOrUndefined(yield* repo.findLockedRecord(found.id))
            if (row === undefined || row.status !== "PENDING") return
            const status = verdict._tag === "Pass" ? "APPROVED" : verdict._tag === "Review" ? "REVIEW" : "REJECTED"
            yield* applyDecision(row, status, verdict._tag === "Pass" ? null : verdict.reason, "rail")
          })).pipe(Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("kyc: a record's customer vanished")))
      }
    )

    /** A reviewer's decision on the newest Tier 1 or Tier 2 record awaiting one (PENDING or REVIEW). */
    const decide = Effect.fn("Kyc.decide")(function*(
      partnerId: string,
      customerId: string,
      level: number,
      decision: { readonly status: "APPROVED" | "REJECTED"; readonly reason?: string | undefined }
    ) {
      if (level === 3) {
        // Tier 3 follows the payout partners' decisions per destination group (src/international/Enrolments.ts).
        return yield* new KycNotAwaitingDecision({
          message: "Tier 3 is decided by the payout partners per destination group: use " +
            "POST /sandbox/customers/{customerId}/international/{group}/approve, .../review, .../reject or .../refuse"
        })
      }
      if (decision.status === "REJECTED" && decision.reason === undefined) {
        return yield* new BadRequest({ message: "reason: is required when status is REJECTED" })
      }
      return yield* command(partnerId, customerId, (customer) =>
        Effect.gen(function*() {
          const row = Option.getOrUndefined(yield* repo.findLatestRecord(customer.id, level, true))
          if (row === undefined || (row.status !== "PENDING" && row.status !== "REVIEW")) {
            return yield* new KycNotAwaitingDecision({
              message: `Tier ${level} has no submission awaiting a decision (status ${row?.status ?? "NOT_STARTED"})`
            })
          }
          return toRecord(yield* applyDecision(row, decision.status, decision.reason ?? null, "reviewer"))
        }))
    })

    /** The customer's KYC records, every tier. */
    const records = Effect.fn("Kyc.records")(function*(partnerId: string, customerId: string) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      return (yield* repo.listRecords(customer.id).pipe(Effect.orDie)).map(toRecord)
    })

    /** The customer's open re-verification request, or null. */
    const reverification = Effect.fn("Kyc.reverification")(function*(partnerId: string, customerId: string) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      const open = Option.getOrUndefined(yield* repo.findOpenReverification(customer.id, false).pipe(Effect.orDie))
      return open === undefined ? null : toReverification(open)
    })

    /** The customer's tiers, records and what is required next. */
    const summary = Effect.fn("Kyc.summary")(function*(partnerId: string, customerId: string) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      // One snapshot, so that the tiers, the records and nextRequired agree with each other.
      const { open, rows } = yield* sql.withTransaction(Effect.all({
        rows: repo.listRecords(customer.id),
        open: Effect.map(repo.findOpenReverification(customer.id, false), Option.getOrUndefined)
      })).pipe(Effect.orDie)
      return summarise(rows, open)
    })

    /** A new re-verification request (it replaces an open one) and its event. */
    const openReverification = (
      partnerId: string,
      customer: CustomerRow,
      items: ReadonlyArray<KycItem>,
      message: string
    ) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        // A new request replaces an open one: compliance restates everything it still needs.
        yield* repo.supersedeReverification(customer.id, now)
        const row = yield* repo.insertReverification({
          id: yield* ids.uuid,
          partnerId,
          customerId: customer.id,
          items,
          outstanding: items,
          message,
          createdAt: now
        })
        yield* outbox.record({
          partnerId,
          customerId: customer.id,
          type: "kyc.reverification_requested",
          data: { customerId: customer.id, items, message }
        })
        return toReverification(row)
      })

    /** Asks the customer to re-submit these items (each item once). */
    const requestReverification = Effect.fn("Kyc.requestReverification")(
      (partnerId: string, customerId: string, input: { readonly items: ReadonlyArray<KycItem>; readonly message: string }) => {
        const items = [...new Set(input.items)]
        return command(partnerId, customerId, (customer) => openReverification(partnerId, customer, items, input.message))
      }
    )

    /**
     * For a later tier's submission, inside its transaction: marks the open re-verification's items of `level`
     * as re-submitted (the request completes when none are left).
     */
    const satisfyReverificationOf = Effect.fn("Kyc.satisfyReverification")((customerId: string, level: Level) =>
      satisfyReverification(customerId, level)
    )

    /** The status of the customer's newest submission of a tier (NOT_STARTED when none): for other modules' gates. */
    const tierStatus = Effect.fn("Kyc.tierStatus")((customerId: string, level: Level) =>
      repo.findLatestRecord(customerId, level, false).pipe(
        Effect.map(Option.match({ onNone: (): KycStatus => "NOT_STARTED", onSome: (row) => row.status })),
        Effect.orDie
      )
    )

    /**
     * The partner's tiers awaiting a decision (the newest record of a tier, PENDING or REVIEW), newest first by
     * (createdAt, id), with the reason a record went to review.
     */
    const awaitingDecision = Effect.fn("Kyc.awaitingDecision")((query: CreatedPageQuery) =>
      repo.awaitingDecision(query).pipe(
        Effect.map((rows) => rows.map((row) => ({ record: toRecord(row), reviewReason: row.reviewReason }))),
        Effect.orDie
      )
    )

    /** The newest level-3 record (its content is the held submission), if any. */
    const latestTier3 = Effect.fn("Kyc.latestTier3")((customerId: string) => tier3.latestTier3(customerId))

    /** Writes a Tier 3 submission's record. */
    const insertTier3 = Effect.fn("Kyc.insertTier3")((input: Parameters<Tier3Records.Tier3Records["insertTier3"]>[0]) =>
      tier3.insertTier3(input)
    )

    /**
     * Sets the newest level-3 record to tier 3's status (and reason when REJECTED); when the status changes to REVIEW,
     * APPROVED or REJECTED, emits `kyc.status_updated`. No record (nothing submitted yet): nothing to do.
     */
    const syncTier3 = Effect.fn("Kyc.syncTier3")((customerId: string, status: RecordStatus, reason: string | null) =>
      tier3.syncTier3(customerId, status, reason)
    )

    /** The open re-verification's outstanding items (empty when none is open). */
    const outstandingItems = Effect.fn("Kyc.outstandingItems")((customerId: string) => tier3.outstandingItems(customerId))

    /** Marks these items of the open re-verification as re-submitted (it completes when none are left). */
    const satisfyItems = Effect.fn("Kyc.satisfyItems")((customerId: string, items: ReadonlyArray<KycItem>) =>
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
  dependencies: [Customers.Default, Documents.Default, CustomerActors.Default]
}) {}

export const layer = Kyc.Default
