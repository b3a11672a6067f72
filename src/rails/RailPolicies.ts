import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"

/**
 * How each simulated rail behaves for one partner (sandbox). `auto`: the rail answers by itself after
 * `delaySeconds` on the service clock with `outcome`; `manual`: the operation waits for a sandbox control call.
 * A partner that never set a policy gets the defaults below. Magic values (documented per rail) win over the
 * policy's outcome.
 */
export const RailName = Schema.Literal("bank", "chain", "payout", "identity")
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
 * document check (document plus selfie) a couple of minutes.
 */
export const defaultDelaySeconds: Readonly<Record<RailName, number>> = {
  bank: 60,
  chain: 180,
  payout: 900,
  identity: 120
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

export const defaultPolicy = (rail: RailName): RailPolicy => ({
  rail,
  mode: "auto",
  outcome: "success",
  delaySeconds: defaultDelaySeconds[rail],
  isDefault: true,
  updatedAt: null
})

export class RailPolicies extends Context.Tag("RailPolicies")<RailPolicies, {
  readonly policyFor: (partnerId: string, rail: RailName) => Effect.Effect<RailPolicy>
  readonly list: (partnerId: string) => Effect.Effect<ReadonlyArray<RailPolicy>>
  /** Replaces the policy: an omitted `outcome` is success, an omitted `delaySeconds` the rail's default. */
  readonly set: (partnerId: string, rail: RailName, policy: SetRailPolicy) => Effect.Effect<RailPolicy>
}>() {}

interface PolicyRow {
  readonly rail: RailName
  readonly mode: RailMode
  readonly outcome: RailOutcome
  readonly delaySeconds: number
  readonly updatedAt: Date
}

const fromRow = (row: PolicyRow): RailPolicy => ({
  rail: row.rail,
  mode: row.mode,
  outcome: row.outcome,
  delaySeconds: Number(row.delaySeconds),
  isDefault: false,
  updatedAt: row.updatedAt
})

export const layer = Layer.effect(
  RailPolicies,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock

    const list = (partnerId: string) =>
      sql<PolicyRow>`
        SELECT rail, mode, outcome, delay_seconds, updated_at FROM rail_policies WHERE partner_id = ${partnerId}`.pipe(
        Effect.map((rows) =>
          railNames.map((rail) => {
            const row = rows.find((r) => r.rail === rail)
            return row === undefined ? defaultPolicy(rail) : fromRow(row)
          })
        ),
        Effect.orDie
      )

    const policyFor = (partnerId: string, rail: RailName) =>
      sql<PolicyRow>`
        SELECT rail, mode, outcome, delay_seconds, updated_at FROM rail_policies
        WHERE partner_id = ${partnerId} AND rail = ${rail}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? defaultPolicy(rail) : fromRow(rows[0]))),
        Effect.orDie
      )

    const set = (partnerId: string, rail: RailName, policy: SetRailPolicy) =>
      Effect.gen(function*() {
        const delaySeconds = policy.delaySeconds ?? defaultDelaySeconds[rail]
        if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > delaySecondsMax) {
          return yield* Effect.die(new Error(`RailPolicies.set: delaySeconds out of range: ${delaySeconds}`))
        }
        const now = yield* clock.now
        const rows = yield* sql<PolicyRow>`
          INSERT INTO rail_policies (partner_id, rail, mode, outcome, delay_seconds, updated_at)
          VALUES (${partnerId}, ${rail}, ${policy.mode}, ${policy.outcome ?? "success"}, ${delaySeconds}, ${now})
          ON CONFLICT (partner_id, rail) DO UPDATE SET mode = EXCLUDED.mode, outcome = EXCLUDED.outcome,
            delay_seconds = EXCLUDED.delay_seconds, updated_at = EXCLUDED.updated_at
          RETURNING rail, mode, outcome, delay_seconds, updated_at`.pipe(Effect.orDie)
        return fromRow(rows[0]!)
      })

    return RailPolicies.of({ policyFor, list, set })
  })
)
