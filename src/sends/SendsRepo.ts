import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { CreatedPage, createdPage, createdPageOrder, createdPageWhere, type CreatedPageQuery, carriedInsert, repository } from "../db/Rows.js"
import { StablecoinAsset } from "../reference/Networks.js"
import { SendFailureCause, SendStatus } from "./Api.js"

/** A row of `sends`: amounts in minor units of `asset` (6 decimals). */
export const SendRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  reference: Schema.String,
  asset: StablecoinAsset,
  network: Schema.String,
  amount: Schema.BigInt,
  fee: Schema.BigInt,
  netAmount: Schema.BigInt,
  toAddress: Schema.String,
  txHash: Schema.NullOr(Schema.String),
  status: SendStatus,
  failureCause: Schema.NullOr(SendFailureCause),
  failureReason: Schema.NullOr(Schema.String),
  reservationId: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export interface SendRow extends Schema.Schema.Type<typeof SendRow> {}

export const NewSendRow = SendRow.omit("seq")
export type NewSendRow = typeof NewSendRow.Type

/** `sends` is read and written here only. A row that does not decode is a broken invariant (defect). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.single({
    Request: NewSendRow,
    Result: SendRow,
    execute: (row) => sql`INSERT INTO sends ${sql.insert({ ...row })} RETURNING *`
  })
  /** `insert` carried by the reservation's journal statement (src/ledger/Ledger.ts `Carried`); nothing returned. */
  const insertCarried = carriedInsert(sql, "sends", NewSendRow)
  const byId = SqlSchema.findOne({
    Request: Schema.Struct({ customerId: Schema.String, id: Schema.String }),
    Result: SendRow,
    execute: ({ customerId, id }) => sql`SELECT * FROM sends WHERE id = ${id} AND customer_id = ${customerId}`
  })
  const byReference = SqlSchema.findOne({
    Request: Schema.Struct({ customerId: Schema.String, reference: Schema.String }),
    Result: SendRow,
    execute: ({ customerId, reference }) =>
      sql`SELECT * FROM sends WHERE customer_id = ${customerId} AND reference = ${reference}`
  })
  const forPartner = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, id: Schema.String }),
    Result: SendRow,
    execute: ({ id, partnerId }) => sql`SELECT * FROM sends WHERE id = ${id} AND partner_id = ${partnerId}`
  })
  const lock = SqlSchema.findOne({
    Request: Schema.String,
    Result: SendRow,
    execute: (id) => sql`SELECT * FROM sends WHERE id = ${id} FOR UPDATE`
  })
  const settle = SqlSchema.single({
    Request: Schema.Struct({
      id: Schema.String,
      status: SendStatus,
      txHash: Schema.NullOr(Schema.String),
      failureCause: Schema.NullOr(SendFailureCause),
      failureReason: Schema.NullOr(Schema.String),
      at: Schema.DateFromSelf
    }),
    Result: SendRow,
    execute: ({ at, failureCause, failureReason, id, status, txHash }) =>
      sql`
        UPDATE sends SET status = ${status}, tx_hash = ${txHash}, failure_cause = ${failureCause},
          failure_reason = ${failureReason}, updated_at = ${at}
        WHERE id = ${id} AND status = 'PENDING' RETURNING *`
  })
  const page = SqlSchema.findAll({
    Request: Schema.Struct({ customerId: Schema.String, beforeSeq: Schema.UndefinedOr(Schema.String), limit: Schema.Number }),
    Result: SendRow,
    execute: ({ beforeSeq, customerId, limit }) =>
      sql`
        SELECT * FROM sends
        WHERE customer_id = ${customerId} ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`
  })
  const pending = SqlSchema.findAll({
    Request: CreatedPage,
    Result: SendRow,
    execute: (page) =>
      sql`
        SELECT * FROM sends WHERE partner_id = ${page.partnerId} AND status = 'PENDING' ${createdPageWhere(sql, page)}
        ${createdPageOrder(sql, page)}`
  })
  return repository({
    insert: (row: NewSendRow) => insert(row),
    insertCarried,
    byId: (customerId: string, id: string) => byId({ customerId, id }),
    byReference: (customerId: string, reference: string) => byReference({ customerId, reference }),
    forPartner: (partnerId: string, id: string) => forPartner({ partnerId, id }),
    /** Locks the row for the rest of the transaction (the customer row is locked first, always). */
    lock: (id: string) => lock(id),
    /** PENDING -> CONFIRMED | FAILED; a send that is not PENDING any more is a defect (checked under the lock). */
    settle: (input: {
      readonly id: string
      readonly status: SendStatus
      readonly txHash: string | null
      readonly failureCause: SendFailureCause | null
      readonly failureReason: string | null
      readonly at: Date
    }) => settle(input),
    page: (customerId: string, beforeSeq: string | undefined, limit: number) => page({ customerId, beforeSeq, limit }),
    /** The partner's sends the chain has not answered yet, newest first by (created_at, id). */
    pending: (query: CreatedPageQuery) => pending(createdPage(query))
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class SendsRepo extends Effect.Service<SendsRepo>()("SendsRepo", { effect: make }) {}
