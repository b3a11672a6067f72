import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface BankAccountRow {
  readonly id: string
  readonly seq: string
  readonly partnerId: string
  readonly customerId: string
  readonly country: string
  readonly currency: string
  readonly bankCode: string
  readonly bankName: string
  readonly accountNumber: string
  readonly accountName: string
  readonly isDefault: boolean
  readonly createdAt: Date
  readonly updatedAt: Date
}

export type NewBankAccountRow = Omit<BankAccountRow, "seq">

/** SQL of saved bank accounts. Callers that change rows run inside the customer's command (row locked). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    insert: (row: NewBankAccountRow) =>
      sql<BankAccountRow>`INSERT INTO bank_accounts ${sql.insert({ ...row })} RETURNING *`.pipe(Effect.map((rows) => rows[0]!)),
    find: (customerId: string, id: string) =>
      sql<BankAccountRow>`SELECT * FROM bank_accounts WHERE id = ${id} AND customer_id = ${customerId}`.pipe(
        Effect.map((rows) => rows[0])
      ),
    findByNumber: (customerId: string, bankCode: string, accountNumber: string) =>
      sql<BankAccountRow>`
        SELECT * FROM bank_accounts
        WHERE customer_id = ${customerId} AND bank_code = ${bankCode} AND account_number = ${accountNumber}`.pipe(
        Effect.map((rows) => rows[0])
      ),
    findDefault: (customerId: string) =>
      sql<BankAccountRow>`SELECT * FROM bank_accounts WHERE customer_id = ${customerId} AND is_default`.pipe(
        Effect.map((rows) => rows[0])
      ),
    /** Oldest first: the order accounts were saved in. */
    list: (customerId: string) =>
      sql<BankAccountRow>`SELECT * FROM bank_accounts WHERE customer_id = ${customerId} ORDER BY seq`,
    count: (customerId: string) =>
      sql<{ count: string }>`SELECT count(*)::text AS count FROM bank_accounts WHERE customer_id = ${customerId}`.pipe(
        Effect.map((rows) => Number(rows[0]!.count))
      ),
    /** Makes `id` the only default (clears the old one first: one default per customer is a unique index). */
    setDefault: (customerId: string, id: string, now: Date) =>
      Effect.gen(function*() {
        yield* sql`
          UPDATE bank_accounts SET is_default = false, updated_at = ${now}
          WHERE customer_id = ${customerId} AND is_default AND id <> ${id}`
        const rows = yield* sql<BankAccountRow>`
          UPDATE bank_accounts SET is_default = true,
            updated_at = CASE WHEN is_default THEN updated_at ELSE ${now} END
          WHERE customer_id = ${customerId} AND id = ${id} RETURNING *`
        return rows[0]
      })
  }
})
