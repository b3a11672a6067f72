import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Stream } from "effect"
import * as Crypto from "node:crypto"
import { deliveryBody, deliveryHeaders, formatSecret } from "../../webhooks/Signing.js"

/**
 * A webhook delivery as the service's sender makes it (src/webhooks/WebhookSender.ts `send`): the envelope
 * `{ id, type, createdAt, data }` serialised once, in that key order, `Content-Type: application/json`,
 * `X-Service-Event-Id`, `X-Service-Signature` from `Signing.signatureHeader` over `<t>.<body>`, the sender's
 * User-Agent, a 10 s time-out (the default `WEBHOOK_TIMEOUT_MS`), no redirects followed.
 */

/** What the sender signs and sends: the event's envelope (the stream's `customerId` is not part of it). */
export interface Envelope {
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly data: Readonly<Record<string, unknown>>
}

/** A fresh signing secret in the service's format (`whsec_` + 32 random bytes, base64url): `Signing.formatSecret`. */
export const newSecret = (): string => formatSecret(Crypto.randomBytes(32))

/** The sender's answer time-out: the service's default `WEBHOOK_TIMEOUT_MS`. */
export const timeoutMs = 10_000

/** How much of an answer body is read (and thrown away), as the sender does. */
const answerBodyBytesMax = 64 * 1024

/** How much of the body's beginning is kept to find its first line. */
const headBytesMax = 4 * 1024

/** The longest first line printed; longer ones are cut, ending in `…`. */
export const firstLineMax = 120

export type Answer =
  /** `body`: the first non-empty line of the answer's body (`firstLine`), "" when it has none. */
  | { readonly _tag: "Answered"; readonly status: number; readonly ms: number; readonly body: string }
  | { readonly _tag: "Failed"; readonly error: string; readonly ms: number }

/**
 * The first non-empty line of a body, for one line of a terminal: decoded as UTF-8 (bad bytes as U+FFFD), its
 * control characters (an escape sequence included) replaced by spaces, trimmed, cut after `firstLineMax`
 * characters with `…`.
 */
export const firstLine = (bytes: Uint8Array): string => {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes)
  const line = text.split(/\r\n|\r|\n/).map((l) => l.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").trim()).find((l) => l !== "") ?? ""
  const chars = [...line]
  return chars.length > firstLineMax ? `${chars.slice(0, firstLineMax - 1).join("")}…` : line
}

/** The innermost `code` (ECONNREFUSED, ...) or message of a transport failure, worded as the sender words it. */
const describeTransportError = (cause: unknown, depth = 0): string => {
  const error = cause as { code?: unknown; message?: unknown; cause?: unknown } | undefined
  if (typeof error?.code === "string") return `connection failed: ${error.code}`
  if (error?.cause !== undefined && error.cause !== cause && depth < 5) return describeTransportError(error.cause, depth + 1)
  return `connection failed: ${typeof error?.message === "string" && error.message !== "" ? error.message : "unknown error"}`
}

/**
 * POSTs one delivery: `body` unchanged, signed at `timestampSeconds`. The answer's status and the first line of its
 * body once (at most 64 KiB of) the body is read, or why there is none; the time-out covers the connection, the
 * request and the answer.
 */
export const post = (url: string, event: Envelope, secret: string, timestampSeconds: number) =>
  Effect.gen(function*() {
    // No trace headers: a real delivery has none.
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false))
    const body = deliveryBody(event)
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.setHeaders(deliveryHeaders(secret, timestampSeconds, event.id, body)),
      HttpClientRequest.bodyText(body, "application/json")
    )
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    return yield* client.execute(request).pipe(
      Effect.flatMap((response) => {
        const head: Array<Uint8Array> = []
        let read = 0
        return response.stream.pipe(
          Stream.runForEachWhile((chunk) =>
            Effect.sync(() => {
              if (read < headBytesMax) head.push(chunk.subarray(0, headBytesMax - read))
              read += chunk.length
              return read < answerBodyBytesMax
            })
          ),
          // The status arrived; a body cut short does not change it, and what arrived of it is shown.
          Effect.ignore,
          Effect.map((): Answer => ({ _tag: "Answered", status: response.status, ms: elapsed(), body: firstLine(Buffer.concat(head)) }))
        )
      }),
      Effect.scoped,
      Effect.timeoutTo({
        duration: Duration.millis(timeoutMs),
        onSuccess: (answer): Answer => answer,
        onTimeout: (): Answer => ({ _tag: "Failed", error: `timed out after ${timeoutMs} ms`, ms: elapsed() })
      }),
      Effect.catchAll((error) =>
        Effect.succeed<Answer>({
          _tag: "Failed",
          error: error._tag === "RequestError" ? describeTransportError(error.cause) : error.message,
          ms: elapsed()
        })
      )
    )
  })
