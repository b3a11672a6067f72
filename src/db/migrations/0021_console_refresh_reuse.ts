import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Refresh tokens a console session has spent (docs/console.md "Tokens and sessions"): a spent token presented again
 * means two parties hold the session's tokens, so the service revokes that session (src/console/Sessions.ts). A
 * token is stored as its HMAC under a key derived from ENCRYPTION_KEY, like `console_sessions.refresh_hash`; the rows
 * go with their session.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE console_spent_refresh_tokens (
      refresh_hash bytea PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES console_sessions (id) ON DELETE CASCADE,
      spent_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX console_spent_refresh_tokens_session ON console_spent_refresh_tokens (session_id)`
})
