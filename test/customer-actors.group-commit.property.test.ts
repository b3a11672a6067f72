import type { CustomerId, PartnerId } from "../src/api/Ids.js"
import { it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Cause, Data, Deferred, Effect, Exit, FastCheck as fc, Fiber, Option, PubSub, Queue } from "effect"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { EventBus, Outbox, type StoredEvent } from "../src/events/Events.js"
import { CustomerActors, groupCommitMax } from "../src/ledger/CustomerActors.js"
import { Idempotency } from "../src/ledger/Idempotency.js"
import * as Ledger from "../src/ledger/Ledger.js"
import { conservation, ledgerReport } from "./support/LedgerHarness.js"
import { customerBody, databaseKind, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Group commit (src/ledger/CustomerActors.ts): random sequences of commands for one to three customers, queued
 * behind a held command so that the actor takes them as batches (one transaction, a savepoint per command), must
 * behave exactly as if each command ran alone, one after the other in mailbox order: the same outcome per
 * command (checked against a sequential model), no trace of a failed command (rows, idempotency keys, events
 * stored or published), balances equal to the model, the ledger checker clean, events per customer in order.
 * Every command reports `txid_current()` (the top-level transaction id, also inside a savepoint): the test
 * asserts that the commands really shared transactions, so a regression to one transaction per command fails it.
 */
const runs = Number(process.env.GROUP_COMMIT_PROPERTY_RUNS ?? (databaseKind() === "postgres" ? 25 : 40))

let app: TestApp
let partnerId: string
let apiKey: string
let executedRuns = 0
let largestBatchSeen = 0

beforeAll(async () => {
  app = await startTestApp()
  ;({ partnerId, apiKey } = await app.newPartner())
})
afterAll(async () => {
  // Guard against a property that silently ran zero times, and against batching that never happened.
  expect(executedRuns).toBeGreaterThanOrEqual(runs)
  expect(largestBatchSeen).toBeGreaterThan(1)
  await app?.close()
})

class TestFailure extends Data.TaggedError("TestFailure")<{ readonly code: string }> {}

type Op =
  | { readonly op: "credit" | "debit" | "reserve" | "failAfterWrite" | "dieAfterWrite"; readonly amount: bigint }
  | { readonly op: "creditOnce" | "onceFail"; readonly ref: number; readonly amount: bigint }
  | { readonly op: "creditForeign" | "void" }

type Cmd = Op & { readonly customer: number }

const amount = fc.bigInt({ min: 1n, max: 1_000n })
const ref = fc.integer({ min: 0, max: 2 })
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: amount.map((a) => ({ op: "credit" as const, amount: a })), weight: 3 },
  { arbitrary: amount.map((a) => ({ op: "debit" as const, amount: a })), weight: 3 },
  { arbitrary: amount.map((a) => ({ op: "reserve" as const, amount: a })), weight: 2 },
  { arbitrary: fc.constant({ op: "void" as const }), weight: 2 },
  { arbitrary: amount.map((a) => ({ op: "failAfterWrite" as const, amount: a })), weight: 1 },
  { arbitrary: amount.map((a) => ({ op: "dieAfterWrite" as const, amount: a })), weight: 1 },
  { arbitrary: fc.record({ ref, amount }).map((r) => ({ op: "creditOnce" as const, ...r })), weight: 2 },
  { arbitrary: fc.record({ ref, amount }).map((r) => ({ op: "onceFail" as const, ...r })), weight: 1 },
  { arbitrary: fc.constant({ op: "creditForeign" as const }), weight: 1 }
)
const scenario = fc.integer({ min: 1, max: 3 }).chain((customers) =>
  fc.record({
    customers: fc.constant(customers),
    opening: fc.array(fc.bigInt({ min: 0n, max: 2_000n }), { minLength: customers, maxLength: customers }),
    commands: fc.array(
      fc.record({ customer: fc.integer({ min: 0, max: customers - 1 }), op }).map(({ customer, op }) => ({ customer, ...op }) as Cmd),
      { minLength: 1, maxLength: 48 }
    )
  })
)

/** What a command answered, in a comparable form. */
type Observed = { readonly kind: "ok"; readonly value: unknown } | { readonly kind: "fail"; readonly code: string } | { readonly kind: "defect" }

/** What the sequential model says it must answer; `sameAs` names the command (or seed) whose resource id it returns. */
type Expected =
  | { readonly kind: "ok"; readonly sameAs?: number | `seed${number}` }
  | { readonly kind: "fail"; readonly code: string }
  | { readonly kind: "defect" }

const observe = (exit: Exit.Exit<unknown, unknown>): Observed => {
  if (Exit.isSuccess(exit)) return { kind: "ok", value: exit.value }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) return { kind: "fail", code: (failure.value as { code?: string }).code ?? "UNKNOWN" }
  return { kind: "defect" }
}

const newCustomer = async () => {
  const reply = await app.request<any>("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

/** The sequential model: each command alone, in mailbox order (per customer the submission order). */
const model = (run: string, opening: ReadonlyArray<bigint>, commands: ReadonlyArray<Cmd>) => {
  const state = opening.map((available) => ({ available, held: 0n, refs: new Map<string, number>(), open: [] as Array<bigint> }))
  const expected: Array<Expected> = []
  commands.forEach((cmd, index) => {
    const s = state[cmd.customer]!
    const own = (r: number) => `gc-${run}-${cmd.customer}-${r}`
    switch (cmd.op) {
      case "credit":
        s.available += cmd.amount
        expected.push({ kind: "ok" })
        break
      case "debit":
      case "reserve":
        if (cmd.amount > s.available) {
          expected.push({ kind: "fail", code: "INSUFFICIENT_BALANCE" })
        } else {
          s.available -= cmd.amount
          if (cmd.op === "reserve") {
            s.held += cmd.amount
            s.open.push(cmd.amount)
          }
          expected.push({ kind: "ok" })
        }
        break
      case "void": {
        const first = s.open.shift()
        if (first === undefined) {
          expected.push({ kind: "fail", code: "NOTHING_TO_VOID" })
        } else {
          s.held -= first
          s.available += first
          expected.push({ kind: "ok" })
        }
        break
      }
      case "failAfterWrite":
        expected.push({ kind: "fail", code: "TEST_FAILED" })
        break
      case "dieAfterWrite":
        expected.push({ kind: "defect" })
        break
      case "creditOnce": {
        const original = s.refs.get(own(cmd.ref))
        if (original === undefined) {
          s.refs.set(own(cmd.ref), index)
          s.available += cmd.amount
          expected.push({ kind: "ok", sameAs: index })
        } else {
          expected.push({ kind: "ok", sameAs: original })
        }
        break
      }
      case "onceFail": {
        const original = s.refs.get(own(cmd.ref))
        expected.push(original === undefined ? { kind: "fail", code: "TEST_FAILED" } : { kind: "ok", sameAs: original })
        break
      }
      case "creditForeign":
        // Another customer's seed reference (claimed before the batches): 409; alone, the customer's own seed.
        expected.push(state.length > 1 ? { kind: "fail", code: "REFERENCE_IN_USE" } : { kind: "ok", sameAs: `seed${cmd.customer}` })
        break
    }
  })
  return { state, expected }
}

describe("group commit", () => {
  it.live.prop(
    "batched commands answer, store and publish exactly what they would alone, in mailbox order",
    { scenario },
    ({ scenario: { commands, customers: count, opening } }) =>
      Effect.promise(async () => {
        executedRuns += 1
        const run = `${executedRuns}-${Math.random().toString(36).slice(2, 8)}`
        const customers = await Promise.all(Array.from({ length: count }, newCustomer))
        const seedRef = (c: number) => `gc-${run}-seed-${c}`

        const result = await app.run(Effect.scoped(Effect.gen(function*() {
          const actors = yield* CustomerActors
          const outbox = yield* Outbox
          const ledger = yield* Ledger.Ledger
          const idempotency = yield* Idempotency
          const sql = yield* SqlClient.SqlClient
          const bus = yield* EventBus

          const record = (customerId: string, data: Record<string, unknown>) =>
            Effect.orDie(outbox.record({ partnerId, customerId, type: "test.group_commit", data }))
          const credit = (customerId: string, value: bigint, eventId: string, resourceId: string, reference?: string) =>
            ledger.post({
              partnerId, customerId, reason: "deposit", resourceType: "test", resourceId, eventId,
              ...(reference === undefined ? {} : { reference }),
              postings: [
                { account: Ledger.available(customerId, "NGN"), amount: value },
                { account: Ledger.house("bank_settlement", "NGN"), amount: -value }
              ]
            })
          const creditOnce = (customerId: string, reference: string, value: bigint, eventId: string) =>
            idempotency.once(
              { partnerId, endpoint: "test.group_commit", reference, customerId },
              (resourceId) => Effect.as(credit(customerId, value, eventId, resourceId, reference), resourceId),
              (resourceId) => Effect.succeed(resourceId)
            )

          // Seeding, one command at a time: opening balances and each customer's seed reference.
          const seeds: Array<string> = []
          for (let c = 0; c < count; c++) {
            const customerId = customers[c]!
            seeds.push(yield* actors.run(partnerId as PartnerId, customerId as CustomerId, () =>
              Effect.gen(function*() {
                const event = yield* record(customerId, { seed: c })
                if (opening[c]! > 0n) yield* credit(customerId, opening[c]!, event.envelope.id, event.envelope.id)
                return yield* creditOnce(customerId, seedRef(c), 1n, event.envelope.id)
              })))
          }
          const openingWithSeed = opening.map((o) => o + 1n)

          const executed: Array<number> = []
          const txids = new Map<number, string>()
          const eventIds = new Map<number, string>()
          const reservations = customers.map(() => [] as Array<string>)

          const body = (index: number, cmd: Cmd) => () =>
            Effect.gen(function*() {
              const customerId = customers[cmd.customer]!
              executed.push(index)
              const [row] = yield* Effect.orDie(sql<{ txid: string }>`SELECT txid_current()::text AS txid`)
              txids.set(index, row!.txid)
              const event = yield* record(customerId, { cmd: index, op: cmd.op })
              const eventId = event.envelope.id
              eventIds.set(index, eventId)
              switch (cmd.op) {
                case "credit":
                  return yield* credit(customerId, cmd.amount, eventId, eventId)
                case "debit":
                  return yield* ledger.post({
                    partnerId, customerId, reason: "withdrawal", resourceType: "test", resourceId: eventId, eventId,
                    postings: [
                      { account: Ledger.available(customerId, "NGN"), amount: -cmd.amount },
                      { account: Ledger.house("bank_settlement", "NGN"), amount: cmd.amount }
                    ]
                  })
                case "reserve": {
                  const reservation = yield* ledger.reserve({
                    partnerId, customerId, reason: "send", resourceType: "test", resourceId: eventId, eventId,
                    currency: "NGN", amount: cmd.amount
                  })
                  reservations[cmd.customer]!.push(reservation.id)
                  return reservation.id
                }
                case "void": {
                  const open = reservations[cmd.customer]!
                  if (open.length === 0) return yield* new TestFailure({ code: "NOTHING_TO_VOID" })
                  const done = yield* ledger.voidReservation({ reservationId: open[0]!, reason: "send_refund", eventId })
                  open.shift()
                  return done
                }
                case "failAfterWrite":
                  yield* credit(customerId, cmd.amount, eventId, eventId)
                  return yield* new TestFailure({ code: "TEST_FAILED" })
                case "dieAfterWrite":
                  yield* credit(customerId, cmd.amount, eventId, eventId)
                  return yield* Effect.dieMessage("test: a defect after writing rows")
                case "creditOnce":
                  return yield* creditOnce(customerId, `gc-${run}-${cmd.customer}-${cmd.ref}`, cmd.amount, eventId)
                case "onceFail":
                  return yield* idempotency.once(
                    { partnerId, endpoint: "test.group_commit", reference: `gc-${run}-${cmd.customer}-${cmd.ref}`, customerId },
                    (resourceId) =>
                      Effect.zipRight(credit(customerId, 5n, eventId, resourceId), new TestFailure({ code: "TEST_FAILED" })),
                    (resourceId) => Effect.succeed(resourceId)
                  )
                case "creditForeign":
                  return yield* creditOnce(customerId, seedRef((cmd.customer + 1) % count), 7n, eventId)
              }
            })

          const subscription = yield* PubSub.subscribe(bus)
          const before = yield* actors.stats
          // Hold the first customer's actor with a command (in its transaction: on PGlite, whose one connection
          // serves one transaction at a time, that holds every other actor at its first command too), queue the
          // random commands behind it, then let go.
          const release = yield* Deferred.make<void>()
          const started = yield* Deferred.make<void>()
          const gate = yield* Effect.fork(actors.run(partnerId as PartnerId, customers[0]! as CustomerId, () =>
            Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release))))
          yield* Deferred.await(started)
          const fibers: Array<Fiber.RuntimeFiber<Exit.Exit<unknown, unknown>>> = []
          for (const [index, cmd] of commands.entries()) {
            fibers.push(yield* Effect.fork(Effect.exit(actors.run(partnerId as PartnerId, customers[cmd.customer]! as CustomerId, body(index, cmd)))))
          }
          yield* Effect.sleep("50 millis")
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(gate)
          const exits = yield* Effect.forEach(fibers, Fiber.join)
          const after = yield* actors.stats
          const published: ReadonlyArray<StoredEvent> = Array.from(yield* Queue.takeAll(subscription))
          return { exits, executed, txids, eventIds, seeds, openingWithSeed, before, after, published }
        })))

        // 1. Mailbox order: per customer the commands ran in the order they were queued, each exactly once.
        for (let c = 0; c < count; c++) {
          const submitted = commands.flatMap((cmd, i) => (cmd.customer === c ? [i] : []))
          expect(result.executed.filter((i) => commands[i]!.customer === c)).toEqual(submitted)
        }

        // 2. Batching happened. The held customer's k commands shared exactly ceil(k / groupCommitMax)
        //    transactions; another customer's actor may have taken its first command before the rest were queued
        //    (one transaction more at most). No transaction was shared between customers; the counters agree.
        const txidsOf = (c: number) => new Set(commands.flatMap((cmd, i) => (cmd.customer === c ? [result.txids.get(i)!] : [])))
        let transactions = 1 // the held command
        for (let c = 0; c < count; c++) {
          const k = commands.filter((cmd) => cmd.customer === c).length
          if (k === 0) continue
          const used = txidsOf(c).size
          if (c === 0) {
            expect(used).toBe(Math.ceil(k / groupCommitMax))
            if (k > 1) expect(used).toBeLessThan(k) // shared: not one transaction per command
          }
          else expect(used).toBeLessThanOrEqual(Math.ceil((k - 1) / groupCommitMax) + 1)
          expect(used).toBeGreaterThanOrEqual(Math.ceil(k / groupCommitMax))
          transactions += used
          for (let d = c + 1; d < count; d++) for (const t of txidsOf(c)) expect(txidsOf(d).has(t)).toBe(false)
        }
        expect(result.after.batches - result.before.batches).toBe(transactions)
        expect(result.after.commands - result.before.commands).toBe(commands.length + 1)
        largestBatchSeen = Math.max(largestBatchSeen, result.after.largestBatch)

        // 3. Each outcome equals the sequential model's.
        const { expected, state } = model(run, result.openingWithSeed, commands)
        const observed = result.exits.map(observe)
        const comparable = observed.map((o, i) => {
          const e = expected[i]!
          if (o.kind !== "ok" || e.kind !== "ok" || e.sameAs === undefined) return o.kind === "ok" ? { kind: "ok" } : o
          const original = typeof e.sameAs === "number" ? (observed[e.sameAs] as { value: unknown }).value : result.seeds[Number(e.sameAs.slice(4))]
          return o.value === original ? e : { kind: "ok", value: o.value, expectedSameAs: original }
        })
        expect(comparable.map((o, i) => ({ i, op: commands[i]!.op, ...o }))).toEqual(expected.map((e, i) => ({ i, op: commands[i]!.op, ...e })))

        // 4. Nothing of a failed command remains; every successful command left its event and nothing else.
        const failed = commands.flatMap((_, i) => (observed[i]!.kind === "ok" ? [] : [result.eventIds.get(i)!]))
        const succeeded = commands.flatMap((_, i) => (observed[i]!.kind === "ok" ? [result.eventIds.get(i)!] : []))
        if (failed.length > 0) {
          expect(await app.query("SELECT id FROM events WHERE id = ANY($1::uuid[])", [failed])).toEqual([])
          expect(await app.query("SELECT id FROM ledger_transactions WHERE event_id = ANY($1::uuid[])", [failed])).toEqual([])
        }
        expect((await app.query("SELECT id FROM events WHERE id = ANY($1::uuid[])", [succeeded])).length).toBe(succeeded.length)
        // Idempotency keys: exactly the references the model says were claimed.
        const keys = await app.query<{ reference: string }>(
          "SELECT reference FROM idempotency_keys WHERE endpoint = 'test.group_commit' AND reference LIKE $1 AND reference NOT LIKE $2 ORDER BY reference",
          [`gc-${run}-%`, `gc-${run}-seed-%`]
        )
        const claimed = state.flatMap((s) => [...s.refs.keys()]).sort()
        expect(keys.map((k) => k.reference)).toEqual(claimed)

        // 5. Balances equal the model.
        for (let c = 0; c < count; c++) {
          const rows = await app.query<{ kind: string; balance: string }>(
            "SELECT kind, balance::text FROM ledger_accounts WHERE customer_id = $1 AND currency = 'NGN'",
            [customers[c]]
          )
          const balance = (kind: string) => BigInt(rows.find((r) => r.kind === kind)?.balance ?? "0")
          expect({ c, available: balance("available"), held: balance("held") })
            .toEqual({ c, available: state[c]!.available, held: state[c]!.held })
        }

        // 6. Events, stored and published, per customer: exactly the successful commands, in mailbox order.
        for (let c = 0; c < count; c++) {
          const want = commands.flatMap((cmd, i) => (cmd.customer === c && observed[i]!.kind === "ok" ? [i] : []))
          const stored = await app.query<{ cmd: number }>(
            "SELECT (data->>'cmd')::int AS cmd FROM events WHERE customer_id = $1 AND data ? 'cmd' ORDER BY seq",
            [customers[c]]
          )
          expect(stored.map((s) => s.cmd)).toEqual(want)
          const published = result.published
            .filter((e) => e.customerId === customers[c] && e.envelope.data.cmd !== undefined)
            .map((e) => e.envelope.data.cmd)
          expect(published).toEqual(want)
        }

        // 7. The ledger checker is clean and money is conserved.
        const report = await ledgerReport(app)
        expect(report.violations).toEqual([])
        expect(await conservation(app)).toEqual([])
      }),
    { timeout: 900_000, fastCheck: { numRuns: runs } }
  )
})
