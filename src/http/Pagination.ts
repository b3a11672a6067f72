import { Context, Effect, Layer, Schema } from "effect"
import { constantTimeEqual, hmacSha256 } from "../crypto/Hashing.js"
import { Keys } from "../crypto/Keys.js"
import { InvalidCursor } from "./ApiError.js"
import type { Page } from "./Envelope.js"
import { pageLimitDefault } from "./PageParams.js"

/**
 * Cursor pagination (SPEC.md "Pagination"), one piece for every list. Lists are keyset-paginated on a
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

export class Cursors extends Context.Tag("Cursors")<Cursors, {
  readonly encode: (scope: ListScope, seq: string) => string
  readonly decode: (scope: ListScope, cursor: string) => Effect.Effect<string, InvalidCursor>
}>() {}

export const CursorsLayer = Layer.effect(
  Cursors,
  Effect.map(Keys, (keys) => {
    // The scope is authenticated, not carried: the cursor reveals no ids, and a cursor is bound to its list.
    const sign = (scope: ListScope, payload: string) =>
      hmacSha256(keys.cursor, `cursor.v2\n${scopeKey(scope)}\n${payload}`).subarray(0, 16)
    return Cursors.of({
      encode: (scope, seq) => {
        const payload = Buffer.from(JSON.stringify({ s: seq })).toString("base64url")
        return `${payload}.${sign(scope, payload).toString("base64url")}`
      },
      decode: (scope, cursor) => {
        if (cursor.length > 512) return Effect.fail(invalid)
        const [payload, signature, ...rest] = cursor.split(".")
        if (payload === undefined || signature === undefined || rest.length > 0) return Effect.fail(invalid)
        // Compare the canonical text, not decoded bytes: base64url decoding skips stray characters and unused
        // bits, so "<sig>!!" or a changed last character would otherwise still verify.
        if (!constantTimeEqual(Buffer.from(sign(scope, payload).toString("base64url")), Buffer.from(signature))) {
          return Effect.fail(invalid)
        }
        const decoded = decodePayload(Buffer.from(payload, "base64url").toString("utf8"))
        if (decoded._tag === "None") return Effect.fail(invalid)
        return Effect.succeed(decoded.value.s)
      }
    })
  })
)

/**
 * Runs a keyset query for one page: asks for one row more than the limit to learn whether a next page exists.
 * `scope` names the list instance (list, partner, customer, filters); its cursors work only there.
 */
export const paginate = <A, E, R>(
  scope: ListScope,
  request: PageRequest,
  fetch: (args: { readonly beforeSeq: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<A>, E, R>,
  seqOf: (item: A) => string
): Effect.Effect<Page<A>, E | InvalidCursor, R | Cursors> =>
  Effect.gen(function*() {
    const cursors = yield* Cursors
    const limit = request.limit ?? pageLimitDefault
    const beforeSeq = request.cursor === undefined ? undefined : yield* cursors.decode(scope, request.cursor)
    const rows = yield* fetch({ beforeSeq, limit: limit + 1 })
    const items = rows.slice(0, limit)
    const last = items[items.length - 1]
    const nextCursor = rows.length > limit && last !== undefined ? cursors.encode(scope, seqOf(last)) : null
    return { items, nextCursor }
  })
