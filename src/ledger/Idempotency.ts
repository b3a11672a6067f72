import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import type { Along } from "../db/Rows.js"
import { Effect, Option, Schema } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Ids } from "../ids/Ids.js"
import { ReferenceInUse } from "./Errors.js"

/**
 * Idempotency by `reference` (docs/contract.md "Idempotency and references"), one mechanism for every money-moving endpoint. A reference is unique per
 * partner per endpoint (primary key of `idempotency_keys`). `claim` runs inside the customer's command
 * transaction: the first request inserts the key together with its resource; a repeat finds the key and gets the
 * original resource id back (the caller returns the original record and moves nothing). Races between two
 * customers of one partner are settled by the primary key: PostgreSQL makes the second insert wait for the first
 * transaction and then sees its row.
 */
export { Reference, referencePattern } from "./Reference.js"

export type Claim = { readonly _tag: "New" } | { readonly _tag: "Existing"; readonly resourceId: string }

/**
 * A money-moving request's answer and whether it was a replay: the original record found by the request's
 * `reference` (nothing moved) rather than a new one. The handler marks a replay with `Idempotent-Replayed: true`.
 */
export interface Answered<A> {
  readonly value: A
  readonly replayed: boolean
}

export interface ClaimInput {
  readonly partnerId: string
  /** The endpoint's scope name, e.g. "withdraw", "send", "funding.charge". */
  readonly endpoint: string
  readonly reference: string
  readonly customerId: string
  readonly resourceId: string
}

export class Idempotency extends Effect.Service<Idempotency>()("Idempotency", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const ids = yield* Ids

    const Key = Schema.Struct({ partnerId: Schema.String, endpoint: Schema.String, reference: Schema.String })
    const NewKey = Schema.Struct({ ...Key.fields, customerId: Schema.String, resourceId: Schema.String, createdAt: Schema.DateFromSelf })
    const insertKey = SqlSchema.findOne({
      Request: NewKey,
      Result: Schema.Struct({ resourceId: Schema.String }),
      execute: (key) =>
        sql`
          INSERT INTO idempotency_keys (partner_id, endpoint, reference, customer_id, resource_id, created_at)
          VALUES (${key.partnerId}, ${key.endpoint}, ${key.reference}, ${key.customerId}, ${key.resourceId}, ${key.createdAt})
          ON CONFLICT DO NOTHING
          RETURNING resource_id`
    })
    const findKey = SqlSchema.findOne({
      Request: Key,
      Result: Schema.Struct({ customerId: Schema.String, resourceId: Schema.String }),
      execute: (key) =>
        sql`
          SELECT customer_id, resource_id FROM idempotency_keys
          WHERE partner_id = ${key.partnerId} AND endpoint = ${key.endpoint} AND reference = ${key.reference}`
    })

    /** The claim's statement with a read along (`Along`): always one row, `resource_id` null on a conflict. */
    const insertKeyAlong = (key: typeof NewKey.Type, along: Statement.Fragment) =>
      sql<{ readonly resourceId: string | null; readonly along: unknown }>`
        WITH k AS (
          INSERT INTO idempotency_keys (partner_id, endpoint, reference, customer_id, resource_id, created_at)
          VALUES (${key.partnerId}, ${key.endpoint}, ${key.reference}, ${key.customerId}, ${key.resourceId}, ${key.createdAt})
          ON CONFLICT DO NOTHING
          RETURNING resource_id
        )
        SELECT (SELECT resource_id FROM k) AS resource_id, ${along} AS along`

    /** The first request's resource, after a conflict on the key: ReferenceInUse when another customer holds it. */
    const existingKey = (input: ClaimInput) =>
      Effect.gen(function*() {
        const existing = yield* findKey(input)
        if (Option.isNone(existing)) return yield* Effect.dieMessage("idempotency: key vanished after a conflict")
        const row = existing.value
        if (row.customerId !== input.customerId) {
          return yield* new ReferenceInUse({
            message: `reference ${input.reference} is already used by another customer of this partner on this endpoint`
          })
        }
        return { _tag: "Existing", resourceId: row.resourceId } as Claim
      })

    /** Claims the reference for a new resource, or finds the resource a first request created with it. */
    const claimKey = (input: ClaimInput): Effect.Effect<Claim, ReferenceInUse> =>
      Effect.gen(function*() {
        const inserted = yield* insertKey({ ...input, createdAt: yield* clock.now })
        return Option.isSome(inserted) ? { _tag: "New" } as Claim : yield* existingKey(input)
      }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    /** `claimKey` with a read along in the same statement: the claim, and the read's decoded value. */
    const claimKeyAlong = <B>(input: ClaimInput, along: Along<B>): Effect.Effect<readonly [Claim, B], ReferenceInUse> =>
      Effect.gen(function*() {
        const [row] = yield* insertKeyAlong({ ...input, createdAt: yield* clock.now }, along.expression)
        if (row === undefined) return yield* Effect.dieMessage("idempotency: the claim's statement answered no row")
        const value = yield* Schema.decodeUnknown(along.schema)(row.along)
        const claim = row.resourceId !== null ? { _tag: "New" } as Claim : yield* existingKey(input)
        return [claim, value] as const
      }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    /** A claimed request's answer: the new resource `create` makes, or the original one (a replay). */
    const respond = <A, E, L>(
      resourceId: string,
      claimed: Claim,
      create: (resourceId: string) => Effect.Effect<A, E>,
      load: (resourceId: string) => Effect.Effect<A, L>
    ): Effect.Effect<Answered<A>, E | L> =>
      claimed._tag === "New"
        ? Effect.map(create(resourceId), (value) => ({ value, replayed: false }))
        : Effect.map(load(claimed.resourceId), (value) => ({ value, replayed: true }))

    /**
     * The whole pattern: claim the reference, then create the resource or load the original one, telling whether
     * the answer is the original record of an earlier request (a replay).
     */
    const answer = Effect.fnUntraced(function* answer<A, E, L>(
      input: Omit<ClaimInput, "resourceId">,
      create: (resourceId: string) => Effect.Effect<A, E>,
      load: (resourceId: string) => Effect.Effect<A, L>
    ) {
      const resourceId = yield* ids.uuid
      return yield* respond(resourceId, yield* claimKey({ ...input, resourceId }), create, load)
    })

    /**
     * `answer` with a read along in the claim's statement (`Along`): `create` gets the read's value. A replay loads
     * the original and ignores it.
     */
    const answerAlong = Effect.fnUntraced(function* answerAlong<A, B, E, L>(
      input: Omit<ClaimInput, "resourceId">,
      along: Along<B>,
      create: (resourceId: string, along: B) => Effect.Effect<A, E>,
      load: (resourceId: string) => Effect.Effect<A, L>
    ) {
      const resourceId = yield* ids.uuid
      const [claimed, value] = yield* claimKeyAlong({ ...input, resourceId }, along)
      return yield* respond(resourceId, claimed, (id) => create(id, value), load)
    })

    /** `answer` without the replay flag, for a caller inside another command (the domestic global send's payout). */
    const once = <A, E, L>(
      input: Omit<ClaimInput, "resourceId">,
      create: (resourceId: string) => Effect.Effect<A, E>,
      load: (resourceId: string) => Effect.Effect<A, L>
    ) => Effect.map(answer(input, create, load), (answered) => answered.value)

    /** A fresh reference for a request that did not send one (so a retry without one creates a second operation). */
    const generate: Effect.Effect<string> = Effect.map(ids.bytes(12), (bytes) => `ref_${bytes.toString("hex")}`)

    return { answer, answerAlong, claim: claimKey, generate, once } as const
  })
}) {}

export const layer = Idempotency.Default
