import { Effect } from "effect"
import * as NodeDns from "node:dns"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Partners } from "../src/partners/Partners.js"
import { checkWebhookUrl, isPublicAddress, publicOnlyLookup } from "../src/webhooks/UrlRules.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
let apiKey: string
let partnerId: string

beforeAll(async () => {
  app = await startTestApp({ config: { mode: "production" } })
  const created = await app.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Partner", kybStatus: "APPROVED" })))
  apiKey = created.apiKey
  partnerId = created.partner.id
})
afterAll(() => app?.close())

describe("production URL rules on PUT /webhook", () => {
  it("refuses http, private, loopback, link-local, CGNAT, unique-local and metadata hosts with 400 naming the rule", async () => {
    const cases: Array<[string, RegExp]> = [
      ["http://hooks.example.com/in", /^url: must use https in production$/],
      ["https://127.0.0.1/in", /^url: must point at a public host/],
      ["https://127.1.2.3:8443/in", /^url: must point at a public host/],
      ["https://10.1.2.3/in", /^url: must point at a public host/],
      ["https://172.16.0.9/in", /^url: must point at a public host/],
      ["https://192.168.1.20/in", /^url: must point at a public host/],
      ["https://169.254.169.254/latest/meta-data", /^url: must point at a public host/],
      ["https://100.64.0.1/in", /^url: must point at a public host/],
      ["https://0.0.0.0/in", /^url: must point at a public host/],
      ["https://2130706433/in", /^url: must point at a public host/],
      ["https://[::1]/in", /^url: must point at a public host/],
      ["https://[fd00:ec2::254]/in", /^url: must point at a public host/],
      ["https://[fe80::1]/in", /^url: must point at a public host/],
      ["https://[::ffff:127.0.0.1]/in", /^url: must point at a public host/],
      ["https://localhost/in", /^url: must point at a public host name/],
      ["https://metadata.google.internal/computeMetadata", /^url: must point at a public host name/],
      ["https://intranet/in", /^url: must point at a public host name/]
    ]
    for (const [url, message] of cases) {
      const reply = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url } })
      expect(reply.status, url).toBe(400)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
      expect(reply.body.message, url).toMatch(message)
    }
    expect(await app.query("SELECT 1 FROM webhook_configs WHERE partner_id = $1", [partnerId])).toHaveLength(0)
    expect(await app.query("SELECT 1 FROM events WHERE partner_id = $1 AND type = 'webhook.test'", [partnerId])).toHaveLength(0)
  })

  it("accepts a public https name, but refuses to send when it resolves to a private address", async () => {
    const lookup = vi.spyOn(NodeDns.promises, "lookup").mockImplementation((async () => [{ address: "10.0.0.7", family: 4 }]) as never)
    try {
      const reply = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: "https://hooks.partner-example.com/in" } })
      expect(reply.status).toBe(200)
      expect(reply.body.data).toMatchObject({
        url: "https://hooks.partner-example.com/in",
        test: { delivered: false, statusCode: null, error: "refused: hooks.partner-example.com resolves to a non-public address (10.0.0.7)" }
      })
      expect(lookup).toHaveBeenCalledWith("hooks.partner-example.com", expect.anything())
      const read = await app.request("GET", "/partner/v1/webhook", { apiKey })
      expect(read.body.data).toMatchObject({ url: "https://hooks.partner-example.com/in", hasSecret: true })
    } finally {
      lookup.mockRestore()
    }
  })

  it("has no sandbox routes", async () => {
    expect((await app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds: 30 } })).status).toBe(404)
  })
})

describe("address classification", () => {
  it("tells public addresses from the rest", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isPublicAddress(address), address).toBe(true)
    for (
      const address of ["127.0.0.1", "10.0.0.1", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.127.0.1", "0.0.0.0",
        "224.0.0.1", "255.255.255.255", "::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "ff02::1", "::ffff:10.0.0.1",
        "::ffff:7f00:1", "64:ff9b::a9fe:a9fe", "not-an-ip"]
    ) expect(isPublicAddress(address), address).toBe(false)
  })

  it("keeps sandbox permissive and production strict", () => {
    expect(checkWebhookUrl("http://127.0.0.1:9000/x", "sandbox")).toEqual({ ok: true, url: "http://127.0.0.1:9000/x" })
    expect(checkWebhookUrl("http://127.0.0.1:9000/x", "production")).toMatchObject({ ok: false })
    expect(checkWebhookUrl("https://hooks.example.com/x", "production")).toEqual({ ok: true, url: "https://hooks.example.com/x" })
  })

  it("the connection-time lookup refuses names that resolve to loopback", async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicOnlyLookup("localhost", { family: 0 }, (err) => resolve(err))
    )
    expect(error?.code).toBe("ENONPUBLIC")
    expect(error?.message).toMatch(/^refused: localhost resolves to a non-public address/)
  })
})
