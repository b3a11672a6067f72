/**
 * Verifies the `x-service-signature` header of a webhook delivery, exactly as the service signs it
 * (the service's docs/contract.md "Authentication"): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with your signing secret>`.
 *
 * Pass the exact bytes of the request body as received (before any JSON parsing: re-serialised JSON is not what
 * was signed), the header's value and your signing secret (returned by `PUT /webhook` and
 * `POST /webhook/rotate-secret`). During a rotation pass both secrets: either one verifies.
 *
 * ```ts
 * const result = verifySignature(rawBody, req.headers["x-service-signature"], process.env.WEBHOOK_SECRET!)
 * if (!result.ok) return res.writeHead(401).end()
 * ```
 *
 * - The comparison is constant-time (`timingSafeEqual`), every candidate signature compared.
 * - A timestamp further than `toleranceSeconds` (default 300, 5 minutes) from `now` (default: this machine's clock)
 *   is refused, so a captured delivery cannot be replayed later.
 * - Several `v1=` values are accepted (any match passes).
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/** The header that carries a delivery's signature. */
export const signatureHeaderName = "x-service-signature"

/** The header that carries a delivery's event id (the same as the body's `id`). */
export const eventIdHeaderName = "x-service-event-id"

/** How far the signed timestamp may be from now by default, in seconds (the service's receiver kit's default). */
export const defaultToleranceSeconds = 300

export interface VerifyOptions {
  /** How far the signed timestamp may be from `now`, in seconds. Default 300 (5 minutes). */
  readonly toleranceSeconds?: number | undefined
  /** The current time; defaults to the receiver's clock. */
  readonly now?: Date | undefined
}

export type VerifyResult =
  | { readonly ok: true; readonly timestamp: number }
  | { readonly ok: false; readonly reason: "missing_header" | "malformed_header" | "timestamp_out_of_tolerance" | "signature_mismatch" }

/** A delivery's body: the event's envelope, serialised by the service in this key order. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly data: Data
}

const toBytes = (value: string | Uint8Array): Buffer =>
  typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value.buffer, value.byteOffset, value.byteLength)

/**
 * Whether `header` is a valid signature of `rawBody` with `secret` (or any of `secret`, during a rotation), signed
 * within the tolerance.
 */
export const verifySignature = (
  rawBody: string | Uint8Array,
  header: string | ReadonlyArray<string> | null | undefined,
  secret: string | ReadonlyArray<string>,
  options: VerifyOptions = {}
): VerifyResult => {
  const value = typeof header === "string" ? header : header?.[0]
  if (typeof value !== "string" || value.trim() === "") return { ok: false, reason: "missing_header" }
  let timestamp: number | undefined
  const signatures: Array<Buffer> = []
  for (const part of value.split(",")) {
    const index = part.indexOf("=")
    if (index < 0) continue
    const key = part.slice(0, index).trim()
    const item = part.slice(index + 1).trim()
    if (key === "t" && /^\d{1,12}$/.test(item)) timestamp = Number(item)
    if (key === "v1" && /^[0-9a-f]{64}$/i.test(item)) signatures.push(Buffer.from(item, "hex"))
  }
  if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: "malformed_header" }
  const toleranceSeconds = options.toleranceSeconds ?? defaultToleranceSeconds
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000)
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: "timestamp_out_of_tolerance" }
  const body = toBytes(rawBody)
  const secrets = typeof secret === "string" ? [secret] : secret
  let matched = false
  for (const candidate of secrets) {
    if (candidate === "") continue
    const expected = createHmac("sha256", candidate).update(`${timestamp}.`).update(body).digest()
    // Every candidate is compared (no early exit), each in constant time.
    for (const signature of signatures) if (timingSafeEqual(expected, signature)) matched = true
  }
  return matched ? { ok: true, timestamp } : { ok: false, reason: "signature_mismatch" }
}

/** Thrown by `verifyWebhook` for a delivery that does not verify. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
  constructor(readonly reason: Extract<VerifyResult, { ok: false }>["reason"]) {
    super(`webhook signature not verified: ${reason}`)
  }
}

/**
 * Verifies a delivery and parses its body: the event, or a thrown `WebhookVerificationError` (answer 401). Answer
 * 2xx quickly and dedupe on `event.id`: a retried or replayed delivery carries the same id.
 */
export const verifyWebhook = <Data = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  header: string | ReadonlyArray<string> | null | undefined,
  secret: string | ReadonlyArray<string>,
  options: VerifyOptions = {}
): WebhookEvent<Data> => {
  const result = verifySignature(rawBody, header, secret, options)
  if (!result.ok) throw new WebhookVerificationError(result.reason)
  return JSON.parse(toBytes(rawBody).toString("utf8")) as WebhookEvent<Data>
}
