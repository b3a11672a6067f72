import { Effect, Schema } from "effect"
import { constantTimeEqual, hmacSha256 } from "../crypto/Hashing.js"
import { Keys } from "../crypto/Keys.js"
import { InvalidCursor } from "./ApiError.js"
import type { Page } from "./Envelope.js"
import { pageLimitDefault } from "./PageParams.js"

/**
 * Cursor pagination (docs/contract.md "Pagination"), one piece for every list. Lists are keyset-paginated on a
 * monotonically increasing `seq`, newest first, so a page is stable under inserts: rows created after the
 * first page never shift later pages. The cursor is opaque: base64url JSON of the last seq, with an HMAC over
 * the seq AND the list instance it was issued for (`ListScope`: the list, the partner, the customer and every
 * filter), so that a tampered cursor, or one used on another list, another customer's list or with other
 * filters, is refused (400 INVALID_CURSOR) instead of silently paging somewhere else.
 */
export { Limit, pageLimitDefault, pageLimitMax, PageParams } from "./PageParams.js"

export interface PageRequest {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** Filter values that select a list's rows; `undefined` means "no filter" and is bound as such. */
export type ScopeFilters = Readonly<Record<string, string | number | boolean | null | undefined>>

/**
 * The one list instance a cursor belongs to. Every value that changes which rows the list shows must be here:
 * a cursor is valid only with exactly the same scope.
 */
export interface ListScope {
  /** The list's name, e.g. "transactions". */
  readonly list: string
  /** The partner whose data the list shows. */
  readonly partnerId: string
  /** The customer whose data the list shows, for customer lists. */
  readonly customerId?: string | null | undefined
  /** Query filters (`currency`, `type`, `status`, ...), by name. */
  readonly filters?: ScopeFilters | undefined
}

/** Canonical text of a scope: the same scope always gives the same text, whatever the order of the filters. */
export const scopeKey = (scope: ListScope): string =>
  JSON.stringify([
    scope.list,
    scope.partnerId.toLowerCase(),
    scope.customerId?.toLowerCase() ?? null,
    Object.keys(scope.filters ?? {}).sort().map((name) => [name, scope.filters?.[name] ?? null])
  ])

const CursorPayload = Schema.parseJson(Schema.Struct({ s: Schema.String.pipe(Schema.pattern(/^\d{1,19}$/)) }))
const decodePayload = Schema.decodeUnknownOption(CursorPayload)

const invalid = new InvalidCursor({
  message: "cursor: not valid for this list (another list, customer or filter, or altered); start again without a cursor"
})

/**
 * A composite keyset position (lists merged from several tables, e.g. `<createdAt ms>_<uuid>`): text of at most
 * `keyMaxChars` characters of `[A-Za-z0-9._:-]`. The list that issues it parses it; a key cursor is signed in a
 * domain of its own, so it is never read as a `seq` cursor or the other way round.
 */
export const keyMaxChars = 200
const keyPattern = new RegExp(`^[A-Za-z0-9._:-]{1,${keyMaxChars}}$`)

const KeyPayload = Schema.parseJson(Schema.Struct({ k: Schema.String.pipe(Schema.pattern(keyPattern)) }))
const decodeKeyPayload = Schema.decodeUnknownOption(KeyPayload)

const seqDomain = "cursor.v2"
const keyDomain = "cursor.key.v1"

/** Signs and verifies cursors with the cursor key (`Keys.cursor`): a cursor is bound to the list it was issued for. */
export class Cursors extends Effect.Service<Cursors>()("Cursors", {
  effect: Effect.gen(function*() {
    const keys = yield* Keys
    // The scope is authenticated, not carried: the cursor reveals no ids, and a cursor is bound to its list.
    const sign = (domain: string, scope: ListScope, payload: string) =>
      hmacSha256(keys.cursor, `${domain}\n${scopeKey(scope)}\n${payload}`).subarray(0, 16)
    const encodeWith = (domain: string) => (scope: ListScope, value: unknown) => {
      const payload = Buffer.from(JSON.stringify(value)).toString("base64url")
      return `${payload}.${sign(domain, scope, payload).toString("base64url")}`
    }
    /** The payload's JSON text once the signature checks out; undefined for anything this list did not issue. */
    const verifiedText = (domain: string, scope: ListScope, cursor: string): string | undefined => {
      if (cursor.length > 512) return undefined
      const [payload, signature, ...rest] = cursor.split(".")
      if (payload === undefined || signature === undefined || rest.length > 0) return undefined
      // Compare the canonical text, not decoded bytes: base64url decoding skips stray characters and unused
      // bits, so "<sig>!!" or a changed last character would otherwise still verify.
      if (!constantTimeEqual(Buffer.from(sign(domain, scope, payload).toString("base64url")), Buffer.from(signature))) {
        return undefined
      }
      return Buffer.from(payload, "base64url").toString("utf8")
    }

    const encode = (scope: ListScope, seq: string): string => encodeWith(seqDomain)(scope, { s: seq })

    const decode = (scope: ListScope, cursor: string): Effect.Effect<string, InvalidCursor> => {
      const text = verifiedText(seqDomain, scope, cursor)
      const decoded = text === undefined ? undefined : decodePayload(text)
      return decoded === undefined || decoded._tag === "None" ? Effect.fail(invalid) : Effect.succeed(decoded.value.s)
    }

    /** The composite-key variant: the same scope binding, a key of `keyPattern` instead of a seq. */
    const encodeKey = (scope: ListScope, key: string): string => {
      if (!keyPattern.test(key)) throw new Error(`Cursors.encodeKey: not a cursor key: ${key.slice(0, 80)}`)
      return encodeWith(keyDomain)(scope, { k: key })
    }

    const decodeKey = (scope: ListScope, cursor: string): Effect.Effect<string, InvalidCursor> => {
      const text = verifiedText(keyDomain, scope, cursor)
      const decoded = text === undefined ? undefined : decodeKeyPayload(text)
      return decoded === undefined || decoded._tag === "None" ? Effect.fail(invalid) : Effect.succeed(decoded.value.k)
    }

    return { encode, decode, encodeKey, decodeKey } as const
  }),
  dependencies: [Keys.Default]
}) {}

export const CursorsLayer = Cursors.Default

/**
 * Runs a keyset query for one page: asks for one row more than the limit to learn whether a next page exists.
 * `scope` names the list instance (list, partner, customer, filters); its cursors work only there.
 */
export const paginate = <A, E, R>(
  cursors: Cursors,
  scope: ListScope,
  request: PageRequest,
  fetch: (args: { readonly beforeSeq: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<A>, E, R>,
  seqOf: (item: A) => string
): Effect.Effect<Page<A>, E | InvalidCursor, R> =>
  Effect.gen(function*() {
    const limit = request.limit ?? pageLimitDefault
    const beforeSeq = request.cursor === undefined ? undefined : yield* cursors.decode(scope, request.cursor)
    const rows = yield* fetch({ beforeSeq, limit: limit + 1 })
    const items = rows.slice(0, limit)
    const last = items[items.length - 1]
    const nextCursor = rows.length > limit && last !== undefined ? cursors.encode(scope, seqOf(last)) : null
    return { items, nextCursor }
  })

/**
 * `paginate` for a list ordered by a composite key (a list merged from several tables): `fetch` answers the rows
 * after `afterKey` in the list's order (at most `limit`), `keyOf` gives a row's key. Cursors are signed and bound
 * to `scope` exactly like seq cursors.
 */
export const paginateByKey = <A, E, R>(
  cursors: Cursors,
  scope: ListScope,
  request: PageRequest,
  fetch: (args: { readonly afterKey: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<A>, E, R>,
  keyOf: (item: A) => string
): Effect.Effect<Page<A>, E | InvalidCursor, R> =>
  Effect.gen(function*() {
    const limit = request.limit ?? pageLimitDefault
    const afterKey = request.cursor === undefined ? undefined : yield* cursors.decodeKey(scope, request.cursor)
    const rows = yield* fetch({ afterKey, limit: limit + 1 })
    const items = rows.slice(0, limit)
    const last = items[items.length - 1]
    const nextCursor = rows.length > limit && last !== undefined ? cursors.encodeKey(scope, keyOf(last)) : null
    return { items, nextCursor }
  })
