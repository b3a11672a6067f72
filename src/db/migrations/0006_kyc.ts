import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * KYC: one row per tier submission (never updated except by its own decision), uploaded documents (bytes kept
 * in the database so that they are as durable as the records that point at them), and re-verification requests.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE kyc_records (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      level integer NOT NULL CHECK (level IN (1, 2, 3)),
      status text NOT NULL CHECK (status IN ('PENDING', 'REVIEW', 'APPROVED', 'REJECTED')),
      id_type text,
      details jsonb NOT NULL,
      review_reason text,
      rejection_reason text,
      decided_by text CHECK (decided_by IN ('registry', 'rail', 'reviewer')),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((status = 'REJECTED') = (rejection_reason IS NOT NULL))
    )`
  yield* sql`CREATE INDEX kyc_records_customer ON kyc_records (customer_id, level, seq DESC)`
  yield* sql`
    CREATE TABLE kyc_documents (
      id uuid PRIMARY KEY,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      type text NOT NULL,
      content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png', 'application/pdf')),
      size_bytes integer NOT NULL CHECK (size_bytes > 0 AND size_bytes <= 5242880),
      sha256 text NOT NULL,
      content bytea NOT NULL,
      created_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX kyc_documents_customer ON kyc_documents (customer_id, created_at DESC)`
  yield* sql`
    CREATE TABLE kyc_reverifications (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      items jsonb NOT NULL,
      outstanding jsonb NOT NULL,
      message text NOT NULL,
      status text NOT NULL CHECK (status IN ('OPEN', 'COMPLETED', 'SUPERSEDED')),
      created_at timestamptz NOT NULL,
      closed_at timestamptz
    )`
  yield* sql`CREATE UNIQUE INDEX kyc_reverifications_one_open ON kyc_reverifications (customer_id) WHERE status = 'OPEN'`
})
