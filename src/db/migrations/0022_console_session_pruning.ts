import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A user's console sessions by user (docs/console.md "Tokens and sessions"): a sign-in deletes the user's dead
 * sessions (signed out, or past their refresh token's expiry, each for longer than an access token lives), and their
 * spent refresh tokens with them (ON DELETE CASCADE), so the sessions table holds live sessions and recent dead ones.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX console_sessions_user ON console_sessions (user_id)`
  yield* sql`CREATE INDEX console_spent_refresh_tokens_spent ON console_spent_refresh_tokens (session_id, spent_at)`
  yield* sql`DROP INDEX console_spent_refresh_tokens_session`
})
