import { Effect, Option, Redacted } from "effect"
import { ServiceClock } from "../src/clock/ServiceClock.js"
import { Jobs } from "../src/jobs/Jobs.js"
import * as WebhooksRepo from "../src/webhooks/WebhooksRepo.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtures } from "./support/Fixtures.js"
import { databaseKind, startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually, type Receiver, startReceiver } from "./support/WebhookReceiver.js"

/**
 * A clock per partner (docs/sandbox.md "A clock per partner"): two partners of one instance advance their own
 * clocks; one's jobs (charge expiry, rail delays), webhook retries and quote expiry do not move for the other, and
 * an advance answers only after the advancing partner's due work has run.
 */
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

interface Customer {
  readonly apiKey: string
  readonly partnerId: string
  readonly id: string
  readonly base: string
}

const newCustomer = async (partner?: { apiKey: string; partnerId: string }): Promise<Customer> => {
  const owner = partner ?? await fx.partner()
  const { id } = await fx.customer(owner, { country: "NG" })
  await fx.approveTier1(owner, id, { bvn: "12345678901", nin: "10987654321" })
  return { apiKey: owner.apiKey, partnerId: owner.partnerId, id, base: `/partner/v1/customers/${id}` }
}

const clock = async (apiKey: string) => {
  const reply = await app.request("GET", "/sandbox/clock", { apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data as { now: string; offsetSeconds: number; partnerOffsetSeconds: number }
}

const advance = async (apiKey: string, seconds: number) => {
  const reply = await app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds } })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body.data as { now: string; offsetSeconds: number; partnerOffsetSeconds: number }
}

const charge = async (c: Customer, amount: number) => {
  const reply = await app.request("POST", `${c.base}/funding/charge`, { apiKey: c.apiKey, body: { amount } })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.data as { id: string; status: string; expiresAt: string; createdAt: string }
}

const chargeStatus = async (c: Customer, id: string) =>
  (await app.request("GET", `${c.base}/funding/charges/${id}`, { apiKey: c.apiKey })).body.data.status as string

const setBank = async (apiKey: string, body: Record<string, unknown>) =>
  expect((await app.request("PUT", "/sandbox/rails/bank", { apiKey, body })).status).toBe(200)

describe("a clock per partner", () => {
  it("an advance moves only the caller's clock; the reading names the partner's own offset", async () => {
    const a = await fx.partner()
    const b = await fx.partner()
    const [startA, startB] = [await clock(a.apiKey), await clock(b.apiKey)]
    expect(startA.partnerOffsetSeconds).toBe(0)
    expect(startB.partnerOffsetSeconds).toBe(0)
    const moved = await advance(a.apiKey, 3 * 86_400)
    expect(moved.offsetSeconds).toBe(startA.offsetSeconds + 3 * 86_400)
    expect(moved.partnerOffsetSeconds).toBe(3 * 86_400)
    expect(Date.parse(moved.now) - Date.parse(startA.now)).toBeGreaterThanOrEqual(3 * 86_400_000)
    const afterB = await clock(b.apiKey)
    expect(afterB.offsetSeconds).toBe(startB.offsetSeconds)
    expect(afterB.partnerOffsetSeconds).toBe(0)
    expect(Date.parse(afterB.now) - Date.parse(startB.now)).toBeLessThan(86_400_000)
    // Persisted per partner.
    expect(await app.query("SELECT offset_ms::text AS offset_ms FROM partner_clock_offsets WHERE partner_id = $1", [a.partnerId]))
      .toEqual([{ offsetMs: String(3 * 86_400_000) }])
    expect(await app.query("SELECT partner_id FROM partner_clock_offsets WHERE partner_id = $1", [b.partnerId])).toEqual([])
  })

  it("concurrent advances of one partner add up", async () => {
    const a = await fx.partner()
    const replies = await Promise.all(Array.from({ length: 5 }, () => app.request("POST", "/sandbox/clock/advance", { apiKey: a.apiKey, body: { seconds: 60 } })))
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200])
    expect((await clock(a.apiKey)).partnerOffsetSeconds).toBe(300)
  })

  it("records are stamped on their partner's clock", async () => {
    const a = await newCustomer()
    const b = await newCustomer()
    await advance(a.apiKey, 10 * 86_400)
    const [chargeA, chargeB] = [await charge(a, 100), await charge(b, 100)]
    const [clockA, clockB] = [await clock(a.apiKey), await clock(b.apiKey)]
    expect(Math.abs(Date.parse(chargeA.createdAt) - Date.parse(clockA.now))).toBeLessThan(60_000)
    expect(Math.abs(Date.parse(chargeB.createdAt) - Date.parse(clockB.now))).toBeLessThan(60_000)
    expect(Date.parse(chargeA.createdAt) - Date.parse(chargeB.createdAt)).toBeGreaterThan(9 * 86_400_000)
  })

  it("jobs: one partner's charge expiry and rail delay run on its advance only; the other's stay pending until its own", async () => {
    const a = await newCustomer()
    const b = await newCustomer()
    await setBank(a.apiKey, { mode: "manual" })
    await setBank(b.apiKey, { mode: "auto", delaySeconds: 600 })
    const expiringA = await charge(a, 300)
    const expiringB = await charge(b, 300)
    // B's charge is paid by the bank rail after 600 s of B's clock.
    const dueB = await app.request("GET", "/sandbox/clock/due?seconds=600", { apiKey: b.apiKey })
    expect(dueB.status).toBe(200)
    expect(dueB.body.data.length).toBeGreaterThan(0)

    await advance(a.apiKey, 30 * 60)
    expect(await chargeStatus(a, expiringA.id)).toBe("EXPIRED")
    expect(await chargeStatus(b, expiringB.id)).toBe("PENDING")
    // Advancing A by far more than B's rail delay does not pay B's charge either.
    await advance(a.apiKey, 7 * 86_400)
    expect(await chargeStatus(b, expiringB.id)).toBe("PENDING")
    const balanceB = await app.request("GET", `${b.base}/balance`, { apiKey: b.apiKey })
    expect((balanceB.body.data as Array<{ currency: string; balance: number }>).find((x) => x.currency === "NGN")?.balance ?? 0).toBe(0)

    // B's own advance runs B's due work before it answers.
    await advance(b.apiKey, 599)
    expect(await chargeStatus(b, expiringB.id)).toBe("PENDING")
    await advance(b.apiKey, 1)
    expect(await chargeStatus(b, expiringB.id)).toBe("PAID")
    const events = await app.request("GET", `/sandbox/events?customerId=${b.id}&type=funding.received`, { apiKey: b.apiKey })
    expect(events.body.data).toHaveLength(1)
    // The event's time is B's clock (not A's, 7 days ahead).
    const clockB = await clock(b.apiKey)
    expect(Math.abs(Date.parse(events.body.data[0].createdAt) - Date.parse(clockB.now))).toBeLessThan(60_000)
  })

  it("quote expiry follows the quoting partner's clock", async () => {
    const a = await newCustomer()
    const b = await newCustomer()
    for (const c of [a, b]) {
      expect((await app.request("GET", `${c.base}/virtual-account`, { apiKey: c.apiKey })).status).toBe(200)
      expect((await app.request("POST", `/sandbox/customers/${c.id}/virtual-account/credit`, { apiKey: c.apiKey, body: { amount: 50_000 } })).status).toBe(201)
    }
    const quote = async (c: Customer) => {
      const reply = await app.request("POST", `${c.base}/buy/quote`, {
        apiKey: c.apiKey,
        body: { amount: 10_000, sourceCurrency: "NGN", destinationCurrency: "USDT", type: "buy" }
      })
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
      return reply.body.data as { id: string; expiresAt: string }
    }
    const [quoteA, quoteB] = [await quote(a), await quote(b)]
    await advance(a.apiKey, 60)
    const expired = await app.request("POST", `${a.base}/buy/execute`, { apiKey: a.apiKey, body: { quoteId: quoteA.id } })
    expect({ status: expired.status, code: expired.body.code }).toEqual({ status: 400, code: "QUOTE_EXPIRED" })
    const executed = await app.request("POST", `${b.base}/buy/execute`, { apiKey: b.apiKey, body: { quoteId: quoteB.id } })
    expect(executed.status, JSON.stringify(executed.body)).toBe(200)
  })

  it("webhook retries: one partner's advance makes only its own retry due", async () => {
    const setup = async () => {
      const partner = await fx.partner()
      const target = await startReceiver(() => 500)
      receivers.push(target)
      await fx.setWebhook(partner, target.url)
      const created = await fx.customer(partner)
      const events = await app.request<{ data: Array<{ id: string }> }>(
        "GET",
        `/sandbox/events?type=customer.registered&customerId=${created.id}`,
        { apiKey: partner.apiKey }
      )
      const eventId = events.body.data[0]!.id
      const attempts = () => target.received.filter((d) => d.eventId === eventId).length
      await eventually(async () => (attempts() >= 1 ? true : undefined), "the first attempt")
      await eventually(async () => {
        const delivery = await app.request("GET", `/partner/v1/webhook/deliveries/${eventId}`, { apiKey: partner.apiKey })
        return delivery.body.data.attempts === 1 && delivery.body.data.status === "PENDING" ? delivery.body.data : undefined
      }, "the first attempt recorded")
      return { ...partner, eventId, attempts }
    }
    const a = await setup()
    const b = await setup()
    const delivery = async (p: typeof a) =>
      (await app.request("GET", `/partner/v1/webhook/deliveries/${p.eventId}`, { apiKey: p.apiKey })).body.data as { attempts: number; nextAttemptAt: string }
    const first = await delivery(b)
    // The first retry is 30 s after the first attempt: A's 30 s make A's retry due, and the advance waits for it.
    await advance(a.apiKey, 30)
    expect((await delivery(a)).attempts).toBe(2)
    expect(a.attempts()).toBe(2)
    await advance(a.apiKey, 86_400)
    expect((await delivery(a)).attempts).toBeGreaterThan(2)
    // B's retry has not come: its clock did not move.
    expect(await delivery(b)).toMatchObject({ attempts: 1, nextAttemptAt: first.nextAttemptAt })
    expect(b.attempts()).toBe(1)
    await advance(b.apiKey, 30)
    expect((await delivery(b)).attempts).toBe(2)
    expect(b.attempts()).toBe(2)
  })

  it("an advance's drain does not wait on or run another partner's work that is not due on its clock", async () => {
    const a = await newCustomer()
    const b = await newCustomer()
    await setBank(b.apiKey, { mode: "manual" })
    const pending = await charge(b, 50)
    const dueBefore = await app.request("GET", "/sandbox/clock/due?seconds=1800", { apiKey: b.apiKey })
    expect(dueBefore.body.data.map((j: { resourceId: string | null }) => j.resourceId)).toContain(pending.id)
    await advance(a.apiKey, 400 * 86_400)
    const dueAfter = await app.request("GET", "/sandbox/clock/due?seconds=1800", { apiKey: b.apiKey })
    expect(dueAfter.body.data).toEqual(dueBefore.body.data)
    expect(await chargeStatus(b, pending.id)).toBe("PENDING")
  })

  it("the daemons sleep until an advanced partner's next job and retry fall due on the instance's clock", async () => {
    const own = await startTestApp()
    const target = await startReceiver(() => 500)
    receivers.push(target)
    try {
      const ownFx = fixtures(own)
      const partner = await ownFx.partner()
      await ownFx.setWebhook(partner, target.url)
      await ownFx.advance(partner, 86_400)
      await ownFx.setRail(partner, "bank", { mode: "manual" })
      const { id: customerId } = await ownFx.customer(partner, { country: "NG" })
      expect((await own.request("POST", `/partner/v1/customers/${customerId}/funding/charge`, { apiKey: partner.apiKey, body: { amount: 100 } })).status).toBe(201)
      // The customer.registered delivery failed once: its retry is 30 s later on the partner's clock.
      await eventually(async () => {
        const delivery = await own.request("GET", `/partner/v1/webhook/deliveries?limit=1&status=PENDING`, { apiKey: partner.apiKey })
        return delivery.body.data.some((d: { attempts: number }) => d.attempts >= 1) ? true : undefined
      }, "a failed first attempt")
      const { instanceNow, jobAt, retryAt } = await own.run(Effect.gen(function*() {
        const clock = yield* ServiceClock
        const jobs = yield* Jobs
        const repo = yield* WebhooksRepo.make
        return { instanceNow: yield* clock.instanceNow, jobAt: yield* jobs.nextDueAt, retryAt: yield* repo.nextDueAt(yield* clock.partnersAhead) }
      }))
      // The charge expires 30 minutes after it was made on the partner's clock (a day ahead): on the instance's
      // clock, 30 minutes from now; the retry 30 seconds from the first attempt. Not a day later.
      expect(Option.getOrThrow(jobAt).getTime() - instanceNow.getTime()).toBe(30 * 60 * 1000)
      const retryIn = retryAt!.getTime() - instanceNow.getTime()
      expect(retryIn).toBeGreaterThan(0)
      expect(retryIn).toBeLessThanOrEqual(30_000)
    } finally {
      await own.close()
    }
  })

  it.skipIf(databaseKind() !== "postgres")("another process on the same database reads a partner's advance within its re-read interval; other partners stay put", async () => {
    const config = { databaseUrl: Option.some(Redacted.make(app.database!.url!)) }
    const first = await startTestApp({ database: app.database!, config })
    const second = await startTestApp({ database: app.database!, config })
    try {
      const partner = await fixtures(first).partner()
      const other = await fixtures(first).partner()
      const advanced = await first.request("POST", "/sandbox/clock/advance", { apiKey: partner.apiKey, body: { seconds: 86_400 } })
      expect(advanced.status).toBe(200)
      const reading = await eventually(async () => {
        const seen = (await second.request("GET", "/sandbox/clock", { apiKey: partner.apiKey })).body.data
        return seen.partnerOffsetSeconds === 86_400 ? seen : undefined
      }, "the second process to read the advanced offset")
      expect(reading.offsetSeconds).toBe(86_400)
      expect((await second.request("GET", "/sandbox/clock", { apiKey: other.apiKey })).body.data.partnerOffsetSeconds).toBe(0)
    } finally {
      await first.close()
      await second.close()
    }
  })
})
