import { describe, expect, layer } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import type { SqlClient } from "@effect/sql"
import { Effect, type Layer } from "effect"
import * as Crypto from "node:crypto"
import { type EventBus, transaction } from "../../src/events/Events.js"
import { Chain } from "../../src/rails/Chain.js"

/**
 * The contract of the `Chain` port (src/rails/Chain.ts): what ANY adapter must do, simulator or live. Address and
 * transaction-hash formats belong to the networks, not to the adapter, so the vectors are here, as literals taken
 * from published sources or encoded by a separate script (never by the code under test):
 * - EVM: the mixed-case test vectors of EIP-55 (ethereum/EIPs, eip-55.md "Test Cases").
 * - TRON: the USDT-TRC20 contract TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t, the USDC-TRC20 contract
 *   TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8 and the zero address T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb (base58check
 *   of 0x41 + 20 bytes, checked with Python's hashlib).
 * - Solana: the system program (32 zero bytes) and the USDC mint; signatures: base58 of 64 bytes (Python).
 * A live adapter's test calls `chainContract(layer, fixtures)`; docs/rails.md.
 */
export interface ChainFixtures<R = never> {
  /** Networks the adapter serves (the identifiers of src/reference/Networks.ts). */
  readonly networks: {
    readonly tron: string
    readonly solana: string
    /** Every EVM network served: they share one address format. */
    readonly evm: ReadonlyArray<string>
  }
  /** A partner and one of its customers that the adapter's requests may name (they exist in the app's database). */
  readonly subject: Effect.Effect<{ readonly partnerId: string; readonly customerId: string }, never, R>
}

type ContractServices = Chain | SqlClient.SqlClient | EventBus

/** Well-formed addresses, per family. */
export const addressVectors = {
  evm: [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    // All lower case carries no checksum (EIP-55) and is accepted.
    "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
  ],
  tron: ["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8", "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb"],
  solana: ["11111111111111111111111111111111", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"]
} as const

/** Malformed addresses, per family (each also fails on every other family). */
export const badAddressVectors = {
  evm: [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", // last letter's case flipped: checksum broken
    "0xfb6916095ca1df60bB79Ce92cE3Ea74c37c5d359", // mixed case, wrong
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe", // 39 hex digits
    "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", // no 0x
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg", // not hex
    ""
  ],
  tron: [
    "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", // checksum broken
    "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6", // too short
    "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6O", // O is not base58
    ""
  ],
  solana: [
    "1111111111111111111111111111111", // 31 bytes
    "z".repeat(44), // 44 characters, but 33 bytes
    "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10", // 0 is not base58
    ""
  ]
} as const

/** Well-formed transaction hashes, per family. */
export const txHashVectors = {
  // The first Ethereum transfer (block 46147), and 0x + 64 lower/upper-case hex digits.
  evm: [
    "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
    "0x" + "AB".repeat(32)
  ],
  tron: ["5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060", "0".repeat(64)],
  // base58 of bytes 1..64 (87 characters) and of 64 bytes 0xff (88 characters), encoded with Python.
  solana: [
    "2Ana1pUpv2ZbMVkwF5FXapYeBEjdxDatLn7nvJkhgTSXbs59SyZSx866bXirPgj8QQVB57uxHJBG1YFvkRbFj4T",
    "67rpwLCuS5DGA8KGZXKsVQ7dnPb9goRLoKfgGbLfQg9WoLUgNY77E2jT11fem3coV9nAkguBACzrU1iyZM4B8roQ"
  ]
} as const

export const badTxHashVectors = {
  evm: [
    "5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060", // no 0x
    "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b2206", // 63 hex digits
    "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b2206z", // not hex
    ""
  ],
  tron: [
    "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060", // 0x prefix
    "5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b220", // 62 hex digits
    ""
  ],
  solana: [
    "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", // 32 bytes: an address, not a signature
    "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
    "2Ana1pUpv2ZbMVkwF5FXapYeBEjdxDatLn7nvJkhgTSXbs59SyZSx866bXirPgj8QQVB57uxHJBG1YFvkRbFj40", // 0 is not base58
    ""
  ]
} as const

type Family = "evm" | "tron" | "solana"
const families: ReadonlyArray<Family> = ["evm", "tron", "solana"]

export const chainContractTests = <R = never>(it: Vitest.MethodsNonLive<ContractServices | R, true>, fixtures: ChainFixtures<R>) => {
  const { evm, solana, tron } = fixtures.networks
  const networksOf = (family: Family): ReadonlyArray<string> => family === "evm" ? evm : family === "tron" ? [tron] : [solana]
  const all = [tron, solana, ...evm]

  describe("issueDepositAddress", () => {
    it.effect("issues a valid address on every network, outside and inside a transaction, a fresh one each time", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        const subject = yield* fixtures.subject
        for (const network of all) {
          const outside = yield* chain.issueDepositAddress({ ...subject, network })
          const inside = yield* transaction(chain.issueDepositAddress({ ...subject, network }))
          expect(chain.isValidAddress(network, outside), `${network} ${outside}`).toBe(true)
          expect(chain.isValidAddress(network, inside), `${network} ${inside}`).toBe(true)
          expect(inside).not.toBe(outside)
        }
      }))

    it.effect("an address of one EVM network is valid on every EVM network, and on no other family", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        const subject = yield* fixtures.subject
        for (const network of evm) {
          const address = yield* chain.issueDepositAddress({ ...subject, network })
          expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/)
          for (const other of evm) expect(chain.isValidAddress(other, address), `${address} on ${other}`).toBe(true)
          expect(chain.isValidAddress(tron, address)).toBe(false)
          expect(chain.isValidAddress(solana, address)).toBe(false)
        }
      }))

    it.effect("a TRON or Solana address is valid on its own network only", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        const subject = yield* fixtures.subject
        const tronAddress = yield* chain.issueDepositAddress({ ...subject, network: tron })
        const solanaAddress = yield* chain.issueDepositAddress({ ...subject, network: solana })
        expect(tronAddress).toMatch(/^T/)
        for (const network of [solana, ...evm]) expect(chain.isValidAddress(network, tronAddress), network).toBe(false)
        for (const network of [tron, ...evm]) expect(chain.isValidAddress(network, solanaAddress), network).toBe(false)
      }))
  })

  describe("isValidAddress", () => {
    it.effect("accepts the published addresses of each family on its networks and refuses them on the others", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        for (const family of families) {
          for (const address of addressVectors[family]) {
            for (const network of all) {
              const expected = networksOf(family).includes(network)
              expect(chain.isValidAddress(network, address), `${address} on ${network}`).toBe(expected)
            }
          }
        }
      }))

    it.effect("refuses malformed addresses (broken checksum, wrong length, foreign characters, empty) everywhere", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        for (const family of families) {
          for (const address of badAddressVectors[family]) {
            for (const network of all) expect(chain.isValidAddress(network, address), `${address} on ${network}`).toBe(false)
          }
        }
      }))
  })

  describe("isValidTxHash and txHashShape", () => {
    it.effect("accepts well-formed hashes of each family on its networks and refuses them on the others", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        for (const family of families) {
          for (const hash of txHashVectors[family]) {
            for (const network of all) {
              const expected = networksOf(family).includes(network)
              expect(chain.isValidTxHash(network, hash), `${hash} on ${network}`).toBe(expected)
            }
          }
        }
      }))

    it.effect("refuses malformed hashes on the network they imitate", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        for (const family of families) {
          for (const hash of badTxHashVectors[family]) {
            for (const network of networksOf(family)) expect(chain.isValidTxHash(network, hash), `${hash} on ${network}`).toBe(false)
          }
        }
      }))

    it.effect("describes the hash shape of every network (for an error message)", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        for (const network of all) expect(chain.txHashShape(network).trim(), network).not.toBe("")
      }))
  })

  describe("broadcast", () => {
    it.effect("succeeds inside the send's transaction on every network", () =>
      Effect.gen(function*() {
        const chain = yield* Chain
        const subject = yield* fixtures.subject
        for (const network of all) {
          const toAddress = yield* chain.issueDepositAddress({ ...subject, network })
          yield* transaction(chain.broadcast({
            ...subject,
            sendId: Crypto.randomUUID(),
            network,
            asset: "USDT",
            toAddress,
            amount: 25_000_000n
          }))
        }
      }))
  })
}

/** Runs the Chain contract against an adapter that provides `Chain`, SqlClient and EventBus. */
export const chainContract = <R = never, E = never>(
  adapter: Layer.Layer<ContractServices | R, E>,
  fixtures: ChainFixtures<R>,
  name = "Chain contract"
) => layer(adapter, { excludeTestServices: true })(name, (it) => chainContractTests(it, fixtures))
