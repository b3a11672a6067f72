import * as Command from "../observability/Command.js"
import { Effect, Option } from "effect"
import { CustomerId, PartnerId, storedId } from "../api/Ids.js"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Customers } from "../customers/Customers.js"
import { BadRequest, NotFound } from "../api/ApiError.js"
import { Ids, isUuid } from "../ids/Ids.js"
import { type DocumentCheckVerdict, Identity } from "../rails/Identity.js"
import { KycNotAwaitingDecision, type Tier2Body } from "./Api.js"
import type { StoredDocument } from "./Documents.js"
import type * as KycRepo from "./KycRepo.js"
import * as KycSteps from "./KycSteps.js"
import { type Tier1Verdict, tier1Verdict } from "./KycRules.js"
import { toRecord } from "./KycViews.js"

/**
 * The Kyc service's submissions and decisions (src/kyc/Kyc.ts): Tier 1's registry check and record, Tier 2's
 * documents and the identity rail's check, the rail's verdict on it and a reviewer's decision.
 */

type Steps = Effect.Effect.Success<ReturnType<typeof KycSteps.make>>

export const make = (repo: KycRepo.KycRepo, steps: Steps) =>
  Effect.gen(function*() {
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const customers = yield* Customers
    const identity = yield* Identity
    const { applyDecision, checkEligible, command, satisfyReverification } = steps


    /** Tier 1's record with the registries' verdict, in the customer's actor (eligibility checked again there). */
    const recordTier1 = (
      partnerId: PartnerId,
      customerId: CustomerId,
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
    const submitTier1 = Command.fn("Kyc.submitTier1")(
      function*(partnerId: PartnerId, customerId: CustomerId, input: { readonly bvn: string; readonly nin: string }) {
        const customer = yield* customers.getOwned(partnerId, customerId)
        yield* checkEligible(customer.id, 1)
        const profile = { firstName: customer.firstName, lastName: customer.lastName, middleName: customer.middleName }
        const verdict = tier1Verdict(profile, yield* steps.lookupRegistries(input, profile))
        return yield* recordTier1(partnerId, customer.id, input, verdict)
      },
      // Tier 1 has no previous tier.
      Effect.catchTag("KycPreviousTierNotApproved", Effect.die)
    )

    /** Tier 2's PENDING record, in the customer's actor, and the identity rail's document check it awaits. */
    const recordTier2 = (
      partnerId: PartnerId,
      customerId: CustomerId,
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
    const submitTier2 = Command.fn("Kyc.submitTier2")(function*(partnerId: PartnerId, customerId: CustomerId, input: Tier2Body) {
      const customer = yield* customers.getOwned(partnerId, customerId)
      yield* checkEligible(customer.id, 2)
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
    const settleDocumentCheck = Command.fn("Kyc.settleDocumentCheck")(
      function*(partnerId: string, checkId: string, verdict: DocumentCheckVerdict) {
        const notFound = new NotFound({ message: "No document check with this id" })
        if (!isUuid(checkId)) return yield* notFound
        const record = yield* repo.findPartnerRecord(partnerId, checkId.toLowerCase())
        if (Option.isNone(record) || record.value.level !== 2) return yield* notFound
        const found = record.value
        yield* command(storedId(PartnerId, partnerId), storedId(CustomerId, found.customerId), () =>
          Effect.gen(function*() {
            const row = Option.getOrUndefined(yield* repo.findLockedRecord(found.id))
            if (row === undefined || row.status !== "PENDING") return
            const status = verdict._tag === "Pass" ? "APPROVED" : verdict._tag === "Review" ? "REVIEW" : "REJECTED"
            yield* applyDecision(row, status, verdict._tag === "Pass" ? null : verdict.reason, "rail")
          })).pipe(Effect.catchTag("CustomerForbidden", () => Effect.dieMessage("kyc: a record's customer vanished")))
      }
    )

    /** A reviewer's decision on the newest Tier 1 or Tier 2 record awaiting one (PENDING or REVIEW). */
    /** A decision's own checks, before any customer's: Tier 3 is not decided here, a rejection needs a reason. */
    const checkDecision = Command.fn("Kyc.checkDecision")(function*(
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
    })

    const decide = Command.fn("Kyc.decide")(function*(
      partnerId: PartnerId,
      customerId: CustomerId,
      level: number,
      decision: { readonly status: "APPROVED" | "REJECTED"; readonly reason?: string | undefined }
    ) {
      yield* checkDecision(level, decision)
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

    return { submitTier1, submitTier2, settleDocumentCheck, checkDecision, decide } as const
  })
