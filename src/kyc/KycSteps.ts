import { SqlClient, SqlError } from "@effect/sql"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { Duration, Effect, Either, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import type { Customer } from "../customers/Customer.js"
import { Outbox } from "../events/Events.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import { Identity, lookupTimeoutMs, type PersonName, RegistryUnavailable } from "../rails/Identity.js"
import {
  KycDocumentNotFound,
  KycPreviousTierNotApproved,
  type KycStatus,
  KycTierAlreadyApproved,
  KycTierAwaitingDecision,
  type RecordStatus
} from "./Api.js"
import { checkDocumentUrl, notThisCustomersDocument } from "./DocumentFields.js"
import { Documents } from "./Documents.js"
import type * as KycRepo from "./KycRepo.js"
import { eligibility, remainingAfter } from "./KycRules.js"

/**
 * The steps the Kyc service's commands share (src/kyc/Kyc.ts): the customer's actor command every change runs in,
 * the eligibility check of a submission, the registry lookups of Tier 1, the documents of Tier 2, the status event
 * and the write of a decision.
 */

export type Level = 1 | 2 | 3

/** Keeps the last four digits: enough for a reviewer to recognise a number, not enough to reuse it. */
export const mask = (value: string) => `${"*".repeat(Math.max(0, value.length - 4))}${value.slice(-4)}`

export const make = (repo: KycRepo.KycRepo) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const clock = yield* ServiceClock
    const customers = yield* Customers
    const documents = yield* Documents
    const identity = yield* Identity
    const actors = yield* CustomerActors

    /** Every KYC change of one customer runs as a command of its actor (the customer row locked there). */
    const command = <A, E>(
      partnerId: PartnerId,
      customerId: CustomerId,
      effect: (customer: Customer) => Effect.Effect<A, E, SqlClient.SqlClient>
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

    /** The tier may be submitted: the previous one approved, this one neither awaiting a decision nor approved. */
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

    /** Marks the open re-verification's items of `level` as re-submitted (the request completes when none are left). */
    const satisfyReverification = (customerId: string, level: Level) =>
      Effect.gen(function*() {
        const found = yield* repo.findOpenReverification(customerId, true)
        if (Option.isNone(found)) return
        const open = found.value
        const remaining = remainingAfter(open.outstanding, level)
        if (remaining.length !== open.outstanding.length) yield* repo.updateOutstanding(open.id, remaining, yield* clock.now)
      })

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

    /**
     * Tier 1's BVN and NIN lookups, side by side. Outside any transaction: a slow registry must not hold the
     * customer's lock.
     */
    const lookupRegistries = (
      input: { readonly bvn: string; readonly nin: string },
      profile: PersonName
    ) =>
      Effect.forEach(
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

    /** A Tier 2 document url of this customer's upload (`images`: a JPEG or PNG, not a PDF). */
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

    return { command, checkEligible, satisfyReverification, statusEvent, applyDecision, lookupRegistries, documentOf } as const
  })
