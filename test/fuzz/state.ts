import type { TestApp } from "../support/TestApp.js"

/**
 * A snapshot of all state: every table's row count (counted explicitly from the information_schema list:
 * pg_stat's n_live_tup is not reliable on PGlite) plus an order-independent hash of its rows (so an UPDATE of a
 * rejected request shows too), the ledger's counts and sums per account kind and currency, and the events table.
 *
 * Tables that background workers touch on their own (`jobs` leases, `webhook_deliveries` attempts) are counted
 * but not hashed: a delivery attempt is not a request's doing.
 */
export type Snapshot = ReadonlyMap<string, string>

const volatile = new Set(["jobs", "webhook_deliveries"])
/**
 * Security bookkeeping a rejected request must write: a failed console sign-in counts toward the email's lockout
 * (docs/console.md). Left out of the snapshot.
 */
const bookkeeping = new Set(["console_sign_in_failures"])
/** Hashed without the columns an accepted request's authentication touches (`api_keys.last_used_at`, throttled). */
const hashedRows: Readonly<Record<string, string>> = {
  api_keys: "(t.id, t.partner_id, t.key_hash, t.key_prefix, t.created_at, t.revoked_at)"
}
/**
 * Append-only tables (rows are inserted, never updated): a row count catches a write, and hashing their growing
 * contents on every snapshot would make the long run quadratic. The ledger's entries are summed below as well.
 */
const appendOnly = new Set(["events", "ledger_entries", "ledger_transactions", "effect_sql_migrations", "funding_receipts", "deposits", "kyc_documents"])

export const makeSnapshotter = async (app: TestApp) => {
  const tables = (await app.query<{ tableName: string }>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`
  )).map((row) => row.tableName)
  const quote = (name: string) => `"${name.replace(/"/g, "\"\"")}"`
  const parts = tables.filter((table) => !bookkeeping.has(table)).map((table) =>
    volatile.has(table) || appendOnly.has(table)
      ? `SELECT '${table}' AS k, count(*)::text AS v FROM ${quote(table)}`
      : `SELECT '${table}' AS k, count(*)::text || ':' || coalesce(sum(hashtext(${hashedRows[table] ?? "t"}::text)::bigint), 0)::text AS v FROM ${quote(table)} t`
  )
  const ledger = [
    `SELECT 'ledger_accounts ' || kind || ' ' || currency AS k, count(*)::text || ' accounts, balance ' || sum(balance)::text AS v
     FROM ledger_accounts GROUP BY kind, currency`,
    `SELECT 'ledger_entries ' || a.kind || ' ' || e.currency AS k, count(*)::text || ' entries, sum ' || sum(e.amount)::text AS v
     FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id GROUP BY a.kind, e.currency`,
    `SELECT 'events' AS k, count(*)::text || ' events, last ' || coalesce(max(seq)::text, '-') AS v FROM events`
  ]
  const text = [...parts, ...ledger].join("\nUNION ALL\n")
  // Inside a PL/pgSQL function the statement is planned once per connection and its plan kept: planning a union of
  // forty counts and hashes was most of a snapshot's CPU on a young database (5.2 ms a snapshot, 2.0 ms from the
  // function), and a run takes a snapshot after every accepted request. The function is the run's own (the database
  // is the suite's; a schema change also keeps the pool of test databases from reusing it).
  await app.query(`CREATE OR REPLACE FUNCTION fuzz_state_snapshot() RETURNS TABLE (k text, v text) LANGUAGE plpgsql AS $snapshot$
    BEGIN RETURN QUERY ${text}; END $snapshot$`)
  // Every row a transaction inserts, updates or deletes needs a transaction id. PostgreSQL's current snapshot
  // (`xmin:xmax:ids in progress`) names the next id to hand out and the transactions still running: while it reads the
  // same as at the last full snapshot, no transaction has taken an id since, and none that was running then has
  // ended, so no row has changed and that snapshot is still the state. Reading it is one call; a full snapshot counts
  // and hashes every table (most of the suite's snapshot time, and most requests are refused and write nothing).
  // Anything that took an id (a write, a sequence's nextval, background work) takes the full snapshot again.
  const writeHorizon = async () =>
    (await app.query<{ horizon: string }>("SELECT pg_current_snapshot()::text AS horizon"))[0]!.horizon
  let last: { readonly horizon: string; readonly snapshot: Snapshot } | undefined
  return async (): Promise<Snapshot> => {
    const horizon = await writeHorizon()
    if (last !== undefined && last.horizon === horizon) return last.snapshot
    const rows = await app.query<{ k: string; v: string }>("SELECT k, v FROM fuzz_state_snapshot()")
    const snapshot: Snapshot = new Map(rows.map((row) => [row.k, row.v]))
    last = { horizon, snapshot }
    return snapshot
  }
}

export const diffSnapshots = (before: Snapshot, after: Snapshot): Array<string> => {
  const out: Array<string> = []
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(key)
    const b = after.get(key)
    if (a !== b) out.push(`${key}: ${short(a)} -> ${short(b)}`)
  }
  return out.sort()
}

/** Table hashes are long: show the row count and a few hash characters. */
const short = (value: string | undefined) => {
  if (value === undefined) return "(none)"
  const match = /^(\d+):(-?\d+)$/.exec(value)
  return match ? `${match[1]} rows #${match[2]!.slice(-6)}` : value
}
