import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Pending work by partner and due time: what the job and webhook daemons read for the partners that advanced their
 * own clocks (rows due on such a partner's clock but not yet on the instance's), and the earliest of them.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX jobs_pending_partner ON jobs (partner_id, run_at) WHERE status = 'PENDING'`
  yield* sql`
    CREATE INDEX webhook_deliveries_pending_partner ON webhook_deliveries (partner_id, next_attempt_at) WHERE status = 'PENDING'`
})
