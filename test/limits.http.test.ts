import * as NodeCrypto from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Reply, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The limits on abuse over HTTP (docs/operations.md "Limits on abuse", docs/contract.md "Rate limits"): each limit
 * answers 429 in the error envelope with its code, `details.retryAfterSeconds` and the same whole seconds in
 * `Retry-After`; a key the instance accepted still works while its address is blocked; a forwarding header is not
 * believed by default; the OpenAPI document lists the 429s. One server with small limits (the rules themselves,
 * refill and bounds included, are test/limits.unit.test.ts on a TestClock).
 */
let app: TestApp

beforeAll(async () => {
  app = await startTestApp({
    config: {
      keyRequestsPerSecond: 0.05,
      keyRequestsBurst: 5,
      authFailuresPerMinute: 1,
      authFailuresBurst: 3,
      signInFailuresPerMinute: 1,
      signInFailuresBurst: 3
    }
  })
})
afterAll(async () => {
  await app?.close()
})

const randomKey = () => `sk_sandbox_${NodeCrypto.randomBytes(32).toString("base64url").replace(/[-_]/g, "a")}`
const customers = (apiKey: string, headers?: Record<string, string>) =>
  app.request("GET", "/partner/v1/customers", { apiKey, ...(headers ? { headers } : {}) })

/**
 * A 429 of `code` whose wait is the limit's full refill time: `retryAfterSeconds` whole seconds, or fewer by the real
 * time the bucket refilled since it emptied (these limits run on the real clock, and a loaded CI machine took over a
 * second between the requests that emptied the bucket and the refusal: 59 for 60). The header says the same seconds.
 * The refill arithmetic itself is exact in test/limits.unit.test.ts, on a TestClock.
 */
const expectLimited = (reply: Reply, code: string, retryAfterSeconds: number) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(429)
  expect(reply.body).toMatchObject({ success: false, statusCode: 429, code, error: expect.any(String), details: { retryAfterSeconds: expect.any(Number) } })
  const wait = reply.body.details.retryAfterSeconds
  expect(Number.isInteger(wait) && wait <= retryAfterSeconds && wait >= retryAfterSeconds - 5, `retryAfterSeconds ${wait}`).toBe(true)
  expect(Object.keys(reply.body).sort()).toEqual(["code", "details", "error", "message", "path", "statusCode", "success", "timestamp"])
  expect(reply.headers.get("retry-after")).toBe(String(wait))
}

describe("limits on abuse", () => {
  it("per API key: past its burst, 429 RATE_LIMITED with Retry-After; another partner's key is not affected", async () => {
    const a = await app.newPartner()
    const b = await app.newPartner()
    for (let i = 0; i < 5; i++) expect((await customers(a.apiKey)).status).toBe(200)
    expectLimited(await customers(a.apiKey), "RATE_LIMITED", 20)
    expect((await customers(b.apiKey)).status).toBe(200)
  })

  it("unknown keys per address: 401s, then 429 TOO_MANY_FAILED_AUTHENTICATIONS before any lookup; an accepted key still works", async () => {
    const warm = await app.newPartner()
    const cold = await app.newPartner()
    expect((await customers(warm.apiKey)).status).toBe(200)
    for (let i = 0; i < 3; i++) expect((await customers(randomKey())).status).toBe(401)
    expectLimited(await customers(randomKey()), "TOO_MANY_FAILED_AUTHENTICATIONS", 60)
    expectLimited(await customers("not a key"), "TOO_MANY_FAILED_AUTHENTICATIONS", 60)
    // The forwarding header is not believed unless TRUSTED_PROXY_HEADER says so: the same (blocked) address.
    expectLimited(await customers(randomKey(), { "x-forwarded-for": "203.0.113.9" }), "TOO_MANY_FAILED_AUTHENTICATIONS", 60)
    // A key this instance accepted is served from its cache whatever the address did; one it never saw is not
    // looked up while the address is blocked; no key at all is still the 401 that says so.
    expect((await customers(warm.apiKey)).status).toBe(200)
    expectLimited(await customers(cold.apiKey), "TOO_MANY_FAILED_AUTHENTICATIONS", 60)
    const missing = await app.request("GET", "/partner/v1/customers")
    expect([missing.status, missing.body.code]).toEqual([401, "UNAUTHORIZED"])
  })

  it("console sign-ins per address: different emails do not escape it; 429 TOO_MANY_SIGN_IN_ATTEMPTS with Retry-After", async () => {
    const email = `limits-${NodeCrypto.randomBytes(4).toString("hex")}@example.com`
    const password = `Tq8#${NodeCrypto.randomBytes(9).toString("base64url")}`
    const signUp = await app.request("POST", "/partner/sign-up", { body: { email, password, companyName: "Limits Ltd" } })
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(201)
    // A success gives its attempt back: it never counts.
    for (let i = 0; i < 4; i++) expect((await app.request("POST", "/partner/sign-in", { body: { email, password } })).status).toBe(200)
    for (let i = 0; i < 3; i++) {
      const reply = await app.request("POST", "/partner/sign-in", { body: { email: `nobody-${i}@example.com`, password } })
      expect(reply.body.code).toBe("INVALID_CREDENTIALS")
    }
    const limited = await app.request("POST", "/partner/sign-in", { body: { email: "nobody-3@example.com", password } })
    expectLimited(limited, "TOO_MANY_SIGN_IN_ATTEMPTS", 60)
    expect(limited.body.message).toContain("from this address")
    expectLimited(await app.request("POST", "/partner/sign-in", { body: { email, password } }), "TOO_MANY_SIGN_IN_ATTEMPTS", 60)
  })

  it("the OpenAPI document lists the 429s of partner routes, sandbox routes and the console's sign-in", async () => {
    const document = (await app.request("GET", "/openapi.json")).body
    const described = (path: string, method: string) => String(document.paths[path]?.[method]?.responses?.["429"]?.description)
    expect(described("/api/v1/partner/v1/customers", "get")).toMatch(/RATE_LIMITED.*TOO_MANY_FAILED_AUTHENTICATIONS|TOO_MANY_FAILED_AUTHENTICATIONS.*RATE_LIMITED/)
    expect(described("/api/v1/sandbox/clock", "get")).toContain("TOO_MANY_FAILED_AUTHENTICATIONS")
    expect(described("/api/v1/partner/sign-in", "post")).toMatch(/TOO_MANY_SIGN_IN_ATTEMPTS.*TOO_MANY_SIGN_INS|TOO_MANY_SIGN_INS.*TOO_MANY_SIGN_IN_ATTEMPTS/)
    expect(described("/api/v1/partner/sign-up", "post")).toContain("TOO_MANY_SIGN_INS")
  })
})

describe("limits on abuse behind a trusted proxy (TRUSTED_PROXY_HEADER)", () => {
  it("each forwarded address has its own failed authentications, read from the request that failed", async () => {
    const proxied = await startTestApp({ config: { authFailuresPerMinute: 1, authFailuresBurst: 2, trustedProxyHeader: "x-forwarded-for" } })
    try {
      const from = (address: string) => ({ headers: { "x-forwarded-for": `198.51.100.1, ${address}` } })
      const attempt = (address: string) => proxied.request("GET", "/partner/v1/customers", { apiKey: randomKey(), ...from(address) })
      for (let i = 0; i < 2; i++) expect((await attempt("203.0.113.7")).status).toBe(401)
      const blocked = await attempt("203.0.113.7")
      expect([blocked.status, blocked.body.code]).toEqual([429, "TOO_MANY_FAILED_AUTHENTICATIONS"])
      expect(blocked.headers.get("retry-after")).toBe(String(blocked.body.details.retryAfterSeconds))
      // The right-most entry is the proxy's: another client behind the same proxy is not blocked.
      expect((await attempt("203.0.113.8")).status).toBe(401)
      // The left-most entry is the client's word and proves nothing: the blocked client stays blocked.
      const spoofed = await proxied.request("GET", "/partner/v1/customers", { apiKey: randomKey(), headers: { "x-forwarded-for": "203.0.113.99, 203.0.113.7" } })
      expect(spoofed.status).toBe(429)
    } finally {
      await proxied.close()
    }
  })
})
