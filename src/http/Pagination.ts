import { Context, Effect, Layer, Schema } from "effect"
import { constantTimeEqual, hmacSha256 } from "../crypto/Hashing.js"
import { Keys } from "../crypto/Keys.js"
import { InvalidCursor } from "./ApiError.js"
import type { Page } from "./Envelope.js"

/**
 * Cursor pagination (SPEC.md "Pagination"), one piece for every list. Lists are keyset-paginated on a
 * monotonically increasing `seq`, newest first, so a page is stable under inserts: rows created after the
 * first page never shift later pages. The cursor is opaque: base64url JSON of the list name and the last seq,
 * with an HMAC so that a tampered or foreign cursor is refused (400 INVALID_CURSOR) instead of silently
 * paging somewhere else.
 */
export const pageLimitMax = 100
export const pageLimitDefault = 20

const limitMessage = () => "limit must be an integer from 1 to 100"

/** Digits only: NumberFromString alone would also take "1e2", " 20" or "0x10". */
export const Limit = Schema.String.pipe(
  Schema.pattern(/^[0-9]{1,3}$/, { message: limitMessage }),
  Schema.compose(Schema.NumberFromString),
  Schema.int({ message: limitMessage }),
  Schema.between(1, pageLimitMax, { message: limitMessage })
)

export const PageParams = {
  limit: Schema.optional(Limit),
  /** Any text: a cursor that is too long or otherwise not one of ours is refused by `decode` as INVALID_CURSOR. */
  cursor: Schema.optional(Schema.String)
}

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
