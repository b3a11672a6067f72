import * as Crypto from "node:crypto"

export const sha256 = (value: string | Buffer): Buffer => Crypto.createHash("sha256").update(value).digest()

export const hmacSha256 = (key: Buffer | string, value: string | Buffer): Buffer =>
  Crypto.createHmac("sha256", key).update(value).digest()

/** Constant-time equality that does not leak length differences through an early exit. */
export const constantTimeEqual = (a: Buffer, b: Buffer): boolean => {
  if (a.length !== b.length) {
    Crypto.timingSafeEqual(a, a)
    return false
  }
  return Crypto.timingSafeEqual(a, b)
}

const base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** Encodes bytes as base62 (for API keys: no punctuation, copy-paste safe). */
export const base62 = (bytes: Buffer): string => {
  let n = BigInt("0x" + (bytes.toString("hex") || "0"))
  let out = ""
  while (n > 0n) {
    out = base62Alphabet[Number(n % 62n)] + out
    n /= 62n
  }
  return out.padStart(Math.ceil(bytes.length * 8 / Math.log2(62)), "0")
}
