import type * as Headers from "@effect/platform/Headers"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Either, Inspectable, Stream } from "effect"

/**
 * The request body as the middleware's pre-checks read it (src/http/Middleware.ts): once, bounded (`readBody`), then
 * handed to the API inside the request (`BodyReadRequest`), so the handler decodes the text already read.
 */

/** The body the pre-checks read (or chose, for an absent one): its text and the JSON value it holds. */
export interface Body {
  readonly text: string
  readonly json: unknown
}

/**
 * The request as the API sees it once its body has been read here: the server's request in every other respect
 * (URL, method, headers, remote address, the socket's stream, ...), its body answered from the text read; the
 * platform's own readers would find the stream consumed. It implements the platform's public HttpServerRequest
 * interface by delegation and is provided to the API's app only (src/App.ts): the server still writes the
 * response through the request it made.
 */
export class BodyReadRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  constructor(readonly request: HttpServerRequest.HttpServerRequest, readonly body: Body) {
    super()
  }
  get source() {
    return this.request.source
  }
  get url() {
    return this.request.url
  }
  get originalUrl() {
    return this.request.originalUrl
  }
  get method() {
    return this.request.method
  }
  get headers() {
    return this.request.headers
  }
  get cookies() {
    return this.request.cookies
  }
  get remoteAddress() {
    return this.request.remoteAddress
  }
  // Multipart bodies are never read here (their route reads them), so these are the server's, for completeness.
  get multipart() {
    return this.request.multipart
  }
  get multipartStream() {
    return this.request.multipartStream
  }
  get upgrade() {
    return this.request.upgrade
  }
  modify(options: { readonly url?: string; readonly headers?: Headers.Headers; readonly remoteAddress?: string }) {
    return new BodyReadRequest(this.request.modify(options), this.body)
  }
  get text() {
    return Effect.succeed(this.body.text)
  }
  /** The value the pre-checks parsed (an empty body is `null`, as the platform's Node request reads it). */
  get json() {
    return Effect.succeed(this.body.json)
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.RequestError> {
    return Effect.try({
      try: () => UrlParams.fromInput(new URLSearchParams(this.body.text)),
      catch: (cause) => new HttpServerError.RequestError({ request: this, reason: "Decode", cause })
    })
  }
  get arrayBuffer() {
    return Effect.sync(() => new TextEncoder().encode(this.body.text).buffer)
  }
  get stream() {
    return Stream.sync(() => new TextEncoder().encode(this.body.text))
  }
  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, { _id: "@effect/platform/HttpServerRequest", method: this.method, url: this.originalUrl })
  }
}

/**
 * Reads a body up to `max` bytes, sent with a content-length (already checked against `max`) or chunked. The
 * platform's bounded reader destroys the request stream, and with it the socket, when the limit is passed, so the
 * client would see a reset instead of the 413; here the rest of an oversized body is discarded instead and the
 * answer closes the connection.
 */
export const readBody = (request: HttpServerRequest.HttpServerRequest, max: number) =>
  Effect.async<Either.Either<string, "tooLarge" | "unreadable">>((resume) => {
    const raw = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let bytes = 0
    let settled = false
    const settle = (result: Either.Either<string, "tooLarge" | "unreadable">) => {
      if (settled) return
      settled = true
      raw.off("data", onData)
      raw.off("end", onEnd)
      raw.off("error", onError)
      resume(Effect.succeed(result))
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= max) return void chunks.push(chunk)
      chunks.length = 0
      settle(Either.left("tooLarge"))
      raw.on("error", () => {})
      raw.resume()
    }
    const onEnd = () => settle(Either.right(Buffer.concat(chunks).toString("utf8")))
    const onError = () => settle(Either.left("unreadable"))
    raw.on("data", onData)
    raw.once("end", onEnd)
    raw.once("error", onError)
  })
