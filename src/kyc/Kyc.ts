import { SqlClient, SqlError } from "@effect/sql"
import { Context, Duration, Effect, Either, Layer, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import type { CreatedPageQuery } from "../db/Rows.js"
import { Outbox } from "../events/Events.js"
import { BadRequest, type CustomerForbidden, NotFound } from "../api/ApiError.js"
import { Ids, isUuid } from "../ids/Ids.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import type { CustomerBusy } from "../ledger/Errors.js"
import type { IdentityRailUnavailable } from "../rails/Errors.js"
import { type DocumentCheckVerdict, Identity, lookupTimeoutMs, RegistryUnavailable } from "../rails/Identity.js"
import {
  KycDocumentNotFound,
  type KycItem,
  KycNotAwaitingDecision,
  KycPreviousTierNotApproved,
  type KycRecord,
  type KycStatus,
  KycTierAlreadyApproved,
  KycTierAwaitingDecision,
  type RecordStatus,
  type Reverification,
  type Tier2Body,
  type VerificationSummary
} from "./Api.js"
import { checkDocumentUrl, notThisCustomersDocument } from "./DocumentFields.js"
import { Documents } from "./Documents.js"
import * as KycRepo from "./KycRepo.js"
import { eligibility, remainingAfter, tier1Verdict } from "./KycRules.js"
import { summarise, toRecord, toReverification } from "./KycViews.js"
import * as Tier3Records from "./Tier3Records.js"

type Level = 1 | 2 | 3
type SubmissionError =
  | CustomerForbidden
  | CustomerBusy
  | KycTierAlreadyApproved
  | KycTierAwaitingDecision
  | KycPreviousTierNotApproved
  | IdentityRailUnavailable

/** Keeps the last four digits: enough for a reviewer to recognise a number, not enough to reuse it. */
const mask = (value: string) => `${"*".repeat(Math.max(0, value.length - 4))}${value.slice(-4)}`

export class Kyc extends Context.Tag("Kyc")<Kyc, Tier3Records.Tier3Records & {
  readonly submitTier1: (
    partnerId: string,
    customerId: string,
    input: { readonly bvn: string; readonly nin: string }
  ) => Effect.Effect<
    { readonly status: KycStatus; readonly record: KycRecord },
    Exclude<SubmissionError, KycPreviousTierNotApproved>
  >
  readonly submitTier2: (
    partnerId: string,
    customerId: string,
    input: Tier2Body
  ) => Effect.Effect<{ readonly status: KycStatus; readonly record: KycRecord }, SubmissionError | KycDocumentNotFound>
  readonly decide: (
    partnerId: string,
    customerId: string,
    level: number,
    decision: { readonly status: "APPROVED" | "REJECTED"; readonly reason?: string | undefined }
  ) => Effect.Effect<KycRecord, BadRequest | CustomerForbidden | CustomerBusy | KycNotAwaitingDecision>
  /**
   * The identity rail's verdict on a Tier 2 document check (`checkId` is the KYC record's id): the one entry point
   * for it, from a simulator job or a live provider's callback. A record decided meanwhile (a reviewer was faster)
   * is left as it is: the verdict has nothing left to decide.
   */
  readonly settleDocumentCheck: (
    partnerId: string,
    checkId: string,
    verdict: DocumentCheckVerdict
  ) => Effect.Effect<void, NotFound | CustomerBusy>
  readonly records: (partnerId: string, customerId: string) => Effect.Effect<ReadonlyArray<KycRecord>, CustomerForbidden>
  readonly summary: (partnerId: string, customerId: string) => Effect.Effect<VerificationSummary, CustomerForbidden>
  readonly reverification: (partnerId: string, customerId: string) => Effect.Effect<Reverification | null, CustomerForbidden>
  readonly requestReverification: (
    partnerId: string,
    customerId: string,
    input: { readonly items: ReadonlyArray<KycItem>; readonly message: string }
  ) => Effect.Effect<Reverification, CustomerForbidden | CustomerBusy>
  /**
   * For a later tier's submission, inside its transaction: marks the open re-verification's items of `level`
   * as re-submitted (the request completes when none are left).
   */
  readonly satisfyReverification: (customerId: string, level: Level) => Effect.Effect<void>
  /** The status of the customer's newest submission of a tier (NOT_STARTED when none): for other modules' gates. */
  readonly tierStatus: (customerId: string, level: Level) => Effect.Effect<KycStatus>
  /**
   * The partner's tiers awaiting a decision (the newest record of a tier, PENDING or REVIEW), newest first by
   * (createdAt, id), with the reason a record went to review.
   */
  readonly awaitingDecision: (
    query: CreatedPageQuery
  ) => Effect.Effect<ReadonlyArray<{ readonly record: KycRecord; readonly reviewReason: string | null }>>
}>() {}

export const layer = Layer.effect(
  Kyc,
  Effect.gen(function*() {
    const repo = yield* KycRepo.make
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const customers = yield* Customers
    const documents = yield* Documents
    const identity = yield* Identity
    const actors = yield* CustomerActors

    /** Every KYC change of one customer runs as a command of its actor (the customer row locked there). */
    const command = <A, E>(
      partnerId: string,
      customerId: string,
      effect: (customer: CustomerRow) => Effect.Effect<A, E, SqlClient.SqlClient>
    ) =>
      actors.run(partnerId, customerId, (customer) =>
        effect(customer).pipe(
          Effect.catchIf((error): error is SqlError.SqlError & E => error instanceof SqlError.SqlError, Effect.die),
          Effect.provideService(SqlClient.SqlClient, sql)
        ) as Effect.Effect<
          A,
          Exclude<E, { readonly _tag: "SqlError" }>
        >)

    const statusesOf = (customerId: string) =>
      Effect.gen(function*() {
        const statuses: Record<Level, KycStatus> = { 1: "NOT_STARTED", 2: "NOT_STARTED", 3: "NOT_STARTED" }
        for (const level of [1, 2, 3] as const) {
          const row = yield* repo.findLatestRecord(customerId, level, false)
          if (Option.isSome(row)) statuses[level] = row.value.status
        }
        return statuses
      })

    const outstandingOf = (customerId: string) =>
      Effect.map(repo.findOpenReverification(customerId, false), Option.match({ onNone: () => [], onSome: (row) => row.outstanding }))

    const checkEligible = (customerId: string, level: Level) =>
      Effect.gen(function*() {
        const verdict = eligibility(level, yield* statusesOf(customerId), yield* outstandingOf(customerId))
        switch (verdict) {
          case "OK":
            return
          case "PREVIOUS_TIER_NOT_APPROVED":
            return yield* new KycPreviousTierNotApproved({ message: `Tier ${level - 1} must be approved before Tier ${level} is submitted` })
          case "AWAITING_DECISION":
            return yield* new KycTierAwaitingDecision({ message: `Tier ${level} is awaiting a decision; wait for kyc.status_updated` })
          case "ALREADY_APPROVED":
            return yield* new KycTierAlreadyApproved({ message: `Tier ${level} is already approved` })
        }
      })

    const satisfyReverification = (customerId: string, level: Level) =>
      Effect.gen(function*() {
        const found = yield* repo.findOpenReverification(customerId, true)
        if (Option.isNone(found)) return
        const open = found.value
        const remaining = remainingAfter(open.outstanding, level)
        if (remaining.length !== open.outstanding.length) yield* repo.updateOutstanding(open.id, remaining, yield* clock.now)
      }).pipe(Effect.orDie)

    const statusEvent = (row: KycRepo.KycRecordRow, reason: string | null) =>
      outbox.record({
        partnerId: row.partnerId,
        customerId: row.customerId,
        type: "kyc.status_updated",
        data: {
          customerId: row.customerId,
          kycId: row.id,
          level: row.level,
          status: row.status,
          ...(reason === null ? {} : { reason })
        }
      })

    /** Writes a decision on a PENDING or REVIEW record, its event and (Tier 1 approved) the customer's verifiedAt. */
    const applyDecision = (
      row: KycRepo.KycRecordRow,
      status: RecordStatus,
      reason: string | null,
      decidedBy: "registry" | "rail" | "reviewer"
    ) =>
      Effect.gen(function*() {
        const at = yield* clock.now
        const decided = yield* repo.decideRecord({
          id: row.id,
          status,
          reviewReason: status === "REVIEW" ? reason : null,
          rejectionReason: status === "REJECTED" ? reason : null,
          decidedBy,
          at
        })
        if (status === "APPROVED" && row.level === 1) yield* customers.markVerified(row.customerId, at)
        yield* statusEvent(decided, reason)
        return decided
      })

    const submitTier1 = (partnerId: string, customerId: string, input: { readonly bvn: string; readonly nin: string }) =>
      Effect.gen(function*() {
        const customer = yield* customers.getOwned(partnerId, customerId)
        yield* checkEligible(customer.id, 1).pipe(Effect.catchTag("SqlError", Effect.die))
        const profile = { firstName: customer.firstName, lastName: customer.lastName, middleName: customer.middleName }
        // Outside any transaction: a slow registry must not hold the customer's lock.
        const lookups = yield* Effect.forEach(
          [{ kind: "BVN" as const, number: input.bvn }, { kind: "NIN" as const, number: input.nin }],
          ({ kind, number }) =>
            identity.lookup(kind, number, profile).pipe(
              Effect.timeoutFail({
                duration: Duration.millis(lookupTimeoutMs),
                onTimeout: () => new RegistryUnavailable({ kind, reason: `${kind} registry timed out` })
              }),
              Effect.map((person) => ({ kind, outcome: Either.right(person) })),
              // A registry that did not answer sends Tier 1 to review; no identity adapter at all (503) records nothing.
              Effect.catchTag("RegistryUnavailable", (error) => Effect.succeed({ kind, outcome: Either.left(error) }))
            ),
          { concurrency: 2 }
        )
        const verdict = tier1Verdict(profile, lookups)
        return yield* command(partnerId, customer.id, () => Effect.gen(function*() {
          yield* checkEligible(customer.id, 1)
          const now = yield* clock.now
          const row = yield* repo.insertRecord({
            id: yield* ids.uuid,
            partnerId,
            customerId: customer.id,
            level: 1,
            status: verdict.status,
            idType: "BVN",
            details: { bvn: mask(input.bvn), nin: mask(input.nin) },
            reviewReason: verdict.reason,
            rejectionReason: null,
            decidedBy: "registry",
            createdAt: now,
            updatedAt: now
          })
          if (verdict.status === "APPROVED") yield* customers.markVerified(customer.id, now)
          yield* statusEvent(row, verdict.reason)
          yield* satisfyReverification(customer.id, 1)
          return { status: row.status, record: toRecord(row) }
        }))
      }).pipe(
        // Tier 1 has no previous tier.
        Effect.catchTag("KycPreviousTierNotApproved", Effect.die),
        Effect.withSpan("Kyc.submitTier1")
      )

    const documentOf = (customerId: string, url: string, field: string, images: boolean) =>
      Effect.gen(function*() {
        const notFound = new KycDocumentNotFound({ message: `${field}: ${notThisCustomersDocument}` })
        const documentId = checkDocumentUrl(url, customerId)
        if (documentId === undefined) return yield* notFound
        const document = yield* documents.find(customerId, documentId)
        if (document === undefined) return yield* notFound
        if (images && document.contentType === "application/pdf") {
          return yield* new KycDocumentNotFound({ message: `${field}: must be a JPEG or PNG image, not a PDF` })
        }
        return document
      })

    const submitTier2 = (partnerId: string, customerId: string, input: Tier2Body) =>
      Effect.gen(function*() {
        const customer = yield* customers.getOwned(partnerId, customerId)
        yield* checkEligible(customer.id, 2).pipe(Effect.catchTag("SqlError", Effect.die))
        const front = yield* documentOf(customer.id, input.idDocument.frontUrl, "idDocument.frontUrl", false)
        const back = input.idDocument.backUrl === undefined
          ? null
          : yield* documentOf(customer.id, input.idDocument.backUrl, "idDocument.backUrl", false)
        const selfie = yield* documentOf(customer.id, input.selfieUrl, "selfieUrl", true)
        return yield* command(partnerId, customer.id, () => Effect.gen(function*() {
          yield* checkEligible(customer.id, 2)
          const now = yield* clock.now
          const row = yield* repo.insertRecord({
            id: yield* ids.uuid,
            partnerId,
            customerId: customer.id,
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
            customerId: customer.id,
            checkId: row.id,
            idType: input.idDocument.type,
            idNumber: input.idDocument.number,
            frontDocumentId: front.id,
            backDocumentId: back?.id ?? null,
            selfieDocumentId: selfie.id
          })
          yield* satisfyReverification(customer.id, 2)
          return { status: row.status, record: toRecord(row) }
        }))
      }).pipe(Effect.withSpan("Kyc.submitTier2"))

    const settleDocumentCheck = (partnerId: string, checkId: string, verdict: DocumentCheckVerdict) =>
      Effect.gen(function*() {
        const notFound = new NotFound({ message: "No document check with this id" })
        if (!isUuid(checkId)) return yield* notFound
        const record = yield* repo.findPartnerRecord(partnerId, checkId.toLowerCase()).pipe(Effect.orDie)
        if (Option.isNone(record) || record.value.level !== 2) return yield* notFound
        const found = record.value
        yield* command(partnerId, found.customerId, () => Effect.gen(function*() {
          const row = Option.getOrUndefined(yield* repo.findLockedRecord(found.id))
          if (row === undefined || row.status !== "PENDING") return
          const status = verdict._tag === "Pass" ? "APPROVED" : verdict._tag === "Review" ? "REVIEW" : "REJECTED"
          yield* applyDecision(row, status, verdict._tag === "Pass" ? null : verdict.reason, "rail")
        })).pipe(Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("kyc: a record's customer vanished")))
      })

    const decide = (
      partnerId: string,
      customerId: string,
      level: number,
      decision: { readonly status: "APPROVED" | "REJECTED"; readonly reason?: string | undefined }
    ) =>
      Effect.gen(function*() {
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
        return yield* command(partnerId, customerId, (customer) => Effect.gen(function*() {
          const row = Option.getOrUndefined(yield* repo.findLatestRecord(customer.id, level, true))
          if (row === undefined || (row.status !== "PENDING" && row.status !== "REVIEW")) {
            return yield* new KycNotAwaitingDecision({
              message: `Tier ${level} has no submission awaiting a decision (status ${row?.status ?? "NOT_STARTED"})`
            })
          }
          return toRecord(yield* applyDecision(row, decision.status, decision.reason ?? null, "reviewer"))
        }))
      }).pipe(Effect.withSpan("Kyc.decide"))

    const records = (partnerId: string, customerId: string) =>
      Effect.gen(function*() {
        const customer = yield* customers.getOwned(partnerId, customerId)
        return (yield* repo.listRecords(customer.id).pipe(Effect.orDie)).map(toRecord)
      })

    const reverification = (partnerId: string, customerId: string) =>
      Effect.gen(function*() {
        const customer = yield* customers.getOwned(partnerId, customerId)
        const open = Option.getOrUndefined(yield* repo.findOpenReverification(customer.id, false).pipe(Effect.orDie))
        return open === undefined ? null : toReverification(open)
      })

    const summary = (partnerId: string, customerId: string) =>
      Effect.gen(function*() {
        const customer = yield* customers.getOwned(partnerId, customerId)
        // One snapshot, so that the tiers, the records and nextRequired agree with each other.
        const { rows, open } = yield* sql.withTransaction(Effect.all({
          rows: repo.listRecords(customer.id),
          open: Effect.map(repo.findOpenReverification(customer.id, false), Option.getOrUndefined)
        })).pipe(Effect.orDie)
        return summarise(rows, open)
      })

    const requestReverification = (
      partnerId: string,
      customerId: string,
      input: { readonly items: ReadonlyArray<KycItem>; readonly message: string }
    ) =>
      Effect.gen(function*() {
        const items = [...new Set(input.items)]
        return yield* command(partnerId, customerId, (customer) => Effect.gen(function*() {
          const now = yield* clock.now
          // A new request replaces an open one: compliance restates everything it still needs.
          yield* repo.supersedeReverification(customer.id, now)
          const row = yield* repo.insertReverification({
            id: yield* ids.uuid,
            partnerId,
            customerId: customer.id,
            items,
            outstanding: items,
            message: input.message,
            createdAt: now
          })
          yield* outbox.record({
            partnerId,
            customerId: customer.id,
            type: "kyc.reverification_requested",
            data: { customerId: customer.id, items, message: input.message }
          })
          return toReverification(row)
        }))
      }).pipe(Effect.withSpan("Kyc.requestReverification"))

    const tierStatus = (customerId: string, level: Level) =>
      repo.findLatestRecord(customerId, level, false).pipe(
        Effect.map(Option.match({ onNone: (): KycStatus => "NOT_STARTED", onSome: (row) => row.status })),
        Effect.orDie
      )

    const awaitingDecision = (query: CreatedPageQuery) =>
      repo.awaitingDecision(query).pipe(
        Effect.map((rows) => rows.map((row) => ({ record: toRecord(row), reviewReason: row.reviewReason }))),
        Effect.orDie
      )

    return Kyc.of({
      ...Tier3Records.make(repo, outbox, clock),
      awaitingDecision,
      submitTier1,
      submitTier2,
      decide,
      settleDocumentCheck,
      records,
      summary,
      reverification,
      requestReverification,
      satisfyReverification,
      tierStatus
    })
  })
)
