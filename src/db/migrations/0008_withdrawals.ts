import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Saved bank accounts and withdrawals. A withdrawal copies the bank account's details at submission (the payout
 * goes where the customer chose then, whatever happens to the saved account later). The full account number is
 * kept for the payout; the API only ever shows its last four digits.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE bank_accounts (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      country text NOT NULL,
      currency text NOT NULL,
      bank_code text NOT NULL,
      bank_name text NOT NULL,
      account_number text NOT NULL,
      account_name text NOT NULL,
      is_default boolean NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (customer_id, bank_code, account_number)
    )`
  yield* sql`CREATE UNIQUE INDEX bank_accounts_one_default ON bank_accounts (customer_id) WHERE is_default`
  yield* sql`
    CREATE TABLE withdrawals (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      reference text NOT NULL,
      currency text NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      fee bigint NOT NULL CHECK (fee >= 0),
      total_debited bigint NOT NULL CHECK (total_debited = amount + fee),
      status text NOT NULL CHECK (status IN ('PROCESSING', 'COMPLETED', 'FAILED', 'REVERSED')),
      failure_reason text,
      bank_account_id uuid NOT NULL REFERENCES bank_accounts (id),
      bank_code text NOT NULL,
      bank_name text NOT NULL,
      account_number text NOT NULL,
      account_name text NOT NULL,
      reservation_id uuid NOT NULL REFERENCES ledger_reservations (id),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (partner_id, reference)
    )`
  yield* sql`CREATE INDEX withdrawals_customer_seq ON withdrawals (customer_id, seq DESC)`
})
