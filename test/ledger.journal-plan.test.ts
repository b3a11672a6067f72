import type { CustomerId, PartnerId } from "../src/api/Ids.js"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Outbox } from "../src/events/Events.js"
import { CustomerActors } from "../src/ledger/CustomerActors.js"
import * as Ledger from "../src/ledger/Ledger.js"
import * as WithdrawalsRepo from "../src/withdrawals/WithdrawalsRepo.js"
import { harness, ledgerReport } from "./support/LedgerHarness.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The journal statement (Ledger `writeJournal`, one per money movement) is prepared once per connection and must be
 * run from its cached generic plan: PostgreSQL re-plans a prepared statement on every execution when its custom plans
 * look cheaper than the generic one, and planning that statement cost more than running it (measured:
 * docs/performance.md "Plans of prepared statements"). After its first five executions in a session PostgreSQL
 * compares the plans; from then on it must use the generic one.
 */
let app: TestApp
beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  if (app !== undefined) expect((await ledgerReport(app)).violations).toEqual([])
  await app?.close()
})

describe("the journal statement's plan", () => {
  it("is planned at most five times per session, then runs from the generic plan", async () => {
    const p = await app.newPartner()
    const created = await app.request<any>("POST", "/partner/v1/customers", { apiKey: p.apiKey, body: customerBody() })
    const customerId = created.body.data.id as string
    const plans = await app.run(Effect.gen(function*() {
      const actors = yield* CustomerActors
      const outbox = yield* Outbox
      const ledger = yield* Ledger.Ledger
      const sql = yield* SqlClient.SqlClient
      // One command: one transaction, so every statement below runs in one session.
      return yield* actors.run(p.partnerId as PartnerId, customerId as CustomerId, () =>
        Effect.gen(function*() {
          for (let i = 0; i < 12; i++) {
            const event = yield* Effect.orDie(outbox.record({ partnerId: p.partnerId, customerId, type: "test.credit", data: { customerId, i } }))
            yield* Effect.orDie(ledger.post({
              partnerId: p.partnerId,
              customerId,
              reason: "deposit",
              resourceType: "test",
              resourceId: event.envelope.id,
              eventId: event.envelope.id,
              postings: [
                { account: Ledger.available(customerId, "NGN"), amount: 100n },
                { account: Ledger.house("bank_settlement", "NGN"), amount: -100n }
              ]
            }))
          }
          return yield* Effect.orDie(sql<{ generic: number; custom: number }>`
            SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
            WHERE statement LIKE '%FROM unnest(%' AND statement LIKE '%INSERT INTO ledger_entries%'
              AND statement NOT LIKE '%ledger_reservations%'`)
        }))
    }))
    // This session ran the statement at least twelve times (more if earlier tests used the connection).
    expect(plans).toHaveLength(1)
    expect(plans[0]!.generic + plans[0]!.custom).toBeGreaterThanOrEqual(12)
    expect(plans[0]!.custom).toBeLessThanOrEqual(5)
  })
})

/**
 * Writes carried by the journal statement (Ledger `Carried`: the event and the resource's row of a withdrawal or a
 * send, one statement for the three writes): they are written exactly when the journal is. A refused reservation
 * writes none of them; a first reservation in a currency (the held account created between the statement's two
 * runs) writes them once; a random series of reservations, some refused, leaves exactly the accepted ones' events and
 * rows, each outcome what the balance at that moment decides.
 */
describe("writes carried by the journal statement", () => {
  const setUp = async (funds: bigint) => {
    const p = await app.newPartner()
    const created = await app.request<any>("POST", "/partner/v1/customers", { apiKey: p.apiKey, body: customerBody() })
    const customerId = created.body.data.id as string
    if (funds > 0n) expect((await harness(app, p.partnerId).credit(customerId, "NGN", funds)).ok).toBe(true)
    return { partnerId: p.partnerId, customerId }
  }

  /** A reservation of `amount` NGN carrying its event and a withdrawal row; "refused" when the balance is short. */
  const reserve = (partnerId: string, customerId: string, amount: bigint) =>
    app.run(Effect.gen(function*() {
      const actors = yield* CustomerActors
      const outbox = yield* Outbox
      const ledger = yield* Ledger.Ledger
      const repo = yield* WithdrawalsRepo.make
      return yield* actors.run(partnerId as PartnerId, customerId as CustomerId, () =>
        Effect.gen(function*() {
          const id = crypto.randomUUID()
          const now = new Date()
          const row = {
            id, partnerId, customerId, reference: `carried-${id}`, currency: "NGN" as const, amount, fee: 0n,
            totalDebited: amount, status: "PROCESSING" as const, failureReason: null, bankAccountId: null,
            bankCode: "058", bankName: "GTBank", accountNumber: "1234567896", accountName: "Ada Obi",
            reservationId: crypto.randomUUID(), createdAt: now, updatedAt: now
          }
          const event = yield* outbox.prepare({ partnerId, customerId, type: "test.carried", data: { id } })
          const reserved = yield* Effect.either(ledger.reserve({
            id: row.reservationId, partnerId, customerId, reason: "withdrawal", resourceType: "withdrawal", resourceId: id,
            reference: row.reference, eventId: event.id, currency: "NGN", amount,
            carry: Ledger.carryAll(event.carried, repo.insertCarried(row))
          }))
          if (reserved._tag === "Left") return { id, eventId: event.id, outcome: reserved.left._tag, seq: undefined }
          const stored = yield* event.recorded(reserved.right.carried)
          return { id, eventId: event.id, outcome: "reserved", seq: stored.seq }
        }))
    }))

  const written = async (ids: ReadonlyArray<{ id: string; eventId: string }>) => ({
    events: (await app.query<{ id: string }>("SELECT id FROM events WHERE id = ANY($1::uuid[])", [ids.map((r) => r.eventId)])).map((r) => r.id).sort(),
    withdrawals: (await app.query<{ id: string }>("SELECT id FROM withdrawals WHERE id = ANY($1::uuid[])", [ids.map((r) => r.id)])).map((r) => r.id).sort()
  })

  it("a refused reservation writes none of them; a first one (held account created between two runs) writes them once", async () => {
    const { customerId, partnerId } = await setUp(1_000n)
    // No held NGN account yet: the journal's first run finds it missing, creates it and runs again.
    expect(await app.query("SELECT 1 FROM ledger_accounts WHERE customer_id = $1 AND kind = 'held'", [customerId])).toHaveLength(0)
    const first = await reserve(partnerId, customerId, 1_000n)
    expect(first.outcome).toBe("reserved")
    expect(first.seq).toMatch(/^\d+$/)
    expect(await written([first])).toEqual({ events: [first.eventId], withdrawals: [first.id] })
    const [stored] = await app.query<{ seq: string; reservationId: string }>(
      "SELECT e.seq::text AS seq, w.reservation_id AS reservation_id FROM events e, withdrawals w WHERE e.id = $1 AND w.id = $2",
      [first.eventId, first.id]
    )
    expect(stored!.seq).toBe(first.seq)
    expect(await app.query("SELECT 1 FROM ledger_reservations WHERE id = $1 AND status = 'HELD'", [stored!.reservationId])).toHaveLength(1)

    const refused = await reserve(partnerId, customerId, 1n)
    expect(refused.outcome).toBe("InsufficientBalance")
    expect(await written([refused])).toEqual({ events: [], withdrawals: [] })
  })

  it("random reservations, some refused: exactly the accepted ones are written, each decided by the balance then", async () => {
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: 0n, max: 5_000n }), fc.array(fc.bigInt({ min: 1n, max: 2_000n }), { minLength: 1, maxLength: 6 }), async (funds, amounts) => {
        const { customerId, partnerId } = await setUp(funds)
        let available = funds
        const results = []
        for (const amount of amounts) {
          const result = await reserve(partnerId, customerId, amount)
          expect(result.outcome).toBe(amount <= available ? "reserved" : "InsufficientBalance")
          if (result.outcome === "reserved") available -= amount
          results.push(result)
        }
        const accepted = results.filter((r) => r.outcome === "reserved")
        expect(await written(results)).toEqual({
          events: accepted.map((r) => r.eventId).sort(),
          withdrawals: accepted.map((r) => r.id).sort()
        })
      }),
      { numRuns: 12 }
    )
    expect((await ledgerReport(app)).violations).toEqual([])
  })
})
