import { SqlClient, SqlError, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { enterPartner, forPartner, ServiceClock } from "../clock/ServiceClock.js"
import { base62, sha256 } from "../crypto/Hashing.js"
import { Keys } from "../crypto/Keys.js"
import { orDieOnRow } from "../db/Rows.js"
import { EventBus, transaction } from "../events/Events.js"
import { BadRequest, type PartnerNotApproved, Unauthorized } from "../api/ApiError.js"
import { Ids, isUuid } from "../ids/Ids.js"
import { Partners } from "../partners/Partners.js"
import type { KeyListRow } from "../partners/PartnersRepo.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import type { WebhookSecretIssued } from "../webhooks/Api.js"
import {
  type CompanyDetails,
  CompanyDetails as CompanyDetailsSchema,
  type ConsoleSession,
  type ConsoleView,
  EmailTaken,
  InvalidCredentials,
  type KybDecisionBody,
  KybNotEditable,
  KybNotUnderReview,
  type Session,
  TooManySignInAttempts
} from "./Api.js"
import * as Passwords from "./Passwords.js"
import * as Tokens from "./Tokens.js"

/**
 * The partner console (docs/console.md): accounts (scrypt passwords, lockout per email), sessions (HS256 access
 * tokens on the service clock naming a session row; rotating refresh tokens stored as hashes; sign-out revokes the
 * session), the company details and KYB (DRAFT → UNDER_REVIEW → APPROVED | REJECTED | back to DRAFT with a
 * resubmission request, each decision through `Partners.setKyb`, which emits the `partner.*` event), the API key
 * (issued or rotated only once approved) and the console's webhook route.
 */
export const lockout = { failures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 } as const

const UserRow = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  email: Schema.String,
  passwordHash: Schema.String,
  createdAt: Schema.DateFromSelf
})
type UserRow = typeof UserRow.Type

const SessionRow = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  partnerId: Schema.String,
  refreshExpiresAt: Schema.DateFromSelf,
  revokedAt: Schema.NullOr(Schema.DateFromSelf)
})

const FailureRow = Schema.Struct({
  email: Schema.String,
  failures: Schema.Number,
  firstFailureAt: Schema.DateFromSelf,
  lockedUntil: Schema.NullOr(Schema.DateFromSelf)
})

const PartnerKybRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  kybStatus: Schema.Literal("PENDING", "APPROVED", "REJECTED"),
  kybReason: Schema.NullOr(Schema.String),
  kybSubmittedAt: Schema.NullOr(Schema.DateFromSelf),
  company: Schema.NullOr(Schema.Unknown),
  createdAt: Schema.DateFromSelf
})
type PartnerKybRow = typeof PartnerKybRow.Type

const makeRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const userByEmail = SqlSchema.findOne({
    Request: Schema.String,
    Result: UserRow,
    execute: (email) => sql`SELECT id, partner_id, email, password_hash, created_at FROM console_users WHERE email = ${email}`
  })
  const userById = SqlSchema.findOne({
    Request: Schema.String,
    Result: UserRow,
    execute: (id) => sql`SELECT id, partner_id, email, password_hash, created_at FROM console_users WHERE id = ${id}`
  })
  const session = SqlSchema.findOne({
    Request: Schema.String,
    Result: SessionRow,
    execute: (id) => sql`SELECT id, user_id, partner_id, refresh_expires_at, revoked_at FROM console_sessions WHERE id = ${id}`
  })
  const sessionByRefresh = SqlSchema.findOne({
    Request: Schema.Uint8ArrayFromSelf,
    Result: SessionRow,
    execute: (hash) =>
      sql`SELECT id, user_id, partner_id, refresh_expires_at, revoked_at FROM console_sessions WHERE refresh_hash = ${Buffer.from(hash)} FOR UPDATE`
  })
  const failure = SqlSchema.findOne({
    Request: Schema.String,
    Result: FailureRow,
    execute: (email) => sql`SELECT email, failures, first_failure_at, locked_until FROM console_sign_in_failures WHERE email = ${email} FOR UPDATE`
  })
  const partner = SqlSchema.findOne({
    Request: Schema.String,
    Result: PartnerKybRow,
    execute: (id) => sql`SELECT id, name, kyb_status, kyb_reason, kyb_submitted_at, company, created_at FROM partners WHERE id = ${id} FOR UPDATE`
  })
  return {
    userByEmail: (email: string) => orDieOnRow(userByEmail(email)),
    userById: (id: string) => orDieOnRow(userById(id)),
    session: (id: string) => orDieOnRow(session(id)),
    sessionByRefresh: (hash: Uint8Array) => orDieOnRow(sessionByRefresh(hash)),
    failure: (email: string) => orDieOnRow(failure(email)),
    partner: (id: string) => orDieOnRow(partner(id)),
    /** Inserts the user; false when the email is taken (a concurrent sign-up won: the caller rolls back). */
    insertUser: (row: UserRow) =>
      Effect.map(
        sql<{ id: string }>`INSERT INTO console_users (id, partner_id, email, password_hash, created_at)
          VALUES (${row.id}, ${row.partnerId}, ${row.email}, ${row.passwordHash}, ${row.createdAt})
          ON CONFLICT (email) DO NOTHING RETURNING id`,
        (rows) => rows.length === 1
      ),
    /** Makes sure the email has a failures row to lock (sign-ins of one email take turns on it). */
    ensureFailureRow: (email: string, at: Date) =>
      sql`INSERT INTO console_sign_in_failures (email, failures, first_failure_at, locked_until)
          VALUES (${email}, 0, ${at}, NULL) ON CONFLICT (email) DO NOTHING`,
    insertSession: (row: { id: string; userId: string; partnerId: string; refreshHash: Buffer; createdAt: Date; refreshExpiresAt: Date }) =>
      sql`INSERT INTO console_sessions (id, user_id, partner_id, refresh_hash, created_at, refresh_expires_at)
          VALUES (${row.id}, ${row.userId}, ${row.partnerId}, ${row.refreshHash}, ${row.createdAt}, ${row.refreshExpiresAt})`,
    rotateRefresh: (id: string, refreshHash: Buffer, refreshExpiresAt: Date) =>
      sql`UPDATE console_sessions SET refresh_hash = ${refreshHash}, refresh_expires_at = ${refreshExpiresAt} WHERE id = ${id}`,
    revokeSession: (id: string, at: Date) => sql`UPDATE console_sessions SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`,
    recordFailure: (email: string, failures: number, firstFailureAt: Date, lockedUntil: Date | null) =>
      sql`INSERT INTO console_sign_in_failures (email, failures, first_failure_at, locked_until)
          VALUES (${email}, ${failures}, ${firstFailureAt}, ${lockedUntil})
          ON CONFLICT (email) DO UPDATE SET failures = EXCLUDED.failures, first_failure_at = EXCLUDED.first_failure_at,
            locked_until = EXCLUDED.locked_until`,
    clearFailures: (email: string) => sql`DELETE FROM console_sign_in_failures WHERE email = ${email}`,
    setCompany: (id: string, company: CompanyDetails, at: Date) =>
      sql`UPDATE partners SET company = ${JSON.stringify(company)}::jsonb, updated_at = ${at} WHERE id = ${id}`,
    setSubmitted: (id: string, at: Date | null) => sql`UPDATE partners SET kyb_submitted_at = ${at} WHERE id = ${id}`
  }
})

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

export const toKeyView = (row: KeyListRow) => ({
  id: row.id,
  prefix: row.keyPrefix,
  status: row.revokedAt === null ? "ACTIVE" as const : "REVOKED" as const,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
  revokedAt: row.revokedAt
})

const invalidCredentials = () => new InvalidCredentials({ message: "The email or the password is wrong" })
const signedOut = () => new Unauthorized({ message: "The console session is not valid (expired or signed out): sign in again" })

/**
 * Compliance's decision on a partner's KYB UNDER_REVIEW, in the caller's transaction: APPROVED, REJECTED (reason) or
 * RESUBMISSION_REQUESTED (reason; back to DRAFT, status PENDING), through `Partners.setKyb`, which emits the
 * `partner.*` event and drops the cached key lookups in every process. `partnerRef` is a partner id or a console
 * email. Shared by the sandbox control and the operator command (`service partner-kyb`).
 */
export const decideKybInTransaction = (partnerRef: string, decision: KybDecisionBody) =>
  Effect.gen(function*() {
    const repo = yield* makeRepo
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

export class Console extends Context.Tag("Console")<Console, {
  readonly signUp: (input: { readonly email: string; readonly password: string; readonly companyName: string }) => Effect.Effect<{ readonly session: Session; readonly console: ConsoleView }, EmailTaken>
  readonly signIn: (input: { readonly email: string; readonly password: string }) => Effect.Effect<Session, InvalidCredentials | TooManySignInAttempts>
  readonly refresh: (refreshToken: string) => Effect.Effect<Session, Unauthorized>
  /** The session of a valid access token whose session is not signed out (the console's auth). */
  readonly authenticate: (accessToken: string) => Effect.Effect<ConsoleSession, Unauthorized>
  readonly signOut: (session: ConsoleSession) => Effect.Effect<void>
  readonly view: (session: ConsoleSession) => Effect.Effect<ConsoleView>
  readonly setCompany: (session: ConsoleSession, company: CompanyDetails) => Effect.Effect<ConsoleView, KybNotEditable>
  readonly submitKyb: (session: ConsoleSession) => Effect.Effect<ConsoleView, KybNotEditable>
  /** Compliance's decision on a partner's KYB under review (sandbox control, operator command). */
  readonly decideKyb: (partnerId: string, decision: KybDecisionBody) => Effect.Effect<void, KybNotUnderReview | BadRequest>
  readonly listKeys: (session: ConsoleSession) => Effect.Effect<ReadonlyArray<ReturnType<typeof toKeyView>>>
  readonly rotateKey: (session: ConsoleSession) => Effect.Effect<{ readonly apiKey: string; readonly key: ReturnType<typeof toKeyView> }, PartnerNotApproved>
  readonly updateWebhook: (session: ConsoleSession, url: string, secret: string | undefined) => Effect.Effect<WebhookSecretIssued, BadRequest | PartnerNotApproved>
}>() {}

export const layer = Layer.effect(
  Console,
  Effect.gen(function*() {
    const repo = yield* makeRepo
    const sql = yield* SqlClient.SqlClient
    const bus = yield* EventBus
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const keys = yield* Keys
    const partners = yield* Partners
    const webhooks = yield* Webhooks
    const decoy = yield* Effect.cached(Passwords.decoy)
    const inTransaction = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      transaction(effect).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(EventBus, bus),
        Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, Effect.die)
      )

    const normalise = (email: string) => email.trim().toLowerCase()

    /** A new session (in the caller's transaction): its row, an access token and a refresh token. */
    const openSession = (user: { readonly id: string; readonly partnerId: string }) =>
      forPartner(user.partnerId)(Effect.gen(function*() {
        const now = yield* clock.now
        const id = yield* ids.uuid
        const refreshToken = `rt_${base62(yield* ids.bytes(32))}`
        const refreshExpiresAt = new Date(now.getTime() + Tokens.refreshTokenSeconds * 1000)
        yield* repo.insertSession({ id, userId: user.id, partnerId: user.partnerId, refreshHash: sha256(refreshToken), createdAt: now, refreshExpiresAt })
        const accessToken = yield* Tokens.sign(keys.consoleToken, { userId: user.id, partnerId: user.partnerId, sessionId: id }, now)
        return {
          tokenType: "Bearer" as const,
          accessToken,
          expiresIn: Tokens.accessTokenSeconds,
          expiresAt: new Date(now.getTime() + Tokens.accessTokenSeconds * 1000),
          refreshToken,
          refreshExpiresAt
        }
      }))

    const viewOf = (partnerId: string, userId: string) =>
      Effect.gen(function*() {
        const user = Option.getOrThrow(yield* repo.userById(userId))
        const partner = Option.getOrThrow(yield* repo.partner(partnerId))
        return toView(user, partner)
      }).pipe(Effect.orDie)

    const toView = (user: UserRow, partner: PartnerKybRow): ConsoleView => ({
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

    const signUp = (input: { readonly email: string; readonly password: string; readonly companyName: string }) =>
      Effect.gen(function*() {
        const email = normalise(input.email)
        const passwordHash = yield* Passwords.hash(input.password)
        return yield* inTransaction(Effect.gen(function*() {
          if (Option.isSome(yield* repo.userByEmail(email))) {
            return yield* new EmailTaken({ message: "email: a partner console account with this email exists; sign in instead" })
          }
          const partner = yield* partners.createWithoutKey(input.companyName)
          const user = { id: yield* ids.uuid, partnerId: partner.id, email, passwordHash, createdAt: yield* clock.now }
          if (!(yield* repo.insertUser(user))) {
            return yield* new EmailTaken({ message: "email: a partner console account with this email exists; sign in instead" })
          }
          const session = yield* openSession(user)
          return { session, console: yield* viewOf(partner.id, user.id) }
        }))
      }).pipe(Effect.withSpan("Console.signUp"))

    const tooMany = (lockedUntil: Date, now: Date) => {
      const retryAfterSeconds = Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000)
      return new TooManySignInAttempts({
        message: `Too many failed sign-ins for this email: try again in ${retryAfterSeconds} seconds`,
        details: { retryAfterSeconds }
      })
    }

    /**
     * The password is checked outside any transaction (scrypt takes tens of milliseconds, and on the embedded
     * database a transaction holds the only connection); the outcome is then recorded in a transaction with the
     * email's failures row locked, and decided there: sign-ins of one email take turns at that point, so once the
     * lockout's count is reached every later answer is 429 — a right password included — and concurrent guesses
     * learn nothing past the first `lockout.failures` (at most that many 401s or one session per window).
     */
    const signIn = (input: { readonly email: string; readonly password: string }) =>
      Effect.gen(function*() {
        const email = normalise(input.email)
        const before = Option.getOrUndefined(yield* repo.failure(email).pipe(Effect.orDie))
        const started = yield* clock.now
        if (before?.lockedUntil !== null && before?.lockedUntil !== undefined && before.lockedUntil > started) {
          return yield* tooMany(before.lockedUntil, started)
        }
        const user = Option.getOrUndefined(yield* repo.userByEmail(email).pipe(Effect.orDie))
        // The same work for an unknown email as for a wrong password: no enumeration by answer or by time.
        const matches = yield* Passwords.verify(input.password, user?.passwordHash ?? (yield* decoy))
        const outcome = yield* inTransaction(Effect.gen(function*() {
          const now = yield* clock.now
          yield* repo.ensureFailureRow(email, now)
          const current = Option.getOrThrow(yield* repo.failure(email))
          if (current.lockedUntil !== null && current.lockedUntil > now) return { _tag: "locked" as const, until: current.lockedUntil, now }
          if (user === undefined || !matches) {
            const fresh = current.failures === 0 || now.getTime() - current.firstFailureAt.getTime() > lockout.windowSeconds * 1000
            const failures = fresh ? 1 : current.failures + 1
            const lockedUntil = failures >= lockout.failures ? new Date(now.getTime() + lockout.lockSeconds * 1000) : null
            yield* repo.recordFailure(email, lockedUntil === null ? failures : 0, fresh ? now : current.firstFailureAt, lockedUntil)
            return { _tag: "wrong" as const }
          }
          yield* repo.clearFailures(email)
          return { _tag: "ok" as const, session: yield* openSession(user) }
        }))
        // A failure is committed, then refused (a failed transaction would roll the count back).
        switch (outcome._tag) {
          case "ok":
            return outcome.session
          case "locked":
            return yield* tooMany(outcome.until, outcome.now)
          case "wrong":
            return yield* invalidCredentials()
        }
      }).pipe(Effect.withSpan("Console.signIn"))

    const refresh = (refreshToken: string) =>
      inTransaction(Effect.gen(function*() {
        const found = Option.getOrUndefined(yield* repo.sessionByRefresh(sha256(refreshToken)))
        if (found === undefined) return yield* signedOut()
        // A session's times are on its partner's clock.
        const now = yield* forPartner(found.partnerId)(clock.now)
        if (found.revokedAt !== null || found.refreshExpiresAt <= now) return yield* signedOut()
        const next = `rt_${base62(yield* ids.bytes(32))}`
        const refreshExpiresAt = new Date(now.getTime() + Tokens.refreshTokenSeconds * 1000)
        yield* repo.rotateRefresh(found.id, sha256(next), refreshExpiresAt)
        const accessToken = yield* Tokens.sign(keys.consoleToken, { userId: found.userId, partnerId: found.partnerId, sessionId: found.id }, now)
        return {
          tokenType: "Bearer" as const,
          accessToken,
          expiresIn: Tokens.accessTokenSeconds,
          expiresAt: new Date(now.getTime() + Tokens.accessTokenSeconds * 1000),
          refreshToken: next,
          refreshExpiresAt
        }
      }))

    const authenticate = (accessToken: string) =>
      Effect.gen(function*() {
        if (accessToken.length === 0) {
          return yield* new Unauthorized({ message: "Missing console token: send Authorization: Bearer <access token> (an API key is not accepted here)" })
        }
        if (accessToken.length > 4096) return yield* signedOut()
        // Verified on the clock of the partner it names (its expiry is on that clock); a forged name fails the signature.
        const named = Tokens.unverifiedPartnerId(accessToken)
        const now = yield* (named === undefined ? clock.now : forPartner(named)(clock.now))
        const claims = yield* Tokens.verify(keys.consoleToken, accessToken, now)
        if (claims === undefined) return yield* signedOut()
        const session = Option.getOrUndefined(yield* repo.session(claims.sessionId).pipe(Effect.orDie))
        if (session === undefined || session.revokedAt !== null || session.userId !== claims.userId) return yield* signedOut()
        // The rest of the request reads this partner's clock (docs/sandbox.md "A clock per partner").
        yield* enterPartner(claims.partnerId)
        return claims
      })

    const signOut = (session: ConsoleSession) =>
      Effect.flatMap(clock.now, (now) => repo.revokeSession(session.sessionId, now)).pipe(Effect.asVoid, Effect.orDie)

    const view = (session: ConsoleSession) => viewOf(session.partnerId, session.userId)

    const notEditable = (stage: KybStage) =>
      new KybNotEditable({
        message: `KYB is ${stage}: the company details and the submission can change only while it is a DRAFT ` +
          "(not submitted yet, or compliance asked for a resubmission)"
      })

    const setCompany = (session: ConsoleSession, company: CompanyDetails) =>
      inTransaction(Effect.gen(function*() {
        const partner = Option.getOrThrow(yield* repo.partner(session.partnerId))
        if (stageOf(partner) !== "DRAFT") return yield* notEditable(stageOf(partner))
        yield* repo.setCompany(session.partnerId, company, yield* clock.now)
        return yield* viewOf(session.partnerId, session.userId)
      }))

    const submitKyb = (session: ConsoleSession) =>
      inTransaction(Effect.gen(function*() {
        const partner = Option.getOrThrow(yield* repo.partner(session.partnerId))
        if (stageOf(partner) !== "DRAFT") return yield* notEditable(stageOf(partner))
        if (partner.company === null) {
          return yield* new KybNotEditable({ message: "Set the company details (PUT /partner/company) before submitting KYB" })
        }
        yield* repo.setSubmitted(session.partnerId, yield* clock.now)
        return yield* viewOf(session.partnerId, session.userId)
      }))

    const decideKyb = (partnerId: string, decision: KybDecisionBody) =>
      Effect.asVoid(inTransaction(decideKybInTransaction(partnerId, decision).pipe(Effect.provideService(Partners, partners))))

    const listKeys = (session: ConsoleSession) => Effect.map(partners.listKeys(session.partnerId), (rows) => rows.map(toKeyView))

    /** The session's partner, refused unless its KYB is approved. */
    const approved = (session: ConsoleSession) =>
      Effect.flatMap(partners.find(session.partnerId), Option.match({
        onNone: () => Effect.dieMessage(`console: partner ${session.partnerId} vanished`),
        onSome: partners.requireApproved
      }))

    const rotateKey = (session: ConsoleSession) =>
      Effect.zipRight(
        approved(session),
        Effect.map(partners.rotateKey(session.partnerId), (issued) => ({ apiKey: issued.apiKey, key: toKeyView(issued.key) }))
      )

    /** Only an approved partner has webhooks to receive: before, the service POSTs nothing anywhere for it. */
    const updateWebhook = (session: ConsoleSession, url: string, secret: string | undefined) =>
      Effect.zipRight(approved(session), webhooks.setUrl(session.partnerId, url, secret))

    return Console.of({ signUp, signIn, refresh, authenticate, signOut, view, setCompany, submitKyb, decideKyb, listKeys, rotateKey, updateWebhook })
  })
)
