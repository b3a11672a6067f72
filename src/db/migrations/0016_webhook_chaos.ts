import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Sandbox webhook chaos (docs/sandbox.md "Webhook chaos"): per partner, on its webhook configuration, how deliveries
 * misbehave — extra copies (`chaos_duplicates`), a random extra delay within a window (`chaos_reorder_window_seconds`,
 * which reorders deliveries), a fixed extra delay (`chaos_extra_delay_seconds`), first attempts failed on purpose
 * (`chaos_fail_first_attempts`). All 0: no chaos. `webhook_chaos_log` records every POST (and every attempt failed
 * on purpose) while chaos is on: the report's evidence.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_configs ADD COLUMN chaos_duplicates integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE webhook_configs ADD COLUMN chaos_reorder_window_seconds integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE webhook_configs ADD COLUMN chaos_extra_delay_seconds integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE webhook_configs ADD COLUMN chaos_fail_first_attempts integer NOT NULL DEFAULT 0`
  yield* sql`
    CREATE TABLE webhook_chaos_log (
      seq bigserial PRIMARY KEY,
      partner_id uuid NOT NULL REFERENCES partners (id),
      event_id uuid NOT NULL,
      type text NOT NULL,
      copy integer NOT NULL,
      attempt integer NOT NULL,
      failed_on_purpose boolean NOT NULL,
      response_status integer,
      error text,
      acknowledged boolean NOT NULL,
      at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX webhook_chaos_log_partner ON webhook_chaos_log (partner_id, seq)`
})
