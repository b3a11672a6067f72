import { Context, type Effect } from "effect"
import type { ChainRailUnavailable } from "./Errors.js"

/**
 * The chain rail: the custody provider that issues deposit addresses, watches the networks for deposits and
 * broadcasts sends. Requests go out through this port; a confirmed deposit comes back through
 * `Deposits.receive(...)` and a send's outcome through the crypto-send settlement entry point (crypto-send issue),
 * whether from a simulator, a sandbox control or a live adapter's callback.
 *
 * Networks are the identifiers of src/reference/Networks.ts (TRON, ETHEREUM, BSC, POLYGON, SOLANA). Every EVM
 * network shares one address format, and a key controls the same address on every EVM network.
 */
export interface DepositAddressRequest {
  readonly partnerId: string
  readonly customerId: string
  readonly network: string
}

export interface SendRequest {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the send: the outcome names it. */
  readonly sendId: string
  readonly network: string
  readonly asset: string
  readonly toAddress: string
  /** Minor units of `asset` (6 decimals for USDT and USDC). */
  readonly amount: bigint
}

/**
 * A send's outcome: confirmed on chain; failed before it reached the chain (nothing left); or dropped/reverted
 * after broadcast (the transaction exists but moved nothing).
 */
export type SendOutcome =
  | { readonly _tag: "Confirmed"; readonly txHash: string }
  | { readonly _tag: "Failed"; readonly reason: string }
  | { readonly _tag: "Reverted"; readonly txHash: string; readonly reason: string }

export interface ChainShape {
  /** A fresh deposit address for the customer on the network (called once per address family; we store it). */
  readonly issueDepositAddress: (request: DepositAddressRequest) => Effect.Effect<string, ChainRailUnavailable>
  /** True when `address` is a well-formed address of the network (checksum included where the format has one). */
  readonly isValidAddress: (network: string, address: string) => boolean
  /** True when `txHash` is a well-formed transaction hash of the network. */
  readonly isValidTxHash: (network: string, txHash: string) => boolean
  /** What a transaction hash of the network looks like, for an error message. */
  readonly txHashShape: (network: string) => string
  /**
   * Broadcasts a send. Called inside the send's creating transaction; the outcome comes back later through the
   * send settlement entry point.
   */
  readonly broadcast: (send: SendRequest) => Effect.Effect<void, ChainRailUnavailable>
}

export class Chain extends Context.Tag("rails/Chain")<Chain, ChainShape>() {}
