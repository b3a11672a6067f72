import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * When the attempt that holds a delivery's lease started, on the partner's clock (set with the lease). A lease that
 * ends without an outcome written (the process died, or could not write it) is counted as an attempt when the row
 * is claimed again, with this as its `last_attempt_at` (src/webhooks/WebhooksRepo.ts `claimDue`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_deliveries ADD COLUMN attempt_started_at timestamptz`
})
