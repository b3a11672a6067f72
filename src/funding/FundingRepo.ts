import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { FiatCurrency } from "../reference/Countries.js"
import { FundingChargeStatus, FundingChargeType } from "./Api.js"
import { type Along, CreatedPage, createdPage, createdPageOrder, createdPageWhere, type CreatedPageQuery, repository } from "../db/Rows.js"

/** A customer's dedicated collection account (one per customer). */
export const VirtualAccountRow = Schema.Struct({
  customerId: Schema.String,
  partnerId: Schema.String,
  accountNumber: Schema.String,
  accountName: Schema.String,
  bankName: Schema.String,
  bankCode: Schema.String,
  currency: FiatCurrency,
  status: Schema.Literal("active"),
  createdAt: Schema.DateFromSelf
})
export interface VirtualAccountRow extends Schema.Schema.Type<typeof VirtualAccountRow> {}

/** A one-off funding charge; amounts in minor units (bigint columns arrive as decimal text). */
export const ChargeRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  reference: Schema.String,
  type: FundingChargeType,
  currency: FiatCurrency,
  amount: Schema.BigInt,
  amountPaid: Schema.NullOr(Schema.BigInt),
  status: FundingChargeStatus,
  accountNumber: Schema.NullOr(Schema.String),
  accountName: Schema.NullOr(Schema.String),
  bankName: Schema.NullOr(Schema.String),
  bankCode: Schema.NullOr(Schema.String),
  narration: Schema.String,
  redirectToken: Schema.NullOr(Schema.String),
  redirectUrl: Schema.NullOr(Schema.String),
  expiresAt: Schema.DateFromSelf,
  paidAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export interface ChargeRow extends Schema.Schema.Type<typeof ChargeRow> {}

export const NewChargeRow = ChargeRow.omit("seq")
export type NewChargeRow = typeof NewChargeRow.Type

/** Every fiat arrival, by virtual account or charge. */
export const ReceiptRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  method: Schema.Literal("virtual_account", "charge"),
  chargeId: Schema.NullOr(Schema.String),
  currency: FiatCurrency,
  amount: Schema.BigInt,
  reference: Schema.String,
  narration: Schema.String,
  createdAt: Schema.DateFromSelf
})
export interface ReceiptRow extends Schema.Schema.Type<typeof ReceiptRow> {}

export const NewReceiptRow = ReceiptRow.omit("seq")
export type NewReceiptRow = typeof NewReceiptRow.Type

export const AddressRow = Schema.Struct({
  customerId: Schema.String,
  network: Schema.String,
  address: Schema.String,
  createdAt: Schema.DateFromSelf
})
export interface AddressRow extends Schema.Schema.Type<typeof AddressRow> {}

/**
 * A stablecoin deposit. `asset` and `network` stay text: an UNSUPPORTED deposit records whatever token and network
 * arrived. `amount` is the exact decimal text the chain reported (a text column: never a float on the way).
 */
export const DepositRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  asset: Schema.String,
  network: Schema.String,
  amount: Schema.String,
  txHash: Schema.String,
  address: Schema.String,
  status: Schema.Literal("CREDITED", "UNSUPPORTED"),
  createdAt: Schema.DateFromSelf
})
export interface DepositRow extends Schema.Schema.Type<typeof DepositRow> {}

export const NewDepositRow = DepositRow.omit("seq")
export type NewDepositRow = typeof NewDepositRow.Type

/** `addressesAlong`'s value: the customer's deposit addresses. */
const Addresses = Schema.Array(Schema.String)

/** A row that does not decode (or a RETURNING without its row) is a broken invariant: a defect, not a typed error. */
/** SQL of the funding tables; callers own the transaction boundary. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const Inserted = Schema.Struct({})
  const virtualAccount = SqlSchema.findOne({
    Request: Schema.String,
    Result: VirtualAccountRow,
    execute: (customerId) => sql`SELECT * FROM virtual_accounts WHERE customer_id = ${customerId}`
  })
  const insertVirtualAccount = SqlSchema.findOne({
    Request: VirtualAccountRow,
    Result: Inserted,
    execute: (row) => sql`INSERT INTO virtual_accounts ${sql.insert({ ...row })} ON CONFLICT DO NOTHING RETURNING customer_id`
  })
  const insertCharge = SqlSchema.findOne({
    Request: NewChargeRow,
    Result: Inserted,
    execute: (row) => sql`INSERT INTO funding_charges ${sql.insert({ ...row })} ON CONFLICT DO NOTHING RETURNING id`
  })
  const charge = SqlSchema.findOne({
    Request: Schema.String,
    Result: ChargeRow,
    execute: (id) => sql`SELECT * FROM funding_charges WHERE id = ${id}`
  })
  const chargeOfPartner = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, id: Schema.String }),
    Result: ChargeRow,
    execute: ({ id, partnerId }) => sql`SELECT * FROM funding_charges WHERE id = ${id} AND partner_id = ${partnerId}`
  })
  const chargeByToken = SqlSchema.findOne({
    Request: Schema.String,
    Result: ChargeRow,
    execute: (token) => sql`SELECT * FROM funding_charges WHERE redirect_token = ${token}`
  })
  const chargesPage = SqlSchema.findAll({
    Request: Schema.Struct({ customerId: Schema.String, beforeSeq: Schema.UndefinedOr(Schema.String), limit: Schema.Number }),
    Result: ChargeRow,
    execute: ({ beforeSeq, customerId, limit }) =>
      sql`
        SELECT * FROM funding_charges
        WHERE customer_id = ${customerId} ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`
  })
  const pendingCharges = SqlSchema.findAll({
    Request: Schema.Struct({ ...CreatedPage.fields, now: Schema.DateFromSelf }),
    Result: ChargeRow,
    execute: (page) =>
      sql`
        SELECT * FROM funding_charges
        WHERE partner_id = ${page.partnerId} AND status = 'PENDING' AND expires_at > ${page.now} ${createdPageWhere(sql, page)}
        ${createdPageOrder(sql, page)}`
  })
  const markPaid = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, amountPaid: Schema.BigInt, at: Schema.DateFromSelf }),
    Result: ChargeRow,
    execute: ({ amountPaid, at, id }) =>
      sql`
        UPDATE funding_charges SET status = 'PAID', amount_paid = ${amountPaid}, paid_at = ${at}, updated_at = ${at}
        WHERE id = ${id} AND status = 'PENDING' RETURNING *`
  })
  const markClosed = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, status: Schema.Literal("EXPIRED", "CANCELLED"), at: Schema.DateFromSelf }),
    Result: ChargeRow,
    execute: ({ at, id, status }) =>
      sql`
        UPDATE funding_charges SET status = ${status}, updated_at = ${at}
        WHERE id = ${id} AND status = 'PENDING' RETURNING *`
  })
  const insertReceipt = SqlSchema.single({
    Request: NewReceiptRow,
    Result: ReceiptRow,
    execute: (row) => sql`INSERT INTO funding_receipts ${sql.insert({ ...row })} RETURNING *`
  })
  const addresses = SqlSchema.findAll({
    Request: Schema.String,
    Result: AddressRow,
    execute: (customerId) => sql`SELECT * FROM deposit_addresses WHERE customer_id = ${customerId}`
  })
  const insertAddress = SqlSchema.void({
    Request: AddressRow,
    execute: (row) => sql`INSERT INTO deposit_addresses ${sql.insert({ ...row })} ON CONFLICT DO NOTHING`
  })
  const insertDeposit = SqlSchema.findOne({
    Request: NewDepositRow,
    Result: DepositRow,
    execute: (row) =>
      sql`
        INSERT INTO deposits ${sql.insert({ ...row })}
        ON CONFLICT (partner_id, network, tx_hash) DO NOTHING RETURNING *`
  })
  const depositByTx = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, network: Schema.String, txHash: Schema.String }),
    Result: DepositRow,
    execute: ({ network, partnerId, txHash }) =>
      sql`SELECT * FROM deposits WHERE partner_id = ${partnerId} AND network = ${network} AND tx_hash = ${txHash}`
  })
  return repository({
    virtualAccount: (customerId: string) => virtualAccount(customerId),
    /** Inserts unless the customer already has one or the number is taken; true when this insert won. */
    insertVirtualAccount: (row: VirtualAccountRow) => Effect.map(insertVirtualAccount(row), Option.isSome),
    /** False when the one-off account number is already taken (the caller draws another). */
    insertCharge: (row: NewChargeRow) => Effect.map(insertCharge(row), Option.isSome),
    charge: (id: string) => charge(id),
    chargeOfPartner: (partnerId: string, id: string) => chargeOfPartner({ partnerId, id }),
    chargeByToken: (token: string) => chargeByToken(token),
    chargesPage: (customerId: string, beforeSeq: string | undefined, limit: number) =>
      chargesPage({ customerId, beforeSeq, limit }),
    /** The partner's charges still PENDING and not yet past `expiresAt` at `now`, newest first by (created_at, id). */
    pendingCharges: (query: CreatedPageQuery, now: Date) => pendingCharges({ ...createdPage(query), now }),
    /** The charge PAID, or None when it was no longer PENDING. */
    markPaid: (id: string, amountPaid: bigint, at: Date) => markPaid({ id, amountPaid, at }),
    /** The charge closed, or None when it was no longer PENDING. */
    markClosed: (id: string, status: "EXPIRED" | "CANCELLED", at: Date) => markClosed({ id, status, at }),
    insertReceipt: (row: NewReceiptRow) => insertReceipt(row),
    addresses: (customerId: string) => addresses(customerId),
    /** The customer's deposit addresses as a read along another statement (src/db/Rows.ts `Along`): a JSON array. */
    addressesAlong: (customerId: string): Along<ReadonlyArray<string>> => ({
      expression: sql`(SELECT coalesce(json_agg(address), '[]'::json) FROM deposit_addresses WHERE customer_id = ${customerId})`,
      schema: Addresses
    }),
    insertAddress: (row: AddressRow) => insertAddress(row),
    /** The new deposit, or None when this transaction hash is already recorded for the partner and network. */
    insertDeposit: (row: NewDepositRow) => insertDeposit(row),
    depositByTx: (partnerId: string, network: string, txHash: string) =>
      depositByTx({ partnerId, network, txHash })
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class FundingRepo extends Effect.Service<FundingRepo>()("FundingRepo", { effect: make }) {}
