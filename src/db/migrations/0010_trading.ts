import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Trading (buy and sell USDT by quote) and the simulated exchange behind it.
 *
 * - `trade_quotes`: a quote is priced once and executes at most once: `status` goes OPEN -> EXECUTED in the same
 *   transaction as the ledger posting, under the customer's lock. An expired quote stays OPEN (expiry is a
 *   comparison with `expires_at` on the service clock, not a state change).
 * - `exchange_prices`: the simulated exchange's prices per partner and fiat currency (a partner that never set
 *   them gets the defaults); rates are exact decimals (numeric), the fee minor units of USDT.
 * - `exchange_orders`: the simulated exchange's fills, one per order id (the quote id), so that an order filled
 *   twice (a retried execute) fills once.
 * - The exchange rail joins the rail policies.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE trade_quotes (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      side text NOT NULL CHECK (side IN ('buy', 'sell')),
      fiat_currency text NOT NULL,
      fiat_amount bigint NOT NULL CHECK (fiat_amount > 0),
      usdt_amount bigint NOT NULL CHECK (usdt_amount > 0),
      fee_usdt bigint NOT NULL CHECK (fee_usdt >= 0),
      rate numeric NOT NULL CHECK (rate > 0),
      network text,
      status text NOT NULL CHECK (status IN ('OPEN', 'EXECUTED')),
      reference text,
      expires_at timestamptz NOT NULL,
      executed_at timestamptz,
      created_at timestamptz NOT NULL,
      CHECK ((status = 'EXECUTED') = (reference IS NOT NULL AND executed_at IS NOT NULL)),
      CHECK (side = 'sell' OR fee_usdt = 0)
    )`
  yield* sql`CREATE INDEX trade_quotes_customer_seq ON trade_quotes (customer_id, seq DESC)`
  yield* sql`CREATE UNIQUE INDEX trade_quotes_reference ON trade_quotes (partner_id, reference) WHERE reference IS NOT NULL`
  yield* sql`
    CREATE TABLE exchange_prices (
      partner_id uuid NOT NULL REFERENCES partners (id),
      currency text NOT NULL,
      buy_rate numeric NOT NULL CHECK (buy_rate > 0),
      sell_rate numeric NOT NULL CHECK (sell_rate > 0),
      fee_usdt bigint NOT NULL CHECK (fee_usdt >= 0),
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (partner_id, currency),
      CHECK (buy_rate >= sell_rate)
    )`
  yield* sql`
    CREATE TABLE exchange_orders (
      order_id uuid PRIMARY KEY,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      side text NOT NULL CHECK (side IN ('buy', 'sell')),
      currency text NOT NULL,
      usdt_amount bigint NOT NULL CHECK (usdt_amount > 0),
      fiat_amount bigint NOT NULL CHECK (fiat_amount > 0),
      executed_at timestamptz NOT NULL
    )`
  yield* sql`ALTER TABLE rail_policies DROP CONSTRAINT IF EXISTS rail_policies_rail_check`
  yield* sql`ALTER TABLE rail_policies ADD CONSTRAINT rail_policies_rail_check CHECK (rail IN ('bank', 'chain', 'payout', 'identity', 'exchange'))`
})
