import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { assetCodes, maxBalanceMinor } from "../money/Money.js"

/**
 * Verifies every ledger invariant over the whole database. Tests call it after each case, the benchmarks and
 * fault tests at the end, and `npm run ledger:check` against the configured database.
 */
export interface LedgerReport {
  readonly transactions: number
  readonly entries: number
  readonly accounts: number
  readonly reservations: number
  readonly violations: ReadonlyArray<string>
}

/** Records up to 20 rows of one violated invariant under its label. */
type Report = (label: string, rows: ReadonlyArray<Record<string, unknown>>) => void

/** The journal's invariants: transactions balance, entries match their accounts, cached balances within bounds. */
const checkJournal = (sql: SqlClient.SqlClient, report: Report) => Effect.gen(function*() {
  report(
    "transaction does not balance",
    yield* sql`
      SELECT transaction_id, currency, sum(amount)::text AS off_by FROM ledger_entries
      GROUP BY transaction_id, currency HAVING sum(amount) <> 0`
  )
  report(
    "transaction with fewer than two entries",
    yield* sql`
      SELECT t.id FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id
      GROUP BY t.id HAVING count(e.seq) < 2`
  )
  report(
    "entry currency differs from its account",
    yield* sql`
      SELECT e.id, e.currency, a.currency AS account_currency FROM ledger_entries e
      JOIN ledger_accounts a ON a.id = e.account_id WHERE e.currency <> a.currency`
  )
  report(
    "cached balance differs from the sum of entries",
    yield* sql`
      SELECT a.id, a.kind, a.currency, a.balance::text AS cached, coalesce(sum(e.amount), 0)::text AS entries
      FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
      WHERE a.kind <> 'house'
      GROUP BY a.id HAVING a.balance <> coalesce(sum(e.amount), 0)`
  )
  report(
    "negative customer balance",
    yield* sql`SELECT id, kind, currency, balance::text FROM ledger_accounts WHERE kind <> 'house' AND balance < 0`
  )
  // Per-currency sums are numeric in SQL (sum of bigint), so no sum here can overflow; the cap keeps every cached
  // balance and entry far inside bigint.
  const maxima = assetCodes.map((asset) => `('${asset}', ${maxBalanceMinor(asset)})`).join(", ")
  report(
    "customer balance above the maximum balance",
    yield* sql.unsafe<Record<string, unknown>>(`
      SELECT a.customer_id, a.currency, sum(a.balance)::text AS total, m.maximum::text AS maximum
      FROM ledger_accounts a JOIN (VALUES ${maxima}) AS m (currency, maximum) ON m.currency = a.currency
      WHERE a.kind <> 'house'
      GROUP BY a.customer_id, a.currency, m.maximum HAVING sum(a.balance) > m.maximum`)
  )
})

/** The reservations' invariants, and every money movement's outbox event and customer. */
const checkReservations = (sql: SqlClient.SqlClient, report: Report) => Effect.gen(function*() {
  report(
    "reservation ended inconsistently",
    yield* sql`
      SELECT id, status FROM ledger_reservations
      WHERE (status = 'HELD') <> (end_transaction_id IS NULL)
         OR end_transaction_id = reserve_transaction_id`
  )
  report(
    "transaction ends more than one reservation",
    yield* sql`
      SELECT end_transaction_id FROM ledger_reservations WHERE end_transaction_id IS NOT NULL
      GROUP BY end_transaction_id HAVING count(*) > 1`
  )
  report(
    "held balance differs from open reservations",
    yield* sql`
      SELECT a.customer_id, a.currency, a.balance::text AS held, coalesce(r.open, 0)::text AS open_reservations
      FROM ledger_accounts a
      LEFT JOIN (
        SELECT customer_id, currency, sum(amount) AS open FROM ledger_reservations WHERE status = 'HELD'
        GROUP BY customer_id, currency
      ) r ON r.customer_id = a.customer_id AND r.currency = a.currency
      WHERE a.kind = 'held' AND a.balance <> coalesce(r.open, 0)`
  )
  report(
    "money movement without its outbox event",
    yield* sql`
      SELECT t.id, t.reason FROM ledger_transactions t LEFT JOIN events ev ON ev.id = t.event_id
      WHERE ev.id IS NULL OR ev.customer_id IS DISTINCT FROM t.customer_id`
  )
  report(
    "reservation of a customer in someone else's journal",
    yield* sql`
      SELECT r.id FROM ledger_reservations r JOIN ledger_transactions t ON t.id = r.reserve_transaction_id
      WHERE t.customer_id <> r.customer_id`
  )
})

/** How many rows the ledger's tables hold. */
const countRows = (sql: SqlClient.SqlClient) => {
  // Violation rows above are free-form diagnostics (numbers cast to text so they print exactly); the counts decode.
  const Count = Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())
  return SqlSchema.single({
    Request: Schema.Void,
    Result: Schema.Struct({ transactions: Count, entries: Count, accounts: Count, reservations: Count }),
    execute: () =>
      sql`
        SELECT (SELECT count(*) FROM ledger_transactions)::text AS transactions,
               (SELECT count(*) FROM ledger_entries)::text AS entries,
               (SELECT count(*) FROM ledger_accounts)::text AS accounts,
               (SELECT count(*) FROM ledger_reservations)::text AS reservations`
  })(undefined)
}

export const checkLedger: Effect.Effect<LedgerReport, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const violations: Array<string> = []
  const report = (label: string, rows: ReadonlyArray<Record<string, unknown>>) => {
    for (const row of rows.slice(0, 20)) violations.push(`${label}: ${JSON.stringify(row)}`)
    if (rows.length > 20) violations.push(`${label}: ... and ${rows.length - 20} more`)
  }

  yield* checkJournal(sql, report)
  yield* checkReservations(sql, report)
  const counts = yield* countRows(sql)
  return { ...counts, violations }
}).pipe(Effect.orDie)
