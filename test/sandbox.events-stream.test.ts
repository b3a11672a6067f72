import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
let apiKey: string

beforeAll(async () => {
  app = await startTestApp()
  apiKey = (await app.newPartner()).apiKey
})
afterAll(() => app?.close())

/** Reads server-sent event frames (comments skipped) from a streaming response. */
const sse = async (path: string, headers: Record<string, string> = {}) => {
  const controller = new AbortController()
  const response = await fetch(app.baseUrl + path, { headers: { "x-api-key": apiKey, ...headers }, signal: controller.signal })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  const next = async (): Promise<{ id: string; event: string; data: any }> => {
    while (true) {
      const end = buffer.indexOf("\n\n")
      if (end >= 0) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (frame.startsWith(":")) continue
        const field = (name: string) => frame.split("\n").find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2)
        return { id: field("id")!, event: field("event")!, data: JSON.parse(field("data")!) }
      }
      const { done, value } = await reader.read()
      if (done) throw new Error("stream ended")
      buffer += decoder.decode(value, { stream: true })
    }
  }
  return { response, next, close: () => controller.abort() }
}

const createCustomer = async () => {
  const reply = await app.request<any>("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

describe("GET /sandbox/events/stream", () => {
  it("streams the partner's new events, filtered by type, and replays after Last-Event-ID", async () => {
    const stream = await sse("/sandbox/events/stream?type=customer.registered")
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get("content-type")).toContain("text/event-stream")
    // Another partner's events never appear.
    const other = await app.newPartner()
    await app.request("POST", "/partner/v1/customers", { apiKey: other.apiKey, body: customerBody() })
    const first = await createCustomer()
    const second = await createCustomer()
    const a = await stream.next()
    const b = await stream.next()
    expect([a.event, a.data.customerId, b.data.customerId]).toEqual(["customer.registered", first, second])
    expect(a.data).toMatchObject({ type: "customer.registered", data: { customerId: first } })
    stream.close()

    const third = await createCustomer()
    const resumed = await sse("/sandbox/events/stream?type=customer.registered", { "last-event-id": b.id })
    const replayed = await resumed.next()
    expect(replayed.data.customerId).toBe(third)
    expect(BigInt(replayed.id) > BigInt(b.id)).toBe(true)
    resumed.close()
  })

  it("refuses a bad filter with 400 and a missing key with 401", async () => {
    const bad = await app.request("GET", "/sandbox/events/stream?customerId=nope", { apiKey })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe("BAD_REQUEST")
    const anonymous = await app.request("GET", "/sandbox/events/stream")
    expect(anonymous.status).toBe(401)
  })
})

describe("stopping with a client's connection open", () => {
  it("a stream the client abandoned does not hold the stop for the connection's 65 s idle time-out", async () => {
    // A client that aborted a stream and made another request: a connection of it is still open when the stop
    // begins, and the server's close waited for it until its idle time-out (65 s), longer than this test's time
    // limit. `closeLingering` (src/http/Shutdown.ts) closes what is still open shortly after the stop began.
    const own = await startTestApp()
    const key = (await own.newPartner()).apiKey
    const controller = new AbortController()
    const response = await fetch(`${own.baseUrl}/sandbox/events/stream`, { headers: { "x-api-key": key }, signal: controller.signal })
    expect(response.status).toBe(200)
    controller.abort()
    // Another request after it, on another connection of the same client process.
    expect((await own.request("GET", "/health")).status).toBe(200)
    await own.close()
  }, 30_000)
})
