import { type ChildProcess, spawn } from "node:child_process"
import * as NodeNet from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signatureHeader } from "../src/webhooks/Signing.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually } from "./support/WebhookReceiver.js"

/** The example receiver of docs/webhook-receiver.ts, run as a partner would run it, against the service. */
let app: TestApp
let child: ChildProcess | undefined
let output = ""

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = NodeNet.createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as NodeNet.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** Starts the example on `port`; false when it exited before listening (the port was taken meanwhile). */
const startExample = async (port: number, secret: string): Promise<boolean> => {
  output = ""
  const started = spawn(process.execPath, ["--import", "tsx", "docs/webhook-receiver.ts"], {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child = started
  started.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  started.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  // Compiling the example with tsx takes seconds on a loaded machine (the CI's other passes beside it).
  const outcome = await eventually(
    async () => (output.includes("webhook receiver on") ? "listening" : started.exitCode !== null ? "exited" : undefined),
    "the example receiver",
    60_000
  )
  if (outcome === "exited" && !output.includes("EADDRINUSE")) throw new Error(`the example receiver exited: ${output}`)
  return outcome === "listening"
}

/**
 * The example on a free port, which `freePort` found and released: another process (the other test pass runs beside
 * this one) may take it before the example listens, so a taken port is given up for another.
 */
const startOnFreePort = async (secret: string): Promise<number> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort()
    if (await startExample(port, secret)) return port
  }
  throw new Error(`the example receiver found no free port: ${output}`)
}

const stopExample = async () => {
  const running = child
  if (running === undefined || running.exitCode !== null) return
  const exited = new Promise((resolve) => running.once("exit", resolve))
  running.kill()
  await exited
}

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  await stopExample()
  await app?.close()
})

describe("docs/webhook-receiver.ts", () => {
  it("answers 401 to bad signatures, handles signed events once (dedupe on id) and ignores unknown types", async () => {
    const { apiKey } = await app.newPartner()
    const port = await startOnFreePort("whsec_not_yet_known")
    const url = `http://127.0.0.1:${port}/webhooks`

    // The test event is signed with the new secret, which the receiver learns only from this response: 401.
    const put = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url } })
    expect(put.status).toBe(200)
    expect(put.body.data.test).toEqual({ delivered: false, statusCode: 401, error: "HTTP 401" })
    const secret: string = put.body.data.secret

    // Deploy the secret; the test delivery's retry (30 s later on the service clock) gets through.
    await stopExample()
    expect(await startExample(port, secret), output).toBe(true)
    expect((await app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds: 30 } })).status).toBe(200)
    const tests = await app.request("GET", "/partner/v1/webhook/deliveries", { apiKey })
    expect(tests.body.data).toHaveLength(1)
    expect(tests.body.data[0]).toMatchObject({ type: "webhook.test", status: "DELIVERED", attempts: 2, lastResponseStatus: 200 })

    // A real event is handled once; a replay of it is acknowledged without handling it again.
    const customer = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    const customerId: string = customer.body.data.id
    await eventually(async () => (output.includes(`customer registered ${customerId}`) ? true : undefined), "the handler")
    const eventId: string = (await app.request("GET", `/sandbox/events?customerId=${customerId}`, { apiKey })).body.data[0].id
    await app.request("POST", `/partner/v1/webhook/deliveries/${eventId}/replay`, { apiKey })
    const replayed = await eventually(async () => {
      const d = (await app.request("GET", `/partner/v1/webhook/deliveries/${eventId}`, { apiKey })).body.data
      return d.status === "DELIVERED" && d.attempts === 2 ? d : undefined
    }, "the replay")
    expect(replayed.lastResponseStatus).toBe(200)
    expect(output.split(`customer registered ${customerId}`)).toHaveLength(2)

    // Hand-made requests: bad, stale and missing signatures are refused; an unknown type is acknowledged.
    const post = (body: string, signature: string) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-service-signature": signature }, body })
    const wall = Math.floor(Date.now() / 1000) // the receiver's own clock, which signatures follow
    const event = JSON.stringify({ id: "0b6f1f5e-7c4c-4f6e-9d0a-2d7f3c1b9a11", type: "customer.registered", createdAt: "2026-01-01T00:00:00.000Z", data: { customerId: "hand-made" } })
    expect((await post(event, signatureHeader("whsec_wrong", wall, event))).status).toBe(401)
    expect((await post(event, signatureHeader(secret, wall - 3600, event))).status).toBe(401)
    expect((await post(event, "")).status).toBe(401)
    expect((await post(event + " ", signatureHeader(secret, wall, event))).status).toBe(401)
    const unknown = JSON.stringify({ id: "5d0c1c8e-3b1a-4a57-8f4e-2f0b7f8f0c22", type: "brand.new_type", createdAt: "2026-01-01T00:00:00.000Z", data: {} })
    expect((await post(unknown, signatureHeader(secret, wall, unknown))).status).toBe(200)
    expect(output).not.toContain("hand-made")
  })

  it("signs at real time: two days into the sandbox clock, the stock receiver with its default tolerance accepts every delivery", async () => {
    await stopExample()
    const { apiKey } = await app.newPartner()
    const port = await startOnFreePort("whsec_not_yet_known")
    const url = `http://127.0.0.1:${port}/webhooks`
    const secret: string = (await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url } })).body.data.secret
    await stopExample()
    expect(await startExample(port, secret), output).toBe(true)

    const advance = await app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds: 2 * 86_400 } })
    expect(advance.status).toBe(200)
    const sandboxNow = Date.parse(advance.body.data.now)
    expect(sandboxNow - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000)

    const customer = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    const customerId: string = customer.body.data.id
    await eventually(async () => (output.includes(`customer registered ${customerId}`) ? true : undefined), "the handler")
    // The service records the attempt once the receiver's answer is back, a moment after the handler printed: the
    // delivery is read once it has an attempt (a loaded machine widened that moment past one read).
    const registered = await eventually(async () => {
      const deliveries = await app.request("GET", "/partner/v1/webhook/deliveries", { apiKey })
      const delivery = deliveries.body.data.find((d: { type: string }) => d.type === "customer.registered")
      return delivery !== undefined && delivery.attempts > 0 ? delivery : undefined
    }, "the delivery's first attempt recorded")
    expect(registered).toMatchObject({ status: "DELIVERED", attempts: 1, lastResponseStatus: 200 })
    // The event itself stays on the partner's clock: createdAt is two days ahead of real time.
    const event = (await app.request("GET", `/sandbox/events?customerId=${customerId}`, { apiKey })).body.data[0]
    expect(Date.parse(event.createdAt) - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000)
  })
})
