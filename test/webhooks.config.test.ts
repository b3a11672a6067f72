import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifySignature } from "../src/webhooks/verifySignature.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually, type Receiver, startReceiver } from "./support/WebhookReceiver.js"

let app: TestApp
let target: Receiver

beforeAll(async () => {
  app = await startTestApp()
  target = await startReceiver(() => 200)
})
afterAll(async () => {
  await app?.close()
  await target?.close()
})

const serviceNow = async (apiKey: string) => new Date((await app.request("GET", "/sandbox/clock", { apiKey })).body.data.now)

const verifyWith = async (apiKey: string, delivery: { rawBody: string; signature: string }, secret: string) =>
  verifySignature(delivery.rawBody, delivery.signature, secret, { now: await serviceNow(apiKey) })

const registerCustomer = async (apiKey: string) => {
  const created = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
  expect(created.status).toBe(201)
  const events = await app.request("GET", `/sandbox/events?customerId=${created.body.data.id}`, { apiKey })
  return events.body.data[0].id as string
}

const deliveryOf = (apiKey: string, id: string) =>
  app.request("GET", `/partner/v1/webhook/deliveries/${id}`, { apiKey }).then((reply) => reply.body.data)

describe("webhook configuration", () => {
  it("reads url null and no secret before a URL is set; rotate then answers 400 WEBHOOK_URL_NOT_SET", async () => {
    const { apiKey } = await app.newPartner()
    const read = await app.request("GET", "/partner/v1/webhook", { apiKey })
    expect(read.status).toBe(200)
    expect(read.body).toEqual({ success: true, data: { url: null, hasSecret: false, updatedAt: null } })
    const rotate = await app.request("POST", "/partner/v1/webhook/rotate-secret", { apiKey })
    expect(rotate.status).toBe(400)
    expect(rotate.body).toMatchObject({ success: false, statusCode: 400, code: "WEBHOOK_URL_NOT_SET" })
  })

  it("PUT stores the URL, returns a secret once and sends a signed webhook.test that verifies with it", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const put = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: target.url } })
    expect(put.status).toBe(200)
    const { secret, url, test } = put.body.data
    expect(url).toBe(target.url)
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(test).toEqual({ delivered: true, statusCode: 200, error: null })

    const sent = target.received.filter((d) => d.type === "webhook.test" && JSON.parse(d.rawBody).data.partnerId === partnerId)
    expect(sent).toHaveLength(1)
    const body = JSON.parse(sent[0]!.rawBody)
    expect(Object.keys(body).sort()).toEqual(["createdAt", "data", "id", "type"])
    expect(body.data).toEqual({ partnerId })
    expect(sent[0]!.headers["content-type"]).toBe("application/json")
    expect(sent[0]!.headers["x-service-event-id"]).toBe(body.id)
    expect(sent[0]!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(await verifyWith(apiKey, sent[0]!, secret)).toMatchObject({ ok: true })
    expect(await verifyWith(apiKey, sent[0]!, secret + "x")).toEqual({ ok: false, reason: "signature_mismatch" })

    const read = await app.request("GET", "/partner/v1/webhook", { apiKey })
    expect(read.body.data).toMatchObject({ url: target.url, hasSecret: true })
    expect(Number.isNaN(Date.parse(read.body.data.updatedAt))).toBe(false)
    expect(JSON.stringify(read.body)).not.toContain(secret)

    // The test event is in the event log and in the delivery log, delivered.
    const logged = await deliveryOf(apiKey, body.id)
    expect(logged).toMatchObject({ id: body.id, type: "webhook.test", status: "DELIVERED", attempts: 1, lastResponseStatus: 200 })
    expect(logged.payload).toEqual(body)
  })

  it("keeps the secret encrypted at rest", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const put = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: target.url } })
    const secret: string = put.body.data.secret
    const rows = await app.query<{ secretCiphertext: Uint8Array }>(
      "SELECT secret_ciphertext FROM webhook_configs WHERE partner_id = $1",
      [partnerId]
    )
    expect(rows).toHaveLength(1)
    const stored = Buffer.from(rows[0]!.secretCiphertext)
    expect(stored.length).toBeGreaterThan(28)
    expect(stored.includes(Buffer.from(secret))).toBe(false)
    expect(stored.includes(Buffer.from(secret.slice("whsec_".length)))).toBe(false)
    expect(stored.includes(Buffer.from(secret.slice("whsec_".length), "base64url"))).toBe(false)
    const everything = await app.query("SELECT * FROM webhook_configs")
    expect(JSON.stringify(everything)).not.toContain(secret.slice("whsec_".length))
  })

  it("rotation: the new secret signs, the previous one stops working, and queued deliveries carry the new one", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const first: string = (await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: target.url } })).body.data.secret
    const rotated = await app.request("POST", "/partner/v1/webhook/rotate-secret", { apiKey })
    expect(rotated.status).toBe(200)
    const second: string = rotated.body.data.secret
    expect(second).not.toBe(first)
    expect(rotated.body.data).toMatchObject({ url: target.url, test: { delivered: true, statusCode: 200, error: null } })
    const tests = target.received.filter((d) => d.type === "webhook.test" && JSON.parse(d.rawBody).data.partnerId === partnerId)
    expect(tests).toHaveLength(2)
    expect(await verifyWith(apiKey, tests[1]!, second)).toMatchObject({ ok: true })
    expect(await verifyWith(apiKey, tests[1]!, first)).toEqual({ ok: false, reason: "signature_mismatch" })

    // A delivery that fails stays queued; after another rotation its retry is signed with the newest secret.
    target.setResponder((d) => (JSON.parse(d.rawBody).data?.partnerId === partnerId || d.type === "customer.registered" ? 500 : 200))
    const eventId = await registerCustomer(apiKey)
    await eventually(async () => ((await deliveryOf(apiKey, eventId)).attempts === 1 ? true : undefined), "the failed first attempt")
    expect(await verifyWith(apiKey, target.ofEvent(eventId)[0]!, second)).toMatchObject({ ok: true })
    const third: string = (await app.request("POST", "/partner/v1/webhook/rotate-secret", { apiKey })).body.data.secret
    target.setResponder(() => 200)
    const advanced = await app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds: 30 } })
    expect(advanced.status).toBe(200)
    const delivered = await deliveryOf(apiKey, eventId)
    expect(delivered).toMatchObject({ status: "DELIVERED", attempts: 2 })
    const retry = target.ofEvent(eventId)[1]!
    expect(await verifyWith(apiKey, retry, third)).toMatchObject({ ok: true })
    expect(await verifyWith(apiKey, retry, second)).toEqual({ ok: false, reason: "signature_mismatch" })
    target.setResponder(() => 200)
  })

  it("refuses bad URLs with 400 naming the rule, and stores nothing", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const cases: Array<[unknown, RegExp]> = [
      [{ url: "not a url" }, /^url: must be an absolute http or https URL/],
      [{ url: "/hooks" }, /^url: must be an absolute http or https URL/],
      [{ url: "ftp://example.com/hooks" }, /^url: must be an absolute http or https URL/],
      [{ url: "javascript:alert(1)" }, /^url: must be an absolute http or https URL/],
      [{ url: "" }, /^url: must not be empty/],
      [{ url: `https://example.com/${"a".repeat(2040)}` }, /^url: must be at most 2048 characters/],
      [{ url: "https://user:pass@example.com/hooks" }, /^url: must not contain credentials/],
      [{ url: 42 }, /url/],
      [{}, /url/]
    ]
    for (const [body, message] of cases) {
      const reply = await app.request("PUT", "/partner/v1/webhook", { apiKey, body })
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
      expect(reply.body.message).toMatch(message)
    }
    expect(await app.query("SELECT 1 FROM webhook_configs WHERE partner_id = $1", [partnerId])).toHaveLength(0)
    expect(await app.query("SELECT 1 FROM events WHERE partner_id = $1 AND type = 'webhook.test'", [partnerId])).toHaveLength(0)
    expect((await app.request("GET", "/partner/v1/webhook", { apiKey })).body.data).toEqual({ url: null, hasSecret: false, updatedAt: null })
  })

  it("sandbox mode accepts http and loopback URLs", async () => {
    const { apiKey } = await app.newPartner()
    const put = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: target.url.replace("127.0.0.1", "localhost") } })
    expect(put.status).toBe(200)
    expect(put.body.data.url).toMatch(/^http:\/\/localhost:\d+\/hooks$/)
  })
})

describe("events without a URL", () => {
  it("are in the event log and make no delivery", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const eventId = await registerCustomer(apiKey)
    const events = await app.request("GET", "/sandbox/events", { apiKey })
    expect(events.body.data.map((e: { id: string; type: string }) => e.type)).toContain("customer.registered")
    expect(events.body.data.map((e: { id: string }) => e.id)).toContain(eventId)
    expect(await app.query("SELECT 1 FROM webhook_deliveries WHERE partner_id = $1", [partnerId])).toHaveLength(0)
    const list = await app.request("GET", "/partner/v1/webhook/deliveries", { apiKey })
    expect(list.body).toEqual({ success: true, data: [], meta: { nextCursor: null } })
    expect((await app.request("GET", `/partner/v1/webhook/deliveries/${eventId}`, { apiKey })).status).toBe(404)
  })
})

describe("delivery log", () => {
  it("lists newest first with a status filter and cursor, never exposing the secret; unknown and foreign ids are 404", async () => {
    const { apiKey } = await app.newPartner()
    const secret: string = (await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: target.url } })).body.data.secret
    const ids = [await registerCustomer(apiKey), await registerCustomer(apiKey)]
    await eventually(async () => {
      const list = await app.request("GET", "/partner/v1/webhook/deliveries?status=DELIVERED", { apiKey })
      return list.body.data.length === 3 ? true : undefined
    }, "three deliveries")
    const first = await app.request("GET", "/partner/v1/webhook/deliveries?limit=2", { apiKey })
    expect(first.status).toBe(200)
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([ids[1], ids[0]])
    expect(Object.keys(first.body.data[0]).sort()).toEqual([
      "attempts", "createdAt", "deliveredAt", "id", "lastAttemptAt", "lastError", "lastResponseStatus", "nextAttemptAt", "status", "type"
    ])
    const second = await app.request("GET", `/partner/v1/webhook/deliveries?limit=2&cursor=${first.body.meta.nextCursor}`, { apiKey })
    expect(second.body.data.map((d: { type: string }) => d.type)).toEqual(["webhook.test"])
    expect(second.body.meta.nextCursor).toBeNull()
    expect((await app.request("GET", "/partner/v1/webhook/deliveries?status=PENDING", { apiKey })).body.data).toEqual([])
    const detail = await app.request("GET", `/partner/v1/webhook/deliveries/${ids[0]}`, { apiKey })
    expect(detail.body.data.payload).toMatchObject({ id: ids[0], type: "customer.registered" })
    for (const reply of [first, second, detail]) expect(JSON.stringify(reply.body)).not.toContain(secret)

    const bad = await app.request("GET", "/partner/v1/webhook/deliveries?status=LOST", { apiKey })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("BAD_REQUEST")
    const badCursor = await app.request("GET", "/partner/v1/webhook/deliveries?cursor=nonsense", { apiKey })
    expect(badCursor.status).toBe(400)
    expect(badCursor.body.code).toBe("INVALID_CURSOR")

    const other = await app.newPartner()
    for (const path of [`/partner/v1/webhook/deliveries/${ids[0]}`, "/partner/v1/webhook/deliveries/not-a-uuid", "/partner/v1/webhook/deliveries/00000000-0000-4000-8000-000000000000"]) {
      const reply = await app.request("GET", path, { apiKey: other.apiKey })
      expect(reply.status).toBe(404)
      expect(reply.body).toMatchObject({ success: false, statusCode: 404, code: "WEBHOOK_DELIVERY_NOT_FOUND" })
    }
    const foreignReplay = await app.request("POST", `/partner/v1/webhook/deliveries/${ids[0]}/replay`, { apiKey: other.apiKey })
    expect(foreignReplay.status).toBe(404)
    expect(foreignReplay.body.code).toBe("WEBHOOK_DELIVERY_NOT_FOUND")
    expect((await deliveryOf(apiKey, ids[0]!)).status).toBe("DELIVERED")
  })

  it("requires the API key", async () => {
    expect((await app.request("GET", "/partner/v1/webhook")).status).toBe(401)
    expect((await app.request("GET", "/partner/v1/webhook/deliveries", { apiKey: "sk_sandbox_nope" })).status).toBe(401)
  })
})
