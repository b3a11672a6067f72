import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * International verification (docs/contract.md "Partner fee setting").
 *
 * - `international_fee_settings`: one row per partner that has set whether it pays its customers' Tier 3
 *   registration fees (`PUT /partner/v1/fees/international-verification`). A partner without a row has never set
 *   it: its customers pay (`pays_for_customers` false). Read by the enrolment flow when it charges the fee.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE international_fee_settings (
      partner_id uuid PRIMARY KEY REFERENCES partners (id),
      pays_for_customers boolean NOT NULL,
      updated_at timestamptz NOT NULL
    )`
})
