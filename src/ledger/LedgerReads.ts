import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import type { CustomerRow } from "../customers/CustomersRepo.js"
import { CustomerForbidden, type InvalidCursor } from "../http/ApiError.js"
import type { Page } from "../http/Envelope.js"
import { Cursors, paginate, type PageRequest } from "../http/Pagination.js"
import { isUuid } from "../ids/Ids.js"
import { AssetCode, isAsset, toNumber } from "../money/Money.js"
import { Ledger } from "./Ledger.js"

export interface BalanceEntry {
  readonly currency: string
  readonly balance: number
}

export interface LedgerEntryView {
  readonly id: string
  readonly type: "CREDIT" | "DEBIT"
  readonly reason: string
  readonly amount: number
  readonly currency: string
  readonly balanceAfter: number
  readonly reference: string | null
  readonly resourceType: string
  readonly resourceId: string
  readonly transactionId: string
  readonly createdAt: Date
}

/** A customer's entry on an available account, with its transaction (balance_after is set on every such entry). */
const EntryRow = Schema.Struct({
  seq: Schema.BigInt,
  id: Schema.String,
  amount: Schema.BigInt,
  currency: AssetCode,
  balanceAfter: Schema.BigInt,
  transactionId: Schema.String,
  reason: Schema.String,
  reference: Schema.NullOr(Schema.String),
  resourceType: Schema.String,
  resourceId: Schema.String,
  createdAt: Schema.DateFromSelf
})
type EntryRow = typeof EntryRow.Type

/**
 * Reads of a customer's money; they never go through the customer actor. The balance list always starts with
 * the customer's fiat currency (0 before any money arrives), then every other currency the customer has held.
 * `balance` is the available balance: money reserved for a send or withdrawal in flight is not in it.
 */
export class LedgerReads extends Context.Tag("LedgerReads")<LedgerReads, {
  readonly balances: (customer: CustomerRow) => Effect.Effect<ReadonlyArray<BalanceEntry>>
  /**
   * The balances of the partner's customer, ownership checked in the same statement (one round trip): the one 403
   * that unknown, malformed and foreign ids all share otherwise.
   */
  readonly ownedBalances: (partnerId: string, customerId: string) => Effect.Effect<ReadonlyArray<BalanceEntry>, CustomerForbidden>
  readonly entries: (
    customer: CustomerRow,
    page: PageRequest & { readonly currency?: string | undefined }
  ) => Effect.Effect<Page<LedgerEntryView>, InvalidCursor>
}>() {}

export const layer = Layer.effect(
  LedgerReads,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ledger = yield* Ledger
    const cursors = yield* Cursors

    const balances = (customer: CustomerRow) =>
      Effect.map(ledger.balances(customer.id), (rows) => {
        const fiat = customer.currency
        const others = rows.filter((row) => row.currency !== fiat)
        const own = rows.find((row) => row.currency === fiat)
        return [
          { currency: fiat, balance: toNumber(fiat, own?.available ?? 0n) },
          ...others.map((row) => ({ currency: row.currency, balance: toNumber(row.currency, row.available) }))
        ]
      })

    const OwnedBalanceRow = Schema.Struct({
      fiat: Schema.String,
      currency: Schema.NullOr(Schema.String),
      balance: Schema.NullOr(Schema.BigInt)
    })
    const findOwnedBalances = SqlSchema.findAll({
      Request: Schema.Struct({ partnerId: Schema.String, customerId: Schema.String }),
      Result: OwnedBalanceRow,
      execute: ({ customerId, partnerId }) =>
        sql`
          SELECT c.currency AS fiat, a.currency, a.balance::text AS balance
          FROM customers c LEFT JOIN ledger_accounts a ON a.customer_id = c.id AND a.kind = 'available'
          WHERE c.id = ${customerId} AND c.partner_id = ${partnerId}
          ORDER BY a.currency`
    })
    const ownedBalances = (partnerId: string, customerId: string) =>
      Effect.gen(function*() {
        if (!isUuid(customerId) || !isUuid(partnerId)) return yield* CustomerForbidden.standard()
        const rows = yield* findOwnedBalances({ partnerId, customerId: customerId.toLowerCase() }).pipe(
          Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die })
        )
        if (rows.length === 0) return yield* CustomerForbidden.standard()
        const fiat = rows[0]!.fiat
        if (!isAsset(fiat)) return yield* Effect.dieMessage(`ledger: customer currency ${fiat} is not an asset`)
        const own = rows.find((row) => row.currency === fiat)
        const others: Array<BalanceEntry> = []
        for (const row of rows) {
          if (row.currency === null || row.currency === fiat || row.balance === null) continue
          if (!isAsset(row.currency)) return yield* Effect.dieMessage(`ledger: account currency ${row.currency} is not an asset`)
          others.push({ currency: row.currency, balance: toNumber(row.currency, row.balance) })
        }
        return [{ currency: fiat, balance: toNumber(fiat, own?.balance ?? 0n) }, ...others] as ReadonlyArray<BalanceEntry>
      })

    const toView = (row: EntryRow): LedgerEntryView => {
      const amount = row.amount
      return {
        id: row.id,
        type: amount > 0n ? "CREDIT" : "DEBIT",
        reason: row.reason,
        amount: toNumber(row.currency, amount > 0n ? amount : -amount),
        currency: row.currency,
        balanceAfter: toNumber(row.currency, row.balanceAfter),
        reference: row.reference,
        resourceType: row.resourceType,
        resourceId: row.resourceId,
        transactionId: row.transactionId,
        createdAt: row.createdAt
      }
    }

    const entryPage = SqlSchema.findAll({
      Request: Schema.Struct({
        customerId: Schema.String,
        currency: Schema.UndefinedOr(AssetCode),
        beforeSeq: Schema.UndefinedOr(Schema.String),
        limit: Schema.Int
      }),
      Result: EntryRow,
      execute: ({ beforeSeq, currency, customerId, limit }) =>
        sql`
          SELECT e.seq, e.id, e.amount, e.currency, e.balance_after, t.id AS transaction_id, t.reason, t.reference,
                 t.resource_type, t.resource_id, t.created_at
          FROM ledger_entries e
          JOIN ledger_accounts a ON a.id = e.account_id
          JOIN ledger_transactions t ON t.id = e.transaction_id
          WHERE a.customer_id = ${customerId} AND a.kind = 'available'
            ${currency === undefined ? sql`` : sql`AND a.currency = ${currency}`}
            ${beforeSeq === undefined ? sql`` : sql`AND e.seq < ${beforeSeq}`}
          ORDER BY e.seq DESC LIMIT ${limit}`
    })

    const entries = (customer: CustomerRow, page: PageRequest & { readonly currency?: string | undefined }) => {
      const currency = page.currency !== undefined && isAsset(page.currency) ? page.currency : undefined
      return paginate(
        { list: "transactions", partnerId: customer.partnerId, customerId: customer.id, filters: { currency } },
        page,
        ({ beforeSeq, limit }) => entryPage({ customerId: customer.id, currency, beforeSeq, limit }).pipe(Effect.orDie),
        (row) => String(row.seq)
      ).pipe(
        Effect.map((result) => ({ items: result.items.map(toView), nextCursor: result.nextCursor })),
        Effect.provideService(Cursors, cursors)
      )
    }

    return LedgerReads.of({ balances, ownedBalances, entries })
  })
)
