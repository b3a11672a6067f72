import { SqlClient, SqlError, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { repository } from "../db/Rows.js"
import { EventBus, transaction } from "../events/Events.js"
import type { CompanyDetails } from "./Api.js"

/**
 * The partner console's tables (docs/console.md): `console_users`, `console_sessions`, `console_spent_refresh_tokens`,
 * `console_sign_in_failures`, and the KYB columns of `partners` (company details, submission time).
 */
export const UserRow = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  email: Schema.String,
  passwordHash: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type UserRow = typeof UserRow.Type

export const SessionRow = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  partnerId: Schema.String,
  refreshExpiresAt: Schema.DateFromSelf,
  revokedAt: Schema.NullOr(Schema.DateFromSelf)
})

/** The session a spent refresh token belonged to. */
export const SpentRow = Schema.Struct({
  sessionId: Schema.String,
  partnerId: Schema.String
})

export const FailureRow = Schema.Struct({
  email: Schema.String,
  failures: Schema.Number,
  firstFailureAt: Schema.DateFromSelf,
  lockedUntil: Schema.NullOr(Schema.DateFromSelf)
})

export const PartnerKybRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  kybStatus: Schema.Literal("PENDING", "APPROVED", "REJECTED"),
  kybReason: Schema.NullOr(Schema.String),
  kybSubmittedAt: Schema.NullOr(Schema.DateFromSelf),
  company: Schema.NullOr(Schema.Unknown),
  createdAt: Schema.DateFromSelf
})
export type PartnerKybRow = typeof PartnerKybRow.Type

export const make = Effect.gen(function*() {
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
  const spentRefresh = SqlSchema.findOne({
    Request: Schema.Uint8ArrayFromSelf,
    Result: SpentRow,
    execute: (hash) =>
      sql`SELECT s.id AS session_id, s.partner_id FROM console_spent_refresh_tokens t
          JOIN console_sessions s ON s.id = t.session_id WHERE t.refresh_hash = ${Buffer.from(hash)}`
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
  return repository({
    userByEmail: (email: string) => userByEmail(email),
    userById: (id: string) => userById(id),
    session: (id: string) => session(id),
    sessionByRefresh: (hash: Uint8Array) => sessionByRefresh(hash),
    /** The session of a refresh token it has already spent (a reuse), if any. */
    spentRefresh: (hash: Uint8Array) => spentRefresh(hash),
    failure: (email: string) => failure(email),
    partner: (id: string) => partner(id),
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
    /** Replaces the session's refresh token, recording the old one as spent (a later reuse revokes the session). */
    rotateRefresh: (id: string, spentHash: Buffer, refreshHash: Buffer, refreshExpiresAt: Date, at: Date) =>
      Effect.zipRight(
        sql`INSERT INTO console_spent_refresh_tokens (refresh_hash, session_id, spent_at) VALUES (${spentHash}, ${id}, ${at})`,
        sql`UPDATE console_sessions SET refresh_hash = ${refreshHash}, refresh_expires_at = ${refreshExpiresAt} WHERE id = ${id}`
      ),
    revokeSession: (id: string, at: Date) => sql`UPDATE console_sessions SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`,
    /**
     * Deletes the user's sessions signed out or past their refresh token's expiry before `before`, with their spent
     * refresh tokens (ON DELETE CASCADE).
     */
    pruneSessions: (userId: string, before: Date) =>
      sql`DELETE FROM console_sessions WHERE user_id = ${userId} AND (revoked_at < ${before} OR refresh_expires_at < ${before})`,
    /** Deletes the session's refresh tokens spent before `before`. */
    pruneSpentRefresh: (sessionId: string, before: Date) =>
      sql`DELETE FROM console_spent_refresh_tokens WHERE session_id = ${sessionId} AND spent_at < ${before}`,
    recordFailure: (email: string, failures: number, firstFailureAt: Date, lockedUntil: Date | null) =>
      sql`INSERT INTO console_sign_in_failures (email, failures, first_failure_at, locked_until)
          VALUES (${email}, ${failures}, ${firstFailureAt}, ${lockedUntil})
          ON CONFLICT (email) DO UPDATE SET failures = EXCLUDED.failures, first_failure_at = EXCLUDED.first_failure_at,
            locked_until = EXCLUDED.locked_until`,
    clearFailures: (email: string) => sql`DELETE FROM console_sign_in_failures WHERE email = ${email}`,
    setCompany: (id: string, company: CompanyDetails, at: Date) =>
      sql`UPDATE partners SET company = ${JSON.stringify(company)}::jsonb, updated_at = ${at} WHERE id = ${id}`,
    setSubmitted: (id: string, at: Date | null) => sql`UPDATE partners SET kyb_submitted_at = ${at} WHERE id = ${id}`
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class ConsoleRepo extends Effect.Service<ConsoleRepo>()("ConsoleRepo", { effect: make }) {}

/**
 * Runs `effect` in a transaction (joining the caller's, if any) on the service's database: events published after
 * the commit, an SQL error a defect.
 */
export const makeInTransaction = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const bus = yield* EventBus
  return <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    transaction(effect).pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.provideService(EventBus, bus),
      Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, Effect.die)
    )
})

export type InTransaction = Effect.Effect.Success<typeof makeInTransaction>
