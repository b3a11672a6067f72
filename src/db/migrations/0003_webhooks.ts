import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhook configuration (one per partner, secret encrypted at rest) and the durable delivery log: one row per
 * event of a partner that had a URL when the event was recorded. A delivery is claimed by a dispatcher with
 * `FOR UPDATE SKIP LOCKED` and leased (`lease_until`, real database time) while its attempt is in flight, so
 * that several processes share the work and no attempt is sent twice.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE webhook_configs (
      partner_id uuid PRIMARY KEY REFERENCES partners (id),
      url text NOT NULL,
      secret_ciphertext bytea NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE webhook_deliveries (
      event_id uuid PRIMARY KEY REFERENCES events (id),
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      type text NOT NULL,
      status text NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'DEAD')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      schedule_base integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      last_response_status integer,
      last_error text,
      created_at timestamptz NOT NULL,
      delivered_at timestamptz,
      lease_until timestamptz,
      lease_token uuid,
      CHECK ((status = 'PENDING') = (next_attempt_at IS NOT NULL))
    )`
  yield* sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING'`
  yield* sql`CREATE INDEX webhook_deliveries_partner_seq ON webhook_deliveries (partner_id, seq DESC)`
  yield* sql`CREATE INDEX webhook_deliveries_partner_status_seq ON webhook_deliveries (partner_id, status, seq DESC)`
})
