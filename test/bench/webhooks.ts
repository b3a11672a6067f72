/**
 * Webhook delivery benchmark: deliveries per second from the durable dispatcher to a local receiver that verifies
 * every signature, on PGlite and on PostgreSQL. Three runs per database: one partner (bounded by the per-partner
 * in-flight limit), eight partners, and eight partners whose receiver fails a fifth of first attempts with 500
 * (those are retried after the 30 s step of the schedule, reached by advancing the service clock). Prints
 * figures; asserts only that every delivery arrived with a valid signature.
 *
 *   npm run bench:webhooks                       # PGlite, plus PostgreSQL on a throwaway cluster if installed
 *   BENCH_DATABASE_URL=postgres://... npm run bench:webhooks
 *   BENCH_EVENTS=4000 npm run bench:webhooks
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type BenchDatabase, benchConfig, onEachDatabase, withServices } from "./BenchSupport.js"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { ServiceClock } from "../../src/clock/ServiceClock.js"
import { Outbox, transaction } from "../../src/events/Events.js"
import { Partners } from "../../src/partners/Partners.js"
import { concurrencyMax, perPartnerMax } from "../../src/webhooks/WebhookDispatcher.js"
import { verifySignature } from "../../src/webhooks/verifySignature.js"
import { Webhooks } from "../../src/webhooks/Webhooks.js"

const events = Number(process.env.BENCH_EVENTS ?? 2000)
const writers = 8

const config = benchConfig("33".repeat(32))

/** A receiver that verifies every signature (401 when bad) and fails a chosen share of first attempts. */
const startReceiver = async () => {
  const secrets = new Map<string, string>()
  const seen = new Map<string, number>()
  const stats = { requests: 0, badSignatures: 0, delivered: new Set<string>() }
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
      res.writeHead(204).end()
    })
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

const scenario = (receiver: Receiver, label: string, partnerCount: number, failShare: number) =>
  Effect.gen(function*() {
    const partners = yield* Partners
    const webhooks = yield* Webhooks
    const outbox = yield* Outbox
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
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
    const started = performance.now()
    yield* Effect.forEach(
      Array.from({ length: events }, (_, i) => ids[i % ids.length]!),
      (partnerId) => transaction(outbox.record({ partnerId, type: "bench.event", data: { n: 1 } })),
      { concurrency: writers, discard: true }
    )
    const recordedSeconds = (performance.now() - started) / 1000
    const target = deliveredBefore + events
    while (receiver.stats.delivered.size < target) {
      const [counts] = yield* sql<{ pending: string; waiting: string }>`
        SELECT count(*) AS pending,
               count(*) FILTER (WHERE next_attempt_at > ${yield* clock.now} AND lease_until IS NULL) AS waiting
        FROM webhook_deliveries WHERE status = 'PENDING'`
      // Everything left waits for its retry: walk the clock to it (advance returns once those attempts are made).
      if (Number(counts!.pending) > 0 && counts!.waiting === counts!.pending) yield* clock.advance(30)
      else yield* Effect.sleep(20)
    }
    const seconds = (performance.now() - started) / 1000
    const attempts = receiver.stats.requests - requestsBefore
    console.log(`  ${label}: ${events} deliveries in ${seconds.toFixed(2)} s = ${(events / seconds).toFixed(0)} deliveries/s` +
      ` (${attempts} attempts = ${(attempts / seconds).toFixed(0)} attempts/s; events recorded in ${recordedSeconds.toFixed(2)} s)`)
  })

const run = (label: string, database: BenchDatabase) =>
  Effect.gen(function*() {
    const receiver = yield* Effect.promise(startReceiver)
    console.log(`${label} (in flight: ${concurrencyMax} per process, ${perPartnerMax} per partner)`)
    yield* scenario(receiver, "1 partner, all 2xx          ", 1, 0)
    yield* scenario(receiver, "8 partners, all 2xx         ", 8, 0)
    yield* scenario(receiver, "8 partners, 20% first fail  ", 8, 0.2)
    console.log(`  signatures: ${receiver.stats.requests} verified requests, ${receiver.stats.badSignatures} bad`)
    if (receiver.stats.badSignatures > 0) process.exitCode = 1
    yield* Effect.promise(receiver.close)
  }).pipe((effect) => withServices(config, database, effect))

onEachDatabase(run)
