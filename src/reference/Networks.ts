import { Schema } from "effect"

/**
 * The blockchain networks the service supports for stablecoin deposits (and, later, sends). One list, shared by
 * deposit addresses, deposits and the send networks.
 *
 * - `network`: the stable identifier used in requests, responses and events.
 * - `displayName`: a name to show to a customer.
 * - `evm`: true for EVM chains. One EVM address serves every EVM network (the same key controls it everywhere).
 * - `assets`: the stablecoins accepted on this network.
 * - `flatFeeUsdt`: the flat network fee of a send, in USDT (decimal string, exact).
 * - `minSendUsdt`: the smallest send, in USDT (decimal string, exact).
 * - `confirmations`: block confirmations after which a deposit counts as final.
 */
export const StablecoinAsset = Schema.Literal("USDT", "USDC")
export type StablecoinAsset = typeof StablecoinAsset.Type

export interface Network {
  readonly network: string
  readonly displayName: string
  readonly evm: boolean
  readonly assets: ReadonlyArray<StablecoinAsset>
  readonly flatFeeUsdt: string
  readonly minSendUsdt: string
  readonly confirmations: number
}

export const networks: ReadonlyArray<Network> = [
  { network: "TRON", displayName: "Tron (TRC-20)", evm: false, assets: ["USDT"], flatFeeUsdt: "1", minSendUsdt: "5", confirmations: 20 },
  { network: "ETHEREUM", displayName: "Ethereum (ERC-20)", evm: true, assets: ["USDT", "USDC"], flatFeeUsdt: "4", minSendUsdt: "10", confirmations: 12 },
  { network: "BSC", displayName: "BNB Smart Chain (BEP-20)", evm: true, assets: ["USDT", "USDC"], flatFeeUsdt: "0.3", minSendUsdt: "5", confirmations: 15 },
  { network: "POLYGON", displayName: "Polygon (PoS)", evm: true, assets: ["USDT", "USDC"], flatFeeUsdt: "0.2", minSendUsdt: "5", confirmations: 128 },
  { network: "SOLANA", displayName: "Solana (SPL)", evm: false, assets: ["USDC", "USDT"], flatFeeUsdt: "0.5", minSendUsdt: "5", confirmations: 32 }
]

export type NetworkName = "TRON" | "ETHEREUM" | "BSC" | "POLYGON" | "SOLANA"

export const networkNames = networks.map((n) => n.network) as ReadonlyArray<NetworkName>

export const findNetwork = (name: string): Network | undefined => networks.find((n) => n.network === name)

export const supportsAsset = (network: string, asset: string): boolean =>
  findNetwork(network)?.assets.includes(asset as StablecoinAsset) ?? false

/**
 * EVM networks we do NOT support. Tokens sent there to a customer's EVM address still land on an address the
 * service controls (same key on every EVM chain), so they are recorded as unsupported deposits for manual
 * recovery. Money sent on any other network cannot reach an address of ours at all.
 */
export const unsupportedEvmNetworks: ReadonlyArray<string> = ["ARBITRUM", "OPTIMISM", "BASE", "AVALANCHE"]
