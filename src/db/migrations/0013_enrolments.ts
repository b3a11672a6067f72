import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * International enrolments (docs/contract.md "International group status", "Registration fee rules"): one row per customer
 * per destination group, written by the first Tier 3 submission (or an international-reject) that concerns the
 * group, and changed by every later submission, re-send, reject and payout-partner decision, always inside the
 * customer's actor. docs/international.md "Enrolment".
 *
 * - `status`: the group's status (NOT_STARTED is the absence of a row).
 * - `created`: the payout partner has created the customer (any decision but a refusal); the registration fee is
 *   taken at that moment, once.
 * - `fee_status`: `NONE` (nothing charged or promised: no submission reached the partner yet), `HELD` (sent on a
 *   first submission: the customer's fee is reserved, or the partner pays it), `PAID` (taken when the partner
 *   created the customer; never refunded), `WAIVED` (the first submission was refused, or the group was re-sent:
 *   later submissions are free). `fee_amount` / `fee_currency` are what was (or is) taken: the group's USDT amount,
 *   or its local-currency equivalent at the live rate; `fee_usdt` is the group's amount in USDT minor units.
 * - `attempt`: incremented by every send to the partner; a decision job carries the attempt it answers, so an
 *   answer to a withdrawn or superseded send changes nothing.
 * - `enabled_at`: when `global_send.enabled` was emitted for the group (once per group, ever).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE international_enrolments (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      partner_id uuid NOT NULL REFERENCES partners (id),
      customer_id uuid NOT NULL REFERENCES customers (id),
      group_key text NOT NULL,
      status text NOT NULL CHECK (status IN ('PENDING', 'REVIEW', 'NEEDS_ATTENTION', 'APPROVED', 'REJECTED')),
      reason text,
      customer_type text NOT NULL CHECK (customer_type IN ('INDIVIDUAL', 'BUSINESS')),
      opted_in_countries jsonb NOT NULL,
      kyc_id uuid,
      created boolean NOT NULL,
      attempt integer NOT NULL,
      fee_status text NOT NULL CHECK (fee_status IN ('NONE', 'HELD', 'PAID', 'WAIVED')),
      fee_paid_by text CHECK (fee_paid_by IN ('CUSTOMER', 'PARTNER')),
      fee_usdt bigint NOT NULL CHECK (fee_usdt >= 0),
      fee_amount bigint CHECK (fee_amount > 0),
      fee_currency text,
      fee_reservation_id uuid,
      enabled_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (customer_id, group_key),
      CHECK ((status = 'NEEDS_ATTENTION' OR status = 'REJECTED') = (reason IS NOT NULL)),
      CHECK ((fee_status IN ('HELD', 'PAID')) = (fee_paid_by IS NOT NULL)),
      CHECK (fee_reservation_id IS NULL OR fee_paid_by = 'CUSTOMER')
    )`
  yield* sql`CREATE INDEX international_enrolments_pending ON international_enrolments (partner_id, created_at DESC, id DESC) WHERE status IN ('PENDING', 'REVIEW')`
})
