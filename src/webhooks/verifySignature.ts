import * as Crypto from "node:crypto"

/**
 * Receiver kit: verifies the `X-Service-Signature` header of a webhook delivery (SPEC.md "Authentication" 8).
 *
 * This module has no dependency on the rest of the service: copy it into your receiver. Pass the exact bytes of
 * the request body as received (before any JSON parsing), the header value and your signing secret (the one
 * returned by `PUT /webhook` or `POST /webhook/rotate-secret`).
 *
 * ```ts
 * const result = verifySignature(rawBody, req.headers["x-service-signature"], signingSecret)
 * if (!result.ok) return res.writeHead(401).end()
 * ```
 *
 * - The comparison is constant-time.
 * - A timestamp further than `toleranceSeconds` (default 300) from `now` (default: this machine's clock) is
 *   refused, so a captured delivery cannot be replayed later.
 * - Several `v1=` values are accepted (any match passes).
 */
export interface VerifyOptions {
  /** How far the signed timestamp may be from `now`, in seconds. Default 300 (5 minutes). */
  readonly toleranceSeconds?: number | undefined
  /** The current time; defaults to the receiver's clock. */
  readonly now?: Date | undefined
}

export type VerifyResult =
  | { readonly ok: true; readonly timestamp: number }
  | { readonly ok: false; readonly reason: "missing_header" | "malformed_header" | "timestamp_out_of_tolerance" | "signature_mismatch" }

export const verifySignature = (
  rawBody: string | Uint8Array,
  header: string | ReadonlyArray<string> | null | undefined,
  secret: string,
  options: VerifyOptions = {}
): VerifyResult => {
  const value = Array.isArray(header) ? header[0] : header
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
  const toleranceSeconds = options.toleranceSeconds ?? 300
  // The receiver's own clock: this function runs in the partner's process, not in the service.
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000)
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: "timestamp_out_of_tolerance" }
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody)
  const expected = Crypto.createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest()
  let matched = false
  for (const signature of signatures) {
    // Every candidate is compared (no early exit), each in constant time.
    if (Crypto.timingSafeEqual(expected, signature)) matched = true
  }
  return matched ? { ok: true, timestamp } : { ok: false, reason: "signature_mismatch" }
}
