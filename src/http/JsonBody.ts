/**
 * Checks of a request's input text made once, before any handler decodes it (docs/reference.md "Conventions"): the JSON
 * body's nesting depth, its number literals (read exactly, never rounded), control characters in every string
 * of the body, the query string and the path, and unpaired surrogate escapes in the body's strings. Each problem
 * names the field (JSON path such as `idDocument.number`).
 */

/** Objects and arrays nested deeper than this are refused (no request of the API needs more than a few levels). */
export const jsonDepthMax = 32

/**
 * Free-text fields, where a tab, a line feed or a carriage return may reasonably appear. Every other character
 * below U+0020, DEL and the C1 controls (U+007F–U+009F) are refused in every string.
 */
export const freeTextFields: ReadonlySet<string> = new Set(["message", "reason", "narration", "description", "note"])

const anyControl = /[\u0000-\u001f\u007f-\u009f]/
const controlExceptWhitespace = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/

export const controlCharactersMessage = "must not contain control characters"
export const unpairedSurrogateMessage =
  "must be valid Unicode text: a \\uD800-\\uDFFF escape must be one half of a surrogate pair"

/**
 * A UTF-16 surrogate without its other half. Only a JSON escape (`"\udc00"`) can write one (UTF-8 cannot); no
 * text column can keep it (it would become U+FFFD, or break a `json` column), so it is refused.
 */
const unpairedSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export const hasUnpairedSurrogate = (value: string): boolean => unpairedSurrogate.test(value)

export const inexactNumberMessage = "must be written exactly, with at most 15 significant digits and no exponent"

export const hasControlCharacters = (value: string, freeText = false): boolean =>
  (freeText ? controlExceptWhitespace : anyControl).test(value)

/** A decimal as `[-]digits e exponent` with no leading or trailing zeros in `digits`: equal values, equal text. */
const canonicalDecimal = (text: string): string | undefined => {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text)
  if (match === null) return undefined
  const fraction = match[3] ?? ""
  let digits = (match[2]! + fraction).replace(/^0+/, "")
  if (digits === "") return "0"
  let exponent = Number(match[4] ?? "0") - fraction.length
  const trimmed = digits.replace(/0+$/, "")
  exponent += digits.length - trimmed.length
  digits = trimmed
  return `${match[1]}${digits}e${exponent}`
}

/**
 * Whether a JSON number literal means exactly the number JavaScript reads from it: no exponent form, and the
 * decimal value the double prints back (`String(Number(text))`) equals the written one (`1500.50` is exact,
 * `300.00000000000001` is not: it would silently become 300).
 */
export const isExactNumberLiteral = (text: string): boolean => {
  if (/[eE]/.test(text)) return false
  const written = canonicalDecimal(text)
  const value = Number(text)
  if (written === undefined || !Number.isFinite(value)) return false
  return canonicalDecimal(String(value)) === written
}

/** A field name for messages: `a.b.0`, or `request body` for the whole body. */
export const fieldName = (path: ReadonlyArray<string | number>): string =>
  path.length === 0 ? "request body" : path.map(String).join(".")

export interface InputProblem {
  readonly field: string
  readonly message: string
}

const problem = (path: ReadonlyArray<string | number>, message: string): InputProblem => ({
  field: fieldName(path),
  message: `${fieldName(path)}: ${message}`
})

interface Frame {
  readonly kind: "object" | "array"
  key: string | undefined
  index: number
  awaitingKey: boolean
}

const isWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09

/**
 * Scans a JSON text that `JSON.parse` accepted, without recursion, and returns the first problem: nesting past
 * `jsonDepthMax`, a number literal that is not exact (see `isExactNumberLiteral`), or a string (value or key)
 * with control characters. Returns undefined when the text is fine (or, defensively, not well-formed JSON).
 */
export const scanJson = (text: string): InputProblem | undefined => {
  const stack: Array<Frame> = []
  const path = (): Array<string | number> =>
    stack.map((frame) => (frame.kind === "object" ? frame.key ?? "" : frame.index))
  let i = 0
  const length = text.length
  while (i < length) {
    const code = text.charCodeAt(i)
    if (isWhitespace(code)) {
      i++
      continue
    }
    const top = stack[stack.length - 1]
    switch (code) {
      case 0x7b: // {
      case 0x5b: // [
        if (stack.length >= jsonDepthMax) {
          return problem([], `must not nest objects and arrays more than ${jsonDepthMax} levels deep`)
        }
        stack.push({ kind: code === 0x7b ? "object" : "array", key: undefined, index: 0, awaitingKey: code === 0x7b })
        i++
        continue
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop()
        i++
        continue
      case 0x2c: // ,
        if (top?.kind === "array") top.index++
        else if (top !== undefined) top.awaitingKey = true
        i++
        continue
      case 0x3a: // :
        i++
        continue
      case 0x22: { // "
        let end = i + 1
        while (end < length) {
          const c = text.charCodeAt(end)
          if (c === 0x5c) end += 2
          else if (c === 0x22) break
          else end++
        }
        if (end >= length) return undefined
        const raw = text.slice(i, end + 1)
        // Only a string with an escape can hide a control character (a raw one is not valid JSON).
        const value: string = raw.includes("\\") ? JSON.parse(raw) : raw.slice(1, -1)
        i = end + 1
        if (top?.kind === "object" && top.awaitingKey) {
          top.key = value
          top.awaitingKey = false
          if (hasControlCharacters(value)) return problem(path(), `${controlCharactersMessage} (in a property name)`)
          if (raw.includes("\\u") && hasUnpairedSurrogate(value)) return problem(path(), `${unpairedSurrogateMessage} (in a property name)`)
          continue
        }
        const here = path()
        const last = here[here.length - 1]
        if (hasControlCharacters(value, typeof last === "string" && freeTextFields.has(last))) {
          return problem(here, controlCharactersMessage)
        }
        if (raw.includes("\\u") && hasUnpairedSurrogate(value)) return problem(here, unpairedSurrogateMessage)
        continue
      }
      default: {
        let end = i
        while (end < length && /[-+.0-9eEa-z]/.test(text[end]!)) end++
        if (end === i) return undefined
        const literal = text.slice(i, end)
        i = end
        if (literal === "true" || literal === "false" || literal === "null") continue
        if (!isExactNumberLiteral(literal)) return problem(path(), inexactNumberMessage)
        continue
      }
    }
  }
  return undefined
}

/** Query parameters holding an amount (`amount`, `minAmount`, ...): read as exactly as a JSON amount. */
const amountParameter = /amount$/i

/**
 * Query parameters whose value is opaque, checked whole by the route: any `cursor` a list did not issue, control
 * characters included, is that list's 400 `INVALID_CURSOR` (docs/reference.md "Pagination"), never a `BAD_REQUEST`.
 */
const opaqueParameters: ReadonlySet<string> = new Set(["cursor"])

/** The first problem of a query string (`?a=1&b=2` or `a=1&b=2`), or undefined. */
export const checkQuery = (search: string): InputProblem | undefined => {
  if (search === "" || search === "?") return undefined
  for (const [key, value] of new URLSearchParams(search)) {
    if (hasControlCharacters(key)) return problem([key], `${controlCharactersMessage} (in a parameter name)`)
    if (hasControlCharacters(value) && !opaqueParameters.has(key)) return problem([key], controlCharactersMessage)
    if (amountParameter.test(key) && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value) && !isExactNumberLiteral(value)) {
      return problem([key], inexactNumberMessage)
    }
  }
  return undefined
}

/**
 * The indexes of the path segments (percent-decoded) with a control character. A segment that is not valid
 * percent-encoding is left to the router.
 */
export const controlCharacterSegments = (path: string): ReadonlyArray<number> =>
  path.split("/").flatMap((segment, index) => {
    if (!segment.includes("%")) return []
    try {
      return hasControlCharacters(decodeURIComponent(segment)) ? [index] : []
    } catch {
      return []
    }
  })
