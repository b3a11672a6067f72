import { Effect, Schema } from "effect"
import { AssetCode, isAsset, toNumber } from "../money/Money.js"

/**
 * The views LedgerReads answers with, the rows its statements decode and the pure mapping between them (no SQL
 * here: the statements are LedgerReads').
 */
export interface BalanceEntry {
  readonly currency: string
  readonly balance: number
}

/** One currency of a customer, available and held. */
export interface HeldBalanceEntry {
  readonly currency: string
  readonly available: number
  readonly held: number
}

/** A customer with every balance, held included (the sandbox's `GET /sandbox/balances`). */
export interface CustomerBalancesView {
  readonly customerId: string
  readonly firstName: string
  readonly lastName: string
  readonly email: string
  readonly country: string
  readonly currency: string
  readonly createdAt: Date
  readonly balances: ReadonlyArray<HeldBalanceEntry>
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

/** A journal transaction with its entries, as the sandbox's event chain shows it. */
export interface TransactionView {
  readonly id: string
  readonly eventId: string
  readonly reason: string
  readonly resourceType: string
  readonly resourceId: string
  readonly reference: string | null
  readonly createdAt: Date
  /** `account`: `available` or `held` for the customer's accounts, the house account's code otherwise; signed amounts. */
  readonly entries: ReadonlyArray<{ readonly account: string; readonly currency: string; readonly amount: number }>
}

/** A customer's entry on an available account, with its transaction (balance_after is set on every such entry). */
export const EntryRow = Schema.Struct({
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
export type EntryRow = typeof EntryRow.Type

export const toEntryView = (row: EntryRow): LedgerEntryView => {
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

/** One row per customer and currency (one row with a null currency for a customer without accounts). */
export const CustomerBalanceRow = Schema.Struct({
  seq: Schema.BigInt,
  id: Schema.String,
  firstName: Schema.String,
  lastName: Schema.String,
  email: Schema.String,
  country: Schema.String,
  fiat: Schema.String,
  createdAt: Schema.DateFromSelf,
  currency: Schema.NullOr(Schema.String),
  available: Schema.NullOr(Schema.BigInt),
  held: Schema.NullOr(Schema.BigInt)
})
export type CustomerBalanceRow = typeof CustomerBalanceRow.Type

const asset = (currency: string) =>
  isAsset(currency) ? Effect.succeed(currency) : Effect.dieMessage(`ledger: currency ${currency} is not an asset`)

/** Rows (ordered by customer, then currency) to one view per customer, in the same order. */
export const toCustomerBalances = (rows: ReadonlyArray<CustomerBalanceRow>) =>
  Effect.gen(function*() {
    const views: Array<CustomerBalancesView & { readonly seq: bigint }> = []
    let index = 0
    while (index < rows.length) {
      const first = rows[index]!
      const fiat = yield* asset(first.fiat)
      let own: HeldBalanceEntry = { currency: fiat, available: 0, held: 0 }
      const others: Array<HeldBalanceEntry> = []
      for (; index < rows.length && rows[index]!.id === first.id; index++) {
        const row = rows[index]!
        if (row.currency === null) continue
        const currency = yield* asset(row.currency)
        const entry = { currency, available: toNumber(currency, row.available ?? 0n), held: toNumber(currency, row.held ?? 0n) }
        if (currency === fiat) own = entry
        else others.push(entry)
      }
      views.push({
        seq: first.seq,
        customerId: first.id,
        firstName: first.firstName,
        lastName: first.lastName,
        email: first.email,
        country: first.country,
        currency: fiat,
        createdAt: first.createdAt,
        balances: [own, ...others]
      })
    }
    return views
  })

/** One row per entry of a resource's transactions, oldest transaction first. */
export const TransactionEntryRow = Schema.Struct({
  transactionId: Schema.String,
  eventId: Schema.String,
  reason: Schema.String,
  resourceType: Schema.String,
  resourceId: Schema.String,
  reference: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  kind: Schema.Literal("available", "held", "house"),
  code: Schema.String,
  currency: AssetCode,
  amount: Schema.BigInt
})
export type TransactionEntryRow = typeof TransactionEntryRow.Type

/** Signed amounts rendered like every other amount (`toNumber`); the customer's accounts by kind. */
export const toTransactionViews = (rows: ReadonlyArray<TransactionEntryRow>): Array<TransactionView> => {
  const byId = new Map<string, { view: TransactionView; entries: Array<TransactionView["entries"][number]> }>()
  for (const row of rows) {
    let found = byId.get(row.transactionId)
    if (found === undefined) {
      const entries: Array<TransactionView["entries"][number]> = []
      found = {
        entries,
        view: {
          id: row.transactionId,
          eventId: row.eventId,
          reason: row.reason,
          resourceType: row.resourceType,
          resourceId: row.resourceId,
          reference: row.reference,
          createdAt: row.createdAt,
          entries
        }
      }
      byId.set(row.transactionId, found)
    }
    found.entries.push({
      account: row.kind === "house" ? row.code : row.kind,
      currency: row.currency,
      amount: toNumber(row.currency, row.amount)
    })
  }
  return [...byId.values()].map((found) => found.view)
}
