import { Option, ParseResult, SchemaAST as AST } from "effect"

/**
 * Strict requests: an object of a JSON body (at every level) or a query string refuses the keys its schema does not
 * list, each named with the closest known one. src/api/Messages.ts puts `refuseUnknownKeys` over every such object
 * of the request schemas (and the middleware words a route without query parameters with `unknownFieldMessage`).
 */

/**
 * Where a schema refuses fields it does not list: a JSON body (at every level) or a query string. Elsewhere (path,
 * headers) fields it does not list are not the partner's concern.
 */
export type Strict = "body" | "query" | undefined

/**
 * The optimal-string-alignment (restricted Damerau-Levenshtein) distance of `a` and `b`, or `limit + 1` as soon as
 * it is known to exceed `limit`: the length difference alone rules most pairs out, and a row whose every cell is
 * over the limit ends the search. Three rows of `b.length + 1` numbers; a request's key is the partner's input, of
 * any length, so its cost is bounded by `limit` and the known name, never by the key alone. A transposition reaches
 * back two rows, so the search ends after two rows in a row over the limit.
 */
const distanceWithin = (a: string, b: string, limit: number): number => {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let older = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  let current = new Array<number>(b.length + 1).fill(0)
  let previousMin = 0
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, older[j - 2]! + 1)
      current[j] = d
      if (d < rowMin) rowMin = d
    }
    if (rowMin > limit && previousMin > limit) return limit + 1
    previousMin = rowMin
    ;[older, previous, current] = [previous, current, older]
  }
  return previous[b.length]!
}

/** The known name closest to `key`, when it is close enough to be a likely typo (Damerau-Levenshtein distance, case ignored). */
export const closest = (key: string, known: ReadonlyArray<string>): string | undefined => {
  const limit = Math.max(2, Math.floor(key.length / 3))
  const lower = key.toLowerCase()
  let best: { name: string; distance: number } | undefined
  for (const name of known) {
    const found = distanceWithin(lower, name.toLowerCase(), limit)
    if (found <= limit && (best === undefined || found < best.distance)) best = { name, distance: found }
  }
  return best?.name
}

/** Known names listed after "its fields:", at most this many. */
const listedMax = 12

/** The wording of a field a body or query does not take: "did you mean" the closest known one, else the known ones. */
export const unknownFieldMessage = (key: string, known: ReadonlyArray<string>, strict: "body" | "query"): string => {
  const what = strict === "body" ? "is not a field of this request body" : "is not a query parameter of this route"
  const near = closest(key, known)
  if (near !== undefined) return `${what}; did you mean "${near}"?`
  if (known.length === 0) return strict === "body" ? `${what} (it takes no fields)` : `${what} (it takes none)`
  const listed = known.slice(0, listedMax).join(", ") + (known.length > listedMax ? ", …" : "")
  return `${what} (${strict === "body" ? "its fields" : "its query parameters"}: ${listed})`
}

/**
 * Unknown keys named one by one, per object (or query string), at most this many; the rest are counted in one more
 * problem on the object (`moreUnknownMessage`). A hostile body of 20,000 unknown keys would otherwise be answered with
 * 20,000 problems (2.8 MB for a 200 KB request) and cost the service a search for the closest name for each.
 */
export const unknownNamedMax = 20

/** The problem that counts the unknown keys beyond the first `unknownNamedMax`. */
export const moreUnknownMessage = (more: number, strict: "body" | "query"): string =>
  `${more} more ${more === 1 ? "field" : "fields"} ${strict === "body" ? "this request body does not take" : "this route does not take as query parameters"} (the first ${unknownNamedMax} are named)`

/** One problem per unknown key for the first `unknownNamedMax` (`named`), then one that counts the rest (`more`). */
export const unknownProblems = <A>(unknown: ReadonlyArray<string>, named: (key: string) => A, more: (count: number) => A): Array<A> => {
  const problems = unknown.slice(0, unknownNamedMax).map(named)
  if (unknown.length > unknownNamedMax) problems.push(more(unknown.length - unknownNamedMax))
  return problems
}

/**
 * A body's `customerId`: ignored, not refused. Partner routes name the customer in the path; a `customerId` sent in
 * the body as well (as some partners' clients do) is left out of the decoded body and changes nothing.
 */
export const ignoredAtTop = new Set(["customerId"])

/**
 * The filter that refuses an object's unknown keys, one issue per key (`unknownProblems`). It is a stable filter:
 * with `errors: "all"` Schema runs it on the input even when the object's own fields fail, so one answer names the
 * unknown and the missing fields alike; on success it sees the decoded object, which keeps unknown keys (`onExcessProperty:
 * "preserve"` at the top of the request) so that they can be named here.
 */
export const refuseUnknownKeys = (known: ReadonlyArray<string>, root: boolean, strict: "body" | "query") => {
  const names = new Set(known)
  return (input: unknown, _: AST.ParseOptions, self: AST.Refinement): Option.Option<ParseResult.ParseIssue> => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return Option.none()
    const unknown = Object.keys(input).filter((key) => !names.has(key) && !(root && strict === "body" && ignoredAtTop.has(key)))
    if (unknown.length === 0) return Option.none()
    const issues = unknownProblems<ParseResult.ParseIssue>(
      unknown,
      (key) => new ParseResult.Pointer(key, input, new ParseResult.Type(unknownField, (input as Record<string, unknown>)[key], unknownFieldMessage(key, known, strict))),
      (count) => new ParseResult.Type(unknownField, input, moreUnknownMessage(count, strict))
    )
    return Option.some(new ParseResult.Composite(self, input, issues as unknown as ParseResult.SingleOrNonEmpty<ParseResult.ParseIssue>))
  }
}

/**
 * Schema's "stable filter" annotation: a refinement so marked runs, under `errors: "all"`, on the input even when
 * its `from` fails (Schema's own minItems and maxItems use it). Its id is not in Schema's type declarations, so it is
 * written here by its registered symbol; test/strict-bodies.test.ts fails if an upgrade stops honouring it (one body
 * with an unknown and a missing field must name both).
 */
export const StableFilterAnnotationId = Symbol.for("effect/annotation/StableFilter")

/** The node an unknown field's issue names (it has no schema of its own; the message says what is wrong). */
const unknownField = new AST.NeverKeyword({ [AST.TitleAnnotationId]: "an unknown field" })

/** A body's `customerId` at the top: dropped from the decoded body, whatever `onExcessProperty` says. */
export const withoutIgnored = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null || !Object.keys(value).some((key) => ignoredAtTop.has(key))) return value
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  for (const key of ignoredAtTop) delete out[key]
  return out
}
