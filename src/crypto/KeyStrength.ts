/**
 * A master key (ENCRYPTION_KEY) that is one byte repeated — 64 zeros, `aaaa…`, `AAAA…=` — is a placeholder, not a
 * key: anyone can guess it, and with it seal, open and sign everything the service derives from it
 * (src/crypto/Keys.ts). Production mode refuses to start with one (src/config/AppConfig.ts: one line naming
 * ENCRYPTION_KEY, exit 78); sandbox mode accepts it (tests and local runs use fixed keys such as `"11".repeat(32)`).
 * docs/operations.md "Configuration".
 */

/** The key's bytes as `parseKey` reads them: 64 hex characters, else base64. */
const bytesOf = (raw: string): Buffer => /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64")

/** True when the key (hex or base64 text) decodes to one byte value repeated. */
export const isOneRepeatedByte = (raw: string): boolean => {
  const bytes = bytesOf(raw)
  return bytes.length > 0 && bytes.every((byte) => byte === bytes[0])
}

export const repeatedByteMessage =
  "ENCRYPTION_KEY: must not be one byte repeated (such as 64 zeros) in production; generate a key with `openssl rand -hex 32`"
