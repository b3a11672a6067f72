import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { FiatCurrency } from "../reference/Countries.js"
import { WithdrawalStatus } from "./Api.js"
import { CreatedPage, createdPage, createdPageOrder, createdPageWhere, type CreatedPageQuery, carriedInsert, repository } from "../db/Rows.js"

/** A row of `withdrawals`; the bank account's details are copied at submission. `seq` orders the list (keyset cursor). */
export const WithdrawalRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  reference: Schema.String,
  currency: FiatCurrency,
  /** Minor units; bigint columns arrive as decimal text. */
  amount: Schema.BigInt,
  fee: Schema.BigInt,
  totalDebited: Schema.BigInt,
  status: WithdrawalStatus,
  failureReason: Schema.NullOr(Schema.String),
  /** The saved account paid; null for a one-off account (a domestic global send's beneficiary). */
  bankAccountId: Schema.NullOr(Schema.String),
  bankCode: Schema.String,
  bankName: Schema.String,
  accountNumber: Schema.String,
  accountName: Schema.String,
  reservationId: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export interface WithdrawalRow extends Schema.Schema.Type<typeof WithdrawalRow> {}

export const NewWithdrawalRow = WithdrawalRow.omit("seq")
export type NewWithdrawalRow = typeof NewWithdrawalRow.Type

/** A row that does not decode (or a RETURNING without its row) is a broken invariant: a defect, not a typed error. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.single({
    Request: NewWithdrawalRow,
    Result: WithdrawalRow,
    execute: (row) => sql`INSERT INTO withdrawals ${sql.insert({ ...row })} RETURNING *`
  })
  /**
   * `insert` carried by the reservation's journal statement (src/ledger/Ledger.ts `Carried`): written only when the
   * journal is; nothing is returned (the caller has the row).
   */
  const insertCarried = carriedInsert(sql, "withdrawals", NewWithdrawalRow)
  const find = SqlSchema.findOne({
    Request: Schema.Struct({ customerId: Schema.String, id: Schema.String }),
    Result: WithdrawalRow,
    execute: ({ customerId, id }) => sql`SELECT * FROM withdrawals WHERE id = ${id} AND customer_id = ${customerId}`
  })
  const findForPartner = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, id: Schema.String }),
    Result: WithdrawalRow,
    execute: ({ id, partnerId }) => sql`SELECT * FROM withdrawals WHERE id = ${id} AND partner_id = ${partnerId}`
  })
  const lock = SqlSchema.findOne({
    Request: Schema.String,
    Result: WithdrawalRow,
    execute: (id) => sql`SELECT * FROM withdrawals WHERE id = ${id} FOR UPDATE`
  })
  const setStatus = SqlSchema.single({
    Request: Schema.Struct({
      id: Schema.String,
      status: WithdrawalStatus,
      failureReason: Schema.NullOr(Schema.String),
      at: Schema.DateFromSelf
    }),
    Result: WithdrawalRow,
    execute: ({ at, failureReason, id, status }) =>
      sql`
        UPDATE withdrawals SET status = ${status}, failure_reason = ${failureReason}, updated_at = ${at}
        WHERE id = ${id} RETURNING *`
  })
  const page = SqlSchema.findAll({
    Request: Schema.Struct({ customerId: Schema.String, beforeSeq: Schema.UndefinedOr(Schema.String), limit: Schema.Number }),
    Result: WithdrawalRow,
    execute: ({ beforeSeq, customerId, limit }) =>
      sql`
        SELECT * FROM withdrawals
        WHERE customer_id = ${customerId} ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`
  })
  const processing = SqlSchema.findAll({
    Request: CreatedPage,
    Result: WithdrawalRow,
    execute: (page) =>
      sql`
        SELECT * FROM withdrawals WHERE partner_id = ${page.partnerId} AND status = 'PROCESSING' ${createdPageWhere(sql, page)}
        ${createdPageOrder(sql, page)}`
  })
  return repository({
    insert: (row: NewWithdrawalRow) => insert(row),
    insertCarried,
    find: (customerId: string, id: string) => find({ customerId, id }),
    findForPartner: (partnerId: string, id: string) => findForPartner({ partnerId, id }),
    /** Locks the row for the rest of the transaction (the customer row is locked first, always). */
    lock: (id: string) => lock(id),
    setStatus: (id: string, status: WithdrawalStatus, failureReason: string | null, at: Date) =>
      setStatus({ id, status, failureReason, at }),
    page: (customerId: string, beforeSeq: string | undefined, limit: number) => page({ customerId, beforeSeq, limit }),
    /** The partner's withdrawals the bank has not answered yet (PROCESSING), newest first by (created_at, id). */
    processing: (query: CreatedPageQuery) => processing(createdPage(query))
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class WithdrawalsRepo extends Effect.Service<WithdrawalsRepo>()("WithdrawalsRepo", { effect: make }) {}
