import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { requestIdOf } from "../src/http/Middleware.js"
import { Partners } from "../src/partners/Partners.js"
import { fixtures } from "./support/Fixtures.js"
import { customerBody, startTestApp, type Reply, type TestApp } from "./support/TestApp.js"

/**
 * Acceptance tests of the foundation (docs/contract.md "Envelope", "Pagination", "Customers",
 * "Authentication", "Errors"), all through real HTTP against the whole service.
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

const prefix = "/api/v1"
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const customerFields = [
  "country",
  "createdAt",
  "email",
  "firstName",
  "id",
  "lastName",
  "middleName",
  "phoneNumber",
  "updatedAt",
  "verifiedAt"
]

/** Asserts the exact error envelope of docs/contract.md "Errors"; `path` is the request path relative to the base URL. */
const expectError = (reply: Reply, status: number, code: string, path: string) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.headers.get("content-type") ?? "").toMatch(/^application\/json/)
  expect(typeof reply.body).toBe("object")
  // A refusal by the request's schemas adds `details.fields` (every field it got wrong); nothing else adds a key.
  const keys = ["code", "error", "message", "path", "statusCode", "success", "timestamp"]
  expect(Object.keys(reply.body).sort()).toEqual("details" in reply.body && code === "BAD_REQUEST" ? [...keys.slice(0, 1), "details", ...keys.slice(1)] : keys)
  if ("details" in reply.body && code === "BAD_REQUEST") {
    expect(reply.body.details.fields.length).toBeGreaterThan(0)
    for (const { field, message } of reply.body.details.fields.slice(0, 5)) expect(reply.body.message).toContain(field === "" ? message : `${field}: ${message}`.slice(0, 40))
  }
  expect(reply.body.success).toBe(false)
  expect(reply.body.statusCode).toBe(status)
  expect(reply.body.code).toBe(code)
  expect(typeof reply.body.message).toBe("string")
  expect(reply.body.message.length).toBeGreaterThan(0)
  expect(typeof reply.body.error).toBe("string")
  expect(reply.body.error.length).toBeGreaterThan(0)
  expect(reply.body.timestamp).toMatch(isoPattern)
  expect(Number.isNaN(Date.parse(reply.body.timestamp))).toBe(false)
  expect(reply.body.path).toBe(prefix + path.split("?")[0])
  expect(reply.headers.get("x-request-id")).toBeTruthy()
}

const expectCustomer = (data: any) => {
  expect(Object.keys(data).sort()).toEqual(customerFields)
  expect(data.id).toMatch(uuidPattern)
  expect(data.createdAt).toMatch(isoPattern)
  expect(data.updatedAt).toMatch(isoPattern)
  expect(data).not.toHaveProperty("status")
  expect(data).not.toHaveProperty("message")
}

const expectSuccess = (reply: Reply, status: number) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.body.success).toBe(true)
  expect(reply.body).not.toHaveProperty("status")
  expect(reply.body).not.toHaveProperty("message")
  expect(reply.body).toHaveProperty("data")
  expect(reply.headers.get("x-request-id")).toBeTruthy()
}

interface Counts {
  customers: number
  events: number
  partners: number
  apiKeys: number
}

const counts = async (): Promise<Counts> => {
  const [row] = await app.query<Record<string, unknown>>(
    `SELECT (SELECT count(*) FROM customers) AS customers, (SELECT count(*) FROM events) AS events,
            (SELECT count(*) FROM partners) AS partners, (SELECT count(*) FROM api_keys) AS api_keys`
  )
  return {
    customers: Number(row!.customers),
    events: Number(row!.events),
    partners: Number(row!.partners),
    apiKeys: Number(row!.apiKeys)
  }
}

/** Runs a request that must fail and asserts it wrote nothing. */
const unchanged = async <T>(action: () => Promise<T>): Promise<T> => {
  const before = await counts()
  const result = await action()
  expect(await counts()).toEqual(before)
  return result
}

const createCustomer = (key: string, overrides: Record<string, unknown> = {}) =>
  app.request("POST", "/partner/v1/customers", { apiKey: key, body: customerBody(overrides) })

const postCustomerExpecting400 = async (body: unknown, field: string, key = apiKey) => {
  const reply = await unchanged(() => app.request("POST", "/partner/v1/customers", { apiKey: key, body }))
  expectError(reply, 400, "BAD_REQUEST", "/partner/v1/customers")
  expect(reply.body.message).toContain(field)
  return reply
}

const events = (key: string, query: string) => app.request("GET", `/sandbox/events${query}`, { apiKey: key })

describe("POST /partner/v1/customers", () => {
  it("names every missing or invalid field in one answer, and creates nothing", async () => {
    const before = await app.query<{ n: string }>("SELECT count(*)::text AS n FROM customers")
    const empty = await app.request("POST", "/partner/v1/customers", { apiKey, body: {} })
    expect(empty.status).toBe(400)
    expect(empty.body.code).toBe("BAD_REQUEST")
    expect(empty.body.message).toBe(
      "firstName: is required; lastName: is required; email: is required; phoneNumber: is required; country: is required"
    )
    const two = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody({ country: "XX", firstName: 7 }) })
    expect(two.status).toBe(400)
    expect(two.body.message).toMatch(/^firstName: must be a string \(got 7\); country: must be one of /)
    expect(await app.query<{ n: string }>("SELECT count(*)::text AS n FROM customers")).toEqual(before)
  })

  it("creates a customer: 201, the success envelope and exactly the Customer fields", async () => {
    const body = customerBody({ middleName: "Chi" })
    const reply = await app.request("POST", "/partner/v1/customers", { apiKey, body })
    expectSuccess(reply, 201)
    expect(Object.keys(reply.body).sort()).toEqual(["data", "success"])
    expectCustomer(reply.body.data)
    expect(reply.body.data).toMatchObject({
      firstName: "Ada",
      lastName: "Obi",
      middleName: "Chi",
      email: body.email,
      phoneNumber: "+2348012345678",
      country: "NG",
      verifiedAt: null
    })
    expect(reply.body.data.createdAt).toBe(reply.body.data.updatedAt)
    const rows = await app.query(`SELECT partner_id FROM customers WHERE id = $1`, [reply.body.data.id])
    expect(rows).toEqual([{ partnerId }])
  })

  it("middleName is optional and may be null", async () => {
    const omitted = await createCustomer(apiKey)
    expectSuccess(omitted, 201)
    expect(omitted.body.data.middleName).toBeNull()
    const explicitNull = await createCustomer(apiKey, { middleName: null })
    expectSuccess(explicitNull, 201)
    expect(explicitNull.body.data.middleName).toBeNull()
  })

  it("writes customer.registered with the SPEC payload, visible in GET /sandbox/events", async () => {
    const created = await createCustomer(apiKey)
    expectSuccess(created, 201)
    const customer = created.body.data
    const reply = await events(apiKey, `?customerId=${customer.id}`)
    expectSuccess(reply, 200)
    expect(reply.body.data).toHaveLength(1)
    const event = reply.body.data[0]
    expect(event.type).toBe("customer.registered")
    expect(event.id).toMatch(uuidPattern)
    expect(event.createdAt).toMatch(isoPattern)
    expect(event.data).toEqual({
      customerId: customer.id,
      email: customer.email,
      firstName: customer.firstName,
      lastName: customer.lastName,
      phoneNumber: customer.phoneNumber,
      createdAt: customer.createdAt
    })
  })

  it("ignores a customerId in the body", async () => {
    const supplied = NodeCrypto.randomUUID()
    const reply = await createCustomer(apiKey, { customerId: supplied })
    expectSuccess(reply, 201)
    expect(reply.body.data.id).not.toBe(supplied)
    expect(await app.query(`SELECT id FROM customers WHERE id = $1`, [supplied])).toEqual([])
  })

  for (const field of ["firstName", "lastName", "email", "phoneNumber", "country"]) {
    it(`answers 400 naming ${field} when it is missing, and writes nothing`, async () => {
      const body: Record<string, unknown> = customerBody()
      delete body[field]
      await postCustomerExpecting400(body, field)
    })
  }

  for (const phoneNumber of ["08012345678", "2348012345678", "+0348012345678", "+234 801 234 5678", "+23480", "+2348012345678901", ""]) {
    it(`rejects phone number ${JSON.stringify(phoneNumber)} (not E.164)`, async () => {
      await postCustomerExpecting400(customerBody({ phoneNumber }), "phoneNumber")
    })
  }

  for (const email of ["not-an-email", "ada@", "@example.com", "ada@example", "ada obi@example.com", ""]) {
    it(`rejects email ${JSON.stringify(email)}`, async () => {
      await postCustomerExpecting400(customerBody({ email }), "email")
    })
  }

  it("rejects an over-long email", async () => {
    await postCustomerExpecting400(customerBody({ email: `${"a".repeat(250)}@example.com` }), "email")
  })

  for (const country of ["FR", "NGA", "", "ZZ"]) {
    it(`rejects unsupported country ${JSON.stringify(country)} and lists the supported ones`, async () => {
      const reply = await postCustomerExpecting400(customerBody({ country }), "country")
      for (const supported of ["NG", "GH", "KE", "ZA", "UG", "US"]) expect(reply.body.message).toContain(supported)
    })
  }

  for (const field of ["firstName", "lastName", "middleName"]) {
    it(`rejects an over-long ${field} (101 characters) and an empty one`, async () => {
      await postCustomerExpecting400(customerBody({ [field]: "x".repeat(101) }), field)
      await postCustomerExpecting400(customerBody({ [field]: "" }), field)
      await postCustomerExpecting400(customerBody({ [field]: "   " }), field)
    })
  }

  it("accepts names of exactly 100 characters", async () => {
    const reply = await createCustomer(apiKey, { firstName: "f".repeat(100), lastName: "l".repeat(100), middleName: "m".repeat(100) })
    expectSuccess(reply, 201)
    expect(reply.body.data.firstName).toBe("f".repeat(100))
  })

  const wrongTypes: Array<[string, unknown]> = [
    ["firstName", 123],
    ["lastName", ["Obi"]],
    ["middleName", 5],
    ["email", true],
    ["phoneNumber", 2348012345678],
    ["country", 1],
    ["country", { code: "NG" }]
  ]
  for (const [field, value] of wrongTypes) {
    it(`rejects ${field} of the wrong type (${JSON.stringify(value)})`, async () => {
      await postCustomerExpecting400(customerBody({ [field]: value }), field)
    })
  }

  it("rejects a body that is not a JSON object", async () => {
    for (const rawBody of ["[]", "\"text\"", "42", "null", "true"]) {
      const reply = await unchanged(() =>
        app.request("POST", "/partner/v1/customers", { apiKey, rawBody, headers: { "content-type": "application/json" } })
      )
      expectError(reply, 400, "BAD_REQUEST", "/partner/v1/customers")
    }
  })

  it("answers 400 to an empty body, with or without a content type", async () => {
    const withType = await unchanged(() =>
      app.request("POST", "/partner/v1/customers", { apiKey, rawBody: "", headers: { "content-type": "application/json" } })
    )
    expectError(withType, 400, "BAD_REQUEST", "/partner/v1/customers")
    const withoutType = await unchanged(() => app.request("POST", "/partner/v1/customers", { apiKey }))
    expectError(withoutType, 400, "BAD_REQUEST", "/partner/v1/customers")
  })

  it("answers 400 in the envelope to a whitespace-only JSON body", async () => {
    for (const rawBody of ["   ", "\n\t "]) {
      const reply = await unchanged(() =>
        app.request("POST", "/partner/v1/customers", { apiKey, rawBody, headers: { "content-type": "application/json" } })
      )
      expectError(reply, 400, "BAD_REQUEST", "/partner/v1/customers")
    }
  })

  it("answers 409 CUSTOMER_ALREADY_EXISTS to a duplicate email for the same partner, case-insensitively", async () => {
    const email = `dup.${NodeCrypto.randomBytes(4).toString("hex")}@example.com`
    expectSuccess(await createCustomer(apiKey, { email }), 201)
    for (const variant of [email, email.toUpperCase(), `  ${email.replace("dup", "DuP")}  `]) {
      const reply = await unchanged(() => createCustomer(apiKey, { email: variant }))
      expectError(reply, 409, "CUSTOMER_ALREADY_EXISTS", "/partner/v1/customers")
    }
    // another partner may register the same email
    const other = await fx.partner()
    const reply = await createCustomer(other.apiKey, { email: email.toUpperCase() })
    expectSuccess(reply, 201)
  })

  it("answers 409 to concurrent duplicates: exactly one of them is created", async () => {
    const email = `race.${NodeCrypto.randomBytes(4).toString("hex")}@example.com`
    const replies = await Promise.all(Array.from({ length: 5 }, () => createCustomer(apiKey, { email })))
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409])
    for (const reply of replies.filter((r) => r.status === 409)) {
      expectError(reply, 409, "CUSTOMER_ALREADY_EXISTS", "/partner/v1/customers")
    }
    expect(await app.query(`SELECT id FROM customers WHERE lower(email) = $1`, [email])).toHaveLength(1)
  })
})

describe("GET /partner/v1/customers/{id} and /countries", () => {
  it("reads back a customer exactly as created", async () => {
    const created = await createCustomer(apiKey, { country: "KE", phoneNumber: "+254712345678" })
    expectSuccess(created, 201)
    const reply = await app.request("GET", `/partner/v1/customers/${created.body.data.id}`, { apiKey })
    expectSuccess(reply, 200)
    expect(Object.keys(reply.body).sort()).toEqual(["data", "success"])
    expectCustomer(reply.body.data)
    expect(reply.body.data).toEqual(created.body.data)
  })

  it("accepts an upper-case form of the customer's uuid", async () => {
    const created = await createCustomer(apiKey)
    const reply = await app.request("GET", `/partner/v1/customers/${created.body.data.id.toUpperCase()}`, { apiKey })
    expectSuccess(reply, 200)
    expect(reply.body.data.id).toBe(created.body.data.id)
  })

  it("lists supported countries as a plain array with no meta", async () => {
    const reply = await app.request("GET", "/partner/v1/countries", { apiKey })
    expectSuccess(reply, 200)
    expect(Object.keys(reply.body).sort()).toEqual(["data", "success"])
    expect(Array.isArray(reply.body.data)).toBe(true)
    const codes = reply.body.data.map((c: any) => c.country)
    expect(codes).toEqual(expect.arrayContaining(["NG", "GH", "KE", "ZA", "UG", "US"]))
    expect(reply.body.data.find((c: any) => c.country === "NG")).toMatchObject({ currency: "NGN" })
  })
})

describe("error envelope", () => {
  it("malformed JSON answers 400 MALFORMED_JSON and writes nothing", async () => {
    for (const rawBody of ["{\"firstName\":", "{firstName: 'Ada'}", "{\"a\":1}}", "\u0000"]) {
      const reply = await unchanged(() =>
        app.request("POST", "/partner/v1/customers", { apiKey, rawBody, headers: { "content-type": "application/json" } })
      )
      expectError(reply, 400, "MALFORMED_JSON", "/partner/v1/customers")
    }
  })

  it("malformed JSON on an unauthenticated sandbox route answers 400 MALFORMED_JSON too", async () => {
    const reply = await unchanged(() =>
      app.request("POST", "/sandbox/partners", { rawBody: "{", headers: { "content-type": "application/json" } })
    )
    expectError(reply, 400, "MALFORMED_JSON", "/sandbox/partners")
  })

  it("a content type other than JSON answers 415", async () => {
    const json = JSON.stringify(customerBody())
    const cases: Array<[string, string]> = [
      ["text/plain", json],
      ["application/x-www-form-urlencoded", "firstName=Ada&lastName=Obi"],
      ["text/html; charset=utf-8", json],
      ["application/jsonp", json]
    ]
    for (const [contentType, rawBody] of cases) {
      const reply = await unchanged(() =>
        app.request("POST", "/partner/v1/customers", { apiKey, rawBody, headers: { "content-type": contentType } })
      )
      expectError(reply, 415, "UNSUPPORTED_MEDIA_TYPE", "/partner/v1/customers")
    }
  })

  it("application/json with a charset parameter is accepted", async () => {
    const reply = await app.request("POST", "/partner/v1/customers", {
      apiKey,
      rawBody: JSON.stringify(customerBody()),
      headers: { "content-type": "application/json; charset=utf-8" }
    })
    expectSuccess(reply, 201)
  })

  it("an unknown route answers 404 NOT_FOUND in the envelope", async () => {
    for (const path of ["/nope", "/partner/v1/nothing", "/partner/v1/customers/a/b/c", "/sandbox/nothing"]) {
      const reply = await app.request("GET", path, { apiKey })
      expectError(reply, 404, "NOT_FOUND", path)
    }
    const posted = await unchanged(() => app.request("POST", "/partner/v1/nothing", { apiKey, body: { a: 1 } }))
    expectError(posted, 404, "NOT_FOUND", "/partner/v1/nothing")
  })

  it("a path outside /api/v1 answers 404 in the envelope", async () => {
    const origin = app.baseUrl.replace(/\/api\/v1$/, "")
    for (const path of ["/", "/favicon.ico", "/partner/v1/customers"]) {
      const response = await fetch(origin + path)
      expect(response.status).toBe(404)
      const body = await response.json() as any
      expect(body).toMatchObject({ success: false, statusCode: 404, code: "NOT_FOUND", path })
      expect(response.headers.get("x-request-id")).toBeTruthy()
    }
  })

  it("a wrong method on a known path answers 405 METHOD_NOT_ALLOWED with an allow header", async () => {
    const cases: Array<[string, string, Array<string>]> = [
      ["DELETE", "/partner/v1/customers", ["GET", "POST"]],
      ["PUT", "/partner/v1/customers", ["GET", "POST"]],
      ["POST", "/partner/v1/countries", ["GET"]],
      ["DELETE", `/partner/v1/customers/${NodeCrypto.randomUUID()}`, ["GET"]],
      ["POST", "/sandbox/clock", ["GET"]],
      ["GET", "/sandbox/clock/advance", ["POST"]],
      ["PATCH", "/health", ["GET"]]
    ]
    for (const [method, path, allowed] of cases) {
      const reply = await unchanged(() => app.request(method, path, { apiKey }))
      expectError(reply, 405, "METHOD_NOT_ALLOWED", path)
      const allow = (reply.headers.get("allow") ?? "").split(",").map((m) => m.trim()).filter((m) => m !== "").sort()
      expect(allow).toEqual(allowed)
    }
  })

  it("a body over 1 MiB answers 413 PAYLOAD_TOO_LARGE and writes nothing", async () => {
    const rawBody = JSON.stringify(customerBody({ padding: "x".repeat(1024 * 1024) }))
    const reply = await unchanged(() =>
      app.request("POST", "/partner/v1/customers", { apiKey, rawBody, headers: { "content-type": "application/json" } })
    )
    expectError(reply, 413, "PAYLOAD_TOO_LARGE", "/partner/v1/customers")
  })

  it("a streamed (chunked) body over 1 MiB answers 413 too", async () => {
    const before = await counts()
    const url = new URL(`${app.baseUrl}/partner/v1/customers`)
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = NodeHttp.request(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey, "transfer-encoding": "chunked" }
      }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk) => (text += chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }))
      })
      // the server may answer and close before the upload ends; only the answer matters
      request.on("error", (error) => (request.destroyed ? undefined : reject(error)))
      const chunk = "x".repeat(64 * 1024)
      request.write("{\"padding\":\"")
      let sent = 0
      const pump = () => {
        while (sent < 20) {
          sent++
          if (!request.write(chunk)) return void request.once("drain", pump)
        }
        request.end("\"}")
      }
      pump()
    })
    expect(status).toBe(413)
    expect(JSON.parse(text)).toMatchObject({
      success: false,
      statusCode: 413,
      code: "PAYLOAD_TOO_LARGE",
      path: `${prefix}/partner/v1/customers`
    })
    expect(await counts()).toEqual(before)
  })

  it("a streamed (chunked) body within the limit is read and handled normally", async () => {
    const body = customerBody()
    const encoded = new TextEncoder().encode(JSON.stringify(body))
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoded.subarray(0, 10))
        controller.enqueue(encoded.subarray(10))
        controller.close()
      }
    })
    const response = await fetch(`${app.baseUrl}/partner/v1/customers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: stream,
      duplex: "half"
    } as RequestInit)
    const reply = await response.json() as any
    expect(response.status, JSON.stringify(reply)).toBe(201)
    expect(reply.data.email).toBe(body.email)
    const malformed = await fetch(`${app.baseUrl}/partner/v1/customers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("{\"firstName\":"))
          controller.close()
        }
      }),
      duplex: "half"
    } as RequestInit)
    expect(malformed.status).toBe(400)
    expect(((await malformed.json()) as any).code).toBe("MALFORMED_JSON")
  })

  it("x-request-id is on every response and a valid incoming one is honoured", async () => {
    const ok = await app.request("GET", "/health")
    expect(ok.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{8,64}$/)
    const err = await app.request("GET", "/partner/v1/customers")
    expect(err.status).toBe(401)
    expect(err.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{8,64}$/)
    expect(err.headers.get("x-request-id")).not.toBe(ok.headers.get("x-request-id"))
    const honoured = await app.request("GET", "/partner/v1/customers", { apiKey, headers: { "x-request-id": "client-req.0001_abc" } })
    expect(honoured.status).toBe(200)
    expect(honoured.headers.get("x-request-id")).toBe("client-req.0001_abc")
    const honouredError = await app.request("GET", "/nope", { headers: { "x-request-id": "client-req.0002_abc" } })
    expect(honouredError.headers.get("x-request-id")).toBe("client-req.0002_abc")
    for (const invalid of ["short", "has spaces in it", "x".repeat(65), "semi;colon;id"]) {
      const reply = await app.request("GET", "/health", { headers: { "x-request-id": invalid } })
      const id = reply.headers.get("x-request-id")
      expect(id).toMatch(/^[A-Za-z0-9._-]{8,64}$/)
      expect(id).not.toBe(invalid)
    }
  })

  it("generated request ids are 24 random hex digits, distinct", () => {
    const ids = Array.from({ length: 1000 }, () => requestIdOf(undefined))
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/)
    expect(new Set(ids).size).toBe(ids.length)
    expect(requestIdOf("client-req.0001_abc")).toBe("client-req.0001_abc")
    expect(requestIdOf("short")).toMatch(/^req_[0-9a-f]{24}$/)
  })

  it("body pre-check errors (415, 413, MALFORMED_JSON) carry x-request-id too", async () => {
    const reply = await app.request("POST", "/partner/v1/customers", {
      apiKey,
      rawBody: "{",
      headers: { "content-type": "application/json", "x-request-id": "precheck-0001" }
    })
    expect(reply.status).toBe(400)
    expect(reply.headers.get("x-request-id")).toBe("precheck-0001")
  })
})

describe("MAX_JSON_BODY_BYTES", () => {
  let small: TestApp
  let smallKey: string
  beforeAll(async () => {
    small = await startTestApp({ config: { maxJsonBodyBytes: 400 } })
    smallKey = (await fixtures(small).partner()).apiKey
  })
  afterAll(() => small?.close())

  it("the configured limit applies: a body over it answers 413, one under it is accepted", async () => {
    const body = customerBody()
    const under = await small.request("POST", "/partner/v1/customers", { apiKey: smallKey, body })
    expect(under.status).toBe(201)
    const before = await small.query(`SELECT count(*)::int AS n FROM customers`)
    const over = await small.request("POST", "/partner/v1/customers", {
      apiKey: smallKey,
      body: customerBody({ middleName: "m".repeat(50), padding: "x".repeat(400) })
    })
    expect(over.status).toBe(413)
    expect(over.body).toMatchObject({ success: false, statusCode: 413, code: "PAYLOAD_TOO_LARGE", path: `${prefix}/partner/v1/customers` })
    expect(Object.keys(over.body).sort()).toEqual(["code", "error", "message", "path", "statusCode", "success", "timestamp"])
    expect(await small.query(`SELECT count(*)::int AS n FROM customers`)).toEqual(before)
  })
})

describe("authentication", () => {
  it("a missing key answers 401 UNAUTHORIZED and writes nothing", async () => {
    expectError(await app.request("GET", "/partner/v1/customers"), 401, "UNAUTHORIZED", "/partner/v1/customers")
    expectError(await app.request("GET", "/partner/v1/countries"), 401, "UNAUTHORIZED", "/partner/v1/countries")
    const posted = await unchanged(() => app.request("POST", "/partner/v1/customers", { body: customerBody() }))
    expectError(posted, 401, "UNAUTHORIZED", "/partner/v1/customers")
    const empty = await app.request("GET", "/partner/v1/customers", { headers: { "x-api-key": "" } })
    expectError(empty, 401, "UNAUTHORIZED", "/partner/v1/customers")
  })

  it("an unknown key answers 401 UNAUTHORIZED and writes nothing", async () => {
    for (const key of ["sk_sandbox_unknown", apiKey + "x", apiKey.slice(0, -1), "x".repeat(1000)]) {
      const reply = await unchanged(() => app.request("POST", "/partner/v1/customers", { apiKey: key, body: customerBody() }))
      expectError(reply, 401, "UNAUTHORIZED", "/partner/v1/customers")
    }
  })

  it("authentication is checked before the body: an invalid body without a key answers 401", async () => {
    const reply = await unchanged(() => app.request("POST", "/partner/v1/customers", { body: { firstName: 1 } }))
    expectError(reply, 401, "UNAUTHORIZED", "/partner/v1/customers")
  })

  for (const kybStatus of ["PENDING", "REJECTED"] as const) {
    it(`a ${kybStatus} partner gets 403 PARTNER_NOT_APPROVED on partner routes and writes nothing`, async () => {
      const partner = await fx.partner({ kybStatus })
      for (const [method, path] of [["GET", "/partner/v1/customers"], ["GET", "/partner/v1/countries"], ["GET", `/partner/v1/customers/${NodeCrypto.randomUUID()}`]]) {
        const reply = await app.request(method!, path!, { apiKey: partner.apiKey })
        expectError(reply, 403, "PARTNER_NOT_APPROVED", path!)
        expect(reply.body.message.startsWith("Your partner account is not yet approved")).toBe(true)
      }
      const posted = await unchanged(() => createCustomer(partner.apiKey))
      expectError(posted, 403, "PARTNER_NOT_APPROVED", "/partner/v1/customers")
      expect(posted.body.message.startsWith("Your partner account is not yet approved")).toBe(true)
    })
  }

  it("approving KYB via POST /sandbox/partner/kyb opens the partner routes and emits partner.approved", async () => {
    const partner = await fx.partner({ kybStatus: "PENDING" })
    expect((await app.request("GET", "/partner/v1/customers", { apiKey: partner.apiKey })).status).toBe(403)
    expect((await events(partner.apiKey, "?type=partner.approved")).body.data).toEqual([])
    const approved = await app.request("POST", "/sandbox/partner/kyb", { apiKey: partner.apiKey, body: { status: "APPROVED" } })
    expectSuccess(approved, 200)
    expect(approved.body.data).toMatchObject({ partnerId: partner.partnerId, kybStatus: "APPROVED", kybReason: null })
    const list = await app.request("GET", "/partner/v1/customers", { apiKey: partner.apiKey })
    expectSuccess(list, 200)
    expect(list.body.data).toEqual([])
    expectSuccess(await createCustomer(partner.apiKey), 201)
    const emitted = await events(partner.apiKey, "?type=partner.approved")
    expect(emitted.body.data).toHaveLength(1)
    expect(emitted.body.data[0].data).toEqual({ partnerId: partner.partnerId, status: "APPROVED" })
  })

  it("rejecting KYB closes the routes again, emits partner.rejected and requires a reason", async () => {
    const partner = await fx.partner({ kybStatus: "APPROVED" })
    const noReason = await unchanged(() =>
      app.request("POST", "/sandbox/partner/kyb", { apiKey: partner.apiKey, body: { status: "REJECTED" } })
    )
    expectError(noReason, 400, "BAD_REQUEST", "/sandbox/partner/kyb")
    expect(noReason.body.message).toContain("reason")
    const badStatus = await unchanged(() =>
      app.request("POST", "/sandbox/partner/kyb", { apiKey: partner.apiKey, body: { status: "MAYBE" } })
    )
    expectError(badStatus, 400, "BAD_REQUEST", "/sandbox/partner/kyb")
    expect(badStatus.body.message).toContain("status")
    const rejected = await app.request("POST", "/sandbox/partner/kyb", {
      apiKey: partner.apiKey,
      body: { status: "REJECTED", reason: "documents unreadable" }
    })
    expectSuccess(rejected, 200)
    expect(rejected.body.data).toMatchObject({ kybStatus: "REJECTED", kybReason: "documents unreadable" })
    const reply = await app.request("GET", "/partner/v1/customers", { apiKey: partner.apiKey })
    expectError(reply, 403, "PARTNER_NOT_APPROVED", "/partner/v1/customers")
    const emitted = await events(partner.apiKey, "?type=partner.rejected")
    expect(emitted.body.data.map((e: any) => e.data)).toEqual([
      { partnerId: partner.partnerId, status: "REJECTED", reason: "documents unreadable" }
    ])
  })

  it("403 CUSTOMER_FORBIDDEN is identical for an unknown uuid, a malformed id and another partner's customer", async () => {
    const other = await fx.partner()
    const foreign = await createCustomer(other.apiKey)
    expectSuccess(foreign, 201)
    const ids = [NodeCrypto.randomUUID(), "not-a-uuid", "123", foreign.body.data.id, "%20", "00000000-0000-0000-0000-00000000000g"]
    const bodies: Array<unknown> = []
    for (const id of ids) {
      const path = `/partner/v1/customers/${id}`
      const reply = await app.request("GET", path, { apiKey })
      expect(reply.status, id).toBe(403)
      expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
      expectError(reply, 403, "CUSTOMER_FORBIDDEN", decodeURIComponent(path) === path ? path : reply.body.path.slice(prefix.length))
      const { timestamp: _t, path: _p, ...rest } = reply.body
      bodies.push(rest)
    }
    for (const body of bodies) expect(body).toEqual(bodies[0])
    // the owner still reads it
    expectSuccess(await app.request("GET", `/partner/v1/customers/${foreign.body.data.id}`, { apiKey: other.apiKey }), 200)
  })

  it("sandbox routes work for a PENDING partner", async () => {
    const partner = await fx.partner({ kybStatus: "PENDING" })
    const view = await app.request("GET", "/sandbox/partner", { apiKey: partner.apiKey })
    expectSuccess(view, 200)
    expect(view.body.data).toMatchObject({ partnerId: partner.partnerId, kybStatus: "PENDING", kybReason: null })
    expect(view.body.data.updatedAt).toMatch(isoPattern)
    expectSuccess(await app.request("GET", "/sandbox/clock", { apiKey: partner.apiKey }), 200)
    expectSuccess(await events(partner.apiKey, ""), 200)
  })

  it("sandbox routes other than POST /sandbox/partners require a key", async () => {
    for (const [method, path] of [["GET", "/sandbox/partner"], ["GET", "/sandbox/clock"], ["GET", "/sandbox/events"]] as const) {
      expectError(await app.request(method, path), 401, "UNAUTHORIZED", path)
    }
    const advance = await unchanged(() => app.request("POST", "/sandbox/clock/advance", { body: { seconds: 10 } }))
    expectError(advance, 401, "UNAUTHORIZED", "/sandbox/clock/advance")
    const kyb = await unchanged(() => app.request("POST", "/sandbox/partner/kyb", { body: { status: "APPROVED" } }))
    expectError(kyb, 401, "UNAUTHORIZED", "/sandbox/partner/kyb")
  })

  it("the api_keys table holds no plaintext key, only its SHA-256", async () => {
    const partner = await fx.partner()
    const rows = await app.query<Record<string, unknown>>(`SELECT * FROM api_keys WHERE partner_id = $1`, [partner.partnerId])
    expect(rows).toHaveLength(1)
    const row = rows[0]!
    const hash = Buffer.from(row.keyHash as Uint8Array)
    expect(hash.equals(NodeCrypto.createHash("sha256").update(partner.apiKey).digest())).toBe(true)
    const secretPart = partner.apiKey.slice(String(row.keyPrefix).length)
    expect(secretPart.length).toBeGreaterThanOrEqual(32)
    for (const value of Object.values(row)) {
      const text = value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : String(value)
      expect(text).not.toContain(partner.apiKey)
      expect(text).not.toContain(secretPart)
    }
    const dump = await app.query(`SELECT encode(key_hash, 'escape') AS raw, key_prefix FROM api_keys`)
    expect(JSON.stringify(dump)).not.toContain(secretPart)
  })
})

describe("pagination of GET /partner/v1/customers", () => {
  let key: string
  let ids: Array<string> // newest first

  beforeAll(async () => {
    key = (await fx.partner()).apiKey
    const created: Array<{ id: string; createdAt: string }> = []
    for (let batch = 0; batch < 10; batch++) {
      const replies = await Promise.all(Array.from({ length: 25 }, () => createCustomer(key)))
      for (const reply of replies) {
        if (reply.status !== 201) throw new Error(`create failed: ${JSON.stringify(reply.body)}`)
        created.push(reply.body.data)
      }
    }
    // Within a parallel batch the service decides the order; take it from the listing's own order only in the
    // walk test below. Here just remember the set.
    ids = created.map((c) => c.id)
  }, 120_000)

  const list = (query: string, k = key) => app.request("GET", `/partner/v1/customers${query}`, { apiKey: k })

  it("defaults to 20 items with meta.nextCursor", async () => {
    const reply = await list("")
    expectSuccess(reply, 200)
    expect(Object.keys(reply.body).sort()).toEqual(["data", "meta", "success"])
    expect(reply.body.data).toHaveLength(20)
    expect(Object.keys(reply.body.meta)).toEqual(["nextCursor"])
    expect(typeof reply.body.meta.nextCursor).toBe("string")
    for (const customer of reply.body.data) expectCustomer(customer)
  })

  it("accepts limit 1 to 100", async () => {
    for (const limit of [1, 2, 57, 99, 100]) {
      const reply = await list(`?limit=${limit}`)
      expectSuccess(reply, 200)
      expect(reply.body.data).toHaveLength(limit)
    }
  })

  for (const limit of ["0", "101", "-1", "1.5", "abc", "", "1e2", "20abc", "99999999999999999999"]) {
    it(`limit=${JSON.stringify(limit)} answers 400 BAD_REQUEST naming limit`, async () => {
      const reply = await list(`?limit=${encodeURIComponent(limit)}`)
      expectError(reply, 400, "BAD_REQUEST", "/partner/v1/customers")
      expect(reply.body.message).toContain("limit")
    })
  }

  it("walking every page with limit=100 returns the 250 ids exactly once, newest first, ending with nextCursor null", async () => {
    const seen: Array<any> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const reply: Reply = await list(`?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expectSuccess(reply, 200)
      pages++
      seen.push(...reply.body.data)
      cursor = reply.body.meta.nextCursor
      if (pages < 3) expect(cursor).not.toBeNull()
    } while (cursor !== null && pages < 10)
    expect(pages).toBe(3)
    expect(seen).toHaveLength(250)
    expect(new Set(seen.map((c) => c.id)).size).toBe(250)
    expect(new Set(seen.map((c) => c.id))).toEqual(new Set(ids))
    // newest first: the database insertion order, reversed
    const order = await app.query<{ id: string }>(
      `SELECT id FROM customers WHERE id = ANY($1::uuid[]) ORDER BY seq DESC`,
      [ids]
    )
    expect(seen.map((c) => c.id)).toEqual(order.map((r) => r.id))
    // (createdAt is not compared: under parallel creation it is read before the insert that assigns the order)
  })

  it("a page of exactly the remaining items has nextCursor null", async () => {
    const first = await list("?limit=100")
    const second = await list(`?limit=100&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`)
    const third = await list(`?limit=50&cursor=${encodeURIComponent(second.body.meta.nextCursor)}`)
    expectSuccess(third, 200)
    expect(third.body.data).toHaveLength(50)
    expect(third.body.meta.nextCursor).toBeNull()
  })

  it("a tampered, truncated, random or foreign cursor answers 400 INVALID_CURSOR", async () => {
    const page = await list("?limit=5")
    const cursor: string = page.body.meta.nextCursor
    const [payload, signature] = cursor.split(".") as [string, string]
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1)
    const eventsPage = await events(key, "?limit=1")
    const eventsCursor: string = eventsPage.body.meta.nextCursor
    expect(typeof eventsCursor).toBe("string")
    const forged = Buffer.from(JSON.stringify({ l: "customers", s: "1" })).toString("base64url")
    const bad = [
      `${flip(payload, 2)}.${signature}`,
      `${flip(payload, payload.length - 3)}.${signature}`,
      `${payload}.${flip(signature, 0)}`,
      `${payload}.${flip(signature, 10)}`,
      `${payload}.${signature}AA`,
      `${payload}.${signature}!!`,
      `${payload}.${signature}.x`,
      cursor.slice(0, -4),
      cursor.slice(0, cursor.length / 2),
      payload,
      `.${signature}`,
      `${forged}.${signature}`,
      NodeCrypto.randomBytes(24).toString("base64url"),
      `${NodeCrypto.randomBytes(30).toString("base64url")}.${NodeCrypto.randomBytes(16).toString("base64url")}`,
      "x".repeat(600),
      eventsCursor
    ]
    for (const value of bad) {
      const reply = await list(`?cursor=${encodeURIComponent(value)}`)
      expect(reply.status, value).toBe(400)
      expectError(reply, 400, "INVALID_CURSOR", "/partner/v1/customers")
    }
    // and a customers cursor on the events list
    const reply = await events(key, `?cursor=${encodeURIComponent(cursor)}`)
    expectError(reply, 400, "INVALID_CURSOR", "/sandbox/events")
    // an empty cursor is not a valid one either
    const empty = await list("?cursor=")
    expect(empty.status).toBe(400)
  })

  it("is stable under inserts: page 2 continues exactly where page 1 ended", async () => {
    const before = await list("?limit=100")
    const all = [...before.body.data]
    let cursor = before.body.meta.nextCursor
    while (cursor !== null) {
      const next = await list(`?limit=100&cursor=${encodeURIComponent(cursor)}`)
      all.push(...next.body.data)
      cursor = next.body.meta.nextCursor
    }
    const page1 = await list("?limit=30")
    expect(page1.body.data.map((c: any) => c.id)).toEqual(all.slice(0, 30).map((c) => c.id))
    const fresh = await Promise.all(Array.from({ length: 5 }, () => createCustomer(key)))
    for (const reply of fresh) expectSuccess(reply, 201)
    const page2 = await list(`?limit=30&cursor=${encodeURIComponent(page1.body.meta.nextCursor)}`)
    expectSuccess(page2, 200)
    expect(page2.body.data.map((c: any) => c.id)).toEqual(all.slice(30, 60).map((c) => c.id))
    const newest = await list("?limit=5")
    expect(new Set(newest.body.data.map((c: any) => c.id))).toEqual(new Set(fresh.map((r) => r.body.data.id)))
  })

  it("a partner's listing never shows another partner's customers", async () => {
    const other = await fx.partner()
    const mine = await createCustomer(other.apiKey)
    const reply = await list("?limit=100", other.apiKey)
    expect(reply.body.data.map((c: any) => c.id)).toEqual([mine.body.data.id])
    expect(reply.body.meta.nextCursor).toBeNull()
    // a cursor from one partner's list does not reveal the other's customers
    const page = await list("?limit=1")
    const crossed = await list(`?limit=100&cursor=${encodeURIComponent(page.body.meta.nextCursor)}`, other.apiKey)
    if (crossed.status === 200) {
      for (const customer of crossed.body.data) expect(ids).not.toContain(customer.id)
    } else {
      expectError(crossed, 400, "INVALID_CURSOR", "/partner/v1/customers")
    }
  })
})

describe("sandbox control API", () => {
  it("POST /sandbox/partners needs no key and answers 201 with partnerId, apiKey and kybStatus APPROVED by default", async () => {
    const before = await counts()
    const reply = await app.request("POST", "/sandbox/partners", { body: {} })
    expectSuccess(reply, 201)
    expect(reply.body.data).toMatchObject({ kybStatus: "APPROVED" })
    expect(reply.body.data.partnerId).toMatch(uuidPattern)
    expect(reply.body.data.apiKey).toMatch(/^sk_sandbox_[0-9A-Za-z]{32,}$/)
    const after = await counts()
    expect(after.partners).toBe(before.partners + 1)
    expect(after.apiKeys).toBe(before.apiKeys + 1)
    // the key works at once
    expectSuccess(await app.request("GET", "/partner/v1/customers", { apiKey: reply.body.data.apiKey }), 200)
    const emitted = await events(reply.body.data.apiKey, "?type=partner.approved")
    expect(emitted.body.data).toHaveLength(1)
  })

  it("POST /sandbox/partners with no body at all creates an APPROVED partner", async () => {
    const reply = await app.request("POST", "/sandbox/partners")
    expectSuccess(reply, 201)
    expect(reply.body.data).toMatchObject({ kybStatus: "APPROVED", name: "Sandbox Partner" })
  })

  it("POST /sandbox/partners ignores an x-api-key header, even an unknown one", async () => {
    const reply = await app.request("POST", "/sandbox/partners", { apiKey: "sk_sandbox_bogus", body: {} })
    expectSuccess(reply, 201)
  })

  it("POST /sandbox/partners honours kybStatus and name, and gives every partner a distinct key", async () => {
    const a = await app.request("POST", "/sandbox/partners", { body: { kybStatus: "PENDING", name: "Acme Ltd" } })
    expectSuccess(a, 201)
    expect(a.body.data).toMatchObject({ kybStatus: "PENDING", name: "Acme Ltd" })
    const b = await app.request("POST", "/sandbox/partners", { body: { kybStatus: "REJECTED" } })
    expectSuccess(b, 201)
    expect(b.body.data.kybStatus).toBe("REJECTED")
    expect(a.body.data.apiKey).not.toBe(b.body.data.apiKey)
    expect(a.body.data.partnerId).not.toBe(b.body.data.partnerId)
  })

  it("POST /sandbox/partners with a bad kybStatus or name answers 400 and writes nothing", async () => {
    for (const body of [{ kybStatus: "MAYBE" }, { kybStatus: 1 }, { name: "" }, { name: "x".repeat(201) }]) {
      const field = Object.keys(body)[0]!
      const reply = await unchanged(() => app.request("POST", "/sandbox/partners", { body }))
      expectError(reply, 400, "BAD_REQUEST", "/sandbox/partners")
      expect(reply.body.message).toContain(field)
    }
  })

  it("GET /sandbox/clock reads the service clock", async () => {
    const reply = await app.request("GET", "/sandbox/clock", { apiKey })
    expectSuccess(reply, 200)
    expect(Object.keys(reply.body.data).sort()).toEqual(["now", "offsetSeconds", "partnerOffsetSeconds"])
    expect(reply.body.data.now).toMatch(isoPattern)
    expect(typeof reply.body.data.offsetSeconds).toBe("number")
  })

  it("POST /sandbox/clock/advance moves now by the given seconds, and new records follow the service clock", async () => {
    const before = await app.request("GET", "/sandbox/clock", { apiKey })
    const advanced = await app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds: 86_400 } })
    expectSuccess(advanced, 200)
    expect(advanced.body.data.offsetSeconds).toBe(before.body.data.offsetSeconds + 86_400)
    const moved = Date.parse(advanced.body.data.now) - Date.parse(before.body.data.now)
    expect(moved).toBeGreaterThanOrEqual(86_400_000)
    expect(moved).toBeLessThan(86_400_000 + 60 * 60_000)
    const reading = await app.request("GET", "/sandbox/clock", { apiKey })
    expect(reading.body.data.offsetSeconds).toBe(advanced.body.data.offsetSeconds)
    const created = await createCustomer(apiKey)
    expectSuccess(created, 201)
    const createdAt = Date.parse(created.body.data.createdAt)
    // the record is stamped with the service clock (a day ahead of the wall clock), not the wall clock
    expect(createdAt).toBeGreaterThanOrEqual(Date.parse(advanced.body.data.now))
    expect(createdAt - Date.now()).toBeGreaterThan(86_400_000 - 60 * 60_000)
    const event = await events(apiKey, `?customerId=${created.body.data.id}`)
    expect(Date.parse(event.body.data[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(advanced.body.data.now))
  })

  const badSeconds: Array<unknown> = [0, -5, 1.5, "10", null, true, 400 * 86_400 + 1, 1e300]
  for (const seconds of badSeconds) {
    it(`POST /sandbox/clock/advance rejects seconds=${JSON.stringify(seconds)} with 400 and does not move the clock`, async () => {
      const before = await app.request("GET", "/sandbox/clock", { apiKey })
      const reply = await unchanged(() => app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds } }))
      expectError(reply, 400, "BAD_REQUEST", "/sandbox/clock/advance")
      expect(reply.body.message).toContain("seconds")
      const after = await app.request("GET", "/sandbox/clock", { apiKey })
      expect(after.body.data.offsetSeconds).toBe(before.body.data.offsetSeconds)
    })
  }

  it("POST /sandbox/clock/advance without seconds answers 400 naming seconds", async () => {
    const reply = await app.request("POST", "/sandbox/clock/advance", { apiKey, body: {} })
    expectError(reply, 400, "BAD_REQUEST", "/sandbox/clock/advance")
    expect(reply.body.message).toContain("seconds")
  })

  it("GET /sandbox/events lists newest first, pages by cursor, and filters by customerId and type", async () => {
    const partner = await fx.partner()
    const created: Array<any> = []
    for (let i = 0; i < 3; i++) created.push((await createCustomer(partner.apiKey)).body.data)
    const all = await events(partner.apiKey, "")
    expectSuccess(all, 200)
    expect(Object.keys(all.body).sort()).toEqual(["data", "meta", "success"])
    expect(all.body.meta.nextCursor).toBeNull()
    expect(all.body.data.map((e: any) => e.type)).toEqual([
      "customer.registered",
      "customer.registered",
      "customer.registered",
      "partner.approved"
    ])
    expect(all.body.data.slice(0, 3).map((e: any) => e.data.customerId)).toEqual(created.map((c) => c.id).reverse())
    for (const event of all.body.data) {
      expect(event.id).toMatch(uuidPattern)
      expect(event.createdAt).toMatch(isoPattern)
    }
    // paging
    const first = await events(partner.apiKey, "?limit=3")
    expect(first.body.data.map((e: any) => e.id)).toEqual(all.body.data.slice(0, 3).map((e: any) => e.id))
    const second = await events(partner.apiKey, `?limit=3&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`)
    expect(second.body.data.map((e: any) => e.id)).toEqual([all.body.data[3].id])
    expect(second.body.meta.nextCursor).toBeNull()
    // filters
    const byCustomer = await events(partner.apiKey, `?customerId=${created[1].id}`)
    expect(byCustomer.body.data.map((e: any) => e.data.customerId)).toEqual([created[1].id])
    const byType = await events(partner.apiKey, "?type=partner.approved")
    expect(byType.body.data.map((e: any) => e.type)).toEqual(["partner.approved"])
    const none = await events(partner.apiKey, "?type=customer.unknown")
    expect(none.body.data).toEqual([])
    // only the partner's own events
    const foreign = await events(apiKey, `?customerId=${created[0].id}`)
    expect(foreign.body.data).toEqual([])
  })

  for (const query of ["?customerId=nope", "?customerId=123", "?type=BAD%20TYPE", "?type=customer", "?limit=0", "?limit=abc"]) {
    it(`GET /sandbox/events${query} answers 400 BAD_REQUEST naming the parameter`, async () => {
      const reply = await events(apiKey, query)
      expectError(reply, 400, "BAD_REQUEST", "/sandbox/events")
      expect(reply.body.message).toContain(query.slice(1).split("=")[0]!)
    })
  }
})

describe("docs and health", () => {
  const resolve = (doc: any, schema: any): any => {
    let current = schema
    for (let i = 0; i < 10 && current?.$ref !== undefined; i++) {
      current = current.$ref.replace(/^#\//, "").split("/").reduce((node: any, part: string) => node?.[part], doc)
    }
    return current
  }

  const propertiesOf = (doc: any, schema: any): Set<string> => {
    const resolved = resolve(doc, schema)
    const names = new Set<string>(Object.keys(resolved?.properties ?? {}))
    for (const part of [...(resolved?.anyOf ?? []), ...(resolved?.oneOf ?? []), ...(resolved?.allOf ?? [])]) {
      for (const name of propertiesOf(doc, part)) names.add(name)
    }
    return names
  }

  it("GET /openapi.json is OpenAPI 3.1 with the customers paths, the success envelope and the error fields", async () => {
    const reply = await app.request("GET", "/openapi.json")
    expect(reply.status).toBe(200)
    const doc = reply.body
    expect(doc.openapi).toMatch(/^3\.1\./)
    const customers = doc.paths["/api/v1/partner/v1/customers"]
    expect(customers).toBeDefined()
    expect(Object.keys(customers)).toEqual(expect.arrayContaining(["get", "post"]))
    expect(doc.paths["/api/v1/partner/v1/customers/{customerId}"]?.get).toBeDefined()
    expect(doc.paths["/api/v1/partner/v1/countries"]?.get).toBeDefined()
    const created = customers.post.responses["201"]
    expect(created).toBeDefined()
    const successProps = propertiesOf(doc, created.content["application/json"].schema)
    expect([...successProps]).toEqual(expect.arrayContaining(["success", "data"]))
    const listProps = propertiesOf(doc, customers.get.responses["200"].content["application/json"].schema)
    expect([...listProps]).toEqual(expect.arrayContaining(["success", "data", "meta"]))
    for (const status of ["400", "409"]) {
      const response = customers.post.responses[status]
      expect(response, status).toBeDefined()
      const errorProps = propertiesOf(doc, response.content["application/json"].schema)
      expect([...errorProps]).toEqual(
        expect.arrayContaining(["success", "statusCode", "code", "message", "error", "timestamp", "path"])
      )
    }
    const forbidden = doc.paths["/api/v1/partner/v1/customers/{customerId}"].get.responses["403"]
    expect([...propertiesOf(doc, forbidden.content["application/json"].schema)]).toEqual(
      expect.arrayContaining(["success", "statusCode", "code", "message", "error", "timestamp", "path"])
    )
    expect(Object.keys(doc.paths).some((path) => path.includes("/sandbox/"))).toBe(true)
  })

  it("GET /docs answers 200 HTML", async () => {
    const response = await fetch(`${app.baseUrl}/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type") ?? "").toMatch(/^text\/html/)
    expect(await response.text()).toMatch(/<html/i)
    expect(response.headers.get("x-request-id")).toBeTruthy()
  })

  it("GET /health answers 200 with mode sandbox, without a key", async () => {
    const reply = await app.request("GET", "/health")
    expectSuccess(reply, 200)
    expect(reply.body).toEqual({ success: true, data: { status: "ok", mode: "sandbox" } })
  })
})

describe("production mode", () => {
  let prod: TestApp
  beforeAll(async () => {
    prod = await startTestApp({ config: { mode: "production" } })
  })
  afterAll(() => prod?.close())

  const sandboxRoutes: Array<[string, string, unknown?]> = [
    ["POST", "/sandbox/partners", {}],
    ["GET", "/sandbox/partner"],
    ["POST", "/sandbox/partner/kyb", { status: "APPROVED" }],
    ["GET", "/sandbox/clock"],
    ["POST", "/sandbox/clock/advance", { seconds: 60 }],
    ["GET", "/sandbox/events"],
    ["DELETE", "/sandbox/events"]
  ]

  it("every /api/v1/sandbox/... route answers 404 in the envelope and writes nothing", async () => {
    for (const [method, path, body] of sandboxRoutes) {
      const before = await prod.query(`SELECT (SELECT count(*) FROM partners)::int AS p, (SELECT offset_ms FROM service_clock) AS o`)
      const reply = await prod.request(method, path, body === undefined ? {} : { body })
      expect(reply.status, `${method} ${path}`).toBe(404)
      expect(Object.keys(reply.body).sort()).toEqual(["code", "error", "message", "path", "statusCode", "success", "timestamp"])
      expect(reply.body).toMatchObject({ success: false, statusCode: 404, code: "NOT_FOUND", path: `${prefix}${path}` })
      expect(reply.headers.get("allow")).toBeNull()
      expect(await prod.query(`SELECT (SELECT count(*) FROM partners)::int AS p, (SELECT offset_ms FROM service_clock) AS o`)).toEqual(before)
    }
  })

  it("/openapi.json lists no sandbox path", async () => {
    const reply = await prod.request("GET", "/openapi.json")
    expect(reply.status).toBe(200)
    const paths = Object.keys(reply.body.paths)
    expect(paths).toContain("/api/v1/partner/v1/customers")
    expect(paths.filter((path) => path.includes("sandbox"))).toEqual([])
    expect(JSON.stringify(reply.body)).not.toContain("/sandbox/")
  })

  it("health answers { status: ok, mode: production }", async () => {
    const reply = await prod.request("GET", "/health")
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ success: true, data: { status: "ok", mode: "production" } })
  })

  it("partner routes serve an approved partner with a live key", async () => {
    const created = await prod.run(
      Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Partner", kybStatus: "APPROVED" }))
    )
    expect(created.apiKey).toMatch(/^sk_live_/)
    const reply = await prod.request("POST", "/partner/v1/customers", { apiKey: created.apiKey, body: customerBody() })
    expectSuccess(reply, 201)
    expectCustomer(reply.body.data)
    const read = await prod.request("GET", `/partner/v1/customers/${reply.body.data.id}`, { apiKey: created.apiKey })
    expect(read.body).toEqual(reply.body)
  })

  it("partner routes still require a key", async () => {
    const reply = await prod.request("GET", "/partner/v1/customers")
    expect(reply.status).toBe(401)
    expect(reply.body).toMatchObject({ success: false, statusCode: 401, code: "UNAUTHORIZED" })
  })
})
