import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { repository } from "../db/Rows.js"
import { FiatCurrency } from "../reference/Countries.js"

export const QuoteSide = Schema.Literal("buy", "sell")
export type QuoteSide = typeof QuoteSide.Type

/**
 * A row of `trade_quotes`. Amounts are minor units: `fiatAmount` is what a buy spends or a sell pays, `usdtAmount`
 * what a buy delivers or a sell takes (its fee included). `rate` is the exact decimal text the quote was priced at.
 */
export const QuoteRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  side: QuoteSide,
  fiatCurrency: FiatCurrency,
  fiatAmount: Schema.BigInt,
  usdtAmount: Schema.BigInt,
  feeUsdt: Schema.BigInt,
  rate: Schema.String,
  network: Schema.NullOr(Schema.String),
  status: Schema.Literal("OPEN", "EXECUTED"),
  reference: Schema.NullOr(Schema.String),
  expiresAt: Schema.DateFromSelf,
  executedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf
})
export interface QuoteRow extends Schema.Schema.Type<typeof QuoteRow> {}

export const NewQuoteRow = QuoteRow.omit("seq", "reference", "executedAt", "status")
export type NewQuoteRow = typeof NewQuoteRow.Type

const columns = "id, seq, partner_id, customer_id, side, fiat_currency, fiat_amount, usdt_amount, fee_usdt, rate::text AS rate, " +
  "network, status, reference, expires_at, executed_at, created_at"

/** `trade_quotes` is read and written here only. A row that does not decode is a broken invariant (defect). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.single({
    Request: NewQuoteRow,
    Result: QuoteRow,
    execute: (row) => sql`INSERT INTO trade_quotes ${sql.insert({ ...row, status: "OPEN" })} RETURNING ${sql.unsafe(columns)}`
  })
  const find = SqlSchema.findOne({
    Request: Schema.Struct({ customerId: Schema.String, id: Schema.String }),
    Result: QuoteRow,
    execute: ({ customerId, id }) =>
      sql`SELECT ${sql.unsafe(columns)} FROM trade_quotes WHERE id = ${id} AND customer_id = ${customerId}`
  })
  const executeOpen = SqlSchema.findOne({
    Request: Schema.Struct({
      customerId: Schema.String,
      id: Schema.String,
      side: QuoteSide,
      reference: Schema.String,
      at: Schema.DateFromSelf
    }),
    Result: QuoteRow,
    execute: ({ at, customerId, id, reference, side }) =>
      sql`
        UPDATE trade_quotes SET status = 'EXECUTED', reference = ${reference}, executed_at = ${at}
        WHERE id = ${id} AND customer_id = ${customerId} AND side = ${side} AND status = 'OPEN' AND expires_at > ${at}
        RETURNING ${sql.unsafe(columns)}`
  })
  return repository({
    insert: (row: NewQuoteRow) => insert(row),
    /** The customer's quote; called under the customer's lock, which serialises every execute of its quotes. */
    find: (customerId: string, id: string) => find({ customerId, id }),
    /**
     * The customer's quote of this side OPEN -> EXECUTED when it has not expired at `at`, returned as executed; none
     * when it is not executable (the caller reads it to say why).
     */
    executeOpen: (input: { customerId: string; id: string; side: QuoteSide; reference: string; at: Date }) => executeOpen(input)
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class TradingRepo extends Effect.Service<TradingRepo>()("TradingRepo", { effect: make }) {}
