import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The partner console (docs/console.md): the people who sign in for a partner business, their sessions, sign-in
 * failures, the business's company details and KYB submission, and API-key usage.
 *
 * - `console_users`: one sign-in per partner (the email that signed up), the password as a scrypt hash string.
 * - `console_sessions`: a signed-in session; the access token (JWT) names it by `id`, the refresh token is stored as
 *   its SHA-256; `revoked_at` is set by sign-out (and every token of the session stops working).
 * - `console_sign_in_failures`: failed sign-ins per email (whether or not a user has it: no enumeration by lockout).
 * - `partners.company`, `partners.kyb_submitted_at`: the company details and when KYB was (last) submitted.
 * - `api_keys.last_used_at`: refreshed at most once a minute per key (docs/console.md "API keys").
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE console_users (
      id uuid PRIMARY KEY,
      partner_id uuid NOT NULL UNIQUE REFERENCES partners (id),
      email text NOT NULL UNIQUE,
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE console_sessions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES console_users (id),
      partner_id uuid NOT NULL REFERENCES partners (id),
      refresh_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL,
      refresh_expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    )`
  yield* sql`
    CREATE TABLE console_sign_in_failures (
      email text PRIMARY KEY,
      failures integer NOT NULL,
      first_failure_at timestamptz NOT NULL,
      locked_until timestamptz
    )`
  yield* sql`ALTER TABLE partners ADD COLUMN company jsonb`
  yield* sql`ALTER TABLE partners ADD COLUMN kyb_submitted_at timestamptz`
  yield* sql`ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz`
})
