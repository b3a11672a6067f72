import { Effect, Option } from "effect"
import * as NodeCrypto from "node:crypto"
import { unopenableSecret, WebhookSender } from "../src/webhooks/WebhookSender.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifySignature } from "../src/webhooks/verifySignature.js"
import * as WebhooksRepo from "../src/webhooks/WebhooksRepo.js"
import { fixtures } from "./support/Fixtures.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually, type Receiver, startReceiver } from "./support/WebhookReceiver.js"

let app: TestApp
const fx = fixtures(() => app)
const receivers: Array<Receiver> = []

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  await app?.close()
  for (const receiver of receivers) await receiver.close()
})

const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const started = await startReceiver(...args)
  receivers.push(started)
  return started
}

const delivery = async (apiKey: string, id: string) => {
  const reply = await app.request("GET", `/partner/v1/webhook/deliveries/${id}`, { apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data
}

const clockNow = async (apiKey: string) => Date.parse((await app.request("GET", "/sandbox/clock", { apiKey })).body.data.now)

const advance = (apiKey: string, seconds: number) => fx.advance({ apiKey }, seconds)

/** A partner with a URL set (the test event answered 200), and the id of a fresh customer.registered event. */
const partnerWithUrl = async (target: Receiver) => {
  const { apiKey, partnerId } = await fx.partner()
  const { secret } = await fx.setWebhook({ apiKey }, target.url)
  return { apiKey, partnerId, secret }
}

const registerCustomer = async (apiKey: string) => {
  const created = await fx.customer({ apiKey })
  const events = await app.request<{ data: Array<{ id: string }> }>(
    "GET",
    `/sandbox/events?type=customer.registered&customerId=${created.id}`,
    { apiKey }
  )
  expect(events.body.data).toHaveLength(1)
  return events.body.data[0]!.id
}

const retryDelaysSeconds = [30, 120, 600, 1800, 7200, 21600, 43200]

describe("retry schedule", () => {
  it("walks a failing delivery through 8 attempts at the scheduled service-clock times, then DEAD; replay delivers it", async () => {
    const target = await receiver((d) => (d.type === "webhook.test" ? 200 : 500))
    const { apiKey, secret } = await partnerWithUrl(target)
    const eventId = await registerCustomer(apiKey)

    // The first attempt is made as soon as the event is committed.
    let current = await eventually(async () => {
      const d = await delivery(apiKey, eventId)
      return d.attempts === 1 ? d : undefined
    }, "the first attempt")
    expect(current).toMatchObject({ status: "PENDING", lastResponseStatus: 500, lastError: "HTTP 500", deliveredAt: null })

    for (const [index, delaySeconds] of retryDelaysSeconds.entries()) {
      const attemptsSoFar = index + 1
      const last = Date.parse(current.lastAttemptAt)
      expect(Date.parse(current.nextAttemptAt) - last).toBe(delaySeconds * 1000)
      const hits = target.ofEvent(eventId)
      expect(hits).toHaveLength(attemptsSoFar)
      // The receiver saw the attempt signed at real time (the log records it on the advanced service clock): a
      // receiver's default 5-minute tolerance on its own clock accepts it however far the sandbox clock has run.
      expect(Math.abs(hits.at(-1)!.signedAt - Date.now() / 1000)).toBeLessThan(60)
      if (index >= 3) expect(last, "the log's time is the sandbox clock, minutes ahead by now").toBeGreaterThan(Date.now() + 60_000)
      expect(verifySignature(hits.at(-1)!.rawBody, hits.at(-1)!.signature, secret).ok).toBe(true)

      // Two seconds before it is due, nothing is sent.
      const untilDue = (Date.parse(current.nextAttemptAt) - (await clockNow(apiKey))) / 1000
      await advance(apiKey, Math.floor(untilDue) - 2)
      expect((await delivery(apiKey, eventId)).attempts).toBe(attemptsSoFar)
      expect(target.ofEvent(eventId)).toHaveLength(attemptsSoFar)

      // Once due, the advance call returns only after the attempt has been made and recorded.
      await advance(apiKey, 3)
      current = await delivery(apiKey, eventId)
      expect(current.attempts).toBe(attemptsSoFar + 1)
      const scheduled = last + delaySeconds * 1000
      expect(Date.parse(current.lastAttemptAt)).toBeGreaterThanOrEqual(scheduled)
      expect(Date.parse(current.lastAttemptAt)).toBeLessThan(scheduled + 10_000)
      expect(target.ofEvent(eventId)).toHaveLength(attemptsSoFar + 1)
    }

    expect(current).toMatchObject({ status: "DEAD", attempts: 8, nextAttemptAt: null, lastResponseStatus: 500, deliveredAt: null })
    await advance(apiKey, 3 * 86_400)
    expect(target.ofEvent(eventId)).toHaveLength(8)
    const dead = await app.request("GET", "/partner/v1/webhook/deliveries?status=DEAD", { apiKey })
    expect(dead.body.data.map((d: { id: string }) => d.id)).toEqual([eventId])

    // Replay: back to PENDING with the same id, sent again; a 2xx marks it DELIVERED.
    target.setResponder(() => 204)
    const replayed = await app.request("POST", `/partner/v1/webhook/deliveries/${eventId}/replay`, { apiKey })
    expect(replayed.status).toBe(200)
    expect(replayed.body.data).toMatchObject({ id: eventId, status: "PENDING", attempts: 8, deliveredAt: null })
    const delivered = await eventually(async () => {
      const d = await delivery(apiKey, eventId)
      return d.status === "DELIVERED" ? d : undefined
    }, "the replayed delivery")
    expect(delivered).toMatchObject({ attempts: 9, lastResponseStatus: 204, lastError: null, nextAttemptAt: null })
    expect(Date.parse(delivered.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(delivered.lastAttemptAt))
    const hits = target.ofEvent(eventId)
    expect(hits).toHaveLength(9)
    expect(hits.at(-1)!.headers["x-service-event-id"]).toBe(eventId)
    expect(JSON.parse(hits.at(-1)!.rawBody)).toEqual(delivered.payload)
    expect(JSON.parse(hits.at(-1)!.rawBody)).toEqual(JSON.parse(hits[0]!.rawBody))
  })

  it("an answer of 410 makes the delivery DEAD at once; a replay starts a fresh schedule", async () => {
    const target = await receiver((d) => (d.type === "webhook.test" ? 200 : 410))
    const { apiKey } = await partnerWithUrl(target)
    const eventId = await registerCustomer(apiKey)
    const dead = await eventually(async () => {
      const d = await delivery(apiKey, eventId)
      return d.status === "DEAD" ? d : undefined
    }, "the 410")
    expect(dead).toMatchObject({ attempts: 1, lastResponseStatus: 410, nextAttemptAt: null, deliveredAt: null })
    await advance(apiKey, 86_400)
    expect(target.ofEvent(eventId)).toHaveLength(1)

    target.setResponder(() => 503)
    await app.request("POST", `/partner/v1/webhook/deliveries/${eventId}/replay`, { apiKey })
    const retried = await eventually(async () => {
      const d = await delivery(apiKey, eventId)
      return d.attempts === 2 ? d : undefined
    }, "the replayed attempt")
    expect(retried).toMatchObject({ status: "PENDING", lastResponseStatus: 503 })
    expect(Date.parse(retried.nextAttemptAt) - Date.parse(retried.lastAttemptAt)).toBe(30_000)
    expect(target.ofEvent(eventId)).toHaveLength(2)
  })

  it("a connection error is retried like a failed answer", async () => {
    const target = await receiver()
    const { apiKey } = await partnerWithUrl(target)
    await target.close()
    const eventId = await registerCustomer(apiKey)
    const failed = await eventually(async () => {
      const d = await delivery(apiKey, eventId)
      return d.attempts === 1 ? d : undefined
    }, "the first attempt")
    expect(failed).toMatchObject({ status: "PENDING", lastResponseStatus: null })
    expect(failed.lastError).toMatch(/^connection failed: /)
    expect(Date.parse(failed.nextAttemptAt) - Date.parse(failed.lastAttemptAt)).toBe(30_000)
  })
})

describe("isolation", () => {
  it("a partner whose endpoint hangs does not delay another partner's deliveries", async () => {
    const slow = await receiver((d) => (d.type === "webhook.test" ? 200 : "hang"))
    const fast = await receiver(() => 200)
    const hanging = await partnerWithUrl(slow)
    const prompt = await partnerWithUrl(fast)
    const slowEvents: Array<string> = []
    for (let i = 0; i < 6; i++) slowEvents.push(await registerCustomer(hanging.apiKey))
    await eventually(async () => (slow.received.filter((d) => d.type === "customer.registered").length >= 4 ? true : undefined), "the hanging attempts")
    const eventId = await registerCustomer(prompt.apiKey)
    const delivered = await eventually(async () => {
      const d = await delivery(prompt.apiKey, eventId)
      return d.status === "DELIVERED" ? d : undefined
    }, "the other partner's delivery")
    expect(delivered.attempts).toBe(1)
    // Meanwhile the hanging partner's attempts are still in flight, and at most 4 of them at once.
    for (const id of slowEvents) expect((await delivery(hanging.apiKey, id)).attempts).toBe(0)
    expect(slow.received.filter((d) => d.type === "customer.registered").length).toBe(4)
    // The hanging attempts end here (their connections closed) instead of holding the dispatcher's slots until the
    // answer time-out, so that the tests after this one find it idle.
    await slow.close()
  })

  it("a partner's clock advance does not wait for another partner's attempt that hangs", async () => {
    const slow = await receiver((d) => (d.type === "webhook.test" ? 200 : "hang"))
    const hanging = await partnerWithUrl(slow)
    const prompt = await partnerWithUrl(await receiver(() => 200))
    const slowEvent = await registerCustomer(hanging.apiKey)
    await eventually(async () => (slow.received.some((d) => d.eventId === slowEvent) ? true : undefined), "the hanging attempt")
    // The advance drains what became due for this partner: none of the hanging partner's attempt, which the receiver
    // holds until the answer time-out (10 s here) and which is still unrecorded when the advance has answered.
    expect((await app.request("POST", "/sandbox/clock/advance", { apiKey: prompt.apiKey, body: { seconds: 60 } })).status).toBe(200)
    expect(await delivery(hanging.apiKey, slowEvent)).toMatchObject({ status: "PENDING", attempts: 0 })
    await slow.close()
  })
})

describe("answer time-out", () => {
  let short: TestApp
  beforeAll(async () => {
    short = await startTestApp({ config: { webhookTimeoutMs: 500 } })
  })
  afterAll(() => short?.close())

  it("cuts a receiver that does not answer and schedules the retry", async () => {
    const target = await receiver(() => "hang")
    const { apiKey } = await fixtures(short).partner()
    const put = await short.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: target.url } })
    expect(put.status).toBe(200)
    expect(put.body.data.test).toEqual({ delivered: false, statusCode: null, error: "timed out after 500 ms" })
    const eventId = target.received[0]!.eventId
    const logged = (await short.request("GET", `/partner/v1/webhook/deliveries/${eventId}`, { apiKey })).body.data
    expect(logged).toMatchObject({ type: "webhook.test", status: "PENDING", attempts: 1, lastError: "timed out after 500 ms" })
    expect(Date.parse(logged.nextAttemptAt) - Date.parse(logged.lastAttemptAt)).toBe(30_000)
  })
})

describe("claims", () => {
  // A fresh app: no other partner's deliveries are due in it.
  let fresh: TestApp
  beforeAll(async () => {
    fresh = await startTestApp()
  })
  afterAll(() => fresh?.close())
  const queueDue = async (partnerId: string, count: number, dueAt: Date) => {
    for (let i = 0; i < count; i++) {
      const id = NodeCrypto.randomUUID()
      await fresh.query(
        "INSERT INTO events (id, partner_id, type, data, created_at) VALUES ($1, $2, 'test.claim', '{}'::jsonb, $3)",
        [id, partnerId, dueAt]
      )
      await fresh.query(
        "INSERT INTO webhook_deliveries (event_id, partner_id, type, status, next_attempt_at, created_at) VALUES ($1, $2, 'test.claim', 'PENDING', $3, $3)",
        [id, partnerId, dueAt]
      )
    }
  }
  const claim = (now: Date, limit: number, perPartnerMax: number, excludedPartners: ReadonlyArray<string> = []) =>
    Effect.flatMap(WebhooksRepo.make, (repo) =>
      repo.claimDue({ now, limit, perPartnerMax, excludedPartners, leaseToken: NodeCrypto.randomUUID(), leaseSeconds: 120 }))

  it("concurrent claimers never take the same delivery; a claim takes at most a partner's share and skips full partners", async () => {
    const target = await receiver(() => 200)
    const a = await fixtures(fresh).partner()
    const b = await fixtures(fresh).partner()
    for (const partner of [a, b]) {
      expect((await fresh.request("PUT", "/partner/v1/webhook", { apiKey: partner.apiKey, body: { url: target.url } })).status).toBe(200)
    }
    // Due tomorrow on the service clock: out of the running dispatcher's reach, claimed here with a later `now`.
    const now = Date.parse((await fresh.request("GET", "/sandbox/clock", { apiKey: a.apiKey })).body.data.now)
    const tomorrow = new Date(now + 86_400_000)
    const later = new Date(tomorrow.getTime() + 86_400_000)
    await queueDue(a.partnerId, 12, tomorrow)
    const batches = await fresh.run(Effect.all(Array.from({ length: 4 }, () => claim(later, 3, 100)), { concurrency: "unbounded" }))
    const claimed = batches.flat().map((row) => row.eventId)
    // Concurrent claimers may come back short (a row another one has locked is skipped), never overlapping.
    expect(claimed.length).toBeGreaterThan(0)
    expect(new Set(claimed).size).toBe(claimed.length)
    for (let round = 0; round < 12 && claimed.length < 12; round++) {
      claimed.push(...(await fresh.run(claim(later, 3, 100))).map((row) => row.eventId))
    }
    expect(claimed).toHaveLength(12)
    expect(new Set(claimed).size).toBe(12)
    expect(await fresh.run(claim(later, 100, 100))).toHaveLength(0)

    await queueDue(b.partnerId, 6, tomorrow)
    const first = await fresh.run(claim(later, 100, 4))
    expect(first.map((row) => row.partnerId)).toEqual([b.partnerId, b.partnerId, b.partnerId, b.partnerId])
    expect(await fresh.run(claim(later, 100, 4, [b.partnerId]))).toHaveLength(0)
    const rest = await fresh.run(claim(later, 100, 4))
    expect(rest).toHaveLength(2)
    expect(new Set([...first, ...rest].map((row) => row.eventId)).size).toBe(6)
    // The claim carries what the attempt needs: the URL and the sealed secret, never a plaintext one.
    expect(first[0]!.url).toBe(target.url)
    const secrets = await fresh.query<{ secretCiphertext: Uint8Array }>("SELECT secret_ciphertext FROM webhook_configs WHERE partner_id = $1", [b.partnerId])
    expect(Buffer.from(first[0]!.secretCiphertext)).toEqual(Buffer.from(secrets[0]!.secretCiphertext))
  })
  it("outcomes are recorded many per statement, each only while its lease is the claimer's", async () => {
    const target = await receiver(() => 200)
    const c = await fixtures(fresh).partner()
    expect((await fresh.request("PUT", "/partner/v1/webhook", { apiKey: c.apiKey, body: { url: target.url } })).status).toBe(200)
    const now = Date.parse((await fresh.request("GET", "/sandbox/clock", { apiKey: c.apiKey })).body.data.now)
    const tomorrow = new Date(now + 86_400_000)
    const later = new Date(tomorrow.getTime() + 86_400_000)
    await queueDue(c.partnerId, 3, tomorrow)
    const claimed = await fresh.run(claim(later, 3, 4))
    expect(claimed).toHaveLength(3)
    // A replay meanwhile takes the first one's lease away: its outcome is dropped, the others are written.
    await fresh.query("UPDATE webhook_deliveries SET lease_token = NULL, lease_until = NULL WHERE event_id = $1", [claimed[0]!.eventId])
    const attemptedAt = new Date(later.getTime() + 1000)
    const retryAt = new Date(attemptedAt.getTime() + 30_000)
    const recorded = await fresh.run(Effect.flatMap(WebhooksRepo.make, (repo) =>
      repo.recordAttempts(claimed.map((row, i) => ({
        eventId: row.eventId,
        leaseToken: row.leaseToken,
        status: i === 1 ? "DELIVERED" as const : "PENDING" as const,
        attemptedAt,
        nextAttemptAt: i === 1 ? null : retryAt,
        responseStatus: i === 1 ? 204 : 500,
        error: i === 1 ? null : "HTTP 500",
        deliveredAt: i === 1 ? attemptedAt : null
      })))
    ))
    expect([...recorded].sort()).toEqual([claimed[1]!.eventId, claimed[2]!.eventId].sort())
    const rows = await fresh.query<{ eventId: string; status: string; attempts: number; nextAttemptAt: Date | null; lastError: string | null; leaseToken: string | null }>(
      "SELECT event_id, status, attempts, next_attempt_at, last_error, lease_token FROM webhook_deliveries WHERE event_id = ANY($1::uuid[])",
      [claimed.map((row) => row.eventId)]
    )
    const byId = new Map(rows.map((row) => [row.eventId, row]))
    expect(byId.get(claimed[0]!.eventId)).toMatchObject({ status: "PENDING", attempts: 0, lastError: null })
    expect(byId.get(claimed[1]!.eventId)).toMatchObject({ status: "DELIVERED", attempts: 1, nextAttemptAt: null, lastError: null, leaseToken: null })
    expect(byId.get(claimed[2]!.eventId)).toMatchObject({ status: "PENDING", attempts: 1, lastError: "HTTP 500", leaseToken: null })
    expect(new Date(byId.get(claimed[2]!.eventId)!.nextAttemptAt!).getTime()).toBe(retryAt.getTime())
  })

  it("a claim takes only a partner's free slots when some of its attempts are already in flight", async () => {
    const target = await receiver(() => 200)
    const d = await fixtures(fresh).partner()
    expect((await fresh.request("PUT", "/partner/v1/webhook", { apiKey: d.apiKey, body: { url: target.url } })).status).toBe(200)
    const now = Date.parse((await fresh.request("GET", "/sandbox/clock", { apiKey: d.apiKey })).body.data.now)
    const tomorrow = new Date(now + 86_400_000)
    const later = new Date(tomorrow.getTime() + 86_400_000)
    await queueDue(d.partnerId, 6, tomorrow)
    const taken = await fresh.run(Effect.flatMap(WebhooksRepo.make, (repo) =>
      repo.claimDue({ now: later, limit: 100, perPartnerMax: 4, excludedPartners: [], busy: { [d.partnerId]: 3 }, leaseToken: NodeCrypto.randomUUID(), leaseSeconds: 120 })))
    // (Rows other tests here left unleased may come along; only this partner's count matters.)
    expect(taken.filter((row) => row.partnerId === d.partnerId)).toHaveLength(1)
    expect((await fresh.run(claim(later, 100, 4))).filter((row) => row.partnerId === d.partnerId)).toHaveLength(4)
  })
})

describe("a secret this instance cannot open", () => {
  it("is a failed attempt with its reason in the delivery log, on the retry schedule; nothing is sent", async () => {
    const target = await receiver(() => 200)
    const { apiKey, partnerId } = await partnerWithUrl(target)
    // A sealed secret damaged (or sealed with another key): its authentication tag no longer matches.
    await app.query("UPDATE webhook_configs SET secret_ciphertext = set_byte(secret_ciphertext, 0, (get_byte(secret_ciphertext, 0) + 1) % 256) WHERE partner_id = $1", [partnerId])
    const id = await registerCustomer(apiKey)
    const failed = await eventually(async () => {
      const d = await delivery(apiKey, id)
      return d.attempts >= 1 ? d : undefined
    }, "the first attempt")
    expect(failed).toMatchObject({ status: "PENDING", attempts: 1, lastResponseStatus: null, lastError: unopenableSecret })
    expect(target.ofEvent(id)).toHaveLength(0)
    // The retry schedule applies: the next attempt fails the same way, 30 s later on the partner's clock.
    await advance(apiKey, retryDelaysSeconds[0]!)
    const again = await eventually(async () => {
      const d = await delivery(apiKey, id)
      return d.attempts >= 2 ? d : undefined
    }, "the second attempt")
    expect(again).toMatchObject({ status: "PENDING", attempts: 2, lastError: unopenableSecret })
    expect(target.ofEvent(id)).toHaveLength(0)
  })
})

describe("recovery", () => {
  let fresh: TestApp
  beforeAll(async () => {
    fresh = await startTestApp()
  })
  afterAll(() => fresh?.close())

  /** A partner of `fresh` whose URL is `target`, and a delivery of a new event of it due tomorrow on the service clock. */
  const dueTomorrow = async (target: Receiver) => {
    const { apiKey, partnerId } = await fixtures(fresh).partner()
    expect((await fresh.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: target.url } })).status).toBe(200)
    const now = Date.parse((await fresh.request("GET", "/sandbox/clock", { apiKey })).body.data.now)
    const tomorrow = new Date(now + 86_400_000)
    const id = NodeCrypto.randomUUID()
    await fresh.query("INSERT INTO events (id, partner_id, type, data, created_at) VALUES ($1, $2, 'test.recovery', '{}'::jsonb, $3)", [id, partnerId, tomorrow])
    await fresh.query(
      "INSERT INTO webhook_deliveries (event_id, partner_id, type, status, next_attempt_at, created_at) VALUES ($1, $2, 'test.recovery', 'PENDING', $3, $3)",
      [id, partnerId, tomorrow]
    )
    return { apiKey, id, tomorrow }
  }
  const read = async (apiKey: string, id: string) => (await fresh.request("GET", `/partner/v1/webhook/deliveries/${id}`, { apiKey })).body.data
  /** What a process that is killed after its POST and before writing the outcome leaves: a POST made, a lease held. */
  const postWithoutOutcome = (claimed: WebhooksRepo.ClaimedDelivery) =>
    fresh.run(Effect.flatMap(WebhookSender, (sender) => sender.send(claimed)))
  const expireLease = (id: string) => fresh.query("UPDATE webhook_deliveries SET lease_until = now() - interval '1 second' WHERE event_id = $1", [id])

  it("counts an attempt whose outcome was never written (a crash after the POST): attempts equals the POSTs received", async () => {
    const target = await receiver(() => 200)
    const { apiKey, id, tomorrow } = await dueTomorrow(target)
    const later = new Date(tomorrow.getTime() + 60_000)
    const claim = () =>
      fresh.run(Effect.flatMap(WebhooksRepo.make, (repo) =>
        repo.claimDue({ now: later, limit: 10, perPartnerMax: 4, excludedPartners: [], leaseToken: NodeCrypto.randomUUID(), leaseSeconds: 120 })))

    // First process: claims, POSTs, dies before writing. Nothing is logged yet: the lease still holds the row.
    const first = (await claim()).find((row) => row.eventId === id)!
    expect(first.attempts).toBe(0)
    await postWithoutOutcome(first)
    expect(target.ofEvent(id)).toHaveLength(1)
    expect(await read(apiKey, id)).toMatchObject({ status: "PENDING", attempts: 0, lastAttemptAt: null, lastError: null })

    // Its lease ends; the next claim counts that attempt in the claim itself, and says why it has no answer.
    await expireLease(id)
    const second = (await claim()).find((row) => row.eventId === id)!
    expect(second.attempts).toBe(1)
    expect(await read(apiKey, id)).toMatchObject({
      status: "PENDING",
      attempts: 1,
      lastAttemptAt: later.toISOString(),
      lastResponseStatus: null,
      lastError: WebhooksRepo.outcomeLostError
    })
    // That process dies the same way; the dispatcher takes the row when the lease ends and the delivery is due.
    await postWithoutOutcome(second)
    await expireLease(id)
    await fixtures(fresh).advance({ apiKey }, 2 * 86_400)
    const delivered = await eventually(async () => {
      const d = await read(apiKey, id)
      return d.status === "DELIVERED" ? d : undefined
    }, "the recovered delivery")
    expect(target.ofEvent(id)).toHaveLength(3)
    expect(delivered).toMatchObject({ attempts: 3, lastResponseStatus: 200, lastError: null })
  })

  it("an attempt cut by a shutdown, or in flight when the delivery is replayed, is counted, saying why it has no answer", async () => {
    const target = await receiver(() => 200)
    const { apiKey, id } = await dueTomorrow(target)
    const lease = () =>
      fresh.run(Effect.flatMap(WebhooksRepo.make, (repo) => repo.leaseOne(id, NodeCrypto.randomUUID(), 120))).then((row) => Option.getOrThrow(row))

    // Cut by a shutdown after its POST: the lease ends at once, and the dispatcher's next claim counts the attempt.
    const cut = await lease()
    await postWithoutOutcome(cut)
    await fresh.run(Effect.flatMap(WebhooksRepo.make, (repo) => repo.abandon([id], cut.leaseToken)))
    await fixtures(fresh).advance({ apiKey }, 2 * 86_400)
    const afterCut = await eventually(async () => {
      const d = await read(apiKey, id)
      return d.status === "DELIVERED" ? d : undefined
    }, "the delivery after the cut attempt")
    expect(afterCut).toMatchObject({ attempts: 2, lastError: null })
    expect(target.ofEvent(id)).toHaveLength(2)

    // In flight (leased, POST made) when the partner replays it: counted at once; its outcome, if any, is dropped.
    const inFlight = await lease()
    await postWithoutOutcome(inFlight)
    const replayed = await fresh.request("POST", `/partner/v1/webhook/deliveries/${id}/replay`, { apiKey })
    expect(replayed.status).toBe(200)
    expect(replayed.body.data).toMatchObject({ status: "PENDING", attempts: 3, lastResponseStatus: null, lastError: WebhooksRepo.outcomeReplacedError })
    const redelivered = await eventually(async () => {
      const d = await read(apiKey, id)
      return d.status === "DELIVERED" ? d : undefined
    }, "the replayed delivery")
    expect(redelivered).toMatchObject({ attempts: 4, lastError: null })
    expect(target.ofEvent(id)).toHaveLength(4)
    // The late outcome of the replaced attempt is not written (its lease is gone).
    expect(await fresh.run(Effect.flatMap(WebhooksRepo.make, (repo) =>
      repo.recordAttempts([{ eventId: id, leaseToken: inFlight.leaseToken, status: "DELIVERED", attemptedAt: new Date(), nextAttemptAt: null, responseStatus: 200, error: null, deliveredAt: new Date() }])
    ))).toEqual(new Set())
    expect((await read(apiKey, id)).attempts).toBe(4)
  })
})
