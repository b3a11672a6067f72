import type { CustomerId, PartnerId } from "../src/api/Ids.js"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Outbox } from "../src/events/Events.js"
import { CustomerActors } from "../src/ledger/CustomerActors.js"
import * as Ledger from "../src/ledger/Ledger.js"
import { ledgerReport } from "./support/LedgerHarness.js"
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
