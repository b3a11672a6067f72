import { HttpServerResponse, OpenApi } from "@effect/platform"
import * as NodeFs from "node:fs"
import { Either, JSONSchema, Option, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { withPartnerMessages } from "../src/api/Messages.js"
import { Api, ProductionApi } from "../src/Api.js"
import { CustomersApi } from "../src/customers/Api.js"
import { SandboxFundingApi } from "../src/funding/Api.js"
import { normalizeError } from "../src/http/ErrorEnvelope.js"
import { InternationalApi } from "../src/international/Api.js"
import { SandboxKycApi } from "../src/kyc/Api.js"
import { SandboxApi, SandboxPartnersApi } from "../src/sandbox/Api.js"

/**
 * The BAD_REQUEST messages of schema failures (src/api/Messages.ts, src/http/ErrorEnvelope.ts): worded by the
 * message annotations `withPartnerMessagesApi` puts on every endpoint's schemas (src/Api.ts), from the structured
 * ParseIssue, not by re-reading Schema's English. A pure unit test: the endpoints' own schemas, decoded and
 * formatted as HttpApiBuilder does (ArrayFormatter into HttpApiDecodeError), then through the error envelope.
 */

type Part = "payloadSchema" | "urlParamsSchema" | "pathSchema"

const schemaOf = (group: string, endpoint: string, part: Part = "payloadSchema"): Schema.Schema.Any => {
  const found = (Api as any).groups[group]?.endpoints[endpoint]?.[part] as Option.Option<Schema.Schema.Any> | undefined
  if (found === undefined || Option.isNone(found)) throw new Error(`no ${part} on ${group}.${endpoint}`)
  return found.value
}

/** The envelope's message for an input the endpoint's schema refuses ("accepted" when it decodes). */
const refusal = (group: string, endpoint: string, input: unknown, part: Part = "payloadSchema"): string => {
  const result = Schema.decodeUnknownEither(schemaOf(group, endpoint, part) as Schema.Schema<unknown, unknown>)(input)
  if (Either.isRight(result)) return "accepted"
  const issues = ParseResult.ArrayFormatter.formatErrorSync(result.left)
  const response = normalizeError(
    HttpServerResponse.unsafeJson({ _tag: "HttpApiDecodeError", issues, message: "" }, { status: 400 }),
    { path: "/api/v1/x", timestamp: new Date(0) }
  )
  if (response.body._tag !== "Uint8Array") throw new Error("no JSON body")
  const envelope = JSON.parse(new TextDecoder().decode(response.body.body))
  expect(envelope).toMatchObject({ statusCode: 400, code: "BAD_REQUEST", error: "BadRequest" })
  return envelope.message
}

const deposit = { asset: "USDT", network: "TRON", amount: 100 }

const customer = {
  firstName: "Ada",
  lastName: "Obi",
  email: "ada@example.com",
  phoneNumber: "+2348012345678",
  country: "NG"
}

describe("schema failure messages, from structured issues", () => {
  it("name the field, what it must be and the value given", () => {
    expect(refusal("sandboxFunding", "deposit", { ...deposit, amount: "12" })).toBe(`amount: must be a JSON number (got "12")`)
    expect(refusal("customers", "create", { ...customer, country: "XX" })).toBe(`country: must be one of NG, GH, KE, ZA, UG, US (got "XX")`)
    expect(refusal("customers", "create", { ...customer, firstName: 42 })).toBe("firstName: must be a string (got 42)")
    expect(refusal("customers", "create", { ...customer, middleName: 5 })).toBe("middleName: must be a string or null (got 5)")
    expect(refusal("customers", "create", { ...customer, country: "x".repeat(200) }))
      .toBe(`country: must be one of NG, GH, KE, ZA, UG, US (got "${"x".repeat(63)}…)`)
  })

  it("say `is required` for a missing field", () => {
    const { email: _, ...noEmail } = customer
    expect(refusal("customers", "create", noEmail)).toBe("email: is required")
    expect(refusal("international", "setFeeSetting", {})).toBe("paysForCustomers: is required")
    expect(refusal("international", "setFeeSetting", { paysForCustomers: "true" })).toBe(`paysForCustomers: must be true or false (got "true")`)
  })

  it("word Schema's built-in refinements and transformations from their schema ids", () => {
    expect(refusal("sandbox", "setKyb", { status: "APPROVED", reason: "" })).toBe(`reason: must be at least 1 characters long (got "")`)
    expect(refusal("sandbox", "setKyb", { status: "APPROVED", reason: "r".repeat(501) })).toMatch(/^reason: must be at most 500 characters long \(got "r{63}…\)$/)
    expect(refusal("sandbox", "setKyb", { status: "MAYBE" })).toBe(`status: must be one of PENDING, APPROVED, REJECTED (got "MAYBE")`)
    expect(refusal("sandboxKyc", "decide", { customerId: "c", level: "x" }, "pathSchema")).toBe(`level: must be a number (got "x")`)
  })

  it("keep a schema's own message", () => {
    expect(refusal("customers", "create", { ...customer, phoneNumber: "080" })).toBe("phoneNumber: must be an E.164 phone number, e.g. +2348012345678")
    expect(refusal("sandboxFunding", "deposit", { ...deposit, amount: -5 })).toBe("amount: must be greater than zero")
  })

  it("name the request body at the top", () => {
    expect(refusal("customers", "create", null)).toBe("request body is required and must be a JSON object")
    expect(refusal("customers", "create", undefined)).toBe("request body is required and must be a JSON object")
    expect(refusal("customers", "create", [])).toBe("request body must be a JSON object (got [])")
    expect(refusal("sandboxPartners", "create", 5)).toBe("request body: must be a JSON object or null (got 5)")
    expect(refusal("sandboxPartners", "create", null)).toBe("accepted")
  })

  it("reach into a declaration's own schemas (the Tier 3 body dispatches on customerType)", () => {
    expect(refusal("international", "tier3", { customerType: "COMPANY" })).toBe(`customerType: must be one of INDIVIDUAL, BUSINESS (got "COMPANY")`)
    expect(refusal("international", "tier3", null)).toBe("request body is required and must be a JSON object")
    expect(refusal("international", "tier3", [])).toBe("request body must be a JSON object (got [])")
    expect(refusal("international", "tier3", { customerType: "BUSINESS", business: null })).toBe("business: must be a JSON object (got null)")
  })
})

describe("the mapping", () => {
  const originals = [CustomersApi, SandboxFundingApi, InternationalApi, SandboxKycApi, SandboxApi, SandboxPartnersApi]
  const schemas = originals.flatMap((group) =>
    Object.values(group.endpoints as Record<string, any>).flatMap((endpoint) =>
      (["payloadSchema", "urlParamsSchema", "pathSchema", "headersSchema"] as const)
        .map((part) => endpoint[part] as Option.Option<Schema.Schema.Any>)
        .filter(Option.isSome)
        .map((schema) => ({ name: `${group.identifier}.${endpoint.name}`, schema: schema.value }))
    )
  )

  it("changes neither the JSON Schema nor what decodes", () => {
    expect(schemas.length).toBeGreaterThan(20)
    const jsonSchema = (schema: Schema.Schema.Any) => {
      try {
        return JSON.stringify(JSONSchema.make(schema as Schema.Schema<unknown, unknown>))
      } catch (error) {
        return `throws ${String(error)}`
      }
    }
    const inputs: Array<unknown> = [null, {}, [], "x", 42, { ...customer }, { amount: 12 }, { status: "APPROVED" }, { level: "2" }]
    for (const { name, schema } of schemas) {
      const mapped = withPartnerMessages(schema)
      expect(jsonSchema(mapped), name).toBe(jsonSchema(schema))
      for (const input of inputs) {
        const before = Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown>)(input)
        const after = Schema.decodeUnknownEither(mapped as Schema.Schema<unknown, unknown>)(input)
        expect(Either.isRight(after), `${name} ${JSON.stringify(input)}`).toBe(Either.isRight(before))
        if (Either.isRight(before) && Either.isRight(after)) expect(after.right).toEqual(before.right)
      }
    }
  })

  it("leaves the OpenAPI document without message annotations", () => {
    for (const api of [Api, ProductionApi]) {
      const document = JSON.stringify(OpenApi.fromApi(api))
      expect(document).not.toContain("request body is required")
      expect(document).not.toContain("must be a JSON number")
    }
  })

  it("leaves the error envelope without regular expressions over Schema's English", () => {
    const source = NodeFs.readFileSync(new URL("../src/http/ErrorEnvelope.ts", import.meta.url), "utf8")
    expect(source).not.toMatch(/Expected|actual \(|new RegExp|\.exec\(|\.test\(/)
  })
})
