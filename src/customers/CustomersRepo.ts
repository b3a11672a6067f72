import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface CustomerRow {
  readonly id: string
  readonly seq: string
  readonly partnerId: string
  readonly firstName: string
  readonly lastName: string
  readonly middleName: string | null
  readonly email: string
  readonly phoneNumber: string
  readonly country: string
  readonly currency: string
  readonly verifiedAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export type NewCustomerRow = Omit<CustomerRow, "seq">

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    insert: (row: NewCustomerRow) =>
      sql<CustomerRow>`INSERT INTO customers ${sql.insert({ ...row })} RETURNING *`.pipe(Effect.map((rows) => rows[0]!)),
    findOwned: (partnerId: string, id: string) =>
      sql<CustomerRow>`SELECT * FROM customers WHERE id = ${id} AND partner_id = ${partnerId}`.pipe(
        Effect.map((rows) => rows[0])
      ),
    /** Locks the customer row for the rest of the transaction: the per-customer serialisation point. */
    lockOwned: (partnerId: string, id: string) =>
      sql<CustomerRow>`SELECT * FROM customers WHERE id = ${id} AND partner_id = ${partnerId} FOR UPDATE`.pipe(
        Effect.map((rows) => rows[0])
      ),
    emailTaken: (partnerId: string, email: string) =>
      sql<{ id: string }>`SELECT id FROM customers WHERE partner_id = ${partnerId} AND lower(email) = lower(${email})`
        .pipe(Effect.map((rows) => rows.length > 0)),
    page: (partnerId: string, beforeSeq: string | undefined, limit: number) =>
      sql<CustomerRow>`
        SELECT * FROM customers
        WHERE partner_id = ${partnerId} ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`
  }
})
