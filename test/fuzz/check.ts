import * as Http from "node:http"
import type { FuzzRequest } from "./generate.js"
import { matchTemplate, type Operation } from "./operations.js"

/** What came back (or did not). */
export interface FuzzResponse {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: Buffer
  /** An event stream was cut after its headers. */
  readonly streamed: boolean
  /** The connection failed or timed out without an answer. */
  readonly error?: string | undefined
  readonly ms: number
}

export const makeSender = (baseUrl: string, timeoutMs = 20_000) => {
  const origin = new URL(baseUrl)
  const agent = new Http.Agent({ keepAlive: true, maxSockets: 8 })
  const send = (req: FuzzRequest): Promise<FuzzResponse> =>
    new Promise((resolve) => {
      const started = Date.now()
      const headers: Record<string, string | Array<string>> = {}
      const chunked = req.headers["x-fuzz-chunked"] !== undefined
      for (const [k, v] of Object.entries(req.headers)) if (k !== "x-fuzz-chunked") headers[k] = typeof v === "string" ? v : [...v]
      if (req.body !== undefined && !chunked) headers["content-length"] = String(req.body.length)
      let settled = false
      const done = (response: FuzzResponse) => {
        if (settled) return
        settled = true
        resolve(response)
      }
      let request: Http.ClientRequest
      try {
        request = Http.request({
          host: origin.hostname,
          port: origin.port,
          method: req.method,
          path: req.path + req.query,
          headers,
          agent,
          timeout: timeoutMs
        })
      } catch (error) {
        return done({ status: 0, headers: {}, body: Buffer.alloc(0), streamed: false, error: `unsendable: ${String(error)}`, ms: 0 })
      }
      request.on("response", (res) => {
        const chunks: Array<Buffer> = []
        if ((res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
          res.destroy()
          request.destroy()
          return done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0), streamed: true, ms: Date.now() - started })
        }
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), streamed: false, ms: Date.now() - started }))
        res.on("error", (error) => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), streamed: false, error: `response: ${error.message}`, ms: Date.now() - started }))
      })
      request.on("timeout", () => {
        request.destroy(new Error(`no answer within ${timeoutMs} ms`))
      })
      request.on("error", (error) => done({ status: 0, headers: {}, body: Buffer.alloc(0), streamed: false, error: error.message, ms: Date.now() - started }))
      if (req.body !== undefined) {
        if (chunked) {
          // Several chunks, so the server reads a streamed (no content-length) body.
          const step = Math.max(1, Math.ceil(req.body.length / 4))
          for (let i = 0; i < req.body.length; i += step) request.write(req.body.subarray(i, i + step))
        } else {
          request.write(req.body)
        }
      }
      request.end()
    })
  return { send, close: () => agent.destroy() }
}

export interface Problem {
  readonly kind: string
  readonly detail: string
}

const envelopeKeys = ["success", "statusCode", "code", "message", "error", "timestamp", "path"]
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/

/** An OpenAPI check: does the document describe this status for this operation? (See `openApiCheck` in fuzz.) */
export type OpenApiCheck = (op: Operation | undefined, method: string, status: number, response: FuzzResponse, path: string) => string | undefined

export const minimalOpenApiCheck: OpenApiCheck = (op, _method, status) =>
  op === undefined ? undefined : op.responses.has(String(status)) || op.responses.has("default") || op.responses.has(`${String(status)[0]}XX`)
    ? undefined
    : `status ${status} is not described for ${op.id} (described: ${[...op.responses].join(", ")})`

/** `fullOpenApi`: the OpenAPI check also judges requests that reach no operation (404/405). */
export const makeChecker = (operations: ReadonlyArray<Operation>, openApiCheck: OpenApiCheck, fullOpenApi = false) => {
  const routes = matchTemplate(operations)
  const byId = new Map(operations.map((op) => [op.id, op]))

  /** The operation the request actually reached (by method and concrete path), and the route template to report. */
  const locate = (req: FuzzRequest) => {
    const op = routes.find(req.method === "HEAD" ? "GET" : req.method, req.path)
    const intended = byId.get(req.opId)
    const anyMethod = routes.methodsFor(req.path)
    const template = op?.template ?? (anyMethod.length > 0 ? intended?.template ?? req.path : `${intended?.template ?? "?"} [path altered: no route]`)
    return { op, template, pathKnown: anyMethod.length > 0, methods: anyMethod }
  }

  const check = (req: FuzzRequest, res: FuzzResponse): Array<Problem> => {
    const problems: Array<Problem> = []
    const add = (kind: string, detail: string) => problems.push({ kind, detail })
    if (res.error !== undefined) {
      add("no-answer", res.error.replace(/\d+ ms/, "N ms"))
      return problems
    }
    const status = res.status
    const { op, pathKnown, methods } = locate(req)
    if (status >= 500) add("5xx", `status ${status}`)
    if (res.headers["x-request-id"] === undefined) add("no-x-request-id", "response without x-request-id")
    if (req.badRequestId !== undefined && res.headers["x-request-id"] === req.badRequestId) add("x-request-id-echoed", "an invalid incoming x-request-id was echoed")
    const contentType = String(res.headers["content-type"] ?? "")
    const text = res.body.toString("utf8")

    if (status >= 400 && req.method !== "HEAD") {
      let body: unknown
      let parsed = false
      try {
        body = JSON.parse(text)
        parsed = true
      } catch {
        // reported below
      }
      if (!parsed || typeof body !== "object" || body === null || Array.isArray(body)) {
        add("envelope", `error body is not a JSON object (content-type ${contentType || "none"}, ${res.body.length} bytes)`)
      } else {
        const record = body as Record<string, unknown>
        const missing = envelopeKeys.filter((k) => !(k in record))
        const extra = Object.keys(record).filter((k) => !envelopeKeys.includes(k) && k !== "details")
        if (missing.length > 0) add("envelope", `missing ${missing.join(", ")}`)
        if (extra.length > 0) add("envelope", `extra fields ${extra.join(", ")}`)
        if ("success" in record && record.success !== false) add("envelope", "success is not false")
        if ("statusCode" in record && record.statusCode !== status) add("envelope", `statusCode ${String(record.statusCode)} differs from HTTP status`)
        if ("code" in record && (typeof record.code !== "string" || !/^[A-Z][A-Z0-9_]*$/.test(record.code))) add("envelope", "code is not an UPPER_SNAKE string")
        if ("message" in record && (typeof record.message !== "string" || record.message === "")) add("envelope", "message is not a non-empty string")
        if ("error" in record && (typeof record.error !== "string" || record.error === "")) add("envelope", "error is not a non-empty string")
        if ("timestamp" in record && (typeof record.timestamp !== "string" || !isoTimestamp.test(record.timestamp))) add("envelope", "timestamp is not ISO 8601")
        if ("path" in record) {
          let decoded: string | undefined
          try {
            decoded = decodeURIComponent(req.path)
          } catch {
            decoded = undefined
          }
          // A 431 is answered by the server before any request exists, from the bytes it was reading: docs/reference.md
          // "Error codes" gives `path` only when the request line is among them (headers split across TCP reads: "").
          const unknownPathAllowed = status === 431 && record.path === ""
          if (typeof record.path !== "string" || (record.path !== req.path && record.path !== decoded && !unknownPathAllowed)) add("envelope", "path is not the request path")
        }
        if ("details" in record && (typeof record.details !== "object" || record.details === null || Array.isArray(record.details))) add("envelope", "details is not an object")
        if (!contentType.startsWith("application/json")) add("envelope", `content-type ${contentType || "none"}`)
      }
    }
    if (status >= 200 && status < 300 && !res.streamed && req.method !== "HEAD") {
      if (status === 204) {
        if (res.body.length > 0) add("success-envelope", "204 with a body")
      } else if (contentType.startsWith("application/json")) {
        let body: any
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
        if (typeof body !== "object" || body === null || body.success !== true || !("data" in body)) add("success-envelope", "2xx JSON body is not { success: true, data }")
      }
    }
    if (status === 405 && (res.headers["allow"] === undefined || res.headers["allow"] === "")) add("405-without-allow", "405 without an Allow header")

    // Where the request landed: an operation of the document, a known path with another method, or no route.
    if (req.method !== "HEAD" && req.method !== "OPTIONS" && (op !== undefined || fullOpenApi)) {
      const mismatch = openApiCheck(op, req.method, status, res, req.path)
      if (mismatch !== undefined) add("openapi", mismatch)
    }
    if (op !== undefined || fullOpenApi) {
      // judged above
    } else if (req.method !== "HEAD" && req.method !== "OPTIONS" && status !== 0) {
      if (pathKnown && status !== 405) add("unexpected-status", `${req.method} on a path that only has ${methods.join(", ")}: expected 405, got ${status}`)
      if (!pathKnown && status !== 404 && status < 500 && status !== 400) add("unexpected-status", `no route for this path: expected 404, got ${status}`)
    }

    if (req.expectStatus !== undefined && !req.expectStatus.includes(status) && status < 500) {
      add("unexpected-status", `expected ${req.expectStatus.join("/")} for this input, got ${status}`)
    }
    if (req.expectCode !== undefined && req.expectStatus?.includes(status) === true && req.method !== "HEAD") {
      let code: unknown
      try {
        code = JSON.parse(text)?.code
      } catch {
        code = undefined
      }
      if (code !== req.expectCode) add("unexpected-code", `expected code ${req.expectCode} with ${status}, got ${String(code)}`)
    }
    if (req.mustReject && status >= 200 && status < 300) add("accepted-hostile", `accepted (${status}) an input that must be refused`)
    return problems
  }
  return { check, locate }
}
