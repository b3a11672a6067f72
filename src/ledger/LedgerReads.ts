import * as Command from "../observability/Command.js"
import { SqlClient, SqlSchema } from "@effect/sql"
import type { CustomerId, PartnerId } from "../api/Ids.js"
import { Effect, Schema } from "effect"
import type { Customer } from "../customers/Customer.js"
import { CustomerForbidden, type InvalidCursor } from "../api/ApiError.js"
import type { Page } from "../api/Envelope.js"
import { Cursors, paginate, type PageRequest } from "../api/Pagination.js"
import { isUuid } from "../ids/Ids.js"
import { AssetCode, isAsset, toNumber } from "../money/Money.js"
import { Ledger } from "./Ledger.js"
import {
  type BalanceEntry,
  type CustomerBalancesView,
  CustomerBalanceRow,
  EntryRow,
  type LedgerEntryView,
  toCustomerBalances,
  toEntryView,
  toTransactionViews,
  TransactionEntryRow,
  type TransactionView
} from "./LedgerViews.js"

export type { BalanceEntry, CustomerBalancesView, HeldBalanceEntry, LedgerEntryView, TransactionView } from "./LedgerViews.js"

/** The customer's balances: one customer's, and the partner's customers' page by page. */
const makeBalances = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const cursors = yield* Cursors

    /** The customer's available balances: the fiat currency first (0 before any money), then every other one. */
    const balances = Command.fn("LedgerReads.balances")((customer: Customer): Effect.Effect<ReadonlyArray<BalanceEntry>> =>
      Effect.map(ledger.balances(customer.id), (rows) => {
        const fiat = customer.currency
        const others = rows.filter((row) => row.currency !== fiat)
        const own = rows.find((row) => row.currency === fiat)
        return [
          { currency: fiat, balance: toNumber(fiat, own?.available ?? 0n) },
          ...others.map((row) => ({ currency: row.currency, balance: toNumber(row.currency, row.available) }))
        ]
      }))

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

    /**
     * The balances of the partner's customer, ownership checked in the same statement (one round trip): the one 403
     * that unknown, malformed and foreign ids all share otherwise.
     */
    const ownedBalances = Command.fn("LedgerReads.ownedBalances")(function*(partnerId: PartnerId, customerId: CustomerId) {
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

    const customerBalancePage = SqlSchema.findAll({
      Request: Schema.Struct({
        partnerId: Schema.String,
        customerId: Schema.UndefinedOr(Schema.String),
        beforeSeq: Schema.UndefinedOr(Schema.String),
        limit: Schema.Int
      }),
      Result: CustomerBalanceRow,
      // The page of customers first (the customer list's keyset), then their accounts summed per currency.
      execute: ({ beforeSeq, customerId, limit, partnerId }) =>
        sql`
          WITH page AS (
            SELECT seq, id, first_name, last_name, email, country, currency, created_at
            FROM customers
            WHERE partner_id = ${partnerId}
              ${customerId === undefined ? sql`` : sql`AND id = ${customerId}`}
              ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
            ORDER BY seq DESC LIMIT ${limit}
          )
          SELECT p.seq, p.id, p.first_name, p.last_name, p.email, p.country, p.currency AS fiat, p.created_at,
                 b.currency, b.available::text AS available, b.held::text AS held
          FROM page p LEFT JOIN LATERAL (
            SELECT a.currency,
                   coalesce(sum(a.balance) FILTER (WHERE a.kind = 'available'), 0) AS available,
                   coalesce(sum(a.balance) FILTER (WHERE a.kind = 'held'), 0) AS held
            FROM ledger_accounts a
            WHERE a.customer_id = p.id AND a.kind IN ('available', 'held')
            GROUP BY a.currency
          ) b ON true
          ORDER BY p.seq DESC, b.currency`
    })

    /**
     * The partner's customers, newest first (keyset on customers.seq, as the customer list), each with available and
     * held per currency: the fiat currency first (zeros before any money), then every other currency with an
     * account. One statement per page. A `customerId` (a uuid) narrows the list to that customer, if it is the
     * partner's.
     */
    const customerBalances = Command.fn("LedgerReads.customerBalances")((
      partnerId: string,
      page: PageRequest & { readonly customerId?: string | undefined }
    ): Effect.Effect<Page<CustomerBalancesView>, InvalidCursor> => {
      const customerId = page.customerId?.toLowerCase()
      // The route decodes a uuid; any other text names no customer (and would not cast to uuid in SQL).
      if (customerId !== undefined && !isUuid(customerId)) return Effect.succeed({ items: [], nextCursor: null })
      return paginate(
        cursors,
        { list: "sandbox.balances", partnerId, filters: { customerId } },
        page,
        ({ beforeSeq, limit }) =>
          customerBalancePage({ partnerId, customerId, beforeSeq, limit }).pipe(Effect.orDie, Effect.flatMap(toCustomerBalances)),
        (view) => String(view.seq)
      ).pipe(
        Effect.map((result) => ({ items: result.items.map(({ seq: _, ...view }) => view), nextCursor: result.nextCursor }))
      )
    })

    return { balances, ownedBalances, customerBalances } as const
  })

/** The customer's journal: its entries, and the transactions behind an event or of a resource. */
const makeHistory = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const cursors = yield* Cursors

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

    /** The customer's entries on available accounts, newest first, optionally of one currency. */
    const entries = Command.fn("LedgerReads.entries")((
      customer: Customer,
      page: PageRequest & { readonly currency?: string | undefined }
    ): Effect.Effect<Page<LedgerEntryView>, InvalidCursor> => {
      const currency = page.currency !== undefined && isAsset(page.currency) ? page.currency : undefined
      return paginate(
        cursors,
        { list: "transactions", partnerId: customer.partnerId, customerId: customer.id, filters: { currency } },
        page,
        ({ beforeSeq, limit }) => entryPage({ customerId: customer.id, currency, beforeSeq, limit }).pipe(Effect.orDie),
        (row) => String(row.seq)
      ).pipe(
        Effect.map((result) => ({ items: result.items.map(toEntryView), nextCursor: result.nextCursor }))
      )
    })
    const findResourceOfEvent = SqlSchema.findAll({
      Request: Schema.Struct({ customerId: Schema.String, eventId: Schema.String }),
      Result: Schema.Struct({ resourceType: Schema.String, resourceId: Schema.String }),
      execute: ({ customerId, eventId }) =>
        sql`
          SELECT t.resource_type, t.resource_id
          FROM ledger_accounts a
          JOIN ledger_entries e ON e.account_id = a.id
          JOIN ledger_transactions t ON t.id = e.transaction_id
          WHERE a.customer_id = ${customerId} AND t.event_id = ${eventId}
          ORDER BY t.seq LIMIT 1`
    })

    /**
     * The resource of the customer's transaction recorded with event `eventId`, if any. Looked up through the
     * customer's accounts (journal rows have no index by event: this read is the sandbox's, not the hot path's).
     */
    const resourceOfEvent = Command.fn("LedgerReads.resourceOfEvent")((
      customerId: string,
      eventId: string
    ): Effect.Effect<{ readonly type: string; readonly id: string } | undefined> =>
      findResourceOfEvent({ customerId, eventId }).pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : { type: rows[0].resourceType, id: rows[0].resourceId })),
        Effect.orDie
      ))

    const findResourceTransactions = SqlSchema.findAll({
      Request: Schema.Struct({ partnerId: Schema.String, resourceType: Schema.String, resourceId: Schema.String }),
      Result: TransactionEntryRow,
      execute: ({ partnerId, resourceId, resourceType }) =>
        sql`
          SELECT t.id AS transaction_id, t.event_id, t.reason, t.resource_type, t.resource_id, t.reference, t.created_at,
                 a.kind, a.code, e.currency, e.amount
          FROM ledger_transactions t
          JOIN ledger_entries e ON e.transaction_id = t.id
          JOIN ledger_accounts a ON a.id = e.account_id
          WHERE t.resource_type = ${resourceType} AND t.resource_id = ${resourceId} AND t.partner_id = ${partnerId}
          ORDER BY t.seq, e.seq`
    })

    /** Every transaction of the partner's resource, oldest first, with its entries (the sandbox's event chain). */
    const resourceTransactions = Command.fn("LedgerReads.resourceTransactions")((
      partnerId: string,
      resourceType: string,
      resourceId: string
    ): Effect.Effect<ReadonlyArray<TransactionView>> =>
      findResourceTransactions({ partnerId, resourceType, resourceId }).pipe(Effect.map(toTransactionViews), Effect.orDie))

    return { entries, resourceOfEvent, resourceTransactions } as const
  })

/**
 * Reads of a customer's money; they never go through the customer actor. The balance list always starts with
 * the customer's fiat currency (0 before any money arrives), then every other currency the customer has held.
 * `balance` is the available balance: money reserved for a send or withdrawal in flight is not in it.
 */
export class LedgerReads extends Effect.Service<LedgerReads>()("LedgerReads", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { balances, customerBalances, ownedBalances } = yield* makeBalances(sql)
    const { entries, resourceOfEvent, resourceTransactions } = yield* makeHistory(sql)

    return { balances, ownedBalances, entries, customerBalances, resourceOfEvent, resourceTransactions } as const
  }),
  dependencies: [Ledger.Default]
}) {}

export const layer = LedgerReads.Default
