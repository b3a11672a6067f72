import * as Command from "../observability/Command.js"
import { SqlClient, type Statement } from "@effect/sql"
import { Effect } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Ids } from "../ids/Ids.js"
import { type Asset, maxBalanceMinor, toDecimalString, toNumber } from "../money/Money.js"
import { BalanceLimitExceeded, InsufficientBalance } from "./Errors.js"

/**
 * The double-entry ledger: the only writer of balances. Every movement is one immutable journal transaction whose
 * entries sum to zero per currency, with the reason, the resource it belongs to and the outbox event that
 * announces it. Callers run inside a customer actor (CustomerActors.ts): the customer row is locked, so the
 * customer's cached balances are stable for the whole command.
 */
export type AccountRef =
  | { readonly kind: "available"; readonly customerId: string; readonly currency: Asset }
  | { readonly kind: "held"; readonly customerId: string; readonly currency: Asset }
  | { readonly kind: "house"; readonly code: string; readonly currency: Asset }

/** A signed amount on one account: positive raises the account's balance, negative lowers it. */
export interface Posting {
  readonly account: AccountRef
  readonly amount: bigint
}

export interface JournalInput {
  readonly partnerId: string
  readonly customerId: string
  /** Why money moved: deposit, funding, buy, sell, fee, send, send_refund, withdrawal, withdrawal_refund, ... */
  readonly reason: string
  readonly resourceType: string
  readonly resourceId: string
  readonly reference?: string | null | undefined
  /** The outbox event recorded in the same transaction. */
  readonly eventId: string
  readonly postings: ReadonlyArray<Posting>
  /** Writes the journal statement carries (see `Carried`). */
  readonly carry?: Carried | undefined
}

export interface ReserveInput extends Omit<JournalInput, "postings"> {
  readonly currency: Asset
  readonly amount: bigint
  /** The reservation's id, when the caller names it (a carried write refers to it); a new one otherwise. */
  readonly id?: string | undefined
}

/**
 * Writes of the command carried by its journal statement, so that they cost no round trip of their own: each CTE is
 * `name AS (INSERT ... SELECT ... FROM tx ...)`, where `tx` is the statement's CTE that holds the journal
 * transaction's row only when the journal is written. A refused journal (or its first run on an account not yet
 * created, run again after creating it) therefore writes none of them. `columns` are select-list items
 * (`expression AS name`, names prefixed `carried_` by convention) added to the statement's result and returned to
 * the caller (`carried`, names camel-cased) as they were read from its first row. The CTE names must not clash with
 * the journal's own: `p`, `acc`, `checked`, `tx`, `updated`, `entries`, `opened`, `ended`.
 */
export interface Carried {
  readonly ctes: ReadonlyArray<Statement.Fragment>
  readonly columns: ReadonlyArray<Statement.Fragment>
}

/** Sets of carried writes in one statement (their CTE and column names must differ); none: no carried write. */
export const carryAll = (...sets: ReadonlyArray<Carried>): Carried => ({
  ctes: sets.flatMap((set) => set.ctes),
  columns: sets.flatMap((set) => set.columns)
})

/** No carried write. */
export const noCarried: Carried = carryAll()

export interface EndReservationInput {
  readonly reservationId: string
  readonly reason: string
  readonly eventId: string
  readonly reference?: string | null | undefined
}

export interface Reservation {
  readonly id: string
  readonly customerId: string
  readonly currency: Asset
  readonly amount: bigint
  readonly status: "HELD" | "POSTED" | "VOIDED"
  readonly resourceType: string
  readonly resourceId: string
}

export interface CustomerBalance {
  readonly currency: Asset
  readonly available: bigint
  readonly held: bigint
}

export const house = (code: string, currency: Asset): AccountRef => ({ kind: "house", code, currency })
export const available = (customerId: string, currency: Asset): AccountRef => ({ kind: "available", customerId, currency })
export const held = (customerId: string, currency: Asset): AccountRef => ({ kind: "held", customerId, currency })

/** Asserts the journal invariants before anything is written; a violation is a bug in the caller (defect). */
export const assertBalanced = (input: JournalInput): void => {
  if (input.postings.length < 2) throw new Error(`ledger: a transaction needs at least two postings (${input.reason})`)
  const sums = new Map<string, bigint>()
  for (const posting of input.postings) {
    if (posting.amount === 0n) throw new Error(`ledger: zero posting in ${input.reason}`)
    if (posting.account.kind !== "house" && posting.account.customerId !== input.customerId) {
      throw new Error(`ledger: posting to another customer's account in ${input.reason}`)
    }
    sums.set(posting.account.currency, (sums.get(posting.account.currency) ?? 0n) + posting.amount)
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new Error(`ledger: ${input.reason} does not balance in ${currency} (off by ${sum})`)
  }
}

/**
 * The balance cap: a posting that raises the customer's total in a currency (available + held) may not take it
 * above the maximum balance. Moves between available and held leave the total unchanged, so a reservation, its
 * post or its void never hit the cap. The raises per currency, in the postings' order; the journal statement
 * checks them (its `cap` CTE) before it writes anything. The customer row is locked by the caller
 * (CustomerActors), so the totals it reads stay true until the commit.
 */
const raisesOf = (input: JournalInput) => {
  const raised = new Map<Asset, bigint>()
  for (const { account, amount } of input.postings) {
    if (account.kind !== "house") raised.set(account.currency, (raised.get(account.currency) ?? 0n) + amount)
  }
  return [...raised].filter(([, delta]) => delta > 0n).map(([currency, delta]) => ({ currency, delta, maximum: maxBalanceMinor(currency) }))
}
type Raise = ReturnType<typeof raisesOf>[number]

const balanceLimitExceeded = (raise: Raise, total: bigint) =>
  new BalanceLimitExceeded({
    message: `Balance limit exceeded: this ${raise.currency} ${toDecimalString(raise.currency, raise.delta)} would take the customer's ` +
      `${raise.currency} balance to ${toDecimalString(raise.currency, total + raise.delta)}; the maximum balance is ` +
      `${raise.currency} ${toDecimalString(raise.currency, raise.maximum)}. Nothing was credited`,
    details: { maximumBalance: toNumber(raise.currency, raise.maximum), currency: raise.currency }
  })

/**
 * The ledger's commands: every write of balances (`post`, `reserve`, `postReservation`, `voidReservation`) and the
 * reads the commands need (`reservation`, `balances`).
 */
export class Ledger extends Effect.Service<Ledger>()("Ledger", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const ids = yield* Ids

    const accountId = (ref: AccountRef) =>
      Effect.gen(function*() {
        const customerId = ref.kind === "house" ? null : ref.customerId
        const code = ref.kind === "house" ? ref.code : ref.kind
        const find = ref.kind === "house"
          ? sql<{ id: string }>`SELECT id FROM ledger_accounts WHERE kind = 'house' AND code = ${code} AND currency = ${ref.currency}`
          : sql<{ id: string }>`SELECT id FROM ledger_accounts WHERE customer_id = ${customerId} AND kind = ${ref.kind} AND currency = ${ref.currency}`
        let rows = yield* find
        if (rows.length === 0) {
          yield* sql`
            INSERT INTO ledger_accounts (id, kind, customer_id, code, currency, balance, created_at)
            VALUES (${yield* ids.uuid}, ${ref.kind}, ${customerId}, ${code}, ${ref.currency}, 0, ${yield* clock.now})
            ON CONFLICT DO NOTHING`
          rows = yield* find
        }
        return rows[0]!.id
      })

    /**
     * The whole journal transaction in one statement (a data-modifying CTE): the accounts are looked up, every
     * customer posting is checked against its balance and every raise of a customer's total against the maximum
     * balance (`cap`: the total before, per raised currency), and only when all of them pass are the transaction row,
     * the balance updates, the entries and (optionally) the reservation opened or ended by it written. A refused
     * posting writes nothing, so no caller depends on a rollback. Returns the accounts as they were read, for the
     * refusal's message or the missing accounts to create. The customer row is locked by the caller, so the
     * balances read here are the ones updated.
     *
     * The first array goes through a sub-select, so that the planner estimates the number of postings the same with
     * and without the values: otherwise every custom plan (which counts the array) looks cheaper than the generic
     * one, and PostgreSQL plans this prepared statement again on every execution, which costs more than running it
     * (docs/performance.md "Plans of prepared statements"; test/ledger.journal-plan.test.ts).
     */
    interface Extra {
      readonly open?: { readonly id: string; readonly currency: Asset; readonly amount: bigint; readonly resourceType: string; readonly resourceId: string }
      readonly end?: { readonly id: string; readonly status: "POSTED" | "VOIDED" }
      readonly carry?: Carried | undefined
    }
    /** A carried write's CTEs after the journal's own, and its columns after the result's. */
    const carriedCtes = (carry: Carried | undefined) =>
      carry === undefined || carry.ctes.length === 0 ? sql`` : sql`, ${sql.csv(carry.ctes)}`
    const carriedColumns = (carry: Carried | undefined) =>
      carry === undefined || carry.columns.length === 0 ? sql`` : sql`, ${sql.csv(carry.columns)}`
    const writeJournal = (
      input: JournalInput,
      transactionId: string,
      entryIds: ReadonlyArray<string>,
      ordered: ReadonlyArray<Posting>,
      raises: ReadonlyArray<Raise>,
      now: Date,
      extra: Extra
    ) =>
      sql<{ ord: number; kind: string; accountId: string | null; balance: string | null; ok: boolean; capTotals: ReadonlyArray<string> | null } & Record<string, unknown>>`
        WITH p AS (
          SELECT * FROM unnest(
            (SELECT ${ordered.map((_, i) => i)}::int[]),
            ${ordered.map(({ account }) => account.kind === "house" ? null : account.customerId)}::uuid[],
            ${ordered.map(({ account }) => account.kind)}::text[],
            ${ordered.map(({ account }) => account.kind === "house" ? account.code : null)}::text[],
            ${ordered.map(({ account }) => account.currency)}::text[],
            ${ordered.map(({ amount }) => amount.toString())}::bigint[],
            ${entryIds}::uuid[]
          ) AS p (ord, customer_id, kind, code, currency, amount, entry_id)
        ), acc AS (
          SELECT p.*, a.id AS account_id, a.balance
          FROM p LEFT JOIN LATERAL (
            SELECT id, balance FROM ledger_accounts
            WHERE p.kind <> 'house' AND customer_id = p.customer_id AND kind = p.kind AND currency = p.currency
            UNION ALL
            SELECT id, balance FROM ledger_accounts
            WHERE p.kind = 'house' AND kind = 'house' AND code = p.code AND currency = p.currency
          ) a ON true
        ), cap AS (
          SELECT c.ord, c.delta, c.maximum, coalesce((
            SELECT sum(balance) FROM ledger_accounts
            WHERE customer_id = ${input.customerId} AND currency = c.currency AND kind IN ('available', 'held')
          ), 0) AS total
          FROM unnest(
            (SELECT ${raises.map((_, i) => i)}::int[]),
            ${raises.map(({ currency }) => currency)}::text[],
            ${raises.map(({ delta }) => delta.toString())}::numeric[],
            ${raises.map(({ maximum }) => maximum.toString())}::numeric[]
          ) AS c (ord, currency, delta, maximum)
        ), checked AS (
          SELECT bool_and(account_id IS NOT NULL AND (kind = 'house' OR balance + amount >= 0))
                 AND NOT EXISTS (SELECT 1 FROM cap WHERE total + delta > maximum) AS ok
          FROM acc
        ), tx AS (
          INSERT INTO ledger_transactions (id, partner_id, customer_id, reason, resource_type, resource_id, reference, event_id, created_at)
          SELECT ${transactionId}, ${input.partnerId}, ${input.customerId}, ${input.reason}, ${input.resourceType},
                 ${input.resourceId}, ${input.reference ?? null}, ${input.eventId}, ${now}
          FROM checked WHERE checked.ok
          RETURNING id
        ), updated AS (
          UPDATE ledger_accounts a SET balance = a.balance + acc.amount
          FROM acc, checked WHERE checked.ok AND acc.kind <> 'house' AND a.id = acc.account_id
          RETURNING a.id, a.balance
        ), entries AS (
          INSERT INTO ledger_entries (id, transaction_id, account_id, currency, amount, balance_after)
          SELECT acc.entry_id, tx.id, acc.account_id, acc.currency, acc.amount, updated.balance
          FROM acc CROSS JOIN tx LEFT JOIN updated ON updated.id = acc.account_id
          ORDER BY acc.ord
          RETURNING 1
        )${extra.open === undefined ? sql`` : sql`, opened AS (
          INSERT INTO ledger_reservations (id, customer_id, currency, amount, status, resource_type, resource_id, reserve_transaction_id, created_at)
          SELECT ${extra.open.id}, ${input.customerId}, ${extra.open.currency}, ${extra.open.amount.toString()}::bigint, 'HELD',
                 ${extra.open.resourceType}, ${extra.open.resourceId}, tx.id, ${now}
          FROM tx
          RETURNING 1
        )`}${extra.end === undefined ? sql`` : sql`, ended AS (
          UPDATE ledger_reservations SET status = ${extra.end.status}, end_transaction_id = tx.id, ended_at = ${now}
          FROM tx WHERE ledger_reservations.id = ${extra.end.id}
          RETURNING 1
        )`}${carriedCtes(extra.carry)}
        SELECT acc.ord, acc.kind, acc.account_id, acc.balance::text AS balance, checked.ok,
               (SELECT array_agg(total::text ORDER BY ord) FROM cap) AS cap_totals${carriedColumns(extra.carry)}
        FROM acc CROSS JOIN checked ORDER BY acc.ord`

    /** Whether two postings touch the same customer account (the one-statement path updates each account once). */
    const repeatsAnAccount = (postings: ReadonlyArray<Posting>) => {
      const seen = new Set<string>()
      for (const { account } of postings) {
        if (account.kind === "house") continue
        const key = `${account.customerId}/${account.kind}/${account.currency}`
        if (seen.has(key)) return true
        seen.add(key)
      }
      return false
    }

    const postWith = (input: JournalInput, extra: Extra) =>
      Effect.gen(function*() {
        assertBalanced(input)
        if (repeatsAnAccount(input.postings)) {
          return yield* Effect.dieMessage(`ledger: ${input.reason} posts twice to one customer account`)
        }
        const raises = raisesOf(input)
        const transactionId = yield* ids.uuid
        const now = yield* clock.now
        // Debits first, as the entries' order (seq) shows them.
        const ordered = [...input.postings].sort((a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0))
        const entryIds: Array<string> = []
        for (let i = 0; i < ordered.length; i++) entryIds.push(yield* ids.uuid)
        let rows = yield* writeJournal(input, transactionId, entryIds, ordered, raises, now, extra)
        // The cap first (a refusal that needs no account), then the accounts, then the balances.
        const capTotals = rows[0]?.capTotals ?? []
        for (let i = 0; i < raises.length; i++) {
          const total = BigInt(capTotals[i] ?? "0")
          if (total + raises[i]!.delta > raises[i]!.maximum) return yield* balanceLimitExceeded(raises[i]!, total)
        }
        if (rows[0]?.ok !== true && rows.some((row) => row.accountId === null)) {
          // First movement on an account: create the missing ones (committed with the command), then write.
          for (const row of rows) if (row.accountId === null) yield* accountId(ordered[row.ord]!.account)
          rows = yield* writeJournal(input, transactionId, entryIds, ordered, raises, now, extra)
        }
        if (rows[0]?.ok !== true) {
          for (const row of rows) {
            const { account, amount } = ordered[row.ord]!
            if (account.kind === "house" || row.balance === null || BigInt(row.balance) + amount >= 0n) continue
            if (account.kind === "held") return yield* Effect.dieMessage(`ledger: held balance would go negative in ${input.reason}`)
            return yield* new InsufficientBalance({
              message: `Insufficient ${account.currency} balance: available ${toDecimalString(account.currency, BigInt(row.balance))}, ` +
                `required ${toDecimalString(account.currency, -amount)}`
            })
          }
          return yield* Effect.dieMessage(`ledger: ${input.reason} was refused for no reason the ledger knows`)
        }
        const { accountId: _a, balance: _b, capTotals: _c, kind: _k, ok: _o, ord: _r, ...carried } = rows[0]!
        return { transactionId, carried }
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    /**
     * Writes one balanced journal transaction; fails when a customer's available balance would go negative, or when
     * the customer's balance in a currency (available + held) would exceed its maximum (`maxBalanceMinor`). A
     * refusal writes nothing.
     */
    const post = (input: JournalInput): Effect.Effect<
      { readonly transactionId: string; readonly carried: Readonly<Record<string, unknown>> },
      InsufficientBalance | BalanceLimitExceeded
    > => postWith(input, { carry: input.carry })

    /** The reservation with the partner of its transaction (internal reads: no span of their own). */
    const findReservation = (id: string) =>
      sql<Omit<Reservation, "amount"> & { amount: string; partnerId: string }>`
        SELECT r.id, r.customer_id, r.currency, r.amount, r.status, r.resource_type, r.resource_id, t.partner_id
        FROM ledger_reservations r JOIN ledger_transactions t ON t.id = r.reserve_transaction_id
        WHERE r.id = ${id}`.pipe(
        Effect.map((rows) => rows[0] === undefined ? undefined : { ...rows[0], amount: BigInt(rows[0].amount) }),
        Effect.catchTag("SqlError", Effect.die)
      )

    /** Moves `amount` from available to held and opens a reservation (two-phase transfer, phase one). */
    const reserve = Effect.fnUntraced(function* reserve(input: ReserveInput) {
      if (input.amount <= 0n) return yield* Effect.dieMessage("ledger: a reservation must be positive")
      const id = input.id ?? (yield* ids.uuid)
      const { carry: _carry, id: _id, ...journal } = input
      const { carried, transactionId } = yield* postWith({
        ...journal,
        postings: [
          { account: available(input.customerId, input.currency), amount: -input.amount },
          { account: held(input.customerId, input.currency), amount: input.amount }
        ]
      }, {
        open: { id, currency: input.currency, amount: input.amount, resourceType: input.resourceType, resourceId: input.resourceId },
        carry: input.carry
      }).pipe(Effect.catchTag("BalanceLimitExceeded", Effect.die)) // available -> held leaves the total as it is
      return {
        id,
        customerId: input.customerId,
        currency: input.currency,
        amount: input.amount,
        status: "HELD" as const,
        resourceType: input.resourceType,
        resourceId: input.resourceId,
        transactionId,
        /** The carried writes' columns (`ReserveInput.carry`), camel-cased; empty without any. */
        carried
      } satisfies Reservation & { readonly transactionId: string; readonly carried: Readonly<Record<string, unknown>> }
    })

    const end = (input: EndReservationInput, outcome: "POSTED" | "VOIDED", destinations: ReadonlyArray<Posting>) =>
      Effect.gen(function*() {
        const found = yield* findReservation(input.reservationId)
        if (found === undefined) return yield* Effect.dieMessage(`ledger: no reservation ${input.reservationId}`)
        if (found.status !== "HELD") {
          return yield* Effect.dieMessage(`ledger: reservation ${found.id} already ended as ${found.status}`)
        }
        const { transactionId } = yield* postWith({
          partnerId: found.partnerId,
          customerId: found.customerId,
          reason: input.reason,
          resourceType: found.resourceType,
          resourceId: found.resourceId,
          reference: input.reference,
          eventId: input.eventId,
          postings: [{ account: held(found.customerId, found.currency), amount: -found.amount }, ...destinations]
        }, { end: { id: found.id, status: outcome } }).pipe(
          // held -> out, or held -> available: the customer's total never rises, so neither refusal can happen.
          Effect.catchTag("InsufficientBalance", Effect.die),
          Effect.catchTag("BalanceLimitExceeded", Effect.die)
        )
        return { transactionId }
      })

    /** Ends a reservation by moving the held amount out to house accounts; the destinations sum to the amount. */
    const postReservation = (
      input: EndReservationInput & { readonly destinations: ReadonlyArray<Posting> }
    ): Effect.Effect<{ readonly transactionId: string }> => end(input, "POSTED", input.destinations)

    /** Ends a reservation by returning the held amount to available. */
    const voidReservation = (input: EndReservationInput): Effect.Effect<{ readonly transactionId: string }> =>
      Effect.flatMap(findReservation(input.reservationId), (found) =>
        found === undefined
          ? Effect.dieMessage(`ledger: no reservation ${input.reservationId}`)
          : end(input, "VOIDED", [{ account: available(found.customerId, found.currency), amount: found.amount }]))

    const reservation: (id: string) => Effect.Effect<Reservation | undefined> = findReservation

    const balances = Command.fn("Ledger.balances")((customerId: string): Effect.Effect<ReadonlyArray<CustomerBalance>> =>
      sql<{ currency: Asset; kind: "available" | "held"; balance: string }>`
        SELECT currency, kind, balance FROM ledger_accounts WHERE customer_id = ${customerId} ORDER BY currency`.pipe(
        Effect.map((rows) => {
          const byCurrency = new Map<Asset, { currency: Asset; available: bigint; held: bigint }>()
          for (const row of rows) {
            const entry = byCurrency.get(row.currency) ?? { currency: row.currency, available: 0n, held: 0n }
            byCurrency.set(row.currency, { ...entry, [row.kind]: BigInt(row.balance) })
          }
          return [...byCurrency.values()]
        }),
        Effect.catchTag("SqlError", Effect.die)
      ))

    return { post, reserve, postReservation, voidReservation, reservation, balances } as const
  })
}) {}

export const layer = Ledger.Default
