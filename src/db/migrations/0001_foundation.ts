import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE partners (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      kyb_status text NOT NULL CHECK (kyb_status IN ('PENDING', 'APPROVED', 'REJECTED')),
      kyb_reason text,
      is_demo boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX partners_one_demo ON partners (is_demo) WHERE is_demo`
  yield* sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      partner_id uuid NOT NULL REFERENCES partners (id),
      key_hash bytea NOT NULL UNIQUE,
      key_prefix text NOT NULL,
      created_at timestamptz NOT NULL,
      revoked_at timestamptz
    )`
  yield* sql`
    CREATE TABLE customers (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      first_name text NOT NULL,
      last_name text NOT NULL,
      middle_name text,
      email text NOT NULL,
      phone_number text NOT NULL,
      country text NOT NULL,
      currency text NOT NULL,
      verified_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX customers_partner_email ON customers (partner_id, lower(email))`
  yield* sql`CREATE INDEX customers_partner_seq ON customers (partner_id, seq DESC)`
  yield* sql`
    CREATE TABLE events (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid REFERENCES customers (id),
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX events_partner_seq ON events (partner_id, seq DESC)`
  yield* sql`CREATE INDEX events_partner_customer_seq ON events (partner_id, customer_id, seq DESC)`
  yield* sql`
    CREATE TABLE service_clock (
      id integer PRIMARY KEY CHECK (id = 1),
      offset_ms bigint NOT NULL
    )`
  yield* sql`INSERT INTO service_clock (id, offset_ms) VALUES (1, 0)`
})
