import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { CreatedPage, createdPage, createdPageOrder, createdPageWhere, type CreatedPageQuery, carriedInsert, repository } from "../db/Rows.js"
import { SendPurpose } from "../reference/Corridors.js"
import { GlobalSendStatus, SettledBy } from "./Api.js"

/** A row of `global_sends` (migration 0014): amounts in minor units (see the migration). */
export const GlobalSendRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  reference: Schema.String,
  corridor: Schema.String,
  destinationCountry: Schema.String,
  destinationCurrency: Schema.String,
  status: GlobalSendStatus,
  asset: Schema.String,
  amount: Schema.BigInt,
  transferFee: Schema.BigInt,
  partnerFee: Schema.BigInt,
  assetAmount: Schema.BigInt,
  settledBy: SettledBy,
  fundingCurrency: Schema.String,
  fundingAmount: Schema.BigInt,
  rate: Schema.NullOr(Schema.String),
  purpose: SendPurpose,
  purposeNote: Schema.NullOr(Schema.String),
  beneficiary: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  failureReason: Schema.NullOr(Schema.String),
  reservationId: Schema.NullOr(Schema.String),
  withdrawalId: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export interface GlobalSendRow extends Schema.Schema.Type<typeof GlobalSendRow> {}

export const NewGlobalSendRow = GlobalSendRow.omit("seq")
export type NewGlobalSendRow = typeof NewGlobalSendRow.Type

const columns = "id, seq, partner_id, customer_id, reference, corridor, destination_country, destination_currency, status, asset, " +
  "amount, transfer_fee, partner_fee, asset_amount, settled_by, funding_currency, funding_amount, rate, purpose, purpose_note, " +
  "beneficiary, failure_reason, reservation_id, withdrawal_id, created_at, updated_at"

/** `global_sends` is read and written here only. A row that does not decode is a broken invariant (defect). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = sql.unsafe(columns)
  const insert = SqlSchema.single({
    Request: NewGlobalSendRow,
    Result: GlobalSendRow,
    execute: (row) =>
      sql`
        INSERT INTO global_sends (id, partner_id, customer_id, reference, corridor, destination_country, destination_currency,
          status, asset, amount, transfer_fee, partner_fee, asset_amount, settled_by, funding_currency, funding_amount, rate,
          purpose, purpose_note, beneficiary, failure_reason, reservation_id, withdrawal_id, created_at, updated_at)
        VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${row.reference}, ${row.corridor}, ${row.destinationCountry},
          ${row.destinationCurrency}, ${row.status}, ${row.asset}, ${row.amount}, ${row.transferFee}, ${row.partnerFee},
          ${row.assetAmount}, ${row.settledBy}, ${row.fundingCurrency}, ${row.fundingAmount}, ${row.rate}, ${row.purpose},
          ${row.purposeNote}, ${JSON.stringify(row.beneficiary)}::jsonb, ${row.failureReason}, ${row.reservationId},
          ${row.withdrawalId}, ${row.createdAt}, ${row.updatedAt})
        RETURNING ${all}`
  })
  /** `insert` carried by the reservation's journal statement (src/ledger/Ledger.ts `Carried`); nothing returned. */
  const insertCarried = carriedInsert(sql, "global_sends", NewGlobalSendRow)
  const byId = SqlSchema.findOne({
    Request: Schema.Struct({ customerId: Schema.String, id: Schema.String }),
    Result: GlobalSendRow,
    execute: ({ customerId, id }) => sql`SELECT ${all} FROM global_sends WHERE id = ${id} AND customer_id = ${customerId}`
  })
  const byReference = SqlSchema.findOne({
    Request: Schema.Struct({ customerId: Schema.String, reference: Schema.String }),
    Result: GlobalSendRow,
    execute: ({ customerId, reference }) => sql`SELECT ${all} FROM global_sends WHERE customer_id = ${customerId} AND reference = ${reference}`
  })
  const forPartner = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, id: Schema.String }),
    Result: GlobalSendRow,
    execute: ({ id, partnerId }) => sql`SELECT ${all} FROM global_sends WHERE id = ${id} AND partner_id = ${partnerId}`
  })
  const byWithdrawal = SqlSchema.findOne({
    Request: Schema.String,
    Result: GlobalSendRow,
    execute: (withdrawalId) => sql`SELECT ${all} FROM global_sends WHERE withdrawal_id = ${withdrawalId} FOR UPDATE`
  })
  const lock = SqlSchema.findOne({
    Request: Schema.String,
    Result: GlobalSendRow,
    execute: (id) => sql`SELECT ${all} FROM global_sends WHERE id = ${id} FOR UPDATE`
  })
  const setStatus = SqlSchema.single({
    Request: Schema.Struct({
      id: Schema.String,
      status: GlobalSendStatus,
      failureReason: Schema.NullOr(Schema.String),
      at: Schema.DateFromSelf
    }),
    Result: GlobalSendRow,
    execute: ({ at, failureReason, id, status }) =>
      sql`UPDATE global_sends SET status = ${status}, failure_reason = ${failureReason}, updated_at = ${at} WHERE id = ${id} RETURNING ${all}`
  })
  const page = SqlSchema.findAll({
    Request: Schema.Struct({ customerId: Schema.String, beforeSeq: Schema.UndefinedOr(Schema.String), limit: Schema.Number }),
    Result: GlobalSendRow,
    execute: ({ beforeSeq, customerId, limit }) =>
      sql`
        SELECT ${all} FROM global_sends
        WHERE customer_id = ${customerId} ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`
  })
  const processing = SqlSchema.findAll({
    Request: CreatedPage,
    Result: GlobalSendRow,
    execute: (query) =>
      sql`
        SELECT ${all} FROM global_sends
        WHERE partner_id = ${query.partnerId} AND status = 'PROCESSING' AND reservation_id IS NOT NULL ${createdPageWhere(sql, query)}
        ${createdPageOrder(sql, query)}`
  })
  return repository({
    insert: (row: NewGlobalSendRow) => insert(row),
    insertCarried,
    byId: (customerId: string, id: string) => byId({ customerId, id }),
    byReference: (customerId: string, reference: string) => byReference({ customerId, reference }),
    forPartner: (partnerId: string, id: string) => forPartner({ partnerId, id }),
    /** The domestic send paying out through this withdrawal, locked. */
    byWithdrawal: (withdrawalId: string) => byWithdrawal(withdrawalId),
    /** Locks the row for the rest of the transaction (the customer row is locked first, always). */
    lock: (id: string) => lock(id),
    /**
     * A send's outcome, on a row the caller locked and checked (a cross-border send PROCESSING; a domestic one follows
     * its withdrawal, so a bank return fails a COMPLETED one too).
     */
    setStatus: (id: string, status: GlobalSendStatus, failureReason: string | null, at: Date) =>
      setStatus({ id, status, failureReason, at }),
    page: (customerId: string, beforeSeq: string | undefined, limit: number) => page({ customerId, beforeSeq, limit }),
    /** The partner's cross-border sends the payout partner has not answered, newest first by (created_at, id). */
    processing: (query: CreatedPageQuery) => processing(createdPage(query))
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class GlobalSendsRepo extends Effect.Service<GlobalSendsRepo>()("GlobalSendsRepo", { effect: make }) {}
