import type { CustomerId, PartnerId } from "../src/api/Ids.js"
import { SqlClient } from "@effect/sql"
import { Cause, Data, Deferred, Effect, Exit, Fiber, Option, PubSub, Queue } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Customers } from "../src/customers/Customers.js"
import { PreparingClient } from "../src/db/Database.js"
import type { Customer } from "../src/customers/Customer.js"
import { EventBus, Outbox, type StoredEvent } from "../src/events/Events.js"
import { type Command, CustomerActors, groupCommitMax } from "../src/ledger/CustomerActors.js"
import { Idempotency } from "../src/ledger/Idempotency.js"
import * as Ledger from "../src/ledger/Ledger.js"
import { conservation, ledgerReport } from "./support/LedgerHarness.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Group commit in the customer actor (src/ledger/CustomerActors.ts), case by case: the customer row each command
 * sees, ownership per command, the batch bound, a requester that goes away, and a commit that fails. The random
 * sequences are in customer-actors.group-commit.property.test.ts.
 */
let app: TestApp
let partnerId: string
let apiKey: string

beforeAll(async () => {
  app = await startTestApp()
  ;({ partnerId, apiKey } = await app.newPartner())
  // A deferred foreign key: a row that breaks it is accepted by its statement and refused at COMMIT.
  await app.query("CREATE TABLE test_gc_parent (id int PRIMARY KEY)")
  await app.query(
    "CREATE TABLE test_gc_child (id int PRIMARY KEY, parent int REFERENCES test_gc_parent (id) DEFERRABLE INITIALLY DEFERRED)"
  )
})
afterAll(async () => {
  if (app !== undefined) {
    const report = await ledgerReport(app)
    expect(report.violations).toEqual([])
    expect(await conservation(app)).toEqual([])
  }
  await app?.close()
})

class TestFailure extends Data.TaggedError("TestFailure")<{ readonly code: string }> {}

const newCustomer = async (key = apiKey) => {
  const reply = await app.request<any>("POST", "/partner/v1/customers", { apiKey: key, body: customerBody() })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

interface Submitted {
  readonly partnerId: string
  readonly customerId: string
  readonly command: Command<unknown, unknown>
}

/**
 * Holds the actor of each customer (a command of its owner that waits), queues `commands` behind it, lets go, and
 * returns every command's exit, what the EventBus published meanwhile and the actors' counters.
 */
const batch = (owners: ReadonlyArray<{ readonly partnerId: string; readonly customerId: string }>, commands: ReadonlyArray<Submitted>) =>
  app.run(Effect.scoped(Effect.gen(function*() {
    const actors = yield* CustomerActors
    const subscription = yield* PubSub.subscribe(yield* EventBus)
    const before = yield* actors.stats
    const release = yield* Deferred.make<void>()
    const gates: Array<Fiber.RuntimeFiber<void, unknown>> = []
    for (const owner of owners) {
      const started = yield* Deferred.make<void>()
      gates.push(yield* Effect.fork(actors.run(owner.partnerId as PartnerId, owner.customerId as CustomerId, () =>
        Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)))))
      yield* Deferred.await(started)
    }
    const fibers: Array<Fiber.RuntimeFiber<Exit.Exit<unknown, unknown>>> = []
    for (const c of commands) fibers.push(yield* Effect.fork(Effect.exit(actors.run(c.partnerId as PartnerId, c.customerId as CustomerId, c.command))))
    yield* Effect.sleep("50 millis")
    yield* Deferred.succeed(release, undefined)
    yield* Fiber.joinAll(gates)
    const exits = yield* Effect.forEach(fibers, Fiber.join)
    const after = yield* actors.stats
    const published: ReadonlyArray<StoredEvent> = Array.from(yield* Queue.takeAll(subscription))
    return { exits, published, batches: after.batches - before.batches, largest: after.largestBatch }
  })))

let sql: SqlClient.SqlClient
beforeAll(async () => {
  sql = await app.run(SqlClient.SqlClient)
})
/** The top-level transaction id (also inside a savepoint): commands of one batch share it. */
const txid = Effect.suspend(() =>
  Effect.orDie(Effect.map(sql<{ txid: string }>`SELECT txid_current()::text AS txid`, (rows) => rows[0]!.txid)))

const value = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return exit.value
  throw new Error(`expected a success, got ${Cause.pretty(exit.cause)}`)
}
const code = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) as { code?: string } | undefined : undefined
const isDefect = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && Option.isNone(Cause.failureOption(exit.cause)) && Option.isSome(Cause.dieOption(exit.cause))

describe("group commit: the customer row each command sees", () => {
  it("is read again after a command that committed its savepoint, and is as before after one that failed", async () => {
    const customerId = await newCustomer()
    const services = await app.run(Effect.all({ customers: Customers }))
    const seen = (row: Customer) => Effect.map(txid, (t) => ({ verifiedAt: row.verifiedAt, txid: t }))
    const at = new Date("2030-01-02T03:04:05.000Z")
    const own = (command: Command<unknown, unknown>): Submitted => ({ partnerId, customerId, command })
    const { exits } = await batch([{ partnerId, customerId }], [
      own(seen),
      // Sets verified_at, then fails: its savepoint is rolled back, so is the change.
      own(() => Effect.zipRight(services.customers.markVerified(customerId, new Date("2029-01-01T00:00:00Z")), new TestFailure({ code: "TEST_FAILED" }))),
      own(seen),
      own(() => services.customers.markVerified(customerId, at)),
      own(seen)
    ])
    const [first, , third, , fifth] = exits.map((exit) => (Exit.isSuccess(exit) ? exit.value : undefined)) as Array<
      { verifiedAt: Date | null; txid: string } | undefined
    >
    expect(code(exits[1]!)).toMatchObject({ code: "TEST_FAILED" })
    expect(Exit.isSuccess(exits[3]!)).toBe(true)
    expect(first!.verifiedAt).toBeNull()
    expect(third!.verifiedAt).toBeNull()
    expect(fifth!.verifiedAt?.toISOString()).toBe(at.toISOString())
    // One batch: the three readers saw three states of the row inside one transaction.
    expect(new Set([first!.txid, third!.txid, fifth!.txid]).size).toBe(1)
    const stored = await app.query<{ at: Date }>("SELECT verified_at AS at FROM customers WHERE id = $1", [customerId])
    expect(new Date(stored[0]!.at).toISOString()).toBe(at.toISOString())
  })
})

describe("group commit: reading the customer row again", () => {
  it("is skipped after commands that did not write it: one lock, no other read of the row in the batch", async () => {
    const customerId = await newCustomer()
    const reads: Array<string> = []
    const asked = PreparingClient.prototype.query
    PreparingClient.prototype.query = function(this: PreparingClient, ...args: Array<any>) {
      const text = typeof args[0] === "string" ? args[0] : ""
      if (/FROM customers WHERE id = \$1 AND partner_id = \$2/.test(text)) reads.push(text)
      return (asked as any).apply(this, args)
    } as any
    try {
      const own = (command: Command<unknown, unknown>): Submitted => ({ partnerId, customerId, command })
      const { exits, batches } = await batch([{ partnerId, customerId }], [own(() => txid), own(() => txid), own(() => txid)])
      expect(exits.map(value)).toHaveLength(3)
      // The gate's batch, then the three commands' (in one batch unless a slow machine let the gate go first).
      expect(batches).toBeLessThanOrEqual(3)
      // One lock per batch, and no read of the row between the commands.
      expect(reads.filter((text) => text.includes("FOR UPDATE"))).toHaveLength(batches)
      expect(reads).toHaveLength(batches)
    } finally {
      PreparingClient.prototype.query = asked
    }
  })
})

describe("group commit: ownership per command", () => {
  it("refuses another partner's commands in a batch, whether the row is locked yet or not, and runs the owner's", async () => {
    const customerId = await newCustomer()
    const other = await app.newPartner()
    const row = (r: Customer) => Effect.map(txid, (t) => ({ id: r.id, txid: t }))
    const { exits } = await batch([{ partnerId, customerId }], [
      { partnerId: other.partnerId, customerId, command: row }, // first of its batch: nothing locked yet
      { partnerId: "not-a-uuid", customerId, command: row }, // never reaches SQL, cannot abort the batch
      { partnerId, customerId: customerId.toUpperCase(), command: row }, // same actor, same customer
      { partnerId: other.partnerId, customerId, command: row }, // after the lock
      { partnerId: partnerId.toUpperCase(), customerId, command: row }, // the owner, spelled differently
      { partnerId, customerId, command: row }
    ])
    expect(exits.map((exit) => (Exit.isSuccess(exit) ? "ok" : code(exit)?.code))).toEqual([
      "CUSTOMER_FORBIDDEN", "CUSTOMER_FORBIDDEN", "ok", "CUSTOMER_FORBIDDEN", "ok", "ok"
    ])
    const ok = [2, 4, 5].map((i) => value(exits[i]!) as { id: string; txid: string })
    expect(ok.every((r) => r.id === customerId)).toBe(true)
    expect(new Set(ok.map((r) => r.txid)).size).toBe(1)
  })
})

describe("group commit: the batch bound", () => {
  it(`takes at most ${groupCommitMax} commands per transaction, in mailbox order`, async () => {
    const customerId = await newCustomer()
    const n = groupCommitMax * 2 + 5
    const order: Array<number> = []
    const { batches, exits, largest } = await batch([{ partnerId, customerId }], Array.from({ length: n }, (_, i) => ({
      partnerId,
      customerId,
      command: () => Effect.zipRight(Effect.sync(() => order.push(i)), txid)
    })))
    const txids = exits.map((exit) => value(exit) as string)
    expect(order).toEqual(Array.from({ length: n }, (_, i) => i))
    expect(largest).toBeLessThanOrEqual(groupCommitMax)
    expect(batches).toBe(1 + 3) // the held command, then 32 + 32 + 5
    const sizes = [...new Set(txids)].map((t) => txids.filter((x) => x === t).length)
    expect(sizes).toEqual([groupCommitMax, groupCommitMax, 5])
  })
})

describe("group commit: a requester that goes away", () => {
  it("does not stop its command: the batch commits it", async () => {
    const customerId = await newCustomer()
    const result = await app.run(Effect.gen(function*() {
      const actors = yield* CustomerActors
      const ledger = yield* Ledger.Ledger
      const outbox = yield* Outbox
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const gate = yield* Effect.fork(actors.run(partnerId as PartnerId, customerId as CustomerId, () =>
        Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release))))
      yield* Deferred.await(started)
      const credit = (amount: bigint) =>
        actors.run(partnerId as PartnerId, customerId as CustomerId, () =>
          Effect.gen(function*() {
            const event = yield* Effect.orDie(outbox.record({ partnerId, customerId, type: "test.group_commit", data: {} }))
            return yield* ledger.post({
              partnerId, customerId, reason: "deposit", resourceType: "test", resourceId: event.envelope.id,
              eventId: event.envelope.id,
              postings: [
                { account: Ledger.available(customerId, "NGN"), amount },
                { account: Ledger.house("bank_settlement", "NGN"), amount: -amount }
              ]
            })
          }))
      const abandoned = yield* Effect.fork(credit(100n))
      const kept = yield* Effect.fork(credit(20n))
      yield* Effect.sleep("50 millis")
      yield* Fiber.interrupt(abandoned)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(gate)
      return yield* Fiber.join(kept)
    }))
    expect(result.transactionId).toBeDefined()
    const rows = await app.query<{ balance: string }>(
      "SELECT balance::text FROM ledger_accounts WHERE customer_id = $1 AND kind = 'available' AND currency = 'NGN'",
      [customerId]
    )
    expect(rows[0]?.balance).toBe("120")
  })
})

describe("group commit: the commit fails", () => {
  it("answers every command of the batch with a defect and stores nothing of it; a retry then succeeds once", async () => {
    const customerId = await newCustomer()
    const services = await app.run(Effect.all({ ledger: Ledger.Ledger, outbox: Outbox, idempotency: Idempotency }))
    const reference = `gc-fault-${customerId.slice(0, 8)}`
    const record = (label: string) =>
      Effect.orDie(services.outbox.record({ partnerId, customerId, type: "test.group_commit", data: { fault: label } }))
    const credit = (amount: bigint, eventId: string, resourceId: string, ref?: string) =>
      services.ledger.post({
        partnerId, customerId, reason: "deposit", resourceType: "test", resourceId, eventId,
        ...(ref === undefined ? {} : { reference: ref }),
        postings: [
          { account: Ledger.available(customerId, "NGN"), amount },
          { account: Ledger.house("bank_settlement", "NGN"), amount: -amount }
        ]
      })
    const own = (command: Command<unknown, unknown>): Submitted => ({ partnerId, customerId, command })
    const commands = (poison: boolean) => [
      own(() => Effect.flatMap(record("credit"), (e) => credit(1_000n, e.envelope.id, e.envelope.id))),
      own(() =>
        Effect.flatMap(record("once"), (e) =>
          services.idempotency.once(
            { partnerId, endpoint: "test.group_commit", reference, customerId },
            (resourceId) => Effect.as(credit(50n, e.envelope.id, resourceId, reference), resourceId),
            (resourceId) => Effect.succeed(resourceId)
          ))),
      own(() =>
        Effect.flatMap(record("debit"), (e) =>
          services.ledger.post({
            partnerId, customerId, reason: "withdrawal", resourceType: "test", resourceId: e.envelope.id, eventId: e.envelope.id,
            postings: [
              { account: Ledger.available(customerId, "NGN"), amount: -300n },
              { account: Ledger.house("bank_settlement", "NGN"), amount: 300n }
            ]
          }))),
      own(() => Effect.zipRight(record("typed"), new TestFailure({ code: "TEST_FAILED" }))),
      ...(poison
        ? [own(() =>
          Effect.orDie(Effect.zipRight(record("poison"), sql`INSERT INTO test_gc_child (id, parent) VALUES (1, 42)`)))]
        : [])
    ]

    const failed = await batch([{ partnerId, customerId }], commands(true))
    expect(failed.batches).toBe(2) // the held command, then all five together
    expect(failed.exits.map(isDefect)).toEqual([true, true, true, true, true])
    // The commit's own error (the deferred foreign key), for every command alike.
    const defects = failed.exits.map((exit) => Cause.squash((exit as Exit.Failure<unknown, unknown>).cause) as { cause?: { message?: string } })
    expect(defects[0]!.cause?.message).toMatch(/test_gc_child|foreign key/i)
    expect(defects.every((d) => d === defects[0])).toBe(true)
    expect(failed.published.filter((e) => e.customerId === customerId)).toEqual([])
    expect(await app.query("SELECT id FROM events WHERE customer_id = $1 AND data ? 'fault'", [customerId])).toEqual([])
    expect(await app.query("SELECT id FROM ledger_transactions WHERE customer_id = $1", [customerId])).toEqual([])
    expect(await app.query("SELECT reference FROM idempotency_keys WHERE reference = $1", [reference])).toEqual([])
    expect(await app.query("SELECT id FROM ledger_accounts WHERE customer_id = $1 AND balance <> 0", [customerId])).toEqual([])
    expect(await app.query("SELECT id FROM test_gc_child")).toEqual([])

    // The callers retry (same reference): everything happens once, the typed failure answers as alone.
    const retried = await batch([{ partnerId, customerId }], commands(false))
    expect(retried.exits.slice(0, 3).every(Exit.isSuccess)).toBe(true)
    expect(code(retried.exits[3]!)).toMatchObject({ code: "TEST_FAILED" })
    const again = await batch([{ partnerId, customerId }], commands(false).slice(1, 2))
    expect(value(again.exits[0]!)).toBe(value(retried.exits[1]!))
    const balance = await app.query<{ balance: string }>(
      "SELECT balance::text FROM ledger_accounts WHERE customer_id = $1 AND kind = 'available' AND currency = 'NGN'",
      [customerId]
    )
    expect(balance[0]?.balance).toBe(String(1_000 + 50 - 300))
    expect((await app.query("SELECT reference FROM idempotency_keys WHERE reference = $1", [reference])).length).toBe(1)
    const published = retried.published.filter((e) => e.customerId === customerId).map((e) => e.envelope.data.fault)
    expect(published).toEqual(["credit", "once", "debit"])
  })
})
