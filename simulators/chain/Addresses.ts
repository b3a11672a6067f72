import { keccak_256 } from "@noble/hashes/sha3.js"
import * as Crypto from "node:crypto"

/**
 * The chain simulator's address and transaction-hash formats, each the real format of its network:
 * - TRON: base58check of 0x41 + 20 account bytes, checksum = first 4 bytes of sha256(sha256(payload)); starts `T`.
 * - EVM (Ethereum, BSC, Polygon, ...): `0x` + 40 hex digits, EIP-55 mixed-case checksum over keccak-256.
 * - Solana: base58 of a 32-byte public key (32 to 44 characters).
 * Transaction hashes: EVM `0x` + 64 hex, TRON 64 hex, Solana base58 of a 64-byte signature.
 */
const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

export const base58Encode = (bytes: Uint8Array): string => {
  let value = 0n
  for (const byte of bytes) value = value * 256n + BigInt(byte)
  let text = ""
  while (value > 0n) {
    text = alphabet[Number(value % 58n)]! + text
    value /= 58n
  }
  for (const byte of bytes) {
    if (byte !== 0) break
    text = "1" + text
  }
  return text
}

export const base58Decode = (text: string): Uint8Array | undefined => {
  let value = 0n
  for (const char of text) {
    const digit = alphabet.indexOf(char)
    if (digit < 0) return undefined
    value = value * 58n + BigInt(digit)
  }
  const bytes: Array<number> = []
  while (value > 0n) {
    bytes.unshift(Number(value % 256n))
    value /= 256n
  }
  for (const char of text) {
    if (char !== "1") break
    bytes.unshift(0)
  }
  return Uint8Array.from(bytes)
}

const sha256d = (bytes: Uint8Array): Buffer =>
  Crypto.createHash("sha256").update(Crypto.createHash("sha256").update(bytes).digest()).digest()

/** A TRON address for 20 account bytes. */
export const tronAddress = (account: Uint8Array): string => {
  if (account.length !== 20) throw new Error("a TRON account is 20 bytes")
  const payload = Buffer.concat([Buffer.from([0x41]), account])
  return base58Encode(Buffer.concat([payload, sha256d(payload).subarray(0, 4)]))
}

export const isValidTronAddress = (text: string): boolean => {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text)) return false
  const bytes = base58Decode(text)
  if (bytes === undefined || bytes.length !== 25 || bytes[0] !== 0x41) return false
  const payload = bytes.subarray(0, 21)
  return Buffer.from(bytes.subarray(21)).equals(sha256d(payload).subarray(0, 4))
}

/** EIP-55: a hex letter is upper case when the matching nibble of keccak-256(lower-case hex) is 8 or more. */
export const eip55 = (hex40: string): string => {
  const lower = hex40.toLowerCase()
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(lower))).toString("hex")
  let out = "0x"
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  return out
}

export const evmAddress = (account: Uint8Array): string => {
  if (account.length !== 20) throw new Error("an EVM account is 20 bytes")
  return eip55(Buffer.from(account).toString("hex"))
}

/** Valid and correctly checksummed (an all-lower or all-upper address carries no checksum and is accepted). */
export const isValidEvmAddress = (text: string): boolean => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(text)) return false
  const body = text.slice(2)
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true
  return eip55(body) === text
}

export const solanaAddress = (publicKey: Uint8Array): string => {
  if (publicKey.length !== 32) throw new Error("a Solana public key is 32 bytes")
  return base58Encode(publicKey)
}

export const isValidSolanaAddress = (text: string): boolean => {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text)) return false
  return base58Decode(text)?.length === 32
}

/** Address format of a network family: "evm" for every EVM chain, else the network's own. */
export type AddressFormat = "evm" | "TRON" | "SOLANA"

export const formatOf = (network: string, evm: boolean): AddressFormat | undefined =>
  evm ? "evm" : network === "TRON" ? "TRON" : network === "SOLANA" ? "SOLANA" : undefined

/** Bytes of randomness an address of the format needs. */
export const accountBytes = (format: AddressFormat): number => (format === "SOLANA" ? 32 : 20)

export const encodeAddress = (format: AddressFormat, bytes: Uint8Array): string =>
  format === "evm" ? evmAddress(bytes) : format === "TRON" ? tronAddress(bytes) : solanaAddress(bytes)

export const isValidAddress = (format: AddressFormat, text: string): boolean =>
  format === "evm" ? isValidEvmAddress(text) : format === "TRON" ? isValidTronAddress(text) : isValidSolanaAddress(text)

/** A transaction hash in the network's format, from random bytes (32 for EVM/TRON, 64 for Solana). */
export const txHashBytes = (format: AddressFormat): number => (format === "SOLANA" ? 64 : 32)

export const encodeTxHash = (format: AddressFormat, bytes: Uint8Array): string =>
  format === "evm"
    ? `0x${Buffer.from(bytes).toString("hex")}`
    : format === "TRON"
    ? Buffer.from(bytes).toString("hex")
    : base58Encode(bytes)

export const isValidTxHash = (format: AddressFormat, text: string): boolean =>
  format === "evm"
    ? /^0x[0-9a-fA-F]{64}$/.test(text)
    : format === "TRON"
    ? /^[0-9a-fA-F]{64}$/.test(text)
    : /^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(text) && base58Decode(text)?.length === 64
