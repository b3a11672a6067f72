import { Effect, Option, Redacted } from "effect"
import * as Crypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { AppConfig } from "../config/AppConfig.js"
import { base62 } from "./Hashing.js"

/**
 * The service's secret key material. One 32-byte master key (ENCRYPTION_KEY, or in sandbox mode a key generated
 * once into DATA_DIR/encryption.key) from which purpose-specific keys are derived with HKDF, so that a cursor
 * signature and an encrypted webhook secret never share a key.
 */
export interface KeysShape {
  /** AES-256-GCM key for secrets at rest. */
  readonly encryption: Buffer
  /** HMAC key for pagination cursors. */
  readonly cursor: Buffer
  /** Seed for the sandbox demo partner's API key: the same key on every start with the same DATA_DIR. */
  readonly demoPartner: Buffer
  /** HMAC key (HS256) of the partner console's access tokens (docs/console.md). */
  readonly consoleToken: Buffer
  /**
   * Names the master key without revealing it (hex, derived like the others): the database records the first
   * instance's, and an instance with another key refuses to start (src/crypto/KeyCheck.ts).
   */
  readonly fingerprint: string
}

export const parseKey = (raw: string): Buffer => /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64")

const derive = (master: Buffer, purpose: string) =>
  Buffer.from(Crypto.hkdfSync("sha256", master, Buffer.alloc(0), purpose, 32))

export const fromMaster = (master: Buffer): KeysShape => ({
  encryption: derive(master, "secrets-at-rest"),
  cursor: derive(master, "pagination-cursor"),
  demoPartner: derive(master, "sandbox-demo-partner"),
  consoleToken: derive(master, "console-access-token"),
  fingerprint: derive(master, "key-fingerprint").subarray(0, 16).toString("hex")
})

/** The sandbox key file of a data directory: the master key every sandbox start in DATA_DIR shares. */
export const sandboxKeyPath = (dataDir: string) => NodePath.join(dataDir, "encryption.key")

/**
 * The demo partner's API key (sandbox mode only): derived from the master key, so it is the same on every start
 * with the same DATA_DIR, and a local tool (the TUI) that can read DATA_DIR finds it without asking the service.
 */
export const demoApiKey = (keys: Pick<KeysShape, "demoPartner">): string =>
  `sk_sandbox_demo_${base62(keys.demoPartner.subarray(0, 24))}`

const sandboxKeyFile = (dataDir: string) =>
  Effect.sync(() => {
    const file = sandboxKeyPath(dataDir)
    if (NodeFs.existsSync(file)) return parseKey(NodeFs.readFileSync(file, "utf8").trim())
    NodeFs.mkdirSync(dataDir, { recursive: true })
    const key = Crypto.randomBytes(32)
    NodeFs.writeFileSync(file, key.toString("hex") + "\n", { mode: 0o600 })
    return key
  })

/** The master key: ENCRYPTION_KEY, else (sandbox) DATA_DIR's key file, or a fresh key for an in-memory database. */
const masterKey = Effect.gen(function*() {
  const config = yield* AppConfig
  return yield* Option.match(config.encryptionKey, {
    onSome: (key) => Effect.succeed(parseKey(Redacted.value(key))),
    onNone: () =>
      config.mode === "production"
        ? Effect.dieMessage("ENCRYPTION_KEY is required in production")
        : config.dataDir === ":memory:"
        ? Effect.sync(() => Crypto.randomBytes(32))
        : sandboxKeyFile(config.dataDir)
  })
})

/** The service's keys (`KeysShape`), derived once from the master key at start. */
export class Keys extends Effect.Service<Keys>()("Keys", {
  effect: Effect.map(masterKey, (master): KeysShape => fromMaster(master))
}) {}

export const layer = Keys.Default
