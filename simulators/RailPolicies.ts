import * as Command from "../src/observability/Command.js"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { ServiceClock } from "../src/clock/ServiceClock.js"
import { Caches } from "../src/db/Caches.js"
import {
  defaultDelaySeconds,
  delaySecondsMax,
  type RailMode,
  type RailName,
  railNames,
  type RailOutcome,
  type RailPolicy,
  type SetRailPolicy
} from "../src/rails/RailPolicy.js"

/**
 * The simulated rails' policies per partner (sandbox), stored in `rail_policies`: a simulator reads its rail's
 * policy when an operation starts and keeps what it needs in its job; `GET/PUT /sandbox/rails` read and replace
 * them. The schemas are in src/rails/RailPolicy.ts (the contract shows them).
 */
export const defaultPolicy = (rail: RailName): RailPolicy => ({
  rail,
  mode: "auto",
  outcome: "success",
  delaySeconds: defaultDelaySeconds[rail],
  isDefault: true,
  updatedAt: null
})

/**
 * What a rail cannot do, as a refusal naming the field: the exchange fills an order while the execute request waits
 * (its fill is the execution's answer), so it has no manual mode and no delay. Its `outcome: failure` makes
 * executions fail (docs/sandbox-rails.md "Exchange rail").
 */
export const policyProblem = (
  rail: RailName,
  policy: SetRailPolicy
): { readonly field: "mode" | "delaySeconds"; readonly message: string } | undefined => {
  if (rail !== "exchange") return undefined
  if (policy.mode === "manual") {
    return { field: "mode", message: "must be auto (the exchange fills at once: use outcome failure to make executions fail)" }
  }
  if (policy.delaySeconds !== undefined && policy.delaySeconds !== 0) {
    return { field: "delaySeconds", message: "must be 0 or omitted (the exchange fills at once, with no delay)" }
  }
  return undefined
}

/** The cache topic of policies, invalidated per partner by `set`. */
export const cacheTopic = "rail-policies"

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

/** The range a stored delay must be in: a defect otherwise (the routes' schemas check it first). */
const checkedDelay = (rail: RailName, policy: SetRailPolicy) =>
  Effect.gen(function*() {
    const problem = policyProblem(rail, policy)
    if (problem !== undefined) {
      return yield* Effect.die(new Error(`RailPolicies.set: ${rail} ${problem.field}: ${problem.message}`))
    }
    const delaySeconds = policy.delaySeconds ?? defaultDelaySeconds[rail]
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > delaySecondsMax) {
      return yield* Effect.die(new Error(`RailPolicies.set: delaySeconds out of range: ${delaySeconds}`))
    }
    return delaySeconds
  })

export class RailPolicies extends Effect.Service<RailPolicies>()("RailPolicies", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const caches = yield* Caches

    const list = Command.fn("RailPolicies.list")((partnerId: string) =>
      sql<PolicyRow>`
        SELECT rail, mode, outcome, delay_seconds, updated_at FROM rail_policies WHERE partner_id = ${partnerId}`.pipe(
        Effect.map((rows) =>
          railNames.map((rail) => {
            const row = rows.find((r) => r.rail === rail)
            return row === undefined ? defaultPolicy(rail) : fromRow(row)
          })
        ),
        Effect.orDie
      ))

    // Read by every rail operation, changed by a sandbox control: cached per partner (src/db/Caches.ts).
    const cache = caches.make<RailPolicy>(cacheTopic, { capacity: 10_000 })
    const policyFor = Command.fn("RailPolicies.policyFor")((partnerId: string, rail: RailName) =>
      Effect.map(
        cache.get(
          `${partnerId}/${rail}`,
          partnerId,
          sql<PolicyRow>`
            SELECT rail, mode, outcome, delay_seconds, updated_at FROM rail_policies
            WHERE partner_id = ${partnerId} AND rail = ${rail}`.pipe(
            Effect.map((rows) => Option.some(rows[0] === undefined ? defaultPolicy(rail) : fromRow(rows[0]))),
            Effect.orDie
          )
        ),
        Option.getOrElse(() => defaultPolicy(rail))
      ))

    /**
     * Replaces the policy: an omitted `outcome` is success, an omitted `delaySeconds` the rail's default. A policy
     * the rail cannot follow (`policyProblem`) is a defect: callers check it first.
     */
    const set = Command.fn("RailPolicies.set")(function*(partnerId: string, rail: RailName, policy: SetRailPolicy) {
      const delaySeconds = yield* checkedDelay(rail, policy)
      const now = yield* clock.now
      const rows = yield* sql<PolicyRow>`
          INSERT INTO rail_policies (partner_id, rail, mode, outcome, delay_seconds, updated_at)
          VALUES (${partnerId}, ${rail}, ${policy.mode}, ${policy.outcome ?? "success"}, ${delaySeconds}, ${now})
          ON CONFLICT (partner_id, rail) DO UPDATE SET mode = EXCLUDED.mode, outcome = EXCLUDED.outcome,
            delay_seconds = EXCLUDED.delay_seconds, updated_at = EXCLUDED.updated_at
          RETURNING rail, mode, outcome, delay_seconds, updated_at`.pipe(Effect.orDie)
      yield* caches.announce(cacheTopic, partnerId)
      return fromRow(rows[0]!)
    })

    return { policyFor, list, set } as const
  }),
  dependencies: [Caches.Default]
}) {}

export const layer = RailPolicies.Default
