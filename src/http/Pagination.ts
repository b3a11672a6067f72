import { Context, Effect, Layer, Schema } from "effect"
import { constantTimeEqual, hmacSha256 } from "../crypto/Hashing.js"
import { Keys } from "../crypto/Keys.js"
import { InvalidCursor } from "./ApiError.js"
import type { Page } from "./Envelope.js"
import { pageLimitDefault } from "./PageParams.js"

/**
 * Cursor pagination (SPEC.md "Pagination"), one piece for every list. Lists are keyset-paginated on a
 * monotonically increasing `seq`, newest first, so a page is stable under inserts: rows created after the
 * first page never shift later pages. The cursor is opaque: base64url JSON of the list name and the last seq,
 * with an HMAC so that a tampered or foreign cursor is refused (400 INVALID_CURSOR) instead of silently
 * paging somewhere else.
 */
export { Limit, pageLimitDefault, pageLimitMax, PageParams } from "./PageParams.js"

export interface PageRequest {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

const CursorPayload = Schema.parseJson(Schema.Struct({ l: Schema.String, s: Schema.String.pipe(Schema.pattern(/^\d{1,19}$/)) }))
const decodePayload = Schema.decodeUnknownOption(CursorPayload)

const invalid = new InvalidCursor({ message: "cursor is not valid for this list; start again without a cursor" })

export class Cursors extends Context.Tag("Cursors")<Cursors, {
  readonly encode: (list: string, seq: string) => string
  readonly decode: (list: string, cursor: string) => Effect.Effect<string, InvalidCursor>
}>() {}

export const CursorsLayer = Layer.effect(
  Cursors,
  Effect.map(Keys, (keys) => {
    const sign = (payload: string) => hmacSha256(keys.cursor, payload).subarray(0, 16)
    return Cursors.of({
      encode: (list, seq) => {
        const payload = Buffer.from(JSON.stringify({ l: list, s: seq })).toString("base64url")
        return `${payload}.${sign(payload).toString("base64url")}`
      },
      decode: (list, cursor) => {
        if (cursor.length > 512) return Effect.fail(invalid)
        const [payload, signature, ...rest] = cursor.split(".")
        if (payload === undefined || signature === undefined || rest.length > 0) return Effect.fail(invalid)
        // Compare the canonical text, not decoded bytes: base64url decoding skips stray characters and unused
        // bits, so "<sig>!!" or a changed last character would otherwise still verify.
        if (!constantTimeEqual(Buffer.from(sign(payload).toString("base64url")), Buffer.from(signature))) {
          return Effect.fail(invalid)
        }
        const decoded = decodePayload(Buffer.from(payload, "base64url").toString("utf8"))
        if (decoded._tag === "None" || decoded.value.l !== list) return Effect.fail(invalid)
        return Effect.succeed(decoded.value.s)
      }
    })
  })
)

/**
 * Runs a keyset query for one page: asks for one row more than the limit to learn whether a next page exists.
 */
export const paginate = <A, E, R>(
  list: string,
  request: PageRequest,
  fetch: (args: { readonly beforeSeq: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<A>, E, R>,
  seqOf: (item: A) => string
): Effect.Effect<Page<A>, E | InvalidCursor, R | Cursors> =>
  Effect.gen(function*() {
    const cursors = yield* Cursors
    const limit = request.limit ?? pageLimitDefault
    const beforeSeq = request.cursor === undefined ? undefined : yield* cursors.decode(list, request.cursor)
    const rows = yield* fetch({ beforeSeq, limit: limit + 1 })
    const items = rows.slice(0, limit)
    const last = items[items.length - 1]
    const nextCursor = rows.length > limit && last !== undefined ? cursors.encode(list, seqOf(last)) : null
    return { items, nextCursor }
  })
