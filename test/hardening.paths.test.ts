import * as Net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerBody, startTestApp, type Reply, type TestApp } from "./support/TestApp.js"

/**
 * Path values the router cannot route as they are (docs/reference.md "Conventions"): bad percent-encoding, a `;`, a value over
 * the router's 100-character parameter limit reach the route and get the route's own answer for an invalid value
 * (403 CUSTOMER_FORBIDDEN, the resource's 404, 400 naming the field), never the router's 404 "No route"; a path
 * with an empty segment is no route (404). A cursor with control characters is INVALID_CURSOR. Requests Node
 * cannot read itself (headers over 16 KB, malformed HTTP) are answered with the error envelope.
 * Every `app.request` reply is also checked against the OpenAPI document.
 */

let app: TestApp
let apiKey: string
let customerId: string

beforeAll(async () => {
  app = await startTestApp()
  apiKey = (await app.newPartner()).apiKey
  const created = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  customerId = created.body.data.id
})
afterAll(() => app?.close())

const basePath = () => new URL(app.baseUrl).pathname

/** Segments the router cannot route as they are, each with its label. */
const unroutable: ReadonlyArray<[string, string]> = [
  ["bad percent-encoding", "%zz"],
  ["invalid UTF-8", "%FF"],
  ["truncated UTF-8", "%E2%82"],
  ["a semicolon", "x;y=1"],
  ["101 characters", "a".repeat(101)],
  ["4,000 characters", "a".repeat(4000)],
  ["500 encoded characters", "%C3%A9".repeat(500)]
]

const unknownUuid = "6f1c1a9e-9d7b-4c1e-8e7a-2b3c4d5e6f70"

/** The body without what belongs to the request (timestamp, path). */
const stable = (reply: Reply) => {
  const { timestamp: _timestamp, path: _path, ...rest } = reply.body as Record<string, unknown>
  return rest
}

/** The same answer as for an unknown well-formed value, with the request's own path in the envelope. */
const expectSameAnswer = (reply: Reply, reference: Reply, path: string) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(reference.status)
  expect(stable(reply)).toEqual(stable(reference))
  expect(reply.body.path).toBe(basePath() + path.split("?")[0])
  expect(reply.body.message).not.toMatch(/^No route/)
}

describe("path values the router cannot route", () => {
  it("a customerId answers the one 403 CUSTOMER_FORBIDDEN body, on every kind of route", async () => {
    const routes: ReadonlyArray<[string, (id: string) => string, unknown?]> = [
      ["GET", (id) => `/partner/v1/customers/${id}`],
      ["GET", (id) => `/partner/v1/customers/${id}/kyc`],
      ["GET", (id) => `/partner/v1/customers/${id}/withdrawals?limit=5`],
      ["GET", (id) => `/partner/v1/customers/${id}/funding/charges/${unknownUuid}`],
      ["POST", (id) => `/partner/v1/customers/${id}/withdraw`, { amount: 150 }],
      ["POST", (id) => `/sandbox/customers/${id}/virtual-account/credit`, { amount: 1000 }]
    ]
    for (const [method, route, body] of routes) {
      const reference = await app.request(method, route(unknownUuid), { apiKey, body })
      expect(reference.status).toBe(403)
      expect(reference.body.code).toBe("CUSTOMER_FORBIDDEN")
      for (const [label, segment] of unroutable) {
        const path = route(segment)
        const reply = await app.request(method, path, { apiKey, body })
        expect({ label, path: path.slice(0, 80), status: reply.status }).toEqual({ label, path: path.slice(0, 80), status: 403 })
        expectSameAnswer(reply, reference, path)
      }
    }
  })

  it("a real customer id followed by `;...` is not that customer (the router used to cut the path at `;`)", async () => {
    const reference = await app.request("GET", `/partner/v1/customers/${unknownUuid}/kyc`, { apiKey })
    const reply = await app.request("GET", `/partner/v1/customers/${customerId};y=1/kyc`, { apiKey })
    expectSameAnswer(reply, reference, `/partner/v1/customers/${customerId};y=1/kyc`)
  })

  it("a `#` in the request target (only a raw client sends one) is part of the value, as a `;` is", async () => {
    const url = new URL(app.baseUrl)
    const path = `${basePath()}/partner/v1/customers/${customerId}#x/kyc`
    const reply = await raw(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nx-api-key: ${apiKey}\r\nConnection: close\r\n\r\n`)
    expect(reply.body).toMatchObject({ statusCode: 403, code: "CUSTOMER_FORBIDDEN", path })
  })

  it("a resource id answers the resource's own not-found, as an unknown id does", async () => {
    const routes: ReadonlyArray<[string, (id: string) => string, unknown?]> = [
      ["GET", (id) => `/partner/v1/webhook/deliveries/${id}`],
      ["POST", (id) => `/partner/v1/webhook/deliveries/${id}/replay`],
      ["GET", (id) => `/partner/v1/customers/${customerId}/funding/charges/${id}`],
      ["GET", (id) => `/partner/v1/customers/${customerId}/withdrawals/${id}`],
      ["GET", (id) => `/partner/v1/customers/${customerId}/accounts/${id}`],
      ["POST", (id) => `/sandbox/funding/charges/${id}/pay`, {}],
      ["POST", (id) => `/sandbox/withdrawals/${id}/complete`, {}]
    ]
    for (const [method, route, body] of routes) {
      const reference = await app.request(method, route(unknownUuid), { apiKey, body })
      expect(reference.status, `${method} ${route(unknownUuid)}`).toBe(404)
      expect(reference.body.message).not.toMatch(/^No route/)
      for (const [, segment] of unroutable) {
        const path = route(segment)
        expectSameAnswer(await app.request(method, path, { apiKey, body }), reference, path)
      }
    }
  })

  it("a rail or a KYC level answers 400 naming the field, as any invalid value does", async () => {
    const rail = (segment: string) => app.request("PUT", `/sandbox/rails/${segment}`, { apiKey, body: { mode: "auto" } })
    const level = (segment: string) =>
      app.request("POST", `/sandbox/customers/${customerId}/kyc/${segment}/decision`, { apiKey, body: { status: "APPROVED" } })
    const invalidRail = await rail("nope")
    const invalidLevel = await level("nope")
    expect(invalidRail.body.message).toMatch(/^rail: must be one of bank, chain/)
    expect(invalidLevel.body.message).toMatch(/^level: /)
    // The message echoes the value (cut short), then says the same thing.
    const gist = (message: string) => message.replace(/ \(got .*\)$/, "")
    for (const [label, segment] of unroutable) {
      for (const [reply, reference] of [[await rail(segment), invalidRail], [await level(segment), invalidLevel]] as const) {
        expect({ label, status: reply.status, code: reply.body.code }).toEqual({ label, status: 400, code: "BAD_REQUEST" })
        expect(gist(reply.body.message)).toBe(gist(reference.body.message))
      }
    }
  })

  it("in a literal segment's place they are no route: 404 NOT_FOUND (a `;` no longer reaches the route before it)", async () => {
    for (const path of [
      `/partner/v1/customers/${customerId}/kyc;x=1`,
      `/partner/v1/customers;x=1`,
      "/partner/v1/cust%zzomers",
      `/partner/v1/customers/${customerId}/${"k".repeat(300)}`
    ]) {
      const reply = await app.request("GET", path, { apiKey })
      expect({ path: path.slice(0, 80), status: reply.status, code: reply.body.code }).toEqual({ path: path.slice(0, 80), status: 404, code: "NOT_FOUND" })
      expect(reply.body.path).toBe(basePath() + path)
    }
  })

  it("a well-formed value is routed as before, percent-encoded or not", async () => {
    expect((await app.request("GET", `/partner/v1/customers/${customerId}`, { apiKey })).status).toBe(200)
    expect((await app.request("GET", `/partner/v1/customers/${customerId.replace(/-/g, "%2D")}`, { apiKey })).status).toBe(200)
    expect((await app.request("GET", `/partner/v1/customers/${customerId}/kyc/`, { apiKey })).status).toBe(200)
  })
})

describe("empty path segments", () => {
  it("answer 404 NOT_FOUND, as an unknown route, whatever the method", async () => {
    const cases: ReadonlyArray<[string, string, unknown?]> = [
      ["GET", "/partner/v1/customers//kyc"],
      ["GET", "/partner/v1/customers//banks?country=NG"],
      ["POST", "/partner/v1/customers//wallet/withdraw", { amount: 150 }],
      ["GET", `/partner/v1//customers/${customerId}`],
      ["GET", `/partner/v1/customers/${customerId}//kyc`],
      ["GET", "//health"],
      ["DELETE", "/partner/v1/customers//kyc"]
    ]
    for (const [method, path, body] of cases) {
      const reply = await app.request(method, path, { apiKey, body })
      expect({ method, path, status: reply.status, code: reply.body.code }).toEqual({ method, path, status: 404, code: "NOT_FOUND" })
      expect(reply.body.message).toBe(`No route for ${method} ${basePath()}${path.split("?")[0]}`)
      expect(reply.body.path).toBe(basePath() + path.split("?")[0])
      expect(reply.headers.get("x-request-id")).toMatch(/^req_/)
    }
  })
})

describe("an absolute-form request target (`GET http://host/api/v1/...`, as sent to a proxy)", () => {
  it("is routed by its path, with the same pre-checks, and its `//` is no empty segment", async () => {
    const url = new URL(app.baseUrl)
    const health = await raw(`GET http://${url.host}${basePath()}/health HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`)
    expect(health.status, health.head).toBe(200)
    const textPlain = await raw(
      `POST http://${url.host}${basePath()}/sandbox/partners HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n` +
        "content-type: text/plain\r\ncontent-length: 2\r\n\r\n{}"
    )
    expect(textPlain.status, textPlain.head).toBe(415)
    expect(textPlain.body).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", path: `${basePath()}/sandbox/partners` })
    const bad = await raw(`GET http://${url.host}${basePath()}/partner/v1/customers/%zz HTTP/1.1\r\nHost: ${url.host}\r\nx-api-key: ${apiKey}\r\nConnection: close\r\n\r\n`)
    expect(bad.body).toMatchObject({ statusCode: 403, code: "CUSTOMER_FORBIDDEN", path: `${basePath()}/partner/v1/customers/%zz` })
  })
})

describe("cursor", () => {
  it("with control characters is 400 INVALID_CURSOR, as any cursor the list did not issue", async () => {
    for (const cursor of ["%00", "%01%1B", "a%0D%0Ab", "%7F", "%C2%85"]) {
      for (const path of [`/partner/v1/customers?cursor=${cursor}`, `/partner/v1/customers/${customerId}/withdrawals?limit=2&cursor=${cursor}`]) {
        const reply = await app.request("GET", path, { apiKey })
        expect({ path, status: reply.status, code: reply.body.code }).toEqual({ path, status: 400, code: "INVALID_CURSOR" })
        expect(reply.body.message).toMatch(/^cursor: /)
      }
    }
    // Still authenticated first, and other parameters keep their rule.
    expect((await app.request("GET", "/partner/v1/customers?cursor=%00")).status).toBe(401)
    const limit = await app.request("GET", "/partner/v1/customers?limit=%00", { apiKey })
    expect({ status: limit.status, code: limit.body.code }).toEqual({ status: 400, code: "BAD_REQUEST" })
  })
})

interface RawReply {
  readonly status: number
  readonly head: string
  readonly headers: Record<string, string>
  readonly body: any
  /** The server closed the connection after the answer. */
  readonly closed: boolean
}

/** Sends raw bytes on a new connection and reads the answer until the server closes the connection. */
const raw = (bytes: string): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    const url = new URL(app.baseUrl)
    const socket = Net.connect(Number(url.port), url.hostname)
    let text = ""
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no close within 5 s; got ${text.slice(0, 300)}`))
    }, 5000)
    socket.setEncoding("latin1")
    socket.on("data", (chunk: string) => {
      text += chunk
    })
    socket.on("error", () => {})
    socket.on("close", () => {
      clearTimeout(timer)
      const split = text.indexOf("\r\n\r\n")
      const head = split < 0 ? text : text.slice(0, split)
      const headers: Record<string, string> = {}
      for (const line of head.split("\r\n").slice(1)) {
        const colon = line.indexOf(":")
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
      }
      let body: unknown
      try {
        body = JSON.parse(text.slice(split + 4))
      } catch {
        body = text.slice(split + 4)
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head, headers, body, closed: true })
    })
    socket.write(bytes)
  })

const envelopeKeys = ["code", "error", "message", "path", "statusCode", "success", "timestamp"]

describe("requests Node cannot read itself", () => {
  it("headers over 16 KB: 431 REQUEST_HEADER_FIELDS_TOO_LARGE in the envelope, with x-request-id, then the connection closes", async () => {
    const path = `${basePath()}/partner/v1/customers/${customerId}`
    const reply = await raw(
      `GET ${path}?limit=1 HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\nx-request-id: fuzz-431-abcdef\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`
    )
    expect(reply.status, reply.head).toBe(431)
    expect(reply.headers["content-type"]).toBe("application/json")
    expect(reply.headers["connection"]).toBe("close")
    expect(reply.headers["x-request-id"]).toBe("fuzz-431-abcdef")
    expect(Object.keys(reply.body).sort()).toEqual(envelopeKeys)
    expect(reply.body).toMatchObject({
      success: false,
      statusCode: 431,
      code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
      error: "RequestHeaderFieldsTooLarge",
      path
    })
    expect(reply.body.message).toContain("16384 bytes")
    expect(new Date(reply.body.timestamp).toISOString()).toBe(reply.body.timestamp)
    expect(Number(reply.headers["content-length"])).toBe(Buffer.byteLength(JSON.stringify(reply.body)))

    // A header too long for the first packet's request line to be found, or an invalid id: a fresh id.
    const again = await raw(`POST ${path} HTTP/1.1\r\nHost: x\r\nx-request-id: bad id\r\nx-big: ${"b".repeat(70_000)}\r\n\r\n`)
    expect(again.status).toBe(431)
    expect(again.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{24}$/)
    expect(again.body.code).toBe("REQUEST_HEADER_FIELDS_TOO_LARGE")
    expect([path, ""]).toContain(again.body.path)
  })

  it("malformed HTTP: 400 BAD_REQUEST in the envelope", async () => {
    for (const bytes of [
      `GET ${basePath()}/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n`,
      "NOT HTTP AT ALL\r\n\r\n",
      `POST ${basePath()}/sandbox/partners HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}`
    ]) {
      const reply = await raw(bytes)
      expect(reply.status, reply.head).toBe(400)
      expect(Object.keys(reply.body).sort()).toEqual(envelopeKeys)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST", error: "BadRequest" })
      expect(reply.headers["x-request-id"]).toMatch(/^req_/)
    }
    // The server still answers.
    expect((await app.request("GET", "/health")).status).toBe(200)
  })

  it("the OpenAPI document describes 431 on every operation and as components.responses.RequestHeaderFieldsTooLarge", async () => {
    const document = await (await fetch(`${app.baseUrl}/openapi.json`)).json() as any
    expect(document.components.responses.RequestHeaderFieldsTooLarge.content["application/json"].schema)
      .toEqual({ $ref: "#/components/schemas/RequestHeaderFieldsTooLarge" })
    expect(document.components.schemas.RequestHeaderFieldsTooLarge.properties.code.enum).toEqual(["REQUEST_HEADER_FIELDS_TOO_LARGE"])
    const missing: Array<string> = []
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) if (operation.responses["431"] === undefined) missing.push(`${method} ${path}`)
    }
    expect(missing).toEqual([])
  })
})
