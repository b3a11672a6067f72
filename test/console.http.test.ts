import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The partner console over real HTTP (docs/console.md): sign-up, sign-in, sessions, KYB, API keys, update-webhook.
 */
let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())

const email = () => `owner.${Math.random().toString(36).slice(2)}@example.com`
const password = "correct horse battery staple"
const company = {
  legalName: "Obi Payments Ltd",
  registrationNumber: "RC 1234567",
  country: "NG",
  address: "12 Marina Road, Lagos",
  contactEmail: "compliance@obipay.example.com"
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe("the console", () => {
  it("signs up, submits KYB, is approved, issues and rotates a key that works on /partner/v1", async () => {
    const address = email()
    const signUp = await app.request("POST", "/partner/sign-up", { body: { email: address, password, companyName: "Obi Payments" } })
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(201)
    const token = signUp.body.data.session.accessToken as string
    expect(signUp.body.data.console.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "DRAFT", company: null })
    const early = await app.request("POST", "/partner/api-keys", { headers: bearer(token) })
    expect(early.status).toBe(403)
    expect(early.body.message).toMatch(/^Your partner account is not yet approved/)
    expect((await app.request("PUT", "/partner/company", { headers: bearer(token), body: company })).status).toBe(200)
    const submitted = await app.request("POST", "/partner/kyb/submit", { headers: bearer(token) })
    expect(submitted.body.data.partner.kybStage).toBe("UNDER_REVIEW")
    const approved = await app.request("POST", "/sandbox/console/kyb-decision", { headers: bearer(token), body: { decision: "APPROVED" } })
    expect(approved.status, JSON.stringify(approved.body)).toBe(200)
    expect(approved.body.data.partner.kybStatus).toBe("APPROVED")
    const issued = await app.request("POST", "/partner/api-keys", { headers: bearer(token) })
    expect(issued.status).toBe(201)
    const key = issued.body.data.apiKey as string
    expect((await app.request("GET", "/partner/v1/customers", { apiKey: key })).status).toBe(200)
    const rotated = await app.request("POST", "/partner/api-keys", { headers: bearer(token) })
    expect((await app.request("GET", "/partner/v1/customers", { apiKey: key })).status).toBe(401)
    expect((await app.request("GET", "/partner/v1/customers", { apiKey: rotated.body.data.apiKey })).status).toBe(200)
    expect((await app.request("GET", "/partner/me", { apiKey: key })).status).toBe(401)
    const signIn = await app.request("POST", "/partner/sign-in", { body: { email: address, password } })
    expect(signIn.status).toBe(200)
    const wrong = await app.request("POST", "/partner/sign-in", { body: { email: address, password: "nope nope nope" } })
    const unknown = await app.request("POST", "/partner/sign-in", { body: { email: email(), password: "nope nope nope" } })
    expect([wrong.status, wrong.body.code, wrong.body.message]).toEqual([unknown.status, unknown.body.code, unknown.body.message])
    expect((await app.request("POST", "/partner/sign-out", { headers: bearer(token) })).status).toBe(200)
    expect((await app.request("GET", "/partner/me", { headers: bearer(token) })).status).toBe(401)
  })
})
