import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
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
}

export interface ReserveInput extends Omit<JournalInput, "postings"> {
  readonly currency: Asset
  readonly amount: bigint
}

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

export class Ledger extends Context.Tag("Ledger")<Ledger, {
  /**
   * Writes one balanced journal transaction; fails when a customer's available balance would go negative, or when
   * the customer's balance in a currency (available + held) would exceed its maximum (`maxBalanceMinor`). A
   * refusal writes nothing.
   */
  readonly post: (input: JournalInput) => Effect.Effect<{ readonly transactionId: string }, InsufficientBalance | BalanceLimitExceeded>
  /** Moves `amount` from available to held and opens a reservation (two-phase transfer, phase one). */
  readonly reserve: (input: ReserveInput) => Effect.Effect<Reservation & { readonly transactionId: string }, InsufficientBalance>
  /** Ends a reservation by moving the held amount out to house accounts; the destinations sum to the amount. */
  readonly postReservation: (
    input: EndReservationInput & { readonly destinations: ReadonlyArray<Posting> }
  ) => Effect.Effect<{ readonly transactionId: string }>
  /** Ends a reservation by returning the held amount to available. */
  readonly voidReservation: (input: EndReservationInput) => Effect.Effect<{ readonly transactionId: string }>
  readonly reservation: (id: string) => Effect.Effect<Reservation | undefined>
  readonly balances: (customerId: string) => Effect.Effect<ReadonlyArray<CustomerBalance>>
}>() {}

interface AccountRow {
  readonly id: string
  readonly balance: string
}

export const layer = Layer.effect(
  Ledger,
  Effect.gen(function*() {
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
     * The balance cap, checked before anything is written: a posting that raises the customer's total in a
     * currency (available + held) may not take it above the maximum balance. Moves between available and held
     * leave the total unchanged, so a reservation, its post or its void never hit the cap. The customer row is
     * locked by the caller (CustomerActors), so the totals read here stay true until the commit.
     */
    const checkBalanceCap = (input: JournalInput) =>
      Effect.gen(function*() {
        const raised = new Map<Asset, bigint>()
        for (const { account, amount } of input.postings) {
          if (account.kind !== "house") raised.set(account.currency, (raised.get(account.currency) ?? 0n) + amount)
        }
        for (const [currency, delta] of raised) {
          if (delta <= 0n) continue
          const maximum = maxBalanceMinor(currency)
          const rows = yield* sql<{ total: string | null }>`
            SELECT sum(balance)::text AS total FROM ledger_accounts
            WHERE customer_id = ${input.customerId} AND currency = ${currency} AND kind IN ('available', 'held')`
          const total = BigInt(rows[0]?.total ?? "0")
          if (total + delta > maximum) {
            return yield* new BalanceLimitExceeded({
              message: `Balance limit exceeded: this ${currency} ${toDecimalString(currency, delta)} would take the customer's ` +
                `${currency} balance to ${toDecimalString(currency, total + delta)}; the maximum balance is ` +
                `${currency} ${toDecimalString(currency, maximum)}. Nothing was credited`,
              details: { maximumBalance: toNumber(currency, maximum), currency }
            })
          }
        }
      })

    const post = (input: JournalInput) =>
      Effect.gen(function*() {
        assertBalanced(input)
        yield* checkBalanceCap(input)
        const transactionId = yield* ids.uuid
        yield* sql`
          INSERT INTO ledger_transactions (id, partner_id, customer_id, reason, resource_type, resource_id, reference, event_id, created_at)
          VALUES (${transactionId}, ${input.partnerId}, ${input.customerId}, ${input.reason}, ${input.resourceType},
                  ${input.resourceId}, ${input.reference ?? null}, ${input.eventId}, ${yield* clock.now})`
        const entries: Array<{
          id: string
          transactionId: string
          accountId: string
          currency: string
          amount: bigint
          balanceAfter: string | null
        }> = []
        // Debits first: a refused debit fails the command before any credit is written.
        const ordered = [...input.postings].sort((a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0))
        for (const posting of ordered) {
          const { account, amount } = posting
          if (account.kind === "house") {
            // House accounts are never updated as rows: their balance is the sum of their entries.
            entries.push({ id: yield* ids.uuid, transactionId, accountId: yield* accountId(account), currency: account.currency, amount, balanceAfter: null })
            continue
          }
          // The common case in one statement: the account exists and the balance stays non-negative.
          let updated = yield* sql<AccountRow>`
            UPDATE ledger_accounts SET balance = balance + ${amount}
            WHERE customer_id = ${account.customerId} AND kind = ${account.kind} AND currency = ${account.currency}
              AND balance + ${amount} >= 0
            RETURNING id, balance`
          if (updated.length === 0) {
            // Either the account does not exist yet (create it) or the balance would go negative.
            const id = yield* accountId(account)
            updated = yield* sql<AccountRow>`
              UPDATE ledger_accounts SET balance = balance + ${amount}
              WHERE id = ${id} AND balance + ${amount} >= 0
              RETURNING id, balance`
            if (updated.length === 0) {
              if (account.kind === "held") {
                return yield* Effect.dieMessage(`ledger: held balance would go negative in ${input.reason}`)
              }
              const current = yield* sql<AccountRow>`SELECT id, balance FROM ledger_accounts WHERE id = ${id}`
              const have = BigInt(current[0]?.balance ?? "0")
              return yield* new InsufficientBalance({
                message: `Insufficient ${account.currency} balance: available ${toDecimalString(account.currency, have)}, ` +
                  `required ${toDecimalString(account.currency, -amount)}`
              })
            }
          }
          const row = updated[0]!
          entries.push({ id: yield* ids.uuid, transactionId, accountId: row.id, currency: account.currency, amount, balanceAfter: row.balance })
        }
        yield* sql`INSERT INTO ledger_entries ${sql.insert(entries)}`
        return { transactionId }
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const reservation = (id: string) =>
      sql<Omit<Reservation, "amount"> & { amount: string; partnerId: string }>`
        SELECT r.id, r.customer_id, r.currency, r.amount, r.status, r.resource_type, r.resource_id, t.partner_id
        FROM ledger_reservations r JOIN ledger_transactions t ON t.id = r.reserve_transaction_id
        WHERE r.id = ${id}`.pipe(
        Effect.map((rows) => rows[0] === undefined ? undefined : { ...rows[0], amount: BigInt(rows[0].amount) }),
        Effect.catchTag("SqlError", Effect.die)
      )

    const reserve = (input: ReserveInput) =>
      Effect.gen(function*() {
        if (input.amount <= 0n) return yield* Effect.dieMessage("ledger: a reservation must be positive")
        const { transactionId } = yield* post({
          ...input,
          postings: [
            { account: available(input.customerId, input.currency), amount: -input.amount },
            { account: held(input.customerId, input.currency), amount: input.amount }
          ]
        }).pipe(Effect.catchTag("BalanceLimitExceeded", Effect.die)) // available -> held leaves the total as it is
        const id = yield* ids.uuid
        yield* sql`
          INSERT INTO ledger_reservations (id, customer_id, currency, amount, status, resource_type, resource_id, reserve_transaction_id, created_at)
          VALUES (${id}, ${input.customerId}, ${input.currency}, ${input.amount}, 'HELD', ${input.resourceType},
                  ${input.resourceId}, ${transactionId}, ${yield* clock.now})`.pipe(Effect.catchTag("SqlError", Effect.die))
        return {
          id,
          customerId: input.customerId,
          currency: input.currency,
          amount: input.amount,
          status: "HELD" as const,
          resourceType: input.resourceType,
          resourceId: input.resourceId,
          transactionId
        }
      })

    const end = (input: EndReservationInput, outcome: "POSTED" | "VOIDED", destinations: ReadonlyArray<Posting>) =>
      Effect.gen(function*() {
        const found = yield* reservation(input.reservationId)
        if (found === undefined) return yield* Effect.dieMessage(`ledger: no reservation ${input.reservationId}`)
        if (found.status !== "HELD") {
          return yield* Effect.dieMessage(`ledger: reservation ${found.id} already ended as ${found.status}`)
        }
        const { transactionId } = yield* post({
          partnerId: found.partnerId,
          customerId: found.customerId,
          reason: input.reason,
          resourceType: found.resourceType,
          resourceId: found.resourceId,
          reference: input.reference,
          eventId: input.eventId,
          postings: [{ account: held(found.customerId, found.currency), amount: -found.amount }, ...destinations]
        }).pipe(
          // held -> out, or held -> available: the customer's total never rises, so neither refusal can happen.
          Effect.catchTag("InsufficientBalance", Effect.die),
          Effect.catchTag("BalanceLimitExceeded", Effect.die)
        )
        yield* sql`
          UPDATE ledger_reservations SET status = ${outcome}, end_transaction_id = ${transactionId}, ended_at = ${yield* clock.now}
          WHERE id = ${found.id}`
        return { transactionId }
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const postReservation = (input: EndReservationInput & { readonly destinations: ReadonlyArray<Posting> }) =>
      end(input, "POSTED", input.destinations)

    const voidReservation = (input: EndReservationInput) =>
      Effect.flatMap(reservation(input.reservationId), (found) =>
        found === undefined
          ? Effect.dieMessage(`ledger: no reservation ${input.reservationId}`)
          : end(input, "VOIDED", [{ account: available(found.customerId, found.currency), amount: found.amount }]))

    const balances = (customerId: string) =>
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
      )

    return Ledger.of({ post, reserve, postReservation, voidReservation, reservation, balances })
  })
)
