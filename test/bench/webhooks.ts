/**
 * Webhook delivery benchmark: deliveries per second from the durable dispatcher to a local receiver that verifies
 * every signature, on PGlite and on PostgreSQL. Runs per database: one partner (bounded by the per-partner in-flight
 * limit), eight partners, eight partners whose receiver fails a fifth of first attempts with 500 (retried after the
 * 30 s step of the schedule, reached by advancing the service clock), and eight partners "live" (events recorded
 * while the dispatcher delivers them). Prints figures; asserts only that every delivery arrived with a valid
 * signature.
 *
 * Apart from the cost of writing the events: each backlog run first records its events through the outbox (8
 * concurrent writers) with their deliveries deferred by a day (the bench moves `next_attempt_at` in the event's
 * own transaction, so the dispatcher, woken by the commit, finds nothing due); the clock is then advanced a day,
 * which wakes the dispatcher, and the figure is from that advance to the last delivery received. The live run
 * measures from the first write to the last delivery, so it includes the writes.
 *
 *   npm run bench:webhooks                       # PGlite, plus PostgreSQL on a throwaway cluster if installed
 *   BENCH_DATABASE_URL=postgres://... npm run bench:webhooks
 *   BENCH_EVENTS=4000 npm run bench:webhooks
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type BenchDatabase, benchConfig, onEachDatabase, withServices } from "./BenchSupport.js"
import * as NodeHttp from "node:http"
import * as NodeFs from "node:fs"
import * as NodeInspector from "node:inspector"
import type { AddressInfo } from "node:net"
import { ClockAdvance } from "../../src/clock/ClockAdvance.js"
import { ServiceClock } from "../../src/clock/ServiceClock.js"
import { Outbox, transaction } from "../../src/events/Events.js"
import { Partners } from "../../src/partners/Partners.js"
import { concurrencyMax, perPartnerMax } from "../../src/webhooks/WebhookDispatcher.js"
import { verifySignature } from "../../src/webhooks/verifySignature.js"
import { Webhooks } from "../../src/webhooks/Webhooks.js"

const events = Number(process.env.BENCH_EVENTS ?? 2000)
/** BENCH_PROFILE=dir writes a CPU profile of each timed window (the deliveries only) into dir. */
const profileDir = process.env.BENCH_PROFILE
const inspector = profileDir === undefined ? undefined : new NodeInspector.Session()
const post = (method: string, params?: object) =>
  new Promise<any>((resolve, reject) =>
    inspector!.post(method, params, (error, result) => (error === null ? resolve(result) : reject(error))))
const startProfile = async () => {
  if (inspector === undefined) return
  inspector.connect()
  await post("Profiler.enable")
  await post("Profiler.start")
}
const stopProfile = async (name: string) => {
  if (inspector === undefined) return
  const { profile } = await post("Profiler.stop")
  NodeFs.mkdirSync(profileDir!, { recursive: true })
  NodeFs.writeFileSync(`${profileDir}/${name}.cpuprofile`, JSON.stringify(profile))
  inspector.disconnect()
}
/** BENCH_DATABASES=pg runs only PostgreSQL, BENCH_DATABASES=pglite only PGlite. */
const only = process.env.BENCH_DATABASES
const writers = 8

const config = benchConfig("33".repeat(32))

/** A receiver that verifies every signature (401 when bad) and fails a chosen share of first attempts. */
const startReceiver = async () => {
  const secrets = new Map<string, string>()
  const seen = new Map<string, number>()
  const stats = { requests: 0, badSignatures: 0, delivered: new Set<string>(), lastDeliveredAt: 0, connections: 0 }
  const testEvents: Array<{ partner: string; raw: Buffer; header: string }> = []
  let failShare = 0
  const server = NodeHttp.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      stats.requests++
      const raw = Buffer.concat(chunks)
      const partner = req.url!.slice(1)
      const header = req.headers["x-service-signature"]
      // webhook.test arrives while PUT is still running, before its caller knows the new secret: kept and
      // verified once the secret is returned (see docs/webhooks.md, "The test event").
      if (!secrets.has(partner)) {
        testEvents.push({ partner, raw, header: String(header) })
        return res.writeHead(204).end()
      }
      const result = verifySignature(raw, header, secrets.get(partner)!)
      if (!result.ok) {
        stats.badSignatures++
        return res.writeHead(401).end()
      }
      const id = String(req.headers["x-service-event-id"])
      const attempt = (seen.get(id) ?? 0) + 1
      seen.set(id, attempt)
      // Deterministic share of failing first attempts: by the event id's first byte.
      if (attempt === 1 && parseInt(id.slice(0, 2), 16) < failShare * 256) return res.writeHead(500).end()
      stats.delivered.add(id)
      stats.lastDeliveredAt = performance.now()
      res.writeHead(204).end()
    })
  })
  server.on("connection", () => {
    stats.connections++
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: (partner: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/${partner}`,
    stats,
    /** Records the partner's secret and verifies the test events that arrived before it was known. */
    setSecret: (partner: string, secret: string) => {
      secrets.set(partner, secret)
      for (const test of testEvents.filter((t) => t.partner === partner)) {
        if (!verifySignature(test.raw, test.header, secret).ok) stats.badSignatures++
      }
    },
    setFailShare: (share: number) => {
      failShare = share
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>

const scenario = (receiver: Receiver, label: string, partnerCount: number, failShare: number, live = false) =>
  Effect.gen(function*() {
    const partners = yield* Partners
    const webhooks = yield* Webhooks
    const outbox = yield* Outbox
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const clockAdvance = yield* ClockAdvance
    receiver.setFailShare(0)
    const ids: Array<string> = []
    for (let i = 0; i < partnerCount; i++) {
      const { partner } = yield* partners.create({ name: `bench ${i}`, kybStatus: "APPROVED" })
      const issued = yield* webhooks.setUrl(partner.id, receiver.url(partner.id)).pipe(Effect.orDie)
      receiver.setSecret(partner.id, issued.secret)
      ids.push(partner.id)
    }
    receiver.setFailShare(failShare)
    const deliveredBefore = receiver.stats.delivered.size
    const requestsBefore = receiver.stats.requests
    const writeStarted = performance.now()
    // Backlog runs: the delivery is deferred by a day in the event's own transaction, so nothing is sent yet.
    const record = (partnerId: string) =>
      transaction(Effect.gen(function*() {
        const event = yield* outbox.record({ partnerId, type: "bench.event", data: { n: 1 } })
        if (!live) {
          yield* sql`UPDATE webhook_deliveries SET next_attempt_at = next_attempt_at + interval '1 day'
                     WHERE event_id = ${event.envelope.id}`
        }
      }))
    yield* Effect.forEach(
      Array.from({ length: events }, (_, i) => ids[i % ids.length]!),
      record,
      { concurrency: writers, discard: true }
    )
    const recordedSeconds = (performance.now() - writeStarted) / 1000
    const target = deliveredBefore + events
    if (!live && receiver.stats.delivered.size !== deliveredBefore) return yield* Effect.dieMessage("a deferred delivery was sent early")
    yield* Effect.promise(startProfile)
    const started = live ? writeStarted : performance.now()
    const advance = (seconds: number) => clockAdvance.advance(seconds)
    if (!live) yield* advance(86_400 + 1)
    let seen = receiver.stats.delivered.size
    let quietSince = performance.now()
    while (receiver.stats.delivered.size < target) {
      yield* Effect.sleep(5)
      if (receiver.stats.delivered.size !== seen) {
        seen = receiver.stats.delivered.size
        quietSince = performance.now()
        continue
      }
      // No progress for a while: if everything left waits for its retry, walk the clock to it (advance returns once
      // those attempts are made). Looked at only when idle, so that the polling does not load the database.
      if (performance.now() - quietSince < 50) continue
      quietSince = performance.now()
      const [counts] = yield* sql<{ pending: string; waiting: string }>`
        SELECT count(*) AS pending,
               count(*) FILTER (WHERE next_attempt_at > ${yield* clock.now} AND lease_until IS NULL) AS waiting
        FROM webhook_deliveries WHERE status = 'PENDING'`
      if (Number(counts!.pending) > 0 && counts!.waiting === counts!.pending) yield* advance(30)
    }
    const seconds = (receiver.stats.lastDeliveredAt - started) / 1000
    yield* Effect.promise(() => stopProfile(`${label.trim().replace(/\W+/g, "-")}-${Date.now()}`))
    const attempts = receiver.stats.requests - requestsBefore
    console.log(`  ${label}: ${events} deliveries in ${seconds.toFixed(2)} s = ${(events / seconds).toFixed(0)} deliveries/s` +
      ` (${attempts} attempts = ${(attempts / seconds).toFixed(0)} attempts/s; events recorded in ${recordedSeconds.toFixed(2)} s` +
      `${live ? ", included" : ", not included"})`)
  })

const run = (label: string, database: BenchDatabase) =>
  Effect.gen(function*() {
    if (only !== undefined && only !== (label.startsWith("PGlite") ? "pglite" : "pg")) {
      return console.log(`${label}: skipped (BENCH_DATABASES=${only})`)
    }
    const receiver = yield* Effect.promise(startReceiver)
    console.log(`${label} (in flight: ${concurrencyMax} per process, ${perPartnerMax} per partner)`)
    yield* scenario(receiver, "1 partner, all 2xx          ", 1, 0)
    yield* scenario(receiver, "8 partners, all 2xx         ", 8, 0)
    yield* scenario(receiver, "8 partners, 20% first fail  ", 8, 0.2)
    yield* scenario(receiver, "8 partners, live writes     ", 8, 0, true)
    console.log(`  signatures: ${receiver.stats.requests} verified requests, ${receiver.stats.badSignatures} bad;` +
      ` ${receiver.stats.connections} connections opened`)
    if (receiver.stats.badSignatures > 0) process.exitCode = 1
    yield* Effect.promise(receiver.close)
  }).pipe((effect) => withServices(config, database, effect))

onEachDatabase(run)
