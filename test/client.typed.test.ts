import { Cause, Effect, Exit, ParseResult } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as Client from "../src/Client.js"
import { Customer } from "../src/customers/Api.js"
import { BadRequest, CustomerForbidden, InvalidCursor, Unauthorized } from "../src/api/ApiError.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"
import { typedClient } from "./support/TypedClient.js"

/**
 * The typed client derived from the contract (src/Client.ts), over real HTTP: successes decode to plain data
 * (no envelope), refusals arrive in the failure channel as their error classes with the envelope's fields.
 */

let app: TestApp
let client: Client.Client

beforeAll(async () => {
  app = await startTestApp()
  const partner = await Effect.runPromise(typedClient(app.baseUrl).sandboxPartners.create({ payload: { kybStatus: "APPROVED" } }))
  expect(partner.apiKey.length).toBeGreaterThan(0)
  client = typedClient(app.baseUrl, partner.apiKey)
})
afterAll(() => app?.close())

/** The failure of an effect that must fail (the value itself, not a Cause). */
const failureOf = async <A, E>(effect: Effect.Effect<A, E>): Promise<E> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "None") throw new Error(`expected a failure, got ${Cause.pretty(exit.cause)}`)
  return failure.value
}

/** A valid create-customer body, typed as the contract's payload (country is one of its literals). */
const newCustomer = (overrides: Record<string, unknown> = {}) => ({ ...customerBody(overrides), country: "NG" as const })

const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

describe("typed client", () => {
  it("creates a customer and lists it: plain data, no envelope", async () => {
    const body = newCustomer({ firstName: "Typed" })
    const created = await Effect.runPromise(client.customers.create({ payload: body }))
    expect(created).toBeInstanceOf(Customer)
    expect(created.email).toBe(body.email)
    expect(created.firstName).toBe("Typed")
    expect(created.createdAt).toBeInstanceOf(Date)
    expect("success" in created).toBe(false)

    const fetched = await Effect.runPromise(client.customers.get({ path: { customerId: created.id } }))
    expect(fetched.id).toBe(created.id)

    const page = await Effect.runPromise(client.customers.list({ urlParams: { limit: 100 } }))
    expect(Object.keys(page).sort()).toEqual(["items", "nextCursor"])
    expect(page.items.map((customer) => customer.id)).toContain(created.id)
    expect(page.nextCursor).toBeNull()
  })

  it("a 403 CUSTOMER_FORBIDDEN arrives as CustomerForbidden with the envelope's fields", async () => {
    const customerId = "00000000-0000-4000-8000-000000000000"
    const error = await failureOf(client.customers.get({ path: { customerId } }))
    expect(error).toBeInstanceOf(CustomerForbidden)
    if (!(error instanceof CustomerForbidden)) return
    expect(error._tag).toBe("CustomerForbidden")
    expect(error.statusCode).toBe(403)
    expect(error.code).toBe("CUSTOMER_FORBIDDEN")
    expect(error.error).toBe("CustomerForbidden")
    expect(error.message.length).toBeGreaterThan(0)
    expect(error.path).toBe(`/api/v1/partner/v1/customers/${customerId}`)
    expect(error.timestamp).toMatch(isoPattern)
  })

  it("a 400 for a body the server refuses arrives as BadRequest", async () => {
    // A string by the schema, so the client sends it; the service's URL rules refuse it.
    const error = await failureOf(client.webhooks.set({ payload: { url: "not a url" } }))
    expect(error).toBeInstanceOf(BadRequest)
    if (!(error instanceof BadRequest)) return
    expect(error.statusCode).toBe(400)
    expect(error.code).toBe("BAD_REQUEST")
    expect(error.message).toMatch(/^url: /)
  })

  it("a 400 INVALID_CURSOR arrives as InvalidCursor", async () => {
    const error = await failureOf(client.customers.list({ urlParams: { cursor: "not-a-cursor" } }))
    expect(error).toBeInstanceOf(InvalidCursor)
  })

  it("a body that breaks the contract's schema fails in the client, before anything is sent", async () => {
    const error = await failureOf(client.customers.create({ payload: newCustomer({ email: "not-an-email" }) }))
    expect(ParseResult.isParseError(error)).toBe(true)
  })

  it("an unknown API key arrives as Unauthorized", async () => {
    const error = await failureOf(typedClient(app.baseUrl, "unknown-key").customers.list({ urlParams: {} }))
    expect(error).toBeInstanceOf(Unauthorized)
  })
})
