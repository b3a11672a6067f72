import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { repository } from "../db/Rows.js"

/** A row of `international_fee_settings`: a partner that has set its Tier 3 registration-fee setting. */
export const FeeSettingRow = Schema.Struct({
  partnerId: Schema.String,
  paysForCustomers: Schema.Boolean,
  updatedAt: Schema.DateFromSelf
})
export type FeeSettingRow = typeof FeeSettingRow.Type

const columns = "partner_id, pays_for_customers, updated_at"

/** `international_fee_settings` is read and written here only. A row that does not decode is a defect. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const find = SqlSchema.findOne({
    Request: Schema.String,
    Result: FeeSettingRow,
    execute: (partnerId) => sql`SELECT ${sql.unsafe(columns)} FROM international_fee_settings WHERE partner_id = ${partnerId}`
  })
  const upsert = SqlSchema.single({
    Request: FeeSettingRow,
    Result: FeeSettingRow,
    execute: (row) =>
      sql`
        INSERT INTO international_fee_settings (partner_id, pays_for_customers, updated_at)
        VALUES (${row.partnerId}, ${row.paysForCustomers}, ${row.updatedAt})
        ON CONFLICT (partner_id) DO UPDATE
          SET pays_for_customers = EXCLUDED.pays_for_customers, updated_at = EXCLUDED.updated_at
        RETURNING ${sql.unsafe(columns)}`
  })
  return repository({
    /** The partner's setting, if it ever set one. */
    find: (partnerId: string) => find(partnerId),
    /** Sets the partner's setting (one statement: concurrent PUTs leave the last one's value). */
    upsert: (row: FeeSettingRow) => upsert(row)
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class InternationalRepo extends Effect.Service<InternationalRepo>()("InternationalRepo", { effect: make }) {}
