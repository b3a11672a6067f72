import { Context, type Effect, type Option } from "effect"
import type { ChainRailUnavailable } from "./Errors.js"
import type { RailJob } from "./RailJob.js"

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

/** Why a send failed: rejected before broadcast (no transaction), reverted on chain, dropped from the mempool,
 * or undeliverable at the receiving exchange (mined, then bounced back to our omnibus). */
export type SendFailureCause = "rejected" | "reverted" | "dropped" | "undeliverable"

/**
 * A send's outcome: confirmed on chain (its transaction hash); or failed for one of the causes, with the transaction
 * hash when one was broadcast (null when rejected before broadcast). A failed send moved nothing: the whole amount
 * goes back to the customer.
 */
export type SendOutcome =
  | { readonly _tag: "Confirmed"; readonly txHash: string }
  | { readonly _tag: "Failed"; readonly cause: SendFailureCause; readonly txHash: string | null }

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
   * Hands a send to the chain: the broadcast's job (src/rails/RailJob.ts, docs/rails.md), which the send's journal
   * statement writes, or none (a manual sandbox rail). Called inside the send's creating transaction, before its
   * journal; it writes nothing itself. The outcome comes back later through `Sends.settle(partnerId, sendId,
   * outcome)`, the send settlement entry point.
   */
  readonly broadcast: (send: SendRequest) => Effect.Effect<Option.Option<RailJob>, ChainRailUnavailable>
}

export class Chain extends Context.Tag("rails/Chain")<Chain, ChainShape>() {}
