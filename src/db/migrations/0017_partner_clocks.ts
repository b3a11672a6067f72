import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A sandbox clock per partner (docs/sandbox.md "A clock per partner"): a partner reads the instance's clock
 * (`service_clock`, wall time plus the instance offset) plus its own offset, which only its own
 * `POST /sandbox/clock/advance` moves. No row: offset 0.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE partner_clock_offsets (
      partner_id uuid PRIMARY KEY REFERENCES partners (id),
      offset_ms bigint NOT NULL CHECK (offset_ms >= 0)
    )`
})
