import * as Net from "node:net"
import * as NodeHttp from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreateCustomer } from "../src/customers/Api.js"
import { uploadReadLimits } from "../src/kyc/Http.js"
import { fixtures } from "./support/Fixtures.js"
import { multipart, samples } from "./support/KycHelpers.js"
import { customerBody, startTestApp, type Reply, type TestApp } from "./support/TestApp.js"

/**
 * Hardening of the transport (docs/reference.md "Conventions", "Error codes"): every bad input is a clear 4xx in the error
 * envelope, naming the field, and changes nothing — never a 5xx, never a hang, never a rounded amount.
 */

let app: TestApp
const fx = fixtures(() => app)
let apiKey: string

beforeAll(async () => {
  app = await startTestApp()
  apiKey = (await fx.partner()).apiKey
})
afterAll(() => app?.close())

const envelopeKeys = ["code", "error", "message", "path", "statusCode", "success", "timestamp"]

const expectRefused = (reply: Reply, status: number, code: string, field?: string) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  // A refusal by the request's schemas adds `details.fields`; nothing else adds a key.
  expect(Object.keys(reply.body).filter((key) => !(key === "details" && code === "BAD_REQUEST")).sort()).toEqual(envelopeKeys)
  expect(reply.body).toMatchObject({ success: false, statusCode: status, code })
  if (field !== undefined) expect(reply.body.message.startsWith(`${field}: `), reply.body.message).toBe(true)
}

const json = (rawBody: string) => ({ rawBody, headers: { "content-type": "application/json" } })

const counts = async () => {
  const row = (await app.query<{ p: string; c: string; d: string; e: string; j: string }>(
    `SELECT (SELECT count(*) FROM partners) AS p, (SELECT count(*) FROM customers) AS c,
            (SELECT count(*) FROM kyc_documents) AS d, (SELECT count(*) FROM events) AS e,
            (SELECT count(*) FROM ledger_entries) AS j`
  ))[0]!
  return { ...row }
}

/** Runs `send` and checks that nothing was written. */
const unchanged = async <T>(send: () => Promise<T>): Promise<T> => {
  const before = await counts()
  const result = await send()
  expect(await counts()).toEqual(before)
  return result
}

const newCustomer = async (overrides: Partial<CreateCustomer> = {}) => (await fx.customer({ apiKey }, overrides)).id

const uploadPath = (customerId: string) => `/partner/v1/customers/${customerId}/kyc/documents`

interface RawReply {
  readonly status: number
  readonly body: any
  readonly head: string
}

/**
 * Writes `head` then `body` on a socket and reads the answer (the socket may stay open: the answer is enough). A body
 * given as pieces is written a piece every 30 ms.
 */
const rawExchange = (head: string, body: Uint8Array | string | ReadonlyArray<Uint8Array>): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    const url = new URL(app.baseUrl)
    const socket = Net.connect(Number(url.port), url.hostname)
    let text = ""
    const tryResolve = () => {
      const split = text.indexOf("\r\n\r\n")
      if (split < 0) return
      const headText = text.slice(0, split)
      const length = Number(/^content-length:\s*(\d+)/im.exec(headText)?.[1] ?? "-1")
      const payload = text.slice(split + 4)
      if (length >= 0 && Buffer.byteLength(payload) < length) return
      socket.destroy()
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1]), head: headText, body: JSON.parse(payload) })
    }
    socket.setEncoding("utf8")
    socket.on("data", (chunk) => {
      text += chunk
      tryResolve()
    })
    socket.on("error", reject)
    socket.write(head.replace("HOST", url.host))
    if (!Array.isArray(body)) return void socket.write(body as Uint8Array | string)
    void (async () => {
      for (const piece of body) {
        await new Promise((resolve) => setTimeout(resolve, 30))
        socket.write(piece)
      }
    })()
  })

describe("multipart handling", () => {
  it("the upload route: no body 400 naming file, JSON or another type 415, a missing or bogus boundary 400", async () => {
    const customerId = await newCustomer()
    const path = uploadPath(customerId)
    await unchanged(async () => {
      expectRefused(await app.request("POST", path, { apiKey }), 400, "BAD_REQUEST", "file")
      expectRefused(await app.request("POST", path, { apiKey, body: { file: "x" } }), 415, "UNSUPPORTED_MEDIA_TYPE")
      expectRefused(await app.request("POST", path, { apiKey, rawBody: "x", headers: { "content-type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE")
      expectRefused(await app.request("POST", path, { apiKey, rawBody: "x", headers: { "content-type": "image/png" } }), 415, "UNSUPPORTED_MEDIA_TYPE")
      for (const contentType of [
        "multipart/form-data",
        "multipart/form-data; boundary=",
        "multipart/form-data; boundary=\"\"",
        "multipart/form-data; boundary=a{b}",
        `multipart/form-data; boundary=${"b".repeat(71)}`
      ]) {
        const form = await multipart([{ name: "file", value: samples.png(), filename: "a.png" }])
        const reply = await app.request("POST", path, { apiKey, rawBody: form.rawBody, headers: { "content-type": contentType } })
        expectRefused(reply, 400, "BAD_REQUEST", "file")
      }
      // A wrong method is a 405 whatever the body.
      const form = await multipart([{ name: "file", value: samples.png(), filename: "a.png" }])
      expectRefused(await app.request("PUT", path, { apiKey, ...form }), 405, "METHOD_NOT_ALLOWED")
    })
  })

  it("JSON routes refuse multipart/form-data with 415, whatever its boundary, before reading the body", async () => {
    const form = await multipart([{ name: "name", value: "Via multipart" }])
    await unchanged(async () => {
      for (const contentType of ["multipart/form-data", "multipart/form-data; boundary=", form.headers["content-type"]]) {
        expectRefused(
          await app.request("POST", "/sandbox/partners", { rawBody: form.rawBody, headers: { "content-type": contentType } }),
          415,
          "UNSUPPORTED_MEDIA_TYPE"
        )
        expectRefused(
          await app.request("POST", "/partner/v1/customers", { apiKey, rawBody: form.rawBody, headers: { "content-type": contentType } }),
          415,
          "UNSUPPORTED_MEDIA_TYPE"
        )
      }
      // A body far over MAX_JSON_BODY_BYTES is refused the same way (it used to be spooled to disk and answered 201).
      const huge = await multipart([{ name: "name", value: "Big" }, { name: "blob", value: new Uint8Array(3 * 1024 * 1024), filename: "b.bin" }])
      expectRefused(await app.request("POST", "/sandbox/partners", huge), 415, "UNSUPPORTED_MEDIA_TYPE")
      // A declared non-JSON type is refused even without a body.
      expectRefused(
        await app.request("POST", "/sandbox/partners", { headers: { "content-type": "multipart/form-data; boundary=x" } }),
        415,
        "UNSUPPORTED_MEDIA_TYPE"
      )
    })
  })

  it("an upload without its closing boundary answers 400 at once (it used to get no answer)", async () => {
    const customerId = await newCustomer()
    const boundary = "----hardening0001"
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
      Buffer.from(samples.png())
    ])
    const reply = await unchanged(() =>
      rawExchange(
        `POST /api/v1${uploadPath(customerId)} HTTP/1.1\r\nHost: HOST\r\nx-api-key: ${apiKey}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
        body
      )
    )
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
    expect(reply.body.message).toMatch(/^file: .*closing boundary/)
    // A body that stops right after a part's delimiter (the parser waits for headers) used to get no answer at all.
    const cut = `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nSELFIE\r\n--${boundary}\r\n`
    const stopped = await unchanged(() =>
      rawExchange(
        `POST /api/v1${uploadPath(customerId)} HTTP/1.1\r\nHost: HOST\r\nx-api-key: ${apiKey}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${cut.length}\r\n\r\n`,
        cut
      )
    )
    expect(stopped.status).toBe(400)
    expect(stopped.body.message).toMatch(/^file: .*closing boundary/)
    // An empty multipart body (no part, no closing boundary) too.
    const empty = await app.request("POST", uploadPath(customerId), {
      apiKey,
      rawBody: "",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` }
    })
    expectRefused(empty, 400, "BAD_REQUEST", "file")
  })

  it("an upload that stalls answers 408 REQUEST_TIMEOUT after the time limit, with Connection: close", async () => {
    const customerId = await newCustomer()
    const boundary = "----hardening0002"
    const start = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`
    const saved = uploadReadLimits.timeoutMs
    uploadReadLimits.timeoutMs = 300
    try {
      const reply = await unchanged(() =>
        rawExchange(
          `POST /api/v1${uploadPath(customerId)} HTTP/1.1\r\nHost: HOST\r\nx-api-key: ${apiKey}\r\n` +
            `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n`,
          start
        )
      )
      expect(reply.status).toBe(408)
      expect(reply.body).toMatchObject({ success: false, statusCode: 408, code: "REQUEST_TIMEOUT" })
      expect(Object.keys(reply.body).sort()).toEqual(envelopeKeys)
      expect(reply.body.message.startsWith("file: ")).toBe(true)
      expect(reply.head).toMatch(/^connection: close/im)
    } finally {
      uploadReadLimits.timeoutMs = saved
    }
  })

  it("a streamed (chunked) upload is capped while it arrives: 413 DOCUMENT_TOO_LARGE, nothing stored", async () => {
    const customerId = await newCustomer()
    const boundary = "----hardening0003"
    const url = new URL(`${app.baseUrl}${uploadPath(customerId)}`)
    const { status, text } = await unchanged(() =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = NodeHttp.request(url, {
          method: "POST",
          headers: {
            "content-type": `multipart/form-data; boundary=${boundary}`,
            "x-api-key": apiKey,
            "transfer-encoding": "chunked"
          }
        }, (response) => {
          let text = ""
          response.setEncoding("utf8")
          response.on("data", (chunk) => (text += chunk))
          response.on("end", () => resolve({ status: response.statusCode ?? 0, text }))
        })
        request.on("error", (error) => (request.destroyed ? undefined : reject(error)))
        request.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n`)
        request.write(Buffer.from(samples.pdf()))
        const chunk = Buffer.alloc(256 * 1024, 0x41)
        let sent = 0
        const pump = () => {
          while (sent < 40) { // 10 MB, never closed
            sent++
            if (!request.write(chunk)) return void request.once("drain", pump)
          }
          request.end()
        }
        pump()
      })
    )
    expect(status).toBe(413)
    expect(JSON.parse(text)).toMatchObject({ success: false, statusCode: 413, code: "DOCUMENT_TOO_LARGE" })
  })

  it("a well-formed upload still works after all this", async () => {
    const customerId = await newCustomer()
    const reply = await app.request("POST", uploadPath(customerId), {
      apiKey,
      ...(await multipart([{ name: "file", value: samples.pdf(), filename: "a.pdf" }, { name: "type", value: "ID_FRONT" }]))
    })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.data).toMatchObject({ type: "ID_FRONT", contentType: "application/pdf" })
  })
})

describe("deeply nested JSON", () => {
  it("5,000 nested arrays answer 400 BAD_REQUEST (not a 500), on every JSON route", async () => {
    const deep = "[".repeat(5000) + "]".repeat(5000)
    await unchanged(async () => {
      for (const [path, key] of [["/partner/v1/customers", apiKey], ["/sandbox/partners", undefined]] as const) {
        const reply = await app.request("POST", path, { apiKey: key, ...json(deep) })
        expectRefused(reply, 400, "BAD_REQUEST", "request body")
        expect(reply.body.message).toContain("32 levels")
      }
      const inField = JSON.stringify(customerBody()).replace(/}$/, `,"extra":${"[".repeat(5000)}${"]".repeat(5000)}}`)
      expectRefused(await app.request("POST", "/partner/v1/customers", { apiKey, ...json(inField) }), 400, "BAD_REQUEST")
    })
  })

  it("nesting up to 32 levels is read (then the schema answers); 33 is refused before", async () => {
    const nested = (levels: number) => `{"name":"Nested","extra":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`
    // Read: the schema's answer names the unknown field that holds the nesting.
    const read = await unchanged(() => app.request<any>("POST", "/sandbox/partners", json(nested(32))))
    expectRefused(read, 400, "BAD_REQUEST")
    expect(read.body.message).toContain("extra: is not a field of this request body")
    const refused = await unchanged(() => app.request<any>("POST", "/sandbox/partners", json(nested(33))))
    expectRefused(refused, 400, "BAD_REQUEST")
    expect(refused.body.message).toContain("must not nest objects and arrays more than 32 levels deep")
  })
})

describe("NUL and control characters", () => {
  it("are refused in any stored string with 400 naming the field, and nothing is written", async () => {
    const customerId = await newCustomer()
    await app.request("GET", `/partner/v1/customers/${customerId}/virtual-account`, { apiKey })
    const cases: Array<[string, string, unknown, string, string | undefined]> = [
      ["POST", "/partner/v1/customers", customerBody({ firstName: "Ada\u0000" }), "firstName", apiKey],
      ["POST", "/partner/v1/customers", customerBody({ lastName: "Obi\u0007" }), "lastName", apiKey],
      ["POST", "/partner/v1/customers", customerBody({ firstName: "Ada\tLovelace" }), "firstName", apiKey],
      ["POST", "/partner/v1/customers", customerBody({ middleName: "A\u0085B" }), "middleName", apiKey],
      ["POST", "/partner/v1/customers", customerBody({ email: "a\u0000@example.com" }), "email", apiKey],
      ["POST", "/sandbox/partners", { name: "Acme\u0000" }, "name", undefined],
      ["POST", `/sandbox/customers/${customerId}/virtual-account/credit`, { amount: 10, narration: "gift\u0000" }, "narration", apiKey],
      ["POST", "/sandbox/partner/kyb", { status: "REJECTED", reason: "bad\u0000docs" }, "reason", apiKey],
      ["POST", `/partner/v1/customers/${customerId}/withdraw`, { amount: 10, reference: "ref\u0000" }, "reference", apiKey],
      ["POST", `/partner/v1/customers/${customerId}/kyc/tier1`, { bvn: "1234567890\u0000", nin: "10987654321" }, "bvn", apiKey]
    ]
    await unchanged(async () => {
      for (const [method, path, body, field, key] of cases) {
        const reply = await app.request(method, path, { apiKey: key, body })
        expectRefused(reply, 400, "BAD_REQUEST", field)
        expect(reply.body.message).toContain("control characters")
      }
      // A property name with a control character, and a nested path.
      const keyReply = await app.request("POST", "/sandbox/partners", json("{\"na\\u0000me\":\"x\"}"))
      expectRefused(keyReply, 400, "BAD_REQUEST")
      expect(keyReply.body.message).toContain("control characters")
      const nested = await app.request("POST", `/partner/v1/customers/${customerId}/kyc/tier2`, {
        apiKey,
        body: { idDocument: { type: "PASSPORT", number: "A1234\u0000567", frontUrl: "x" }, selfieUrl: "x" }
      })
      expectRefused(nested, 400, "BAD_REQUEST", "idDocument.number")
    })
    const balance = await app.request("GET", `/partner/v1/customers/${customerId}/balance`, { apiKey })
    expect(balance.body.data[0].balance).toBe(0)
  })

  it("an unpaired surrogate escape in a string is 400 naming the field (it used to be a 500, or stored as U+FFFD)", async () => {
    const customerId = await newCustomer()
    await unchanged(async () => {
      // A `json` column refused it: 500 INTERNAL_ERROR (found by the long fuzz run).
      const reverification = await app.request(
        "POST",
        `/sandbox/customers/${customerId}/kyc/reverification`,
        { apiKey, ...json(`{"items":["BVN"],"message":"\\udc00\\ud800"}`) }
      )
      expectRefused(reverification, 400, "BAD_REQUEST", "message")
      expect(reverification.body.message).toContain("surrogate pair")
      // A text column kept it as U+FFFD: the name was silently changed.
      const name = await app.request("POST", "/partner/v1/customers", {
        apiKey,
        ...json(JSON.stringify(customerBody()).replace("\"Ada\"", "\"A\\ud800da\""))
      })
      expectRefused(name, 400, "BAD_REQUEST", "firstName")
      const property = await app.request("POST", "/sandbox/partners", json("{\"na\\udfffme\":\"x\"}"))
      expectRefused(property, 400, "BAD_REQUEST")
      expect(property.body.message).toContain("in a property name")
    })
    // A whole pair, escaped or not, is text like any other.
    const pair = await app.request("POST", "/sandbox/partner/kyb", {
      apiKey: (await fx.partner()).apiKey,
      ...json(`{"status":"REJECTED","reason":"blurred \\ud83d\\ude00 photo 😀"}`)
    })
    expect(pair.status, JSON.stringify(pair.body)).toBe(200)
    expect(pair.body.data.kybReason).toBe("blurred 😀 photo 😀")
  })

  it("tab and line breaks are allowed in free-text fields (a reason, a message)", async () => {
    const partner = await fx.partner()
    const reply = await app.request("POST", "/sandbox/partner/kyb", {
      apiKey: partner.apiKey,
      body: { status: "REJECTED", reason: "Line one\nLine two\tindented\r\n" }
    })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.data.kybReason).toContain("Line one\nLine two")
  })

  it("are refused in path values and query strings with 400 naming the parameter", async () => {
    const customerId = await newCustomer()
    await unchanged(async () => {
      // A malformed customer id keeps its one documented answer.
      expectRefused(await app.request("GET", `/partner/v1/customers/${customerId}%00`, { apiKey }), 403, "CUSTOMER_FORBIDDEN")
      expectRefused(
        await app.request("GET", `/partner/v1/customers/${customerId}%00/withdrawals/abc%00`, { apiKey }),
        400,
        "BAD_REQUEST",
        "withdrawalId"
      )
      expectRefused(await app.request("POST", "/sandbox/withdrawals/abc%00/complete", { apiKey }), 400, "BAD_REQUEST", "withdrawalId")
      expectRefused(await app.request("GET", "/sandbox/events?type=customer.registered%00", { apiKey }), 400, "BAD_REQUEST", "type")
      // A cursor is opaque: one with control characters is a cursor the list did not issue (docs/reference.md "Pagination").
      expectRefused(await app.request("GET", "/partner/v1/customers?cursor=a%0Ab", { apiKey }), 400, "INVALID_CURSOR", "cursor")
    })
    // An unknown route stays 404, a wrong method 405.
    expect((await app.request("GET", "/partner/v1/nothing%00", { apiKey })).status).toBe(404)
    expect((await app.request("PUT", "/sandbox/withdrawals/abc%00/complete", { apiKey })).status).toBe(405)
  })
})

describe("numbers are read exactly from the request text", () => {
  it("an amount that a double would round, or in exponent form, is 400 naming it and credits nothing", async () => {
    const customerId = await newCustomer({ country: "GH" })
    await app.request("GET", `/partner/v1/customers/${customerId}/virtual-account`, { apiKey })
    const credit = `/sandbox/customers/${customerId}/virtual-account/credit`
    await unchanged(async () => {
      for (const literal of ["300.00000000000001", "110.559999999999999", "1e3", "1E3", "1.5e2", "12345678901234567890", "0.1e1"]) {
        const reply = await app.request("POST", credit, { apiKey, ...json(`{"amount":${literal}}`) })
        expectRefused(reply, 400, "BAD_REQUEST", "amount")
        expect(reply.body.message).toContain("exactly")
      }
      const nested = await app.request("POST", "/sandbox/partners", json("{\"name\":\"x\",\"extra\":{\"list\":[1,2.50,3e0]}}"))
      expectRefused(nested, 400, "BAD_REQUEST", "extra.list.2")
    })
    for (const [literal, expected] of [["1500.50", 1500.5], ["0.10", 0.1], ["100", 100]] as const) {
      const reply = await app.request("POST", credit, { apiKey, ...json(`{"amount":${literal},"narration":"ok"}`) })
      expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300)
      expect(reply.body.data.amount ?? expected).toBe(expected)
    }
    const balance = await app.request("GET", `/partner/v1/customers/${customerId}/balance`, { apiKey })
    expect(balance.body.data[0]).toMatchObject({ currency: "GHS", balance: 1600.6 })
  })

  it("the same rules hold for an amount in a query string", async () => {
    const customerId = await newCustomer()
    const quote = (amount: string) => app.request("GET", `/partner/v1/customers/${customerId}/withdraw/quote?amount=${amount}`, { apiKey })
    for (const amount of ["300.00000000000001", "110.559999999999999", "1e3", "12345678901234567890"]) {
      expectRefused(await quote(amount), 400, "BAD_REQUEST", "amount")
    }
    expect((await quote("1500.50")).status).toBe(200)
  })
})

describe("server-sent event streams", () => {
  const open = async (path: string) => {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), 5_000)
    try {
      const response = await fetch(app.baseUrl + path, { headers: { "x-api-key": apiKey }, signal: controller.signal })
      const reader = response.body!.getReader()
      const first = new TextDecoder().decode((await reader.read()).value)
      return { response, first, close: () => controller.abort() }
    } finally {
      clearTimeout(timer)
    }
  }

  it("GET /sandbox/events/stream sends its headers and a `: connected` comment at once, before any event", async () => {
    const stream = await open("/sandbox/events/stream?type=customer.registered")
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get("content-type")).toContain("text/event-stream")
    expect(stream.first.startsWith(": connected\n\n")).toBe(true)
    stream.close()
  })

  it("the balance stream sends its headers at once too: it opens with the balance snapshot", async () => {
    const customerId = await newCustomer()
    const stream = await open(`/partner/v1/customers/${customerId}/balance/stream`)
    expect(stream.response.status).toBe(200)
    expect(stream.first).toMatch(/^id: 1\nevent: balance\n/)
    stream.close()
  })
})

describe("error messages", () => {
  it("do not echo a huge input, stay short, and keep schema internals out", async () => {
    const huge = "x".repeat(900 * 1024)
    const replies = await unchanged(async () => [
      await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody({ country: huge }) }),
      await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody({ firstName: 42, lastName: huge }) }),
      await app.request("POST", "/sandbox/clock/advance", { apiKey, body: [huge] }),
      await app.request("POST", "/sandbox/partner/kyb", { apiKey, body: { status: huge } })
    ])
    for (const reply of replies) {
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message.length).toBeLessThanOrEqual(501)
      expect(JSON.stringify(reply.body).length).toBeLessThan(1200)
      expect(reply.body.message).not.toMatch(/Expected|actual|readonly|\{ |pattern|\^/)
    }
    expect(replies[0]!.body.message).toMatch(/^country: must be one of NG, GH, KE, ZA, UG, US \(got "x{63}…\)$/)
    expect(replies[1]!.body.message).toMatch(/^firstName: must be a string \(got 42\)/)
    expect(replies[2]!.body.message).toMatch(/^request body must be a JSON object/)
  })
})

describe("JSON bodies read from the socket", () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  const head = (length: number) =>
    `POST /api/v1/partner/v1/customers HTTP/1.1\r\nHost: HOST\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\n` +
    `content-length: ${length}\r\n\r\n`

  it("a body with a content-length that arrives in pieces is read whole (multi-byte characters split across them)", async () => {
    const body = Buffer.from(JSON.stringify(customerBody({ firstName: "Zoë Ọlá" })))
    // Cut inside "ë" (two bytes in UTF-8) and again further on.
    const cut = body.indexOf(Buffer.from("ë")) + 1
    const reply = await rawExchange(head(body.length), [body.subarray(0, cut), body.subarray(cut, cut + 7), body.subarray(cut + 7)])
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.data.firstName).toBe("Zoë Ọlá")
  })

  it("a body cut short by the client writes nothing, and the server goes on serving", async () => {
    const url = new URL(app.baseUrl)
    await unchanged(async () => {
      const body = JSON.stringify(customerBody())
      await new Promise<void>((resolve) => {
        const socket = Net.connect(Number(url.port), url.hostname, () => {
          socket.write(head(body.length).replace("HOST", url.host))
          socket.write(body.slice(0, 20))
          setTimeout(() => {
            socket.destroy()
            resolve()
          }, 50)
        })
        socket.on("error", () => resolve())
      })
      await sleep(100)
    })
    await newCustomer()
  })
})
