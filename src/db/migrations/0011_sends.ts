import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Crypto sends. The amount is reserved (available -> held) when the send is accepted; the chain's outcome ends the
 * reservation once: confirmed posts it (net to the network's chain omnibus, fee to revenue), failed voids it.
 * `reference` is unique per partner (the idempotency key of `POST .../send`, and how a send is read and
 * controlled); `tx_hash` is null until the chain knows one (a send rejected before broadcast never has one).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE sends (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      reference text NOT NULL,
      asset text NOT NULL CHECK (asset IN ('USDT', 'USDC')),
      network text NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      fee bigint NOT NULL CHECK (fee >= 0),
      net_amount bigint NOT NULL CHECK (net_amount > 0 AND net_amount = amount - fee),
      to_address text NOT NULL,
      tx_hash text,
      status text NOT NULL CHECK (status IN ('PENDING', 'CONFIRMED', 'FAILED')),
      failure_cause text CHECK (failure_cause IN ('rejected', 'reverted', 'dropped', 'undeliverable')),
      failure_reason text,
      reservation_id uuid NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (partner_id, reference),
      CHECK ((status = 'FAILED') = (failure_cause IS NOT NULL)),
      CHECK (status <> 'CONFIRMED' OR tx_hash IS NOT NULL)
    )`
  yield* sql`CREATE INDEX sends_customer_seq ON sends (customer_id, seq DESC)`
  yield* sql`CREATE INDEX sends_partner_pending ON sends (partner_id, created_at DESC, id DESC) WHERE status = 'PENDING'`
})
