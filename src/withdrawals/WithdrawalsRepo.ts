import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { WithdrawalStatus } from "./Api.js"

export interface WithdrawalRow {
  readonly id: string
  readonly seq: string
  readonly partnerId: string
  readonly customerId: string
  readonly reference: string
  readonly currency: string
  /** bigint columns arrive as decimal text. */
  readonly amount: string
  readonly fee: string
  readonly totalDebited: string
  readonly status: WithdrawalStatus
  readonly failureReason: string | null
  readonly bankAccountId: string
  readonly bankCode: string
  readonly bankName: string
  readonly accountNumber: string
  readonly accountName: string
  readonly reservationId: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

export interface NewWithdrawalRow extends Omit<WithdrawalRow, "seq" | "amount" | "fee" | "totalDebited"> {
  readonly amount: bigint
  readonly fee: bigint
  readonly totalDebited: bigint
}

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    insert: (row: NewWithdrawalRow) =>
      sql<WithdrawalRow>`INSERT INTO withdrawals ${sql.insert({ ...row })} RETURNING *`.pipe(Effect.map((rows) => rows[0]!)),
    find: (customerId: string, id: string) =>
      sql<WithdrawalRow>`SELECT * FROM withdrawals WHERE id = ${id} AND customer_id = ${customerId}`.pipe(
        Effect.map((rows) => rows[0])
      ),
    findForPartner: (partnerId: string, id: string) =>
      sql<WithdrawalRow>`SELECT * FROM withdrawals WHERE id = ${id} AND partner_id = ${partnerId}`.pipe(
        Effect.map((rows) => rows[0])
      ),
    findForJob: (id: string) =>
      sql<WithdrawalRow>`SELECT * FROM withdrawals WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0])),
    /** Locks the row for the rest of the transaction (the customer row is locked first, always). */
    lock: (id: string) =>
      sql<WithdrawalRow>`SELECT * FROM withdrawals WHERE id = ${id} FOR UPDATE`.pipe(Effect.map((rows) => rows[0])),
    setStatus: (id: string, status: WithdrawalStatus, failureReason: string | null, now: Date) =>
      sql<WithdrawalRow>`
        UPDATE withdrawals SET status = ${status}, failure_reason = ${failureReason}, updated_at = ${now}
        WHERE id = ${id} RETURNING *`.pipe(Effect.map((rows) => rows[0]!)),
    page: (customerId: string, beforeSeq: string | undefined, limit: number) =>
      sql<WithdrawalRow>`
        SELECT * FROM withdrawals
        WHERE customer_id = ${customerId} ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`
  }
})
