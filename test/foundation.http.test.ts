import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
let apiKey: string

beforeAll(async () => {
  app = await startTestApp()
  apiKey = (await app.newPartner()).apiKey
})
afterAll(() => app?.close())

describe("customers", () => {
  it("creates a customer with 201 and the success envelope", async () => {
    const reply = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    expect(reply.status).toBe(201)
    expect(reply.body.success).toBe(true)
    expect(reply.body.data.id).toMatch(/^[0-9a-f-]{36}$/)
  })
})
