import { HttpApi } from "@effect/platform"
import { Either, FastCheck, Option, ParseResult, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Api } from "../src/Api.js"
import { closest, moreUnknownMessage, unknownFieldMessage, unknownNamedMax } from "../src/api/UnknownFields.js"
import { fixtures } from "./support/Fixtures.js"
import { harness } from "./support/LedgerHarness.js"
import { customerBody, type Reply, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Strict requests (docs/reference.md "Conventions"): a JSON body refuses a field its schema does not list, at any
 * level, and a route refuses a query parameter it does not list, each named with the closest known name; a
 * `customerId` at the top of a body is ignored. One answer names every problem, and nothing moves.
 */
let app: TestApp
const fx = fixtures(() => app)
let apiKey: string
let partnerId: string

beforeAll(async () => {
  app = await startTestApp()
  ;({ apiKey, partnerId } = await fx.partner())
})
afterAll(() => app?.close())

const newCustomer = async () => (await fx.customer({ apiKey })).id

const count = async (table: string, customerId: string) =>
  Number((await app.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} WHERE customer_id = $1`, [customerId]))[0]!.n)

const expectBadRequest = (reply: Reply, ...parts: Array<string>) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400)
  expect(reply.body.success).toBe(false)
  expect(reply.body.code).toBe("BAD_REQUEST")
  for (const part of parts) expect(reply.body.message).toContain(part)
}

describe("unknown body fields", () => {
  it("`refrence` sent twice to withdraw: 400 naming it with \"did you mean reference\" both times, and nothing moved", async () => {
    const customerId = await newCustomer()
    expect((await harness(app, partnerId).credit(customerId, "NGN", 10_000_00n)).ok).toBe(true)
    expect((await app.request("POST", `/partner/v1/customers/${customerId}/accounts`, { apiKey, body: { bankCode: "058", accountNumber: "1234567896" } })).status).toBe(201)
    const balances = async () => (await app.request<any>("GET", `/partner/v1/customers/${customerId}/balances`, { apiKey })).body.data
    const before = await balances()
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await app.request<any>("POST", `/partner/v1/customers/${customerId}/withdraw`, { apiKey, body: { amount: 500, refrence: "wd-typo" } })
      expectBadRequest(reply, 'refrence: is not a field of this request body; did you mean "reference"?')
    }
    expect(await count("withdrawals", customerId)).toBe(0)
    expect(await balances()).toEqual(before)
    const events = (await app.request<any>("GET", `/sandbox/events?customerId=${customerId}&type=withdrawal.submitted`, { apiKey })).body.data
    expect(events).toEqual([])
    // Spelt right, it goes through once.
    expect((await app.request("POST", `/partner/v1/customers/${customerId}/withdraw`, { apiKey, body: { amount: 500, reference: "wd-typo" } })).status).toBe(201)
    expect(await count("withdrawals", customerId)).toBe(1)
  })

  it("one answer names an unknown field and a missing one, and an invalid one", async () => {
    const reply = await app.request<any>("POST", "/partner/v1/customers", {
      apiKey,
      body: { firstName: "Ada", lastName: "Obi", emial: "ada@example.com", phoneNumber: "+2348012345678", country: 12 }
    })
    expectBadRequest(reply, 'emial: is not a field of this request body; did you mean "email"?', "email: is required", "country:")
    // details lists every field, each with what is wrong
    expect(reply.body.details.fields).toEqual(expect.arrayContaining([
      { field: "emial", message: 'is not a field of this request body; did you mean "email"?' },
      { field: "email", message: "is required" },
      { field: "country", message: expect.stringContaining("must be") }
    ]))
  })

  it("details lists all of them when the message names only the first five", async () => {
    const body = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`unknown${i}`, i]))
    const reply = await app.request<any>("POST", "/partner/v1/customers", { apiKey, body })
    expect(reply.status).toBe(400)
    expect(reply.body.message.split("; ")).toHaveLength(5)
    const fields = reply.body.details.fields.map((f: { field: string }) => f.field)
    for (let i = 0; i < 8; i++) expect(fields).toContain(`unknown${i}`)
    for (const required of ["firstName", "lastName", "email", "phoneNumber", "country"]) expect(fields).toContain(required)
  })

  it(`a body of 20,000 unknown fields names the first ${unknownNamedMax} and counts the rest in one more problem`, async () => {
    const body = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))
    const reply = await app.request<any>("POST", "/partner/v1/customers", { apiKey, body })
    expectBadRequest(reply, "firstName: is required")
    expect(reply.body.details.fields).toContainEqual({ field: "k0", message: expect.stringContaining("is not a field of this request body") })
    const fields: Array<{ field: string; message: string }> = reply.body.details.fields
    const unknown = fields.filter((f) => f.field.startsWith("k"))
    expect(unknown.map((f) => f.field)).toEqual(Array.from({ length: unknownNamedMax }, (_, i) => `k${i}`))
    expect(fields).toContainEqual({ field: "", message: moreUnknownMessage(20_000 - unknownNamedMax, "body") })
    expect(moreUnknownMessage(19_980, "body")).toBe(`19980 more fields this request body does not take (the first ${unknownNamedMax} are named)`)
    // every missing field is still named: the cap is on unknown keys only
    for (const required of ["firstName", "lastName", "email", "phoneNumber", "country"]) expect(fields.map((f) => f.field)).toContain(required)
    expect(fields.length).toBe(unknownNamedMax + 1 + 5)
    expect(JSON.stringify(reply.body).length).toBeLessThan(10_000)
  })

  it("a field far from every known one lists the known ones instead", async () => {
    const reply = await app.request<any>("POST", "/partner/v1/customers", { apiKey, body: { ...customerBody(), favouriteColour: "green" } })
    expectBadRequest(reply, "favouriteColour: is not a field of this request body (its fields: ", "firstName", "email")
  })

  it("a body's customerId is ignored: the path names the customer", async () => {
    const customerId = await newCustomer()
    const other = await newCustomer()
    const reply = await app.request<any>("POST", `/partner/v1/customers/${customerId}/accounts`, {
      apiKey,
      body: { bankCode: "058", accountNumber: "1234567896", customerId: other }
    })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(await count("bank_accounts", customerId)).toBe(1)
    expect(await count("bank_accounts", other)).toBe(0)
  })

  it("nested objects refuse unknown fields too, named by their path (the Tier 3 address)", () => {
    let payload: Schema.Schema<unknown, unknown, never> | undefined
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        if (endpoint.path.endsWith("/customers/:customerId/kyc/tier3") && endpoint.method === "POST") payload = Option.getOrUndefined(endpoint.payloadSchema) as Schema.Schema<unknown, unknown, never> | undefined
      }
    })
    expect(payload).toBeDefined()
    const body = {
      destinationCountry: "GB",
      dateOfBirth: "1990-05-14",
      address: { line1: "12 Admiralty Way", city: "Lagos", country: "NG", postcode: "106104" }
    }
    const result = Schema.decodeUnknownEither(payload!)(body)
    expect(Either.isLeft(result)).toBe(true)
    const issues = ParseResult.ArrayFormatter.formatErrorSync((result as Either.Left<ParseResult.ParseError, unknown>).left)
    expect(issues, JSON.stringify(issues)).toContainEqual(expect.objectContaining({
      path: ["address", "postcode"],
      message: 'is not a field of this request body; did you mean "postalCode"?'
    }))
  })

  it("a customerId below the top is not exempt", async () => {
    const customerId = await newCustomer()
    const reply = await app.request<any>("PUT", "/partner/v1/webhook", { apiKey, body: { url: "https://example.com/hook", events: undefined, nested: { customerId } } })
    expectBadRequest(reply, "nested: is not a field of this request body")
  })
})

describe("unknown query parameters", () => {
  it("a list route refuses a misspelt parameter, naming the one it meant", async () => {
    expectBadRequest(await app.request<any>("GET", "/partner/v1/customers?limt=5", { apiKey }), 'limt: is not a query parameter of this route; did you mean "limit"?')
    expect((await app.request<any>("GET", "/partner/v1/customers?limit=5", { apiKey })).status).toBe(200)
  })

  it("a route without query parameters refuses any, and moves nothing", async () => {
    const customerId = await newCustomer()
    const none = await app.request<any>("GET", `/partner/v1/customers/${customerId}?expand=kyc`, { apiKey })
    expectBadRequest(none, "expand: is not a query parameter of this route (it takes none)")
    expect(none.body.details).toEqual({ fields: [{ field: "expand", message: "is not a query parameter of this route (it takes none)" }] })
    const before = await count("bank_accounts", customerId)
    expectBadRequest(
      await app.request<any>("POST", `/partner/v1/customers/${customerId}/accounts?dryRun=true`, { apiKey, body: { bankCode: "058", accountNumber: "1234567896" } }),
      "dryRun: is not a query parameter of this route"
    )
    expect(await count("bank_accounts", customerId)).toBe(before)
  })
})

describe("many unknown query parameters", () => {
  it(`a route without query parameters names the first ${unknownNamedMax} and counts the rest`, async () => {
    const customerId = await newCustomer()
    const query = Array.from({ length: 500 }, (_, i) => `q${i}=1`).join("&")
    const reply = await app.request<any>("GET", `/partner/v1/customers/${customerId}?${query}`, { apiKey })
    expectBadRequest(reply, "q0: is not a query parameter of this route (it takes none)")
    expect(reply.body.details.fields).toHaveLength(unknownNamedMax + 1)
    expect(reply.body.details.fields.at(-1)).toEqual({ field: "", message: moreUnknownMessage(500 - unknownNamedMax, "query") })
  })

  it(`a list route names the first ${unknownNamedMax} unknown parameters and counts the rest`, async () => {
    const query = Array.from({ length: 500 }, (_, i) => `q${i}=1`).join("&")
    const reply = await app.request<any>("GET", `/partner/v1/customers?limit=5&${query}`, { apiKey })
    expectBadRequest(reply, "q0: is not a query parameter of this route")
    const fields: Array<{ field: string; message: string }> = reply.body.details.fields
    expect(fields.filter((f) => f.field.startsWith("q"))).toHaveLength(unknownNamedMax)
    expect(fields).toContainEqual({ field: "", message: moreUnknownMessage(500 - unknownNamedMax, "query") })
  })
})

describe("the OpenAPI document", () => {
  it("says additionalProperties: false for every JSON request body object, and the description says unknown fields are refused", async () => {
    const doc = (await app.request<any>("GET", "/openapi.json")).body
    expect(doc.info.description).toContain("are refused")
    const resolve = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split("/").at(-1)] : schema)
    let checked = 0
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const schema = resolve(operation.requestBody?.content?.["application/json"]?.schema)
        if (schema?.type !== "object" || schema.properties === undefined) continue
        expect(schema.additionalProperties, `${method.toUpperCase()} ${path}`).toBe(false)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(30)
  })
})

describe("the wording", () => {
  it("suggests a near name (typo, swapped letters, case) and nothing for a far one", () => {
    expect(closest("refrence", ["amount", "reference"])).toBe("reference")
    expect(closest("amuont", ["amount", "reference"])).toBe("amount")
    expect(closest("Amount", ["amount", "reference"])).toBe("amount")
    expect(closest("colour", ["amount", "reference"])).toBeUndefined()
    expect(unknownFieldMessage("x", [], "query")).toBe("is not a query parameter of this route (it takes none)")
  })

  it("bounds the distance by the limit, and agrees with the full distance (random keys, and a 200,000-character one)", () => {
    // The textbook table (optimal string alignment), the oracle for the bounded search in src/api/UnknownFields.ts.
    const full = (a: string, b: string): number => {
      const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
      for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
          d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
          if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
        }
      }
      return d[a.length]![b.length]!
    }
    const oracle = (key: string, known: ReadonlyArray<string>) => {
      const limit = Math.max(2, Math.floor(key.length / 3))
      let best: { name: string; distance: number } | undefined
      for (const name of known) {
        const found = full(key.toLowerCase(), name.toLowerCase())
        if (best === undefined || found < best.distance) best = { name, distance: found }
      }
      return best !== undefined && best.distance <= limit ? best.name : undefined
    }
    const word = FastCheck.string({ unit: FastCheck.constantFrom("a", "b", "c", "A", "d"), maxLength: 12 })
    FastCheck.assert(
      FastCheck.property(word, FastCheck.array(word, { maxLength: 5 }), (key, known) => {
        expect(closest(key, known)).toBe(oracle(key, known))
      }),
      { numRuns: 2_000 }
    )
    // A key far longer than every known name is no typo of one: refused by the lengths alone.
    expect(closest("a".repeat(200_000), ["amount", "reference"])).toBeUndefined()
    expect(closest("referenceeee", ["amount", "reference"])).toBe("reference")
  })
})
