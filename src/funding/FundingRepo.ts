import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface VirtualAccountRow {
  readonly customerId: string
  readonly partnerId: string
  readonly accountNumber: string
  readonly accountName: string
  readonly bankName: string
  readonly bankCode: string
  readonly currency: string
  readonly status: "active"
  readonly createdAt: Date
}

export interface ChargeRow {
  readonly id: string
  readonly seq: string
  readonly partnerId: string
  readonly customerId: string
  readonly reference: string
  readonly type: "bank_transfer" | "eft"
  readonly currency: string
  readonly amount: string
  readonly amountPaid: string | null
  readonly status: "PENDING" | "PAID" | "EXPIRED" | "CANCELLED"
  readonly accountNumber: string | null
  readonly accountName: string | null
  readonly bankName: string | null
  readonly bankCode: string | null
  readonly narration: string
  readonly redirectToken: string | null
  readonly redirectUrl: string | null
  readonly expiresAt: Date
  readonly paidAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export type NewChargeRow = Omit<ChargeRow, "seq" | "amount" | "amountPaid"> & {
  readonly amount: bigint
  readonly amountPaid: null
}

export interface ReceiptRow {
  readonly id: string
  readonly partnerId: string
  readonly customerId: string
  readonly method: "virtual_account" | "charge"
  readonly chargeId: string | null
  readonly currency: string
  readonly amount: string
  readonly reference: string
  readonly narration: string
  readonly createdAt: Date
}

export interface AddressRow {
  readonly customerId: string
  readonly network: string
  readonly address: string
  readonly createdAt: Date
}

export interface DepositRow {
  readonly id: string
  readonly seq: string
  readonly partnerId: string
  readonly customerId: string
  readonly asset: string
  readonly network: string
  readonly amount: string
  readonly txHash: string
  readonly address: string
  readonly status: "CREDITED" | "UNSUPPORTED"
  readonly createdAt: Date
}

/** SQL of the funding tables; callers own the transaction boundary. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const first = <A>(rows: ReadonlyArray<A>) => rows[0]
  return {
    virtualAccount: (customerId: string) =>
      sql<VirtualAccountRow>`SELECT * FROM virtual_accounts WHERE customer_id = ${customerId}`.pipe(Effect.map(first)),
    /** Inserts unless the customer already has one or the number is taken; true when this insert won. */
    insertVirtualAccount: (row: VirtualAccountRow) =>
      sql`INSERT INTO virtual_accounts ${sql.insert({ ...row })} ON CONFLICT DO NOTHING RETURNING customer_id`.pipe(
        Effect.map((rows) => rows.length > 0)
      ),
    /** Newest KYC Tier 1 record's status (the KYC tables belong to src/kyc; read-only here). */
    tier1Status: (customerId: string) =>
      sql<{ status: string }>`
        SELECT status FROM kyc_records WHERE customer_id = ${customerId} AND level = 1 ORDER BY seq DESC LIMIT 1`.pipe(
        Effect.map((rows) => rows[0]?.status)
      ),
    partnerName: (partnerId: string) =>
      sql<{ name: string }>`SELECT name FROM partners WHERE id = ${partnerId}`.pipe(Effect.map((rows) => rows[0]?.name ?? "")),
    /** False when the one-off account number is already taken (the caller draws another). */
    insertCharge: (row: NewChargeRow) =>
      sql`INSERT INTO funding_charges ${sql.insert({ ...row })} ON CONFLICT DO NOTHING RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0)
      ),
    charge: (id: string) => sql<ChargeRow>`SELECT * FROM funding_charges WHERE id = ${id}`.pipe(Effect.map(first)),
    chargeOfPartner: (partnerId: string, id: string) =>
      sql<ChargeRow>`SELECT * FROM funding_charges WHERE id = ${id} AND partner_id = ${partnerId}`.pipe(Effect.map(first)),
    chargeByToken: (token: string) =>
      sql<ChargeRow>`SELECT * FROM funding_charges WHERE redirect_token = ${token}`.pipe(Effect.map(first)),
    chargesPage: (customerId: string, beforeSeq: string | undefined, limit: number) =>
      sql<ChargeRow>`
        SELECT * FROM funding_charges
        WHERE customer_id = ${customerId} ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`,
    markPaid: (id: string, amountPaid: bigint, at: Date) =>
      sql<ChargeRow>`
        UPDATE funding_charges SET status = 'PAID', amount_paid = ${amountPaid}, paid_at = ${at}, updated_at = ${at}
        WHERE id = ${id} AND status = 'PENDING' RETURNING *`.pipe(Effect.map(first)),
    markClosed: (id: string, status: "EXPIRED" | "CANCELLED", at: Date) =>
      sql<ChargeRow>`
        UPDATE funding_charges SET status = ${status}, updated_at = ${at}
        WHERE id = ${id} AND status = 'PENDING' RETURNING *`.pipe(Effect.map(first)),
    insertReceipt: (row: Omit<ReceiptRow, "amount"> & { readonly amount: bigint }) =>
      sql<ReceiptRow>`INSERT INTO funding_receipts ${sql.insert({ ...row })} RETURNING *`.pipe(Effect.map((rows) => rows[0]!)),
    addresses: (customerId: string) =>
      sql<AddressRow>`SELECT * FROM deposit_addresses WHERE customer_id = ${customerId}`,
    insertAddress: (row: AddressRow) =>
      sql`INSERT INTO deposit_addresses ${sql.insert({ ...row })} ON CONFLICT DO NOTHING`,
    /** The new deposit, or undefined when this transaction hash is already recorded for the partner and network. */
    insertDeposit: (row: Omit<DepositRow, "seq">) =>
      sql<DepositRow>`
        INSERT INTO deposits ${sql.insert({ ...row })}
        ON CONFLICT (partner_id, network, tx_hash) DO NOTHING RETURNING *`.pipe(Effect.map(first)),
    depositByTx: (partnerId: string, network: string, txHash: string) =>
      sql<DepositRow>`
        SELECT * FROM deposits WHERE partner_id = ${partnerId} AND network = ${network} AND tx_hash = ${txHash}`.pipe(
        Effect.map(first)
      )
  }
})

export type FundingRepo = Effect.Effect.Success<typeof make>
