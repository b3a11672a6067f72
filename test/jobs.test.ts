import { Effect, Layer, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Outbox, transaction } from "../src/events/Events.js"
import { attemptsMax, batchMax, Jobs, layer as jobsLayer, retryDelaySeconds } from "../src/jobs/Jobs.js"
import { fixtures } from "./support/Fixtures.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
const fx = fixtures(() => app)
let partnerId: string
let apiKey: string
const ran: Array<string> = []
let failuresLeft = 0

const Payload = Schema.Struct({ label: Schema.String })

beforeAll(async () => {
  app = await startTestApp()
  ;({ partnerId, apiKey } = await fx.partner())
  await app.run(Effect.gen(function*() {
    const jobs = yield* Jobs
    const outbox = yield* Outbox
    yield* jobs.register("test.record", Payload, ({ label }, job) =>
      Effect.gen(function*() {
        // Written in the job's transaction: it must commit with "DONE", or roll back with a failure.
        yield* outbox.record({ partnerId: job.partnerId, type: "test.job_ran", data: { label } })
        if (label.startsWith("fail") && failuresLeft > 0) {
          failuresLeft--
          return yield* Effect.fail(new Error(`handler refused ${label}`))
        }
        ran.push(label)
      }))
  }))
})
afterAll(() => app?.close())

const schedule = (label: string, delaySeconds: number, kind = "test.record") =>
  app.run(Effect.flatMap(Jobs, (jobs) => jobs.schedule({ kind, partnerId, delaySeconds, payload: { label } })))

const advance = (seconds: number) => fx.advance({ apiKey }, seconds)

const jobRow = async (id: string) =>
  (await app.query<{ status: string; attempts: number; lastError: string | null }>(
    "SELECT status, attempts, last_error FROM jobs WHERE id = $1",
    [id]
  ))[0]!

const committedEvents = async (label: string) =>
  (await app.query("SELECT id FROM events WHERE type = 'test.job_ran' AND data->>'label' = $1", [label])).length

describe("jobs", () => {
  it("runs a job only once its time has come on the service clock, and before the advance answers", async () => {
    const job = await schedule("later", 600)
    await advance(300)
    expect(ran).not.toContain("later")
    expect((await jobRow(job.id)).status).toBe("PENDING")
    await advance(300)
    expect(ran).toContain("later")
    expect(await jobRow(job.id)).toMatchObject({ status: "DONE", attempts: 1, lastError: null })
    expect(await committedEvents("later")).toBe(1)
  })

  it("runs a job due now without any clock advance (the daemon wakes)", async () => {
    const job = await schedule("now", 0)
    await vi.waitFor(async () => expect((await jobRow(job.id)).status).toBe("DONE"), { timeout: 10_000, interval: 50 })
    expect(ran).toContain("now")
  })

  it("drains more due jobs than one batch in a single advance", async () => {
    const labels = Array.from({ length: batchMax + 7 }, (_, i) => `bulk-${i}`)
    for (const label of labels) await schedule(label, 3_600)
    await advance(3_600)
    for (const label of labels) expect(ran).toContain(label)
  })

  it("never runs a job whose scheduling transaction rolled back", async () => {
    const outcome = await app.run(
      transaction(Effect.gen(function*() {
        const jobs = yield* Jobs
        yield* jobs.schedule({ kind: "test.record", partnerId, delaySeconds: 0, payload: { label: "rolled-back" } })
        return yield* Effect.fail("abort" as const)
      })).pipe(Effect.flip)
    )
    expect(outcome).toBe("abort")
    expect(await app.query("SELECT id FROM jobs WHERE payload->>'label' = 'rolled-back'")).toHaveLength(0)
    await advance(60)
    expect(ran).not.toContain("rolled-back")
  })

  it("retries a failing handler with backoff on the service clock, rolling back its writes each time", async () => {
    failuresLeft = 2
    const job = await schedule("fail-twice", 10)
    await advance(10)
    let row = await jobRow(job.id)
    expect(row).toMatchObject({ status: "PENDING", attempts: 1 })
    expect(row.lastError).toContain("handler refused fail-twice")
    expect(await committedEvents("fail-twice")).toBe(0)
    await advance(retryDelaySeconds(1))
    expect(await jobRow(job.id)).toMatchObject({ status: "PENDING", attempts: 2 })
    await advance(retryDelaySeconds(2))
    row = await jobRow(job.id)
    expect(row.status).toBe("DONE")
    expect(row.attempts).toBe(3)
    expect(ran).toContain("fail-twice")
    expect(await committedEvents("fail-twice")).toBe(1)
  })

  it("gives up after a bounded number of attempts", async () => {
    failuresLeft = 1_000
    const job = await schedule("fail-always", 0)
    for (let attempt = 1; attempt <= attemptsMax + 2; attempt++) await advance(3_600)
    const row = await jobRow(job.id)
    expect(row.status).toBe("FAILED")
    expect(row.attempts).toBe(attemptsMax)
    expect(row.lastError).toContain("handler refused fail-always")
    expect(ran).not.toContain("fail-always")
    failuresLeft = 0
  })

  it("counts a payload its handler cannot decode as a failed attempt", async () => {
    const job = await app.run(Effect.flatMap(Jobs, (jobs) =>
      jobs.schedule({ kind: "test.record", partnerId, delaySeconds: 0, payload: { label: 42 } })))
    await advance(1)
    const row = await jobRow(job.id)
    expect(row.attempts).toBe(1)
    expect(row.status).toBe("PENDING")
    expect(row.lastError).toContain("label")
  })

  it("leaves jobs of a kind nobody handles untouched", async () => {
    const job = await schedule("orphan", 0, "test.unhandled")
    await advance(60)
    expect(await jobRow(job.id)).toMatchObject({ status: "PENDING", attempts: 0 })
  })

  it("runs each job exactly once when two independent workers claim at the same time", async () => {
    const counts = new Map<string, number>()
    const labels = Array.from({ length: 30 }, (_, i) => `race-${i}`)
    const ranPerWorker = await app.run(Effect.scoped(Effect.gen(function*() {
      // Two Jobs instances (own registry, own in-process lock) over the same database: like two processes.
      const workers = yield* Effect.all([Layer.build(jobsLayer), Layer.build(jobsLayer)])
      const instances = workers.map((context) => context.unsafeMap.get(Jobs.key) as Jobs)
      for (const jobs of instances) {
        yield* jobs.register("test.race", Payload, ({ label }) =>
          Effect.sync(() => counts.set(label, (counts.get(label) ?? 0) + 1)))
      }
      for (const label of labels) {
        yield* instances[0]!.schedule({ kind: "test.race", partnerId, delaySeconds: 0, payload: { label } })
      }
      return yield* Effect.all(instances.map((jobs) => jobs.runDue), { concurrency: 2 })
    })))
    expect(ranPerWorker.reduce((a, b) => a + b, 0)).toBe(labels.length)
    for (const label of labels) expect(counts.get(label), label).toBe(1)
    const rows = await app.query<{ status: string }>("SELECT status FROM jobs WHERE kind = 'test.race'")
    expect(rows.map((r) => r.status)).toEqual(labels.map(() => "DONE"))
  })
})
