import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Funding: dedicated virtual accounts (one per customer), one-off funding charges, every fiat arrival (funding
 * receipts), per-network deposit addresses and stablecoin deposits. Money itself lives in the ledger; these rows
 * are the resources its transactions point at.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE virtual_accounts (
      customer_id uuid PRIMARY KEY REFERENCES customers (id),
      partner_id uuid NOT NULL REFERENCES partners (id),
      account_number text NOT NULL,
      account_name text NOT NULL,
      bank_name text NOT NULL,
      bank_code text NOT NULL,
      currency text NOT NULL,
      status text NOT NULL CHECK (status IN ('active')),
      created_at timestamptz NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX virtual_accounts_number ON virtual_accounts (bank_code, account_number)`
  yield* sql`
    CREATE TABLE funding_charges (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      reference text NOT NULL,
      type text NOT NULL CHECK (type IN ('bank_transfer', 'eft')),
      currency text NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      amount_paid bigint CHECK (amount_paid > 0),
      status text NOT NULL CHECK (status IN ('PENDING', 'PAID', 'EXPIRED', 'CANCELLED')),
      account_number text,
      account_name text,
      bank_name text,
      bank_code text,
      narration text NOT NULL,
      redirect_token text UNIQUE,
      redirect_url text,
      expires_at timestamptz NOT NULL,
      paid_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((status = 'PAID') = (amount_paid IS NOT NULL AND paid_at IS NOT NULL)),
      CHECK ((type = 'eft') = (redirect_token IS NOT NULL AND redirect_url IS NOT NULL)),
      CHECK ((type = 'bank_transfer') = (account_number IS NOT NULL))
    )`
  yield* sql`CREATE UNIQUE INDEX funding_charges_partner_reference ON funding_charges (partner_id, reference)`
  yield* sql`CREATE INDEX funding_charges_customer ON funding_charges (customer_id, seq DESC)`
  yield* sql`
    CREATE UNIQUE INDEX funding_charges_account ON funding_charges (bank_code, account_number)
    WHERE account_number IS NOT NULL`
  yield* sql`
    CREATE TABLE funding_receipts (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      method text NOT NULL CHECK (method IN ('virtual_account', 'charge')),
      charge_id uuid REFERENCES funding_charges (id),
      currency text NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      reference text NOT NULL,
      narration text NOT NULL,
      created_at timestamptz NOT NULL,
      CHECK ((method = 'charge') = (charge_id IS NOT NULL))
    )`
  yield* sql`CREATE UNIQUE INDEX funding_receipts_charge ON funding_receipts (charge_id) WHERE charge_id IS NOT NULL`
  yield* sql`CREATE INDEX funding_receipts_customer ON funding_receipts (customer_id, seq DESC)`
  yield* sql`
    CREATE TABLE deposit_addresses (
      customer_id uuid NOT NULL REFERENCES customers (id),
      network text NOT NULL,
      address text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (customer_id, network)
    )`
  yield* sql`CREATE UNIQUE INDEX deposit_addresses_address ON deposit_addresses (network, address)`
  yield* sql`
    CREATE TABLE deposits (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      asset text NOT NULL,
      network text NOT NULL,
      amount text NOT NULL,
      tx_hash text NOT NULL,
      address text NOT NULL,
      status text NOT NULL CHECK (status IN ('CREDITED', 'UNSUPPORTED')),
      created_at timestamptz NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX deposits_tx ON deposits (partner_id, network, tx_hash)`
  yield* sql`CREATE INDEX deposits_customer ON deposits (customer_id, seq DESC)`
})
