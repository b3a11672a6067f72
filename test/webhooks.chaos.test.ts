import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifySignature } from "../src/webhooks/verifySignature.js"
import { fixtures } from "./support/Fixtures.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually, type Receiver, startReceiver } from "./support/WebhookReceiver.js"

/**
 * Sandbox webhook chaos (docs/sandbox.md "Webhook chaos") observed by a real receiver on loopback: duplicates, a
 * reorder window, an extra delay and first attempts failed on purpose; the report matches what the receiver saw; a
 * body and an id never change; every copy is correctly signed.
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

const setup = async (chaos: Record<string, unknown>) => {
  const target = await startReceiver()
  receivers.push(target)
  const { apiKey } = await fx.partner()
  const { secret } = await fx.setWebhook({ apiKey }, target.url)
  const set = await app.request("PUT", "/sandbox/webhook/chaos", { apiKey, body: chaos })
  expect(set.status, JSON.stringify(set.body)).toBe(200)
  return { apiKey, target, secret }
}

const customer = async (apiKey: string) => {
  const created = await fx.customer({ apiKey })
  const events = await app.request<{ data: Array<{ id: string; type: string; data: unknown }> }>(
    "GET",
    `/sandbox/events?type=customer.registered&customerId=${created.id}`,
    { apiKey }
  )
  return events.body.data[0]!
}

const advance = (apiKey: string, seconds: number) => fx.advance({ apiKey }, seconds)

const report = async (apiKey: string) => (await app.request("GET", "/sandbox/webhook/chaos/report", { apiKey })).body.data

const nonTest = (target: Receiver) => target.received.filter((d) => d.type !== "webhook.test")

describe("webhook chaos", () => {
  it("validates its settings and needs a webhook URL", async () => {
    const { apiKey } = await fx.partner()
    const none = await app.request("PUT", "/sandbox/webhook/chaos", { apiKey, body: { duplicates: 1 } })
    expect(none.status).toBe(400)
    expect(none.body.code).toBe("WEBHOOK_URL_NOT_SET")
    const { apiKey: key } = await setup({})
    for (const [body, field] of [[{ duplicates: 6 }, "duplicates"], [{ failFirstAttempts: 8 }, "failFirstAttempts"], [{ reorderWindowSeconds: 1.5 }, "reorderWindowSeconds"], [{ extraDelaySeconds: -1 }, "extraDelaySeconds"]] as const) {
      const reply = await app.request("PUT", "/sandbox/webhook/chaos", { apiKey: key, body })
      expect(reply.status).toBe(400)
      expect(reply.body.message).toMatch(new RegExp(`^${field}: `))
    }
    expect((await app.request("GET", "/sandbox/webhook/chaos", { apiKey: key })).body.data).toEqual({
      duplicates: 0, reorderWindowSeconds: 0, extraDelaySeconds: 0, failFirstAttempts: 0
    })
  })

  it("duplicates: every delivery arrives 1 + N times with the same body and id, each signed; the report counts the acknowledgements", async () => {
    const { apiKey, secret, target } = await setup({ duplicates: 2 })
    const event = await customer(apiKey)
    await eventually(async () => (nonTest(target).length >= 3 ? true : undefined), "three copies")
    const copies = nonTest(target)
    expect(copies.map((c) => c.eventId)).toEqual([event.id, event.id, event.id])
    expect(new Set(copies.map((c) => c.rawBody)).size).toBe(1)
    expect(JSON.parse(copies[0]!.rawBody)).toMatchObject({ id: event.id, type: "customer.registered", data: event.data })
    for (const copy of copies) expect(verifySignature(copy.rawBody, copy.signature, secret, { now: new Date(copy.signedAt * 1000) }).ok).toBe(true)
    const seen = await report(apiKey)
    expect(seen.settings.duplicates).toBe(2)
    expect(seen.events).toEqual([expect.objectContaining({ eventId: event.id, type: "customer.registered", sent: 3, acknowledged: 3, failedOnPurpose: 0, acknowledgedAt: [1, 2, 3] })])
    expect(seen.acknowledgementOrder).toEqual([event.id, event.id, event.id])
    // The attempt's outcome is written after its copies were sent (the dispatcher's writer batches outcomes), so the
    // delivery log may still say PENDING the moment the receiver has seen the last copy.
    const delivered = await eventually(async () => {
      const delivery = await app.request("GET", `/partner/v1/webhook/deliveries/${event.id}`, { apiKey })
      return delivery.body.data.status === "PENDING" ? undefined : delivery.body.data
    }, "the attempt's outcome")
    expect(delivered).toMatchObject({ status: "DELIVERED", attempts: 1 })
  })

  it("failFirstAttempts: nothing reaches the receiver until the retries, which follow the schedule", async () => {
    const { apiKey, target } = await setup({ failFirstAttempts: 2 })
    const event = await customer(apiKey)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(nonTest(target)).toEqual([])
    await advance(apiKey, 30)
    expect(nonTest(target)).toEqual([])
    await advance(apiKey, 120)
    await eventually(async () => (nonTest(target).length === 1 ? true : undefined), "the third attempt")
    const seen = await report(apiKey)
    expect(seen.events).toEqual([expect.objectContaining({ eventId: event.id, sent: 1, acknowledged: 1, failedOnPurpose: 2 })])
    const delivery = await app.request("GET", `/partner/v1/webhook/deliveries/${event.id}`, { apiKey })
    expect(delivery.body.data).toMatchObject({ status: "DELIVERED", attempts: 3 })
  })

  it("extraDelaySeconds: the first attempt waits on the service clock", async () => {
    const { apiKey, target } = await setup({ extraDelaySeconds: 600 })
    const event = await customer(apiKey)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(nonTest(target)).toEqual([])
    await advance(apiKey, 599)
    expect(nonTest(target)).toEqual([])
    await advance(apiKey, 1)
    await eventually(async () => (nonTest(target).some((d) => d.eventId === event.id) ? true : undefined), "the late delivery")
  })

  it("reorderWindowSeconds: deliveries arrive in another order than the events were made", async () => {
    const { apiKey, target } = await setup({ reorderWindowSeconds: 3600 })
    const made: Array<string> = []
    for (let i = 0; i < 12; i++) made.push((await customer(apiKey)).id)
    await advance(apiKey, 3600)
    await eventually(async () => (nonTest(target).length >= 12 ? true : undefined), "twelve deliveries")
    const arrived = nonTest(target).map((d) => d.eventId)
    expect([...arrived].sort()).toEqual([...made].sort())
    expect(arrived).not.toEqual(made)
  })
})
