import { ConfigProvider, Effect } from "effect"
import * as NodeHttp from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { appConfig, describeConfigError } from "../src/config/AppConfig.js"
import { Partners } from "../src/partners/Partners.js"
import { samples, multipart } from "./support/KycHelpers.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Hardening: every URL the service hands out is built from PUBLIC_BASE_URL (default: the listen address), never
 * from the request's Host header; production has no EFT page, so a ZAR charge there has no redirectUrl; the EFT
 * page may not be framed.
 */
const hostileHost = `a"><script>alert(1)</script>`

/** A request with a Host header of our choosing (fetch does not let a caller set Host). */
const withHost = (app: TestApp, method: string, path: string, host: string, apiKey: string, body?: { bytes: Uint8Array; type: string }) =>
  new Promise<{ status: number; body: any }>((resolve, reject) => {
    const url = new URL(app.baseUrl + path)
    const request = NodeHttp.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method,
      headers: {
        host,
        "x-api-key": apiKey,
        "x-forwarded-proto": "https",
        ...(body === undefined ? {} : { "content-type": body.type, "content-length": String(body.bytes.length) })
      }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }))
    })
    request.on("error", reject)
    request.end(body === undefined ? undefined : Buffer.from(body.bytes))
  })

const chargeBody = (amount: number) => {
  const bytes = new TextEncoder().encode(JSON.stringify({ amount }))
  return { bytes, type: "application/json" }
}

describe("default PUBLIC_BASE_URL: the listen address", () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp()
  })
  afterAll(() => app?.close())

  it("a ZAR charge's redirectUrl and a KYC document's url ignore a hostile Host header", async () => {
    const { apiKey } = await app.newPartner()
    const za = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody({ country: "ZA" }) })
    const charge = await withHost(app, "POST", `/partner/v1/customers/${za.body.data.id}/funding/charge`, hostileHost, apiKey, chargeBody(250))
    expect(charge.status).toBe(201)
    expect(charge.body.data.redirectUrl).toMatch(new RegExp(`^${app.baseUrl}/sandbox/eft/[A-Za-z0-9_-]{43}$`))
    const stored = await app.query<{ redirectUrl: string }>("SELECT redirect_url FROM funding_charges WHERE id = $1", [charge.body.data.id])
    expect(stored[0]!.redirectUrl).toBe(charge.body.data.redirectUrl)

    const ng = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    const form = await multipart([{ name: "file", value: samples.png(), filename: "selfie.png" }, { name: "type", value: "SELFIE" }])
    const upload = await withHost(app, "POST", `/partner/v1/customers/${ng.body.data.id}/kyc/documents`, hostileHost, apiKey, {
      bytes: form.rawBody,
      type: form.headers["content-type"]
    })
    expect(upload.status).toBe(201)
    expect(upload.body.data.url).toBe(`${app.baseUrl}/partner/v1/customers/${ng.body.data.id}/kyc/documents/${upload.body.data.id}`)
    expect(JSON.stringify([charge.body, upload.body])).not.toContain("script")
  })

  it("the EFT page may not be framed", async () => {
    const { apiKey } = await app.newPartner()
    const za = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody({ country: "ZA" }) })
    const charge = await app.request("POST", `/partner/v1/customers/${za.body.data.id}/funding/charge`, { apiKey, body: { amount: 10 } })
    const page = await fetch(charge.body.data.redirectUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get("x-frame-options")).toBe("DENY")
    expect(page.headers.get("content-security-policy")).toBe("frame-ancestors 'none'")
  })
})

describe("PUBLIC_BASE_URL set", () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ config: { publicBaseUrl: "https://pay.example.com/edge" } })
  })
  afterAll(() => app?.close())

  it("builds the EFT redirectUrl and document urls from it", async () => {
    const { apiKey } = await app.newPartner()
    const za = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody({ country: "ZA" }) })
    const charge = await withHost(app, "POST", `/partner/v1/customers/${za.body.data.id}/funding/charge`, hostileHost, apiKey, chargeBody(99))
    expect(charge.body.data.redirectUrl).toMatch(/^https:\/\/pay\.example\.com\/edge\/api\/v1\/sandbox\/eft\/[A-Za-z0-9_-]{43}$/)
    const ng = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    const upload = await app.request("POST", `/partner/v1/customers/${ng.body.data.id}/kyc/documents`, {
      apiKey,
      ...(await multipart([{ name: "file", value: samples.jpeg(), filename: "front.jpg" }]))
    })
    expect(upload.status).toBe(201)
    expect(upload.body.data.url).toBe(`https://pay.example.com/edge/api/v1/partner/v1/customers/${ng.body.data.id}/kyc/documents/${upload.body.data.id}`)
  })

  it("is validated at start-up, naming the variable", async () => {
    const read = (value: string) =>
      Effect.runPromise(
        appConfig.pipe(
          Effect.map((config) => config.publicBaseUrl),
          Effect.catchAll((error) => Effect.succeed(describeConfigError(error))),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["PUBLIC_BASE_URL", value]])))
        )
      )
    expect(await read("https://api.example.com/")).toBe("https://api.example.com")
    expect(await read("http://10.0.0.5:8080/base/")).toBe("http://10.0.0.5:8080/base")
    expect(await read("")).toBeUndefined()
    for (const bad of ["api.example.com", "ftp://api.example.com", "https://user:pw@api.example.com", "https://api.example.com/?a=1", "https://api.example.com/#x"]) {
      expect(await read(bad), bad).toMatch(/^Invalid configuration: PUBLIC_BASE_URL: must be an absolute http or https URL/)
    }
  })
})

describe("production mode", () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ config: { mode: "production", simulatedRails: true } })
  })
  afterAll(() => app?.close())

  it("a ZAR charge has no redirectUrl: there is no EFT page outside the sandbox", async () => {
    const created = await app.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Partner", kybStatus: "APPROVED" })))
    const za = await app.request("POST", "/partner/v1/customers", { apiKey: created.apiKey, body: customerBody({ country: "ZA" }) })
    expect(za.status).toBe(201)
    const charge = await app.request("POST", `/partner/v1/customers/${za.body.data.id}/funding/charge`, { apiKey: created.apiKey, body: { amount: 10 } })
    expect(charge.status).toBe(201)
    expect(charge.body.data).toMatchObject({ type: "eft", status: "PENDING", redirectUrl: null })
    expect(await app.query("SELECT redirect_url FROM funding_charges WHERE id = $1", [charge.body.data.id])).toEqual([{ redirectUrl: null }])
  })

  it("a webhook URL on an IPv6 form of a private IPv4 address is refused exactly as that IPv4 address", async () => {
    const created = await app.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Hooks", kybStatus: "APPROVED" })))
    const put = (url: string) => app.request("PUT", "/partner/v1/webhook", { apiKey: created.apiKey, body: { url } })
    const plain = await put("https://127.0.0.1/in")
    expect(plain.status).toBe(400)
    expect(plain.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
    expect(plain.body.message).toMatch(/^url: must point at a public host/)
    for (const host of ["[::127.0.0.1]", "[::ffff:0:127.0.0.1]", "[2002:7f00:1::]", "[2001:0:4136:e378:8000:63bf:80ff:fffe]", "[64:ff9b::a9fe:a9fe]"]) {
      const reply = await put(`https://${host}/in`)
      expect(reply.status, host).toBe(plain.status)
      expect(reply.body, host).toEqual(plain.body)
    }
    expect(await app.query("SELECT 1 FROM webhook_configs WHERE partner_id = $1", [created.partner.id])).toHaveLength(0)
  })
})
