/**
 * The expectation language of scenario files. Objects match as a subset by default (extra keys in the actual
 * value are fine), arrays match element by element with the same length, scalars match by strict equality.
 * Matchers (keys or strings starting with `$`) say more:
 *
 *   $any                     present, any value (null included)
 *   $absent                  the key is absent
 *   { $type: string }        string number integer boolean object array null uuid timestamp
 *   { $regex: "^NG" }        a string matching the regular expression
 *   { $gt: 5 } $gte $lt $lte numeric comparison (numeric strings are compared as numbers); combine freely
 *   { $ne: value }           anything but value
 *   { $contains: x }         an array with an element matching x, or a string containing x
 *   { $length: 3 }           array or string length (a number or a matcher such as { $gte: 1 })
 *   { $oneOf: [a, b] }       matches one of the candidates
 *   { $not: m }              does not match m
 *   { $exact: v }            v matched exactly: no extra keys anywhere inside
 *   { $eq: v }               v taken literally (to compare with a value that looks like a matcher)
 */
export interface Mismatch {
  readonly path: string
  readonly message: string
}

const typeNames = ["string", "number", "integer", "boolean", "object", "array", "null", "uuid", "timestamp"] as const
const comparisons = ["$gt", "$gte", "$lt", "$lte"] as const
const matcherKeys = new Set<string>(["$type", "$regex", ...comparisons, "$ne", "$contains", "$length", "$oneOf", "$not", "$exact", "$eq"])
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An object whose every key is a matcher key. */
export const isMatcherObject = (value: unknown): value is Record<string, unknown> =>
  isRecord(value) && Object.keys(value).length > 0 && Object.keys(value).every((key) => key.startsWith("$"))

/** Renders a value for a message: compact JSON, cut at `max` characters. */
export const show = (value: unknown, max = 160): string => {
  if (value === undefined) return "(absent)"
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value)
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

const join = (path: string, key: string | number) =>
  typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`

const asNumber = (value: unknown): number | undefined => {
  if (typeof value === "number") return value
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value)
  return undefined
}

const hasType = (value: unknown, type: string): boolean => {
  switch (type) {
    case "string": return typeof value === "string"
    case "number": return typeof value === "number"
    case "integer": return typeof value === "number" && Number.isInteger(value)
    case "boolean": return typeof value === "boolean"
    case "object": return isRecord(value)
    case "array": return Array.isArray(value)
    case "null": return value === null
    case "uuid": return typeof value === "string" && uuidPattern.test(value)
    case "timestamp": return typeof value === "string" && timestampPattern.test(value)
    default: return false
  }
}

const compare = (op: typeof comparisons[number], actual: number, bound: number) =>
  op === "$gt" ? actual > bound : op === "$gte" ? actual >= bound : op === "$lt" ? actual < bound : actual <= bound

const matchOperators = (spec: Record<string, unknown>, actual: unknown, exact: boolean, path: string): Array<Mismatch> => {
  const out: Array<Mismatch> = []
  const fail = (message: string) => out.push({ path, message })
  for (const [key, arg] of Object.entries(spec)) {
    switch (key) {
      case "$type":
        if (!hasType(actual, String(arg))) fail(`expected a value of type ${String(arg)} but got ${show(actual)}`)
        break
      case "$regex":
        if (typeof actual !== "string" || !new RegExp(String(arg)).test(actual)) fail(`expected a string matching /${String(arg)}/ but got ${show(actual)}`)
        break
      case "$gt":
      case "$gte":
      case "$lt":
      case "$lte": {
        const value = asNumber(actual)
        const bound = asNumber(arg)
        const symbol = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" }[key]
        if (value === undefined || bound === undefined || !compare(key, value, bound)) fail(`expected a number ${symbol} ${show(arg)} but got ${show(actual)}`)
        break
      }
      case "$ne":
        if (actual === undefined || match(arg, actual, { exact: true }, path).length === 0) fail(`expected anything but ${show(arg)} but got ${show(actual)}`)
        break
      case "$contains":
        if (typeof actual === "string") {
          if (!actual.includes(String(arg))) fail(`expected a string containing ${show(arg)} but got ${show(actual)}`)
        } else if (!Array.isArray(actual) || !actual.some((item, i) => match(arg, item, { exact }, join(path, i)).length === 0)) {
          fail(`expected an array containing an element matching ${show(arg)} but got ${show(actual)}`)
        }
        break
      case "$length": {
        const length = typeof actual === "string" || Array.isArray(actual) ? actual.length : undefined
        if (length === undefined) fail(`expected an array or string of length ${show(arg)} but got ${show(actual)}`)
        else {
          const inner = match(arg, length, { exact }, `${path}.length`)
          if (inner.length > 0) fail(`expected length ${show(arg)} but got length ${length}`)
        }
        break
      }
      case "$oneOf":
        if (!Array.isArray(arg) || !arg.some((candidate) => match(candidate, actual, { exact }, path).length === 0)) {
          fail(`expected one of ${show(arg)} but got ${show(actual)}`)
        }
        break
      case "$not":
        if (match(arg, actual, { exact }, path).length === 0) fail(`expected not ${show(arg)} but got ${show(actual)}`)
        break
      case "$exact":
        out.push(...match(arg, actual, { exact: true }, path))
        break
      case "$eq":
        out.push(...literal(arg, actual, path))
        break
      default:
        fail(`unknown matcher ${key}`)
    }
  }
  return out
}

const literal = (expected: unknown, actual: unknown, path: string): Array<Mismatch> =>
  JSON.stringify(expected) === JSON.stringify(actual) ? [] : [{ path, message: `expected ${show(expected)} but got ${show(actual)}` }]

/** Every way `actual` differs from `expected`; empty when it matches. */
export const match = (expected: unknown, actual: unknown, options: { readonly exact: boolean }, path = ""): Array<Mismatch> => {
  if (expected === "$any") return actual === undefined ? [{ path, message: "expected a value but it is absent" }] : []
  if (expected === "$absent") return actual === undefined ? [] : [{ path, message: `expected no value but got ${show(actual)}` }]
  if (isMatcherObject(expected)) return matchOperators(expected, actual, options.exact, path)
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [{ path, message: `expected an array but got ${show(actual)}` }]
    const out: Array<Mismatch> = []
    if (expected.length !== actual.length) {
      out.push({ path, message: `expected ${expected.length} element(s) but got ${actual.length}: ${show(actual)}` })
    }
    expected.forEach((item, i) => {
      if (i < actual.length) out.push(...match(item, actual[i], options, join(path, i)))
    })
    return out
  }
  if (isRecord(expected)) {
    if (!isRecord(actual)) return [{ path, message: `expected an object but got ${show(actual)}` }]
    const out: Array<Mismatch> = []
    for (const [key, value] of Object.entries(expected)) out.push(...match(value, actual[key], options, join(path, key)))
    if (options.exact) {
      for (const key of Object.keys(actual)) {
        if (!(key in expected)) out.push({ path: join(path, key), message: `unexpected key (exact match) with value ${show(actual[key])}` })
      }
    }
    return out
  }
  if (actual === undefined) return [{ path, message: `expected ${show(expected)} but it is absent` }]
  return Object.is(expected, actual) ? [] : [{ path, message: `expected ${show(expected)} but got ${show(actual)}` }]
}

/** Checks matcher syntax before anything runs: unknown `$` keys, bad types, bad regular expressions. */
export const checkMatchers = (value: unknown, path = ""): Array<Mismatch> => {
  if (typeof value === "string") {
    return value.startsWith("$") && value !== "$any" && value !== "$absent" && !value.startsWith("${")
      ? [{ path, message: `unknown matcher "${value}" (use $any or $absent, or { $eq: "${value}" } for the literal)` }]
      : []
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => checkMatchers(item, join(path, i)))
  if (!isRecord(value)) return []
  if (!isMatcherObject(value)) return Object.entries(value).flatMap(([key, item]) => checkMatchers(item, join(path, key)))
  const out: Array<Mismatch> = []
  for (const [key, arg] of Object.entries(value)) {
    const at = join(path, key)
    if (!matcherKeys.has(key)) out.push({ path: at, message: `unknown matcher ${key}; known: ${[...matcherKeys].join(", ")}` })
    else if (key === "$type" && !(typeNames as ReadonlyArray<unknown>).includes(arg)) out.push({ path: at, message: `must be one of ${typeNames.join(", ")}` })
    else if (key === "$regex") {
      try {
        new RegExp(String(arg))
      } catch (error) {
        out.push({ path: at, message: `invalid regular expression: ${(error as Error).message}` })
      }
    } else if ((comparisons as ReadonlyArray<string>).includes(key) && asNumber(arg) === undefined && !String(arg).startsWith("${")) {
      out.push({ path: at, message: "must be a number" })
    } else if (key === "$oneOf" && !Array.isArray(arg)) out.push({ path: at, message: "must be a list of candidates" })
    else if (key !== "$eq") out.push(...checkMatchers(arg, at))
  }
  return out
}
