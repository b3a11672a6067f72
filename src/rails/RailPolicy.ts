import { Schema } from "effect"

/**
 * How each simulated rail behaves for one partner (sandbox). `auto`: the rail answers by itself after
 * `delaySeconds` on the service clock with `outcome`; `manual`: the operation waits for a sandbox control call.
 * A partner that never set a policy gets the defaults below. Magic values (documented per rail) win over the
 * policy's outcome. Schemas and constants only: the contract (rails/Api.ts) imports this module.
 */
export const RailName = Schema.Literal("bank", "chain", "payout", "identity", "exchange")
export type RailName = typeof RailName.Type
export const railNames: ReadonlyArray<RailName> = RailName.literals

export const RailMode = Schema.Literal("auto", "manual")
export type RailMode = typeof RailMode.Type
export const RailOutcome = Schema.Literal("success", "failure")
export type RailOutcome = typeof RailOutcome.Type

/** Longest configurable delay: 30 days. */
export const delaySecondsMax = 30 * 86_400

/**
 * Default delay per rail, chosen to look like the real thing: an instant bank transfer confirms within a minute,
 * a stablecoin transfer needs a few block confirmations, a cross-border payout takes a while, and an identity
 * document check (document plus selfie) a couple of minutes. The exchange fills an order while the execute
 * request waits (a synchronous fill), so its delay is 0 and cannot be changed, and it has no manual mode.
 */
export const defaultDelaySeconds: Readonly<Record<RailName, number>> = {
  bank: 60,
  chain: 180,
  payout: 900,
  identity: 120,
  exchange: 0
}

export interface RailPolicy {
  readonly rail: RailName
  readonly mode: RailMode
  readonly outcome: RailOutcome
  readonly delaySeconds: number
  /** True when the partner never set this rail's policy. */
  readonly isDefault: boolean
  /** Null for a default policy. */
  readonly updatedAt: Date | null
}

export interface SetRailPolicy {
  readonly mode: RailMode
  readonly outcome?: RailOutcome | undefined
  readonly delaySeconds?: number | undefined
}
