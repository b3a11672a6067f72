import { OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ProductionApi } from "../src/Api.js"
import { Partners } from "../src/partners/Partners.js"
import { multipart, samples } from "./support/KycHelpers.js"
import {
  type Conformance,
  conformingRequest,
  fetchOpenApiDocument,
  makeConformance,
  type OpenApiDocument
} from "./support/OpenApiConformance.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The OpenAPI document agrees with the server: the document's own shape (servers, summaries, error schemas without
 * `_tag`, no decode-error shape, honest query types, bodies that accept unknown fields), then real responses —
 * successes and refusals of partner and sandbox routes, and requests that match no operation — each validated
 * against the document with a JSON Schema validator (test/support/OpenApiConformance.ts).
 */

const maxJsonBodyBytes = 4096

let app: TestApp
let document: OpenApiDocument
let conformance: Conformance
let request: ReturnType<typeof conformingRequest>
let apiKey: string

beforeAll(async () => {
  app = await startTestApp({ config: { maxJsonBodyBytes } })
  document = await fetchOpenApiDocument(app.baseUrl)
  conformance = makeConformance(document)
  request = conformingRequest(app, conformance)
  apiKey = (await app.newPartner()).apiKey
})
afterAll(() => app?.close())

const newCustomer = async (overrides: Record<string, unknown> = {}, key = apiKey): Promise<string> => {
  const reply = await request("POST", "/partner/v1/customers", { apiKey: key, body: customerBody(overrides) })
  expect(reply.status).toBe(201)
  return reply.body.data.id
}

const operations = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })))

describe("the document", () => {
  it("has servers, and every operation a summary and a description", () => {
    expect(document.servers?.length).toBeGreaterThan(0)
    expect(document.servers![0]!.url).toBe("/")
    const undocumented = operations()
      .filter(({ operation }) => !operation.summary?.trim() || !operation.description?.trim())
      .map(({ method, path }) => `${method} ${path}`)
    expect(undocumented).toEqual([])
  })

  it("the production document has the same conventions and no sandbox route", () => {
    const production = OpenApi.fromApi(ProductionApi) as unknown as OpenApiDocument
    expect(production.servers?.length).toBeGreaterThan(0)
    expect(Object.keys(production.paths).filter((path) => path.startsWith("/api/v1/sandbox"))).toEqual([])
    expect(JSON.stringify(production)).not.toContain("HttpApiDecodeError")
    expect(makeConformance(production).compileAll()).toEqual([])
  })

  it("compiles: every response schema is valid JSON Schema with resolvable references", () => {
    expect(conformance.compileAll()).toEqual([])
  })

  it("describes error bodies as sent: the envelope, no `_tag`, no decode-error shape", () => {
    const schemas = document.components.schemas
    expect(Object.keys(schemas)).not.toContain("HttpApiDecodeError")
    expect(JSON.stringify(document)).not.toContain("HttpApiDecodeError")
    const envelope = ["success", "statusCode", "code", "message", "error", "timestamp", "path"]
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue
        const schema = "content" in response ? response.content?.["application/json"]?.schema : undefined
        expect(schema, `${method} ${path} ${status}`).toBeDefined()
        const refs: Array<string> = schema!.$ref !== undefined ? [schema!.$ref] : schema!.anyOf.map((member: any) => member.$ref)
        for (const ref of refs) {
          const component = schemas[ref.replace("#/components/schemas/", "")]!
          expect(component, ref).toBeDefined()
          expect(component.required, ref).toEqual(expect.arrayContaining(envelope))
          expect(component.required, ref).not.toContain("_tag")
          expect(Object.keys(component.properties), ref).not.toContain("_tag")
          expect(component.properties.statusCode.enum, ref).toEqual([Number(status)])
        }
      }
    }
    expect(document.components.responses?.RouteNotFound).toBeDefined()
    expect(document.components.responses?.MethodNotAllowed).toBeDefined()
  })

  it("types query parameters as the server reads them", () => {
    const queries = operations().flatMap(({ path, method, operation }) =>
      operation.parameters.filter((parameter) => parameter.in === "query").map((parameter) => ({ at: `${method} ${path}`, parameter })))
    const limits = queries.filter(({ parameter }) => parameter.name === "limit")
    expect(limits.length).toBeGreaterThanOrEqual(6)
    for (const { at, parameter } of limits) {
      expect(parameter.schema, at).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 })
    }
    const amount = queries.find(({ parameter }) => parameter.name === "amount")
    expect(amount?.parameter.schema).toMatchObject({ type: "number", exclusiveMinimum: 0 })
    // Every other query value is text: an enum, a uuid, a pattern or an opaque cursor.
    for (const { at, parameter } of queries.filter(({ parameter }) => !["limit", "amount"].includes(parameter.name))) {
      expect(parameter.schema.type, `${at} ${parameter.name}`).toBe("string")
    }
  })

  it("forbids unknown fields in JSON request bodies: every object of named fields says additionalProperties: false", () => {
    const open: Array<string> = []
    let objects = 0
    const walk = (at: string, schema: unknown, seen: Set<string>): void => {
      if (typeof schema !== "object" || schema === null) return
      const node = schema as Record<string, any>
      if (node.type === "object" && node.properties !== undefined && node.patternProperties === undefined) {
        objects++
        // A map (`additionalProperties: <schema>`, the beneficiary form's keys) takes keys by design.
        if (node.additionalProperties === undefined || node.additionalProperties === true) open.push(at)
      }
      if (typeof node.$ref === "string" && !seen.has(node.$ref)) {
        seen.add(node.$ref)
        walk(`${at} -> ${node.$ref}`, document.components.schemas[node.$ref.replace("#/components/schemas/", "")], seen)
      }
      for (const value of Object.values(node)) walk(at, value, seen)
    }
    for (const { path, method, operation } of operations()) {
      const json = operation.requestBody?.content?.["application/json"]
      if (json !== undefined) walk(`${method} ${path}`, json.schema, new Set())
    }
    expect(open).toEqual([])
    expect(objects).toBeGreaterThan(30)
  })
})

describe("the conformance helper", () => {
  it("reports what the document does not describe", () => {
    const customers = "/api/v1/partner/v1/customers"
    const envelope = { success: false, statusCode: 404, code: "NOT_FOUND", message: "x", error: "NotFound", timestamp: new Date().toISOString(), path: "/x" }
    const problems = (response: Parameters<Conformance["problems"]>[0]) => conformance.problems(response)
    expect(conformance.findOperation("GET", `${customers}/abc?x=1`)?.template).toBe(`${customers}/{customerId}`)
    expect(problems({ method: "GET", path: customers, status: 200, contentType: "application/json", body: { success: true, data: [], meta: { nextCursor: null } } })).toEqual([])
    // A missing field, an extra field, an undocumented status, a `_tag`, another code, a content type, a route.
    expect(problems({ method: "GET", path: customers, status: 200, body: { success: true, data: [], meta: {} } })).toHaveLength(1)
    expect(problems({ method: "GET", path: customers, status: 200, body: { success: true, data: [], meta: { nextCursor: null }, extra: 1 } })).toHaveLength(1)
    expect(problems({ method: "GET", path: customers, status: 418, body: envelope })[0]).toMatch(/not documented/)
    expect(problems({ method: "GET", path: customers, status: 401, body: { ...envelope, statusCode: 401, code: "UNAUTHORIZED", error: "Unauthorized", _tag: "Unauthorized" } })).toHaveLength(1)
    expect(problems({ method: "GET", path: customers, status: 401, body: { ...envelope, statusCode: 401, code: "NOPE", error: "Unauthorized" } })).toHaveLength(1)
    expect(problems({ method: "GET", path: customers, status: 200, contentType: "text/html", body: "<p>" })).toHaveLength(1)
    expect(problems({ method: "GET", path: "/api/v1/nowhere", status: 404, body: envelope })).toEqual([])
    expect(problems({ method: "GET", path: "/api/v1/nowhere", status: 200, body: {} })).toHaveLength(1)
    expect(problems({ method: "PATCH", path: customers, status: 405, body: { ...envelope, statusCode: 405, code: "METHOD_NOT_ALLOWED", error: "MethodNotAllowed" } })).toEqual([])
  })
})

describe("real responses match the document", () => {
  it("customers: 201, 200 pages with a cursor, 400, 401, 403, 409, unknown fields refused, a body customerId ignored", async () => {
    const unknown = await request("POST", "/partner/v1/customers", { apiKey, body: { ...customerBody({ firstName: "Conform" }), nickname: "x" } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.message).toContain("nickname: is not a field of this request body")
    const created = await request("POST", "/partner/v1/customers", {
      apiKey,
      body: { ...customerBody({ firstName: "Conform" }), customerId: "00000000-0000-4000-8000-000000000000" }
    })
    expect(created.status).toBe(201)
    expect(created.body.data.id).not.toBe("00000000-0000-4000-8000-000000000000")
    await newCustomer()

    const first = await request("GET", "/partner/v1/customers?limit=1", { apiKey })
    expect(first.status).toBe(200)
    expect(first.body.meta.nextCursor).toEqual(expect.any(String))
    const second = await request("GET", `/partner/v1/customers?limit=1&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { apiKey })
    expect(second.status).toBe(200)
    expect(second.body.data).toHaveLength(1)

    expect((await request("GET", "/partner/v1/customers?limit=0", { apiKey })).body.code).toBe("BAD_REQUEST")
    expect((await request("GET", "/partner/v1/customers?cursor=not-a-cursor", { apiKey })).body.code).toBe("INVALID_CURSOR")
    expect((await request("GET", `/partner/v1/customers/${created.body.data.id}`, { apiKey })).status).toBe(200)
    expect((await request("GET", "/partner/v1/countries", { apiKey })).status).toBe(200)

    const duplicate = await request("POST", "/partner/v1/customers", { apiKey, body: customerBody({ email: created.body.data.email }) })
    expect(duplicate.body.code).toBe("CUSTOMER_ALREADY_EXISTS")
    const invalid = await request("POST", "/partner/v1/customers", { apiKey, body: customerBody({ email: "not-an-email" }) })
    expect(invalid).toMatchObject({ status: 400, body: { code: "BAD_REQUEST" } })
    const missing = await request("POST", "/partner/v1/customers", { apiKey, body: {} })
    expect(missing.status).toBe(400)

    expect((await request("GET", "/partner/v1/customers")).status).toBe(401)
    expect((await request("GET", "/partner/v1/customers", { apiKey: "sk_sandbox_unknown" })).status).toBe(401)
    const foreign = await request("GET", `/partner/v1/customers/${created.body.data.id}`, { apiKey: (await app.newPartner()).apiKey })
    expect(foreign.body.code).toBe("CUSTOMER_FORBIDDEN")
    const pending = await app.newPartner("PENDING")
    expect((await request("GET", "/partner/v1/customers", { apiKey: pending.apiKey })).body.code).toBe("PARTNER_NOT_APPROVED")
  })

  it("body pre-checks: 400 MALFORMED_JSON, 413, 415", async () => {
    const malformed = await request("POST", "/partner/v1/customers", {
      apiKey,
      rawBody: "{\"firstName\":",
      headers: { "content-type": "application/json" }
    })
    expect(malformed.body.code).toBe("MALFORMED_JSON")
    const large = await request("POST", "/partner/v1/customers", {
      apiKey,
      body: customerBody({ lastName: "x".repeat(maxJsonBodyBytes) })
    })
    expect(large.status).toBe(413)
    const text = await request("POST", "/partner/v1/customers", {
      apiKey,
      rawBody: "firstName=Ada",
      headers: { "content-type": "text/plain" }
    })
    expect(text.status).toBe(415)
  })

  it("requests that match no operation: 404 and 405; HEAD as GET", async () => {
    expect((await request("HEAD", "/health")).status).toBe(200)
    expect((await request("GET", "/partner/v1/nothing-here", { apiKey })).status).toBe(404)
    expect((await request("GET", "/nothing-here")).status).toBe(404)
    const wrongMethod = await request("DELETE", "/partner/v1/customers", { apiKey })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get("allow")).toContain("GET")
  })

  it("ledger and funding reads, funding charges with a reference (409 on reuse), 404s", async () => {
    const customer = await newCustomer()
    const other = await newCustomer()
    const base = `/partner/v1/customers/${customer}`
    expect((await request("GET", `${base}/balance`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/transactions?limit=5&currency=NGN`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/virtual-account`, { apiKey })).body.code).toBe("TIER1_REQUIRED")
    expect((await request("GET", `${base}/addresses`, { apiKey })).status).toBe(200)

    const reference = `conformance-${Date.now()}`
    const charge = await request("POST", `${base}/funding/charge`, { apiKey, body: { amount: 1500.5, reference } })
    expect(charge.status).toBe(201)
    const again = await request("POST", `${base}/wallet/funding/charge`, { apiKey, body: { amount: 1500.5, reference } })
    expect(again.body.data.id).toBe(charge.body.data.id)
    const reused = await request("POST", `/partner/v1/customers/${other}/funding/charge`, { apiKey, body: { amount: 10, reference } })
    expect(reused.body.code).toBe("REFERENCE_IN_USE")
    expect((await request("POST", `${base}/funding/charge`, { apiKey, body: { amount: "10" } })).status).toBe(400)
    expect((await request("GET", `${base}/funding/charges?limit=1`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/funding/charges/${charge.body.data.id}`, { apiKey })).status).toBe(200)
    const unknownCharge = await request("GET", `${base}/funding/charges/00000000-0000-4000-8000-000000000000`, { apiKey })
    expect(unknownCharge.body.code).toBe("FUNDING_CHARGE_NOT_FOUND")
    expect((await request("GET", `${base}/withdrawals/00000000-0000-4000-8000-000000000000`, { apiKey })).status).toBe(404)
    expect((await request("GET", "/partner/v1/webhook/deliveries/nope", { apiKey })).status).toBe(404)

    // Sandbox: pay it, credit a deposit.
    expect((await request("POST", `/sandbox/funding/charges/${charge.body.data.id}/pay`, { apiKey })).status).toBe(200)
    const paidAgain = await request("POST", `/sandbox/funding/charges/${charge.body.data.id}/pay`, { apiKey })
    expect(paidAgain.body.code).toBe("FUNDING_CHARGE_NOT_PENDING")
    const deposit = await request("POST", `/sandbox/customers/${customer}/deposits`, {
      apiKey,
      body: { asset: "USDT", network: "TRON", amount: 25 }
    })
    expect(deposit.status).toBe(201)
    const notIssued = await request("POST", `/sandbox/customers/${other}/virtual-account/credit`, { apiKey, body: { amount: 100 } })
    expect(notIssued.body.code).toBe("VIRTUAL_ACCOUNT_NOT_ISSUED")
  })

  it("server-sent events and the EFT page are documented with their content types", async () => {
    const customer = await newCustomer()
    const controller = new AbortController()
    const stream = await fetch(`${app.baseUrl}/partner/v1/customers/${customer}/balance/stream`, {
      headers: { "x-api-key": apiKey },
      signal: controller.signal
    })
    conformance.assertDescribed({
      method: "GET",
      path: `/api/v1/partner/v1/customers/${customer}/balance/stream`,
      status: stream.status,
      contentType: stream.headers.get("content-type"),
      body: undefined
    })
    expect(stream.status).toBe(200)
    controller.abort()

    const za = await newCustomer({ country: "ZA", phoneNumber: "+27821234567" })
    const charge = await request("POST", `/partner/v1/customers/${za}/funding/charge`, { apiKey, body: { amount: 199.99 } })
    const redirect = new URL(charge.body.data.redirectUrl)
    const pagePath = redirect.pathname.replace(new URL(app.baseUrl).pathname, "")
    const page = await request("GET", pagePath)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect((await request("POST", `${pagePath}/cancel`)).status).toBe(200)
    expect((await request("GET", `/sandbox/eft/${"A".repeat(43)}`)).status).toBe(404)
  })

  it("KYC: tier 1, upload and download, reads, reviewer refusal", async () => {
    const customer = await newCustomer()
    const base = `/partner/v1/customers/${customer}`
    expect((await request("POST", `${base}/kyc/tier1`, { apiKey, body: { bvn: "12345678901", nin: "10987654321" } })).status).toBe(201)
    expect((await request("POST", `${base}/kyc/tier1`, { apiKey, body: { bvn: "123", nin: "10987654321" } })).status).toBe(400)
    const again = await request("POST", `${base}/kyc/tier1`, { apiKey, body: { bvn: "12345678901", nin: "10987654321" } })
    expect(again.body.code).toBe("KYC_TIER_ALREADY_APPROVED")
    expect((await request("GET", `${base}/kyc`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/verification`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/kyc/reverification`, { apiKey })).body.data).toBeNull()

    const upload = await request("POST", `${base}/kyc/documents`, {
      apiKey,
      ...(await multipart([{ name: "file", value: samples.png(), filename: "selfie.png" }, { name: "type", value: "SELFIE" }]))
    })
    expect(upload.status).toBe(201)
    const documentPath = new URL(upload.body.data.url, app.baseUrl).pathname.replace(new URL(app.baseUrl).pathname, "")
    const download = await request("GET", documentPath, { apiKey })
    expect(download.status).toBe(200)
    expect(download.headers.get("content-type")).toBe("image/png")
    const refused = await request("POST", `${base}/kyc/documents`, {
      apiKey,
      ...(await multipart([{ name: "file", value: samples.elf(), filename: "x.png" }]))
    })
    expect(refused.body.code).toBe("UNSUPPORTED_DOCUMENT_TYPE")
    expect((await request("POST", `${base}/kyc/documents`, { apiKey, body: { file: "x" } })).status).toBe(415)

    const decided = await request("POST", `/sandbox/customers/${customer}/kyc/1/decision`, { apiKey, body: { status: "APPROVED" } })
    expect(decided.body.code).toBe("KYC_NOT_AWAITING_DECISION")
    expect((await request("POST", `/sandbox/customers/${customer}/kyc/4/decision`, { apiKey, body: { status: "APPROVED" } })).status).toBe(400)
    const reverification = await request("POST", `/sandbox/customers/${customer}/kyc/reverification`, {
      apiKey,
      body: { items: ["BVN"], message: "Please confirm your BVN" }
    })
    expect(reverification.status).toBe(201)
  })

  it("bank accounts and withdrawals: 200, 201, 400 with details, 503 BANK_UNAVAILABLE, sandbox moves", async () => {
    const customer = await newCustomer()
    const base = `/partner/v1/customers/${customer}`
    expect((await request("GET", `${base}/banks?country=NG`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/banks?country=FR`, { apiKey })).status).toBe(400)
    expect((await request("POST", `${base}/bank/verify-account`, { apiKey, body: { bankCode: "058", accountNumber: "1234567896" } })).status).toBe(200)
    const notFound = await request("POST", `${base}/bank/verify-account`, { apiKey, body: { bankCode: "058", accountNumber: "0000000001" } })
    expect(notFound.body.code).toBe("BANK_ACCOUNT_NOT_FOUND")
    const unavailable = await request("POST", `${base}/bank/verify-account`, { apiKey, body: { bankCode: "058", accountNumber: "0000000002" } })
    expect(unavailable).toMatchObject({ status: 503, body: { code: "BANK_UNAVAILABLE" } })

    expect((await request("GET", `${base}/withdraw/quote?amount=1500.50`, { apiKey })).status).toBe(200)
    const below = await request("GET", `${base}/withdraw/quote?amount=50`, { apiKey })
    expect(below.body).toMatchObject({ code: "WITHDRAWAL_BELOW_MINIMUM", details: { currency: "NGN" } })
    expect((await request("POST", `${base}/withdraw`, { apiKey, body: { amount: 500 } })).body.code).toBe("NO_DEFAULT_BANK_ACCOUNT")

    const saved = await request("POST", `${base}/accounts`, { apiKey, body: { bankCode: "058", accountNumber: "1234567896" } })
    expect(saved.status).toBe(201)
    expect((await request("POST", `${base}/accounts`, { apiKey, body: { bankCode: "058", accountNumber: "1234567896" } })).status).toBe(409)
    expect((await request("GET", `${base}/accounts`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/accounts/${saved.body.data.id}`, { apiKey })).status).toBe(200)
    expect((await request("POST", `${base}/accounts/${saved.body.data.id}/default`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/accounts/nope`, { apiKey })).status).toBe(404)

    expect((await request("POST", `${base}/withdraw`, { apiKey, body: { amount: 500 } })).body.code).toBe("INSUFFICIENT_BALANCE")
    await request("GET", `${base}/virtual-account`, { apiKey }).then((reply) => expect(reply.status).toBe(400))
    await request("POST", `${base}/kyc/tier1`, { apiKey, body: { bvn: "12345678901", nin: "10987654321" } })
    expect((await request("GET", `${base}/virtual-account`, { apiKey })).status).toBe(200)
    expect((await request("POST", `/sandbox/customers/${customer}/virtual-account/credit`, { apiKey, body: { amount: 5000 } })).status).toBe(201)

    await request("PUT", "/sandbox/rails/bank", { apiKey, body: { mode: "manual" } })
    const withdrawal = await request("POST", `${base}/withdraw`, { apiKey, body: { amount: 1500, reference: `w-${Date.now()}` } })
    expect(withdrawal.status).toBe(201)
    expect((await request("GET", `${base}/withdrawals?limit=1`, { apiKey })).status).toBe(200)
    expect((await request("GET", `${base}/withdrawals/${withdrawal.body.data.id}`, { apiKey })).status).toBe(200)
    const id = withdrawal.body.data.id
    expect((await request("POST", `/sandbox/withdrawals/${id}/fail`, { apiKey, body: {} })).status).toBe(400)
    expect((await request("POST", `/sandbox/withdrawals/${id}/complete`, { apiKey })).status).toBe(200)
    expect((await request("POST", `/sandbox/withdrawals/${id}/complete`, { apiKey })).body.code).toBe("WITHDRAWAL_STATE_CONFLICT")
    expect((await request("POST", `/sandbox/withdrawals/${id}/reverse`, { apiKey })).status).toBe(200)
    expect((await request("POST", "/sandbox/withdrawals/00000000-0000-4000-8000-000000000000/complete", { apiKey })).status).toBe(404)
  })

  it("webhooks: configuration, rotation, the delivery log and replay", async () => {
    const { apiKey: key } = await app.newPartner()
    expect((await request("GET", "/partner/v1/webhook", { apiKey: key })).status).toBe(200)
    expect((await request("POST", "/partner/v1/webhook/rotate-secret", { apiKey: key })).body.code).toBe("WEBHOOK_URL_NOT_SET")
    expect((await request("PUT", "/partner/v1/webhook", { apiKey: key, body: { url: "not a url" } })).status).toBe(400)
    const set = await request("PUT", "/partner/v1/webhook", { apiKey: key, body: { url: "http://127.0.0.1:9/hook" } })
    expect(set.status).toBe(200)
    expect((await request("POST", "/partner/v1/webhook/rotate-secret", { apiKey: key })).status).toBe(200)
    const deliveries = await request("GET", "/partner/v1/webhook/deliveries?limit=1&status=PENDING", { apiKey: key })
    expect(deliveries.status).toBe(200)
    const all = await request("GET", "/partner/v1/webhook/deliveries", { apiKey: key })
    const deliveryId = all.body.data[0].id
    expect((await request("GET", `/partner/v1/webhook/deliveries/${deliveryId}`, { apiKey: key })).status).toBe(200)
    expect((await request("POST", `/partner/v1/webhook/deliveries/${deliveryId}/replay`, { apiKey: key })).status).toBe(200)
    expect((await request("GET", "/partner/v1/webhook/deliveries?status=LOST", { apiKey: key })).status).toBe(400)
  })

  it("sandbox controls: partners, KYB, clock, events, rails", async () => {
    expect((await request("POST", "/sandbox/partners")).status).toBe(201)
    expect((await request("POST", "/sandbox/partners", { body: { name: "Conformance", kybStatus: "PENDING" } })).status).toBe(201)
    expect((await request("POST", "/sandbox/partners", { body: { kybStatus: "MAYBE" } })).status).toBe(400)
    const { apiKey: key } = await app.newPartner("PENDING")
    expect((await request("GET", "/sandbox/partner", { apiKey: key })).status).toBe(200)
    expect((await request("POST", "/sandbox/partner/kyb", { apiKey: key, body: { status: "REJECTED" } })).status).toBe(400)
    expect((await request("POST", "/sandbox/partner/kyb", { apiKey: key, body: { status: "APPROVED" } })).status).toBe(200)
    expect((await request("GET", "/sandbox/partner")).status).toBe(401)
    expect((await request("GET", "/sandbox/clock", { apiKey: key })).status).toBe(200)
    expect((await request("POST", "/sandbox/clock/advance", { apiKey: key, body: { seconds: 1 } })).status).toBe(200)
    expect((await request("POST", "/sandbox/clock/advance", { apiKey: key, body: { seconds: 0 } })).status).toBe(400)
    const events = await request("GET", "/sandbox/events?limit=1", { apiKey })
    expect(events.status).toBe(200)
    expect((await request("GET", "/sandbox/events?type=nope", { apiKey })).status).toBe(400)
    expect((await request("GET", "/sandbox/rails", { apiKey: key })).status).toBe(200)
    expect((await request("PUT", "/sandbox/rails/bank", { apiKey: key, body: { mode: "auto", delaySeconds: 5 } })).status).toBe(200)
    expect((await request("PUT", "/sandbox/rails/teleport", { apiKey: key, body: { mode: "auto" } })).status).toBe(400)
  })

  it("503 CUSTOMER_BUSY when the customer actors are at capacity", async () => {
    const busy = await startTestApp({ config: { actorsMax: 1, actorIdleMs: 60_000 } })
    try {
      const busyConformance = makeConformance(await fetchOpenApiDocument(busy.baseUrl))
      const send = conformingRequest(busy, busyConformance)
      const { apiKey: key } = await busy.newPartner()
      const ids: Array<string> = []
      for (let i = 0; i < 2; i++) {
        const reply = await send("POST", "/partner/v1/customers", { apiKey: key, body: customerBody() })
        ids.push(reply.body.data.id)
      }
      const first = await send("POST", `/partner/v1/customers/${ids[0]}/funding/charge`, { apiKey: key, body: { amount: 10 } })
      expect(first.status).toBe(201)
      const second = await send("POST", `/partner/v1/customers/${ids[1]}/funding/charge`, { apiKey: key, body: { amount: 10 } })
      expect(second.body).toMatchObject({ statusCode: 503, code: "CUSTOMER_BUSY" })
    } finally {
      await busy.close()
    }
  })

  it("production mode: its own document describes the rails' 503s and the absent sandbox", async () => {
    const production = await startTestApp({ config: { mode: "production" } })
    try {
      const send = conformingRequest(production, makeConformance(await fetchOpenApiDocument(production.baseUrl)))
      const { apiKey: key } = await production.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Production", kybStatus: "APPROVED" })))
      const customer = (await send("POST", "/partner/v1/customers", { apiKey: key, body: customerBody() })).body.data.id
      const base = `/partner/v1/customers/${customer}`
      expect((await send("GET", `${base}/banks?country=NG`, { apiKey: key })).status).toBe(503)
      expect((await send("GET", `${base}/addresses`, { apiKey: key })).status).toBe(503)
      expect((await send("POST", `${base}/funding/charge`, { apiKey: key, body: { amount: 100 } })).status).toBe(503)
      expect((await send("POST", `${base}/kyc/tier1`, { apiKey: key, body: { bvn: "12345678901", nin: "10987654321" } })).status).toBe(503)
      expect((await send("GET", "/sandbox/clock", { apiKey: key })).status).toBe(404)
    } finally {
      await production.close()
    }
  })

  it("covered every status class the brief names", () => {
    const statuses = new Set(conformance.covered().map((entry) => entry.split(" ").at(-1)))
    for (const status of ["200", "201", "400", "401", "403", "404", "405", "409", "413", "415", "503"]) {
      expect(statuses, status).toContain(status)
    }
  })
})
