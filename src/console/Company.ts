import * as Command from "../observability/Command.js"
import { Effect, Option, Schema } from "effect"
import { forPartner, ServiceClock } from "../clock/ServiceClock.js"
import { BadRequest } from "../api/ApiError.js"
import { isUuid } from "../ids/Ids.js"
import { Partners } from "../partners/Partners.js"
import {
  type CompanyDetails,
  CompanyDetails as CompanyDetailsSchema,
  type ConsoleSession,
  type ConsoleView,
  type KybDecisionBody,
  KybNotEditable,
  KybNotUnderReview
} from "./Api.js"
import * as ConsoleRepo from "./ConsoleRepo.js"

/**
 * The console's company details and KYB (docs/console.md): DRAFT → UNDER_REVIEW → APPROVED | REJECTED | back to
 * DRAFT with a resubmission request, each decision through `Partners.setKyb`, which emits the `partner.*` event.
 */

export type KybStage = ConsoleView["partner"]["kybStage"]

/** Where a partner's KYB stands, from its status and submission time. */
export const stageOf = (row: { readonly kybStatus: string; readonly kybSubmittedAt: Date | null }): KybStage =>
  row.kybStatus === "APPROVED"
    ? "APPROVED"
    : row.kybStatus === "REJECTED"
    ? "REJECTED"
    : row.kybSubmittedAt === null
    ? "DRAFT"
    : "UNDER_REVIEW"

const toView = (user: ConsoleRepo.UserRow, partner: ConsoleRepo.PartnerKybRow): ConsoleView => ({
  user: { id: user.id, email: user.email, createdAt: user.createdAt },
  partner: {
    id: partner.id,
    name: partner.name,
    kybStatus: partner.kybStatus,
    kybStage: stageOf(partner),
    kybReason: partner.kybReason,
    kybSubmittedAt: partner.kybSubmittedAt,
    company: partner.company === null ? null : Option.getOrNull(Schema.decodeUnknownOption(CompanyDetailsSchema)(partner.company)),
    createdAt: partner.createdAt
  }
})

/** The console's view of a user and its partner (in the caller's transaction when there is one). */
export const viewOf = (repo: ConsoleRepo.ConsoleRepo, partnerId: string, userId: string) =>
  Effect.gen(function*() {
    const user = Option.getOrThrow(yield* repo.userById(userId))
    const partner = Option.getOrThrow(yield* repo.partner(partnerId))
    return toView(user, partner)
  })

/** The session's partner, refused unless its KYB is approved. */
export const approvedPartner = (partners: Partners, session: ConsoleSession) =>
  Effect.flatMap(partners.find(session.partnerId), Option.match({
    onNone: () => Effect.dieMessage(`console: partner ${session.partnerId} vanished`),
    onSome: partners.requireApproved
  }))

/**
 * Compliance's decision on a partner's KYB UNDER_REVIEW, in the caller's transaction: APPROVED, REJECTED (reason) or
 * RESUBMISSION_REQUESTED (reason; back to DRAFT, status PENDING), through `Partners.setKyb`, which emits the
 * `partner.*` event and drops the cached key lookups in every process. `partnerRef` is a partner id or a console
 * email. Shared by the sandbox control and the operator command (`service partner-kyb`).
 */
export const decideKybInTransaction = (partnerRef: string, decision: KybDecisionBody) =>
  Effect.gen(function*() {
    const repo = yield* ConsoleRepo.make
    const partners = yield* Partners
    if (decision.decision !== "APPROVED" && decision.reason === undefined) {
      return yield* new BadRequest({ message: `reason: is required when decision is ${decision.decision}` })
    }
    const byEmail = partnerRef.includes("@") ? Option.getOrUndefined(yield* repo.userByEmail(partnerRef.trim().toLowerCase())) : undefined
    const partnerId = byEmail?.partnerId ?? partnerRef
    const partner = isUuid(partnerId) ? Option.getOrUndefined(yield* repo.partner(partnerId.toLowerCase())) : undefined
    if (partner === undefined || stageOf(partner) !== "UNDER_REVIEW") {
      return yield* new KybNotUnderReview({
        message: `KYB is ${partner === undefined ? "unknown (no such partner)" : stageOf(partner)}: compliance decides only a KYB UNDER_REVIEW`
      })
    }
    // On the partner's clock, whoever decides (the operator command has no partner of its own).
    yield* forPartner(partner.id)(
      decision.decision === "RESUBMISSION_REQUESTED"
        ? Effect.zipRight(repo.setSubmitted(partner.id, null), partners.setKyb(partner.id, "PENDING", decision.reason ?? null))
        : partners.setKyb(partner.id, decision.decision, decision.decision === "APPROVED" ? null : decision.reason ?? null)
    )
    return partner.id
  })

const notEditable = (stage: KybStage) =>
  new KybNotEditable({
    message: `KYB is ${stage}: the company details and the submission can change only while it is a DRAFT ` +
      "(not submitted yet, or compliance asked for a resubmission)"
  })

/** The console's view, company details and KYB commands. */
export const make = (repo: ConsoleRepo.ConsoleRepo) =>
  Effect.gen(function*() {
    const clock = yield* ServiceClock
    const partners = yield* Partners
    const inTransaction = yield* ConsoleRepo.makeInTransaction

    const view = Command.fn("Console.view")((session: ConsoleSession) => viewOf(repo, session.partnerId, session.userId))

    const setCompany = Command.fn("Console.setCompany")((session: ConsoleSession, company: CompanyDetails) =>
      inTransaction(Effect.gen(function*() {
        const partner = Option.getOrThrow(yield* repo.partner(session.partnerId))
        if (stageOf(partner) !== "DRAFT") return yield* notEditable(stageOf(partner))
        yield* repo.setCompany(session.partnerId, company, yield* clock.now)
        return yield* viewOf(repo, session.partnerId, session.userId)
      })))

    const submitKyb = Command.fn("Console.submitKyb")((session: ConsoleSession) =>
      inTransaction(Effect.gen(function*() {
        const partner = Option.getOrThrow(yield* repo.partner(session.partnerId))
        if (stageOf(partner) !== "DRAFT") return yield* notEditable(stageOf(partner))
        if (partner.company === null) {
          return yield* new KybNotEditable({ message: "Set the company details (PUT /partner/company) before submitting KYB" })
        }
        yield* repo.setSubmitted(session.partnerId, yield* clock.now)
        return yield* viewOf(repo, session.partnerId, session.userId)
      })))

    /** Compliance's decision on a partner's KYB under review (sandbox control, operator command). */
    const decideKyb = Command.fn("Console.decideKyb")((partnerId: string, decision: KybDecisionBody) =>
      Effect.asVoid(inTransaction(decideKybInTransaction(partnerId, decision).pipe(Effect.provideService(Partners, partners)))))

    return { view, setCompany, submitKyb, decideKyb } as const
  })
