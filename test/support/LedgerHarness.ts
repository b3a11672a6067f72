import type { CustomerId, PartnerId } from "../../src/api/Ids.js"
import { Effect, Exit } from "effect"
import { Outbox } from "../../src/events/Events.js"
import { CustomerActors } from "../../src/ledger/CustomerActors.js"
import { Idempotency } from "../../src/ledger/Idempotency.js"
import * as Ledger from "../../src/ledger/Ledger.js"
import { checkLedger, type LedgerReport } from "../../src/ledger/LedgerCheck.js"
import type { Asset } from "../../src/money/Money.js"
import type { TestApp } from "./TestApp.js"

/**
 * Drives the ledger core the way money-moving commands do: every operation is a command in the customer's actor
 * (one transaction, customer row locked), records its outbox event, and posts a balanced journal transaction.
 */
export type Outcome<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly code: string }

const outcome = <A, E extends { readonly code?: string }>(effect: Effect.Effect<A, E, any>) =>
  Effect.map(Effect.exit(effect), (exit): Outcome<A> =>
    Exit.isSuccess(exit)
      ? { ok: true, value: exit.value }
      : exit.cause._tag === "Fail"
      ? { ok: false, code: (exit.cause.error as { code?: string }).code ?? "UNKNOWN" }
      : (() => {
        throw new Error(`defect: ${String(exit.cause)}`)
      })())

export const harness = (app: TestApp, partnerId: string) => {
  const command = <A, E extends { readonly code?: string }>(
    customerId: string,
    body: (ctx: { readonly outbox: typeof Outbox.Service; readonly ledger: typeof Ledger.Ledger.Service; readonly idempotency: typeof Idempotency.Service }) => Effect.Effect<A, E>
  ) =>
    app.run(Effect.gen(function*() {
      const actors = yield* CustomerActors
      const outbox = yield* Outbox
      const ledger = yield* Ledger.Ledger
      const idempotency = yield* Idempotency
      return yield* outcome(actors.run(partnerId as PartnerId, customerId as CustomerId, () => body({ outbox, ledger, idempotency })))
    }))

  const event = (outbox: typeof Outbox.Service, customerId: string, type: string, data: Record<string, unknown>) =>
    Effect.map(Effect.orDie(outbox.record({ partnerId, customerId, type, data: { customerId, ...data } })), (e) => e.envelope.id)

  return {
    credit: (customerId: string, currency: Asset, amount: bigint) =>
      command(customerId, ({ ledger, outbox }) =>
        Effect.gen(function*() {
          const eventId = yield* event(outbox, customerId, "test.credit", { currency, amount: String(amount) })
          return yield* ledger.post({
            partnerId, customerId, reason: "deposit", resourceType: "test", resourceId: eventId, eventId,
            postings: [
              { account: Ledger.available(customerId, currency), amount },
              { account: Ledger.house("bank_settlement", currency), amount: -amount }
            ]
          })
        })),
    debit: (customerId: string, currency: Asset, amount: bigint) =>
      command(customerId, ({ ledger, outbox }) =>
        Effect.gen(function*() {
          const eventId = yield* event(outbox, customerId, "test.debit", { currency, amount: String(amount) })
          return yield* ledger.post({
            partnerId, customerId, reason: "withdrawal", resourceType: "test", resourceId: eventId, eventId,
            postings: [
              { account: Ledger.available(customerId, currency), amount: -amount },
              { account: Ledger.house("bank_settlement", currency), amount }
            ]
          })
        })),
    reserve: (customerId: string, currency: Asset, amount: bigint) =>
      command(customerId, ({ ledger, outbox }) =>
        Effect.gen(function*() {
          const eventId = yield* event(outbox, customerId, "test.reserve", { currency, amount: String(amount) })
          return yield* ledger.reserve({
            partnerId, customerId, reason: "send", resourceType: "test", resourceId: eventId, eventId, currency, amount
          })
        })),
    post: (customerId: string, reservationId: string, currency: Asset, amount: bigint, fee: bigint) =>
      command(customerId, ({ ledger, outbox }) =>
        Effect.gen(function*() {
          const eventId = yield* event(outbox, customerId, "test.post", { reservationId })
          // A fee of the whole amount leaves nothing for the chain: a ledger posting is never zero.
          const destinations: Array<Ledger.Posting> = []
          if (amount - fee > 0n) destinations.push({ account: Ledger.house("chain_omnibus", currency), amount: amount - fee })
          if (fee > 0n) destinations.push({ account: Ledger.house("fee_revenue", currency), amount: fee })
          return yield* ledger.postReservation({ reservationId, reason: "send", eventId, destinations })
        })),
    void: (customerId: string, reservationId: string) =>
      command(customerId, ({ ledger, outbox }) =>
        Effect.gen(function*() {
          const eventId = yield* event(outbox, customerId, "test.void", { reservationId })
          return yield* ledger.voidReservation({ reservationId, reason: "send_refund", eventId })
        })),
    /** A credit idempotent by reference on the endpoint "test.credit"; returns the resource id. */
    creditOnce: (customerId: string, reference: string, currency: Asset, amount: bigint) =>
      command(customerId, ({ idempotency, ledger, outbox }) =>
        idempotency.once(
          { partnerId, endpoint: "test.credit", reference, customerId },
          (resourceId) =>
            Effect.gen(function*() {
              const eventId = yield* event(outbox, customerId, "test.credit", { reference })
              yield* ledger.post({
                partnerId, customerId, reason: "deposit", resourceType: "test_credit", resourceId, reference, eventId,
                postings: [
                  { account: Ledger.available(customerId, currency), amount },
                  { account: Ledger.house("bank_settlement", currency), amount: -amount }
                ]
              })
              return resourceId
            }),
          (resourceId) => Effect.succeed(resourceId)
        )),
    balances: (customerId: string) => app.run(Effect.flatMap(Ledger.Ledger, (ledger) => ledger.balances(customerId)))
  }
}

export const ledgerReport = (app: TestApp): Promise<LedgerReport> => app.run(checkLedger)

/** Sum of every entry per currency across all accounts, house included: zero when money is conserved. */
export const conservation = async (app: TestApp) =>
  (await app.query<{ currency: string; total: string }>(
    "SELECT currency, sum(amount)::text AS total FROM ledger_entries GROUP BY currency"
  )).filter((row) => row.total !== "0")
