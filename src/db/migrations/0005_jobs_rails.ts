import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Sandbox infrastructure shared by every rail: durable scheduled jobs (run on the service clock by the jobs
 * daemon) and per-partner rail policies (how the simulated bank, chain, payout and identity rails behave).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE jobs (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      kind text NOT NULL,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid REFERENCES customers (id),
      run_at timestamptz NOT NULL,
      payload jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('PENDING', 'DONE', 'FAILED')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      last_error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX jobs_due ON jobs (run_at, seq) WHERE status = 'PENDING'`
  yield* sql`CREATE INDEX jobs_partner ON jobs (partner_id, seq DESC)`
  yield* sql`
    CREATE TABLE rail_policies (
      partner_id uuid NOT NULL REFERENCES partners (id),
      rail text NOT NULL CHECK (rail IN ('bank', 'chain', 'payout', 'identity')),
      mode text NOT NULL CHECK (mode IN ('auto', 'manual')),
      outcome text NOT NULL CHECK (outcome IN ('success', 'failure')),
      delay_seconds integer NOT NULL CHECK (delay_seconds >= 0),
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (partner_id, rail)
    )`
})
