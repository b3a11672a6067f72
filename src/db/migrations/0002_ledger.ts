import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The double-entry ledger. Balances of customer accounts are cached on the account row (updated only while the
 * customer row is locked); house accounts are never updated as rows: their balances are derived from entries, so
 * customers never queue behind each other on a shared house row. Journal rows are immutable (triggers).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE ledger_accounts (
      id uuid PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('available', 'held', 'house')),
      customer_id uuid REFERENCES customers (id),
      code text NOT NULL,
      currency text NOT NULL,
      balance bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      CHECK ((kind = 'house') = (customer_id IS NULL)),
      CONSTRAINT available_never_negative CHECK (kind <> 'available' OR balance >= 0),
      CONSTRAINT held_never_negative CHECK (kind <> 'held' OR balance >= 0),
      CONSTRAINT house_balance_not_cached CHECK (kind <> 'house' OR balance = 0)
    )`
  yield* sql`CREATE UNIQUE INDEX ledger_accounts_customer ON ledger_accounts (customer_id, kind, currency) WHERE customer_id IS NOT NULL`
  yield* sql`CREATE UNIQUE INDEX ledger_accounts_house ON ledger_accounts (code, currency) WHERE kind = 'house'`
  yield* sql`
    CREATE TABLE ledger_transactions (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      reason text NOT NULL,
      resource_type text NOT NULL,
      resource_id text NOT NULL,
      reference text,
      event_id uuid NOT NULL REFERENCES events (id),
      created_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX ledger_transactions_resource ON ledger_transactions (resource_type, resource_id)`
  yield* sql`
    CREATE TABLE ledger_entries (
      seq bigserial PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      transaction_id uuid NOT NULL REFERENCES ledger_transactions (id),
      account_id uuid NOT NULL REFERENCES ledger_accounts (id),
      currency text NOT NULL,
      amount bigint NOT NULL CHECK (amount <> 0),
      balance_after bigint
    )`
  yield* sql`CREATE INDEX ledger_entries_account_seq ON ledger_entries (account_id, seq DESC)`
  yield* sql`CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id)`
  yield* sql`
    CREATE TABLE ledger_reservations (
      id uuid PRIMARY KEY,
      customer_id uuid NOT NULL REFERENCES customers (id),
      currency text NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      status text NOT NULL CHECK (status IN ('HELD', 'POSTED', 'VOIDED')),
      resource_type text NOT NULL,
      resource_id text NOT NULL,
      reserve_transaction_id uuid NOT NULL REFERENCES ledger_transactions (id),
      end_transaction_id uuid REFERENCES ledger_transactions (id),
      created_at timestamptz NOT NULL,
      ended_at timestamptz,
      CONSTRAINT reservation_ends_once CHECK ((status = 'HELD') = (end_transaction_id IS NULL))
    )`
  yield* sql`
    CREATE TABLE idempotency_keys (
      partner_id uuid NOT NULL REFERENCES partners (id),
      endpoint text NOT NULL,
      reference text NOT NULL,
      customer_id uuid NOT NULL REFERENCES customers (id),
      resource_id text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (partner_id, endpoint, reference)
    )`
  yield* sql.unsafe(`
    CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ledger journal rows are immutable (% on %)', TG_OP, TG_TABLE_NAME;
    END
    $$`)
  yield* sql`CREATE TRIGGER ledger_transactions_immutable BEFORE UPDATE OR DELETE ON ledger_transactions FOR EACH ROW EXECUTE FUNCTION ledger_immutable()`
  yield* sql`CREATE TRIGGER ledger_entries_immutable BEFORE UPDATE OR DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_immutable()`
  yield* sql.unsafe(`
    CREATE FUNCTION reservation_ends_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.status <> 'HELD' THEN
        RAISE EXCEPTION 'reservation % already ended as %', OLD.id, OLD.status;
      END IF;
      RETURN NEW;
    END
    $$`)
  yield* sql`CREATE TRIGGER ledger_reservations_end_once BEFORE UPDATE ON ledger_reservations FOR EACH ROW EXECUTE FUNCTION reservation_ends_once()`
})
