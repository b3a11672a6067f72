import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The fingerprint of the master key the database's sealed data was written with (src/crypto/KeyCheck.ts): recorded
 * by the first instance that starts, compared by every later one.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE key_fingerprint (
      id smallint PRIMARY KEY CHECK (id = 1),
      fingerprint text NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now()
    )`
})
