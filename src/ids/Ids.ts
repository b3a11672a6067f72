import { Context, Effect, Layer } from "effect"
import * as Crypto from "node:crypto"

/**
 * Identifiers and random bytes. Production uses the system CSPRNG; scenarios and tests can use a seeded
 * generator so that the same seed gives the same ids.
 */
export interface IdsShape {
  readonly uuid: Effect.Effect<string>
  readonly bytes: (length: number) => Effect.Effect<Buffer>
}

export class Ids extends Context.Tag("Ids")<Ids, IdsShape>() {}

const formatUuidV4 = (bytes: Buffer): string => {
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

export const layer = Layer.succeed(
  Ids,
  Ids.of({
    uuid: Effect.sync(() => Crypto.randomUUID()),
    bytes: (length) => Effect.sync(() => Crypto.randomBytes(length))
  })
)

/** A deterministic generator (SHA-256 in counter mode over the seed): same seed, same sequence. */
export const layerSeeded = (seed: string) =>
  Layer.sync(Ids, () => {
    let counter = 0
    const next = (length: number) => {
      const chunks: Array<Buffer> = []
      let have = 0
      while (have < length) {
        const block = Crypto.createHash("sha256").update(`${seed}:${counter++}`).digest()
        chunks.push(block)
        have += block.length
      }
      return Buffer.concat(chunks).subarray(0, length)
    }
    return Ids.of({
      uuid: Effect.sync(() => formatUuidV4(Buffer.from(next(16)))),
      bytes: (length) => Effect.sync(() => Buffer.from(next(length)))
    })
  })

/** Whether a value has the shape of an id (the branded id Schemas of src/api/Ids.ts parse ids at the edge). */
export { isUuid } from "../api/Ids.js"
