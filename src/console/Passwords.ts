import { Effect } from "effect"
import * as Crypto from "node:crypto"

/**
 * Console passwords: scrypt from node:crypto (memory-hard), stored as `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`
 * so that the parameters can be raised later without breaking stored hashes. Parameters (docs/console.md): N = 2^cost
 * with cost 15 unless CONSOLE_PASSWORD_COST says otherwise (2^15: 32 MiB and ~50-100 ms per hash on a 2-core
 * machine), r = 8, p = 1, a 16-byte random salt, a 32-byte key. Verified in constant time with the stored hash's own
 * parameters. Runs on libuv's thread pool (the async scrypt), never on the event loop.
 */
export const parameters = { cost: 15, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const

const derive = (password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number) =>
  Effect.async<Buffer>((resume) => {
    Crypto.scrypt(password.normalize("NFKC"), salt, keyLength, { N, r, p, maxmem: 128 * N * r * 2 }, (error, key) => {
      if (error !== null) resume(Effect.die(error))
      else resume(Effect.succeed(key))
    })
  })

/** A new hash of `password` with N = 2^cost. */
export const hash = (password: string, cost: number = parameters.cost) =>
  Effect.gen(function*() {
    const N = 2 ** cost
    const salt = Crypto.randomBytes(parameters.saltLength)
    const key = yield* derive(password, salt, N, parameters.r, parameters.p, parameters.keyLength)
    return `scrypt$${N}$${parameters.r}$${parameters.p}$${salt.toString("base64")}$${key.toString("base64")}`
  })

/** True when `password` matches `stored`; a malformed stored hash never matches. Constant time in the key compare. */
export const verify = (password: string, stored: string) =>
  Effect.gen(function*() {
    const parts = stored.split("$")
    if (parts.length !== 6 || parts[0] !== "scrypt") return false
    const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
    const salt = Buffer.from(parts[4]!, "base64")
    const expected = Buffer.from(parts[5]!, "base64")
    if (!Number.isInteger(N) || !Number.isInteger(r) || !Number.isInteger(p) || expected.length === 0) return false
    const key = yield* derive(password, salt, N, r, p, expected.length)
    return Crypto.timingSafeEqual(key, expected)
  })

/**
 * A stored hash of a password nobody has: an unknown email is checked against it, so that it costs the same time
 * as a wrong password (no user enumeration by timing).
 */
export const decoy = (cost: number = parameters.cost) => hash(Crypto.randomBytes(24).toString("base64"), cost)
