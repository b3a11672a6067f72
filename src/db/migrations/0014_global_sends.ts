import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Global sends (docs/contract.md "Global send"; docs/global-send.md). Amounts are minor units: `amount`, `transfer_fee`,
 * `partner_fee` and `asset_amount` of `asset` (USDT cross-border, the customer's currency on the domestic corridor);
 * `funding_amount` of `funding_currency` (what was reserved from the customer's balance). A cross-border send holds
 * its own reservation (`reservation_id`); a domestic one pays out as a withdrawal (`withdrawal_id`), which holds it.
 * `reference` is unique per partner (the idempotency key of both initiate paths, and how a send is read).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE global_sends (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      reference text NOT NULL,
      corridor text NOT NULL,
      destination_country text NOT NULL,
      destination_currency text NOT NULL,
      status text NOT NULL CHECK (status IN ('PROCESSING', 'COMPLETED', 'FAILED')),
      asset text NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      transfer_fee bigint NOT NULL CHECK (transfer_fee >= 0),
      partner_fee bigint NOT NULL CHECK (partner_fee >= 0),
      asset_amount bigint NOT NULL CHECK (asset_amount > 0),
      settled_by text NOT NULL CHECK (settled_by IN ('USDT_BALANCE', 'LOCAL_CONVERSION', 'LOCAL_BALANCE')),
      funding_currency text NOT NULL,
      funding_amount bigint NOT NULL CHECK (funding_amount > 0),
      rate text,
      purpose text NOT NULL,
      purpose_note text,
      beneficiary jsonb NOT NULL,
      failure_reason text,
      reservation_id uuid,
      withdrawal_id uuid,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (partner_id, reference),
      CHECK ((status = 'FAILED') = (failure_reason IS NOT NULL)),
      CHECK ((reservation_id IS NULL) <> (withdrawal_id IS NULL))
    )`
  // A domestic global send pays its beneficiary's account once, without saving it: a withdrawal may name no saved account.
  yield* sql`ALTER TABLE withdrawals ALTER COLUMN bank_account_id DROP NOT NULL`
  yield* sql`CREATE INDEX global_sends_customer_seq ON global_sends (customer_id, seq DESC)`
  yield* sql`CREATE INDEX global_sends_withdrawal ON global_sends (withdrawal_id) WHERE withdrawal_id IS NOT NULL`
  yield* sql`CREATE INDEX global_sends_partner_processing ON global_sends (partner_id, created_at DESC, id DESC) WHERE status = 'PROCESSING'`
})
