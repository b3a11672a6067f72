import { Effect } from "effect"
import * as NodeDns from "node:dns"
import { createRequire, syncBuiltinESMExports } from "node:module"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Partners } from "../src/partners/Partners.js"
import { checkWebhookUrl, hostOf } from "../src/webhooks/UrlRules.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually } from "./support/WebhookReceiver.js"

/**
 * Hardening of the production webhook URL rules: a host name is normalised (lower case, IDN to ASCII, one
 * trailing dot removed) before it is checked, and the address the sender connects to is checked again at
 * connection time (DNS rebinding), so a name that passed the check and later resolves to loopback is refused
 * as a failed delivery with a clear reason.
 */
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

describe("host normalisation before the production check", () => {
  it("refuses trailing-dot, upper-case and IDN spellings of local names with 400 naming url, nothing stored", async () => {
    const cases = [
      "https://localhost./in",
      "https://LOCALHOST./in",
      "https://intranet./in",
      "https://metadata.google.internal./computeMetadata",
      "https://printer.local./in",
      "https://api.localhost./in",
      "https://ｌｏｃａｌｈｏｓｔ/in", // full-width letters: IDN mapping makes them "localhost"
      "https://localhost../in",
      "https://127.0.0.1./in",
      "https://[::1]/in"
    ]
    for (const url of cases) {
      const reply = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url } })
      expect(reply.status, url).toBe(400)
      expect(reply.body, url).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
      expect(reply.body.message, url).toMatch(/^url: must (point at a public host|have a valid host name)/)
    }
    expect(await app.query("SELECT 1 FROM webhook_configs WHERE partner_id = $1", [partnerId])).toHaveLength(0)
  })

  it("normalises before checking, in both modes", () => {
    expect(hostOf(new URL("https://Hooks.Example.COM./in"))).toBe("hooks.example.com")
    expect(checkWebhookUrl("https://localhost./in", "production")).toMatchObject({ ok: false })
    expect(checkWebhookUrl("https://hooks.example.com./in", "production")).toEqual({ ok: true, url: "https://hooks.example.com./in" })
    expect(checkWebhookUrl("https://bücher.example/in", "production")).toEqual({ ok: true, url: "https://xn--bcher-kva.example/in" })
    expect(checkWebhookUrl("http://localhost./in", "sandbox")).toMatchObject({ ok: true })
  })
})

describe("connection-time address check (DNS rebinding)", () => {
  it("a name that resolved publicly when checked but resolves to loopback when connecting is a failed delivery, refused", async () => {
    // The check before the send sees a public address; the resolver the connection uses answers loopback.
    const checked = vi.spyOn(NodeDns.promises, "lookup").mockImplementation((async () => [{ address: "93.184.216.34", family: 4 }]) as never)
    const dns = createRequire(import.meta.url)("node:dns") as typeof NodeDns
    const original = dns.lookup
    const connected: Array<string> = []
    dns.lookup = ((hostname: string, options: unknown, callback: (...args: Array<unknown>) => void) => {
      connected.push(hostname)
      const cb = typeof options === "function" ? options as typeof callback : callback
      const all = typeof options === "object" && options !== null && (options as { all?: boolean }).all === true
      return all ? cb(null, [{ address: "127.0.0.1", family: 4 }]) : cb(null, "127.0.0.1", 4)
    }) as typeof NodeDns.lookup
    syncBuiltinESMExports()
    try {
      const reply = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: "https://rebind.partner-example.com/in" } })
      expect(reply.status).toBe(200)
      expect(reply.body.data.test).toEqual({
        delivered: false,
        statusCode: null,
        error: "refused: rebind.partner-example.com resolves to a non-public address (127.0.0.1)"
      })
      expect(checked).toHaveBeenCalledWith("rebind.partner-example.com", expect.anything())
      expect(connected).toContain("rebind.partner-example.com")
    } finally {
      dns.lookup = original
      syncBuiltinESMExports()
      checked.mockRestore()
    }
  })

  it("a URL stored before the rules tightened is re-checked on every attempt and refused as a failed delivery", async () => {
    await app.query("UPDATE webhook_configs SET url = 'https://localhost./in' WHERE partner_id = $1", [partnerId])
    const created = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    expect(created.status).toBe(201)
    const delivery = await eventually(async () => {
      const list = await app.request("GET", "/partner/v1/webhook/deliveries?limit=1", { apiKey })
      const first = list.body.data[0]
      return first?.type === "customer.registered" && first.attempts > 0 ? first : undefined
    }, "the first attempt")
    expect(delivery).toMatchObject({
      status: "PENDING",
      lastResponseStatus: null,
      lastError: "refused: url must point at a public host name, not a local or internal name"
    })
  })
})
