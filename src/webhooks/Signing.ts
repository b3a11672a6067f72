import * as Crypto from "node:crypto"
import { hmacSha256 } from "../crypto/Hashing.js"

/** The signature header value of docs/contract.md "Authentication" 8: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const signatureHeader = (secret: string, timestampSeconds: number, rawBody: string): string =>
  `t=${timestampSeconds},v1=${hmacSha256(secret, `${timestampSeconds}.${rawBody}`).toString("hex")}`

/** A new signing secret: 32 random bytes, prefixed so that partners recognise it in their configuration. */
export const formatSecret = (bytes: Buffer): string => `whsec_${bytes.toString("base64url")}`

const ivBytes = 12
const tagBytes = 16

/**
 * AES-256-GCM for the secret at rest: `iv | tag | ciphertext`, with the partner id as associated data so that a
 * ciphertext copied onto another partner's row does not decrypt.
 */
export const sealSecret = (key: Buffer, iv: Buffer, secret: string, partnerId: string): Buffer => {
  const cipher = Crypto.createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(partnerId))
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext])
}

export const openSecret = (key: Buffer, sealed: Uint8Array, partnerId: string): string => {
  const bytes = Buffer.from(sealed)
  const decipher = Crypto.createDecipheriv("aes-256-gcm", key, bytes.subarray(0, ivBytes))
  decipher.setAAD(Buffer.from(partnerId))
  decipher.setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes))
  return Buffer.concat([decipher.update(bytes.subarray(ivBytes + tagBytes)), decipher.final()]).toString("utf8")
}

export const secretIvBytes = ivBytes

/** A delivery's body: the event's envelope serialised once, in this key order (what is signed and sent). */
export const deliveryBody = (event: { readonly id: string; readonly type: string; readonly createdAt: string; readonly data: unknown }): string =>
  JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data })

/** The deliveries' User-Agent. */
const deliveryUserAgent = "PartnerMoneyMovement-Webhooks/1"

/** A delivery's headers besides Content-Type and Content-Length: the event id, the signature at `t`, the User-Agent. */
export const deliveryHeaders = (secret: string, timestampSeconds: number, eventId: string, body: string): Record<string, string> => ({
  "x-service-event-id": eventId,
  "x-service-signature": signatureHeader(secret, timestampSeconds, body),
  "user-agent": deliveryUserAgent
})
