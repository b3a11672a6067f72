/** Node's own client errors (a request it could not read) answered in the error envelope: see `answerClientError`. */
import { STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { errorBody } from "./ErrorEnvelope.js"
import { requestIdOf } from "./Middleware.js"
import { originForm } from "./RouteTable.js"

/**
 * What Node answers itself, before any route or middleware runs, when it cannot read a request (its `clientError`
 * event): headers over its limit (`HPE_HEADER_OVERFLOW`, 431), chunk extensions over its limit (413), a request
 * that did not arrive within `requestTimeout` (408), and any other malformed HTTP (400).
 */
const clientErrors: Record<string, { readonly status: number; readonly message: (maxHeaderSize: number) => string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    message: (max) => `The request line and headers must be at most ${max} bytes in all; send fewer or shorter headers`
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: () => "The chunk extensions of the request body are too large" },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: () => "The request did not arrive within the time limit" }
}
const malformedHttp = { status: 400, message: () => "The request is not valid HTTP/1.1" }

const requestLinePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\S+) HTTP\/\d\.\d$/

/**
 * The path and `x-request-id` of the request Node could not read, from the bytes it was parsing (`rawPacket`): the
 * last request line before the point where parsing stopped (`bytesParsed`), then its header lines. Empty when the
 * request line is not there (not HTTP, or not in this packet).
 */
const headOfRawRequest = (raw: unknown, parsed: unknown): { readonly path?: string; readonly requestId?: string } => {
  if (!Buffer.isBuffer(raw)) return {}
  const lines = raw.toString("latin1").split("\r\n")
  const upTo = typeof parsed === "number" && parsed >= 0 && parsed <= raw.length
    ? raw.subarray(0, parsed).toString("latin1").split("\r\n").length
    : lines.length
  for (let start = upTo - 1; start >= 0; start--) {
    const requestLine = requestLinePattern.exec(lines[start]!)
    if (requestLine === null) continue
    let requestId: string | undefined
    for (let i = start + 1; i < lines.length && lines[i] !== ""; i++) {
      const header = /^x-request-id[ \t]*:[ \t]*(.*?)[ \t]*$/i.exec(lines[i]!)
      if (header !== null) {
        requestId = header[1]
        break
      }
    }
    // As the middleware writes it: the request target without its query (an absolute form without its origin).
    const path = originForm(requestLine[1]!).split("?")[0]!
    return { path, ...(requestId === undefined ? {} : { requestId }) }
  }
  return {}
}

/**
 * Answers a request Node could not read (`server.on("clientError", ...)`, see App.ts) with the error envelope,
 * `x-request-id` and `Connection: close`, instead of Node's bare status line: 431
 * `REQUEST_HEADER_FIELDS_TOO_LARGE`, 413 `PAYLOAD_TOO_LARGE`, 408 `REQUEST_TIMEOUT` or 400 `BAD_REQUEST`. As
 * Node does, nothing is written when the connection is gone or a response on it has begun; the socket is then
 * closed. `path` is the request path when the bytes show it, else "". The timestamp is the wall clock's: no
 * request, hence no service clock, exists yet.
 */
export const answerClientError = (
  error: Error & { readonly code?: string; readonly rawPacket?: unknown; readonly bytesParsed?: unknown },
  socket: Duplex,
  maxHeaderSize: number
): void => {
  const inFlight = (socket as {
    readonly _httpMessage?: {
      readonly headersSent?: boolean
      readonly req?: { readonly url?: string; readonly headers?: Record<string, string | Array<string> | undefined> }
    } | null
  })._httpMessage ?? undefined
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const { status, message } = clientErrors[error.code ?? ""] ?? malformedHttp
  const head = inFlight?.req?.url !== undefined
    ? { path: originForm(inFlight.req.url).split("?")[0], requestId: inFlight.req.headers?.["x-request-id"] }
    : headOfRawRequest(error.rawPacket, error.bytesParsed)
  const body = JSON.stringify(errorBody({ status, message: message(maxHeaderSize), path: head.path ?? "", timestamp: new Date() }))
  const requestId = requestIdOf(typeof head.requestId === "string" ? head.requestId : undefined)
  socket.end([
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    "connection: close",
    "",
    body
  ].join("\r\n"))
  // Closed once the answer is written; at the latest after 10 s if the client does not read it.
  socket.once("finish", () => socket.destroy())
  setTimeout(() => socket.destroy(), 10_000).unref()
}
