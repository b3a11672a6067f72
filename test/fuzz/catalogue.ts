/**
 * The catalogue of hostile values. Each entry has a label (the "input class" in reports) and the value, either a
 * JSON value (serialised with JSON.stringify) or raw JSON text (`raw`) for what JSON.stringify cannot say: number
 * spellings such as `-0`, `1e3`, `300.00000000000001`, `9223372036854775808`, or literals that are not JSON.
 */

export interface Hostile {
  readonly label: string
  /** A JSON value, or raw JSON text when `raw` is set. */
  readonly value?: unknown
  readonly raw?: string
  /** Big values only run in the long form (kept out of the CI budget). */
  readonly big?: boolean
}

const repeat = (s: string, n: number) => s.repeat(n)

/** Largest JSON body the test server accepts (MAX_JSON_BODY_BYTES). */
export const MAX_BODY = 1024 * 1024

export const hostileStrings: ReadonlyArray<Hostile> = [
  { label: "string:empty", value: "" },
  { label: "string:space", value: " " },
  { label: "string:whitespace-only", value: "\t\n\r " },
  { label: "string:NUL", value: "\u0000" },
  { label: "string:embedded-NUL", value: "Ada\u0000Obi" },
  { label: "string:control-chars", value: "\u0001\u0002\u001b[31m\u007f\u0085" },
  { label: "string:CRLF-injection", value: "a\r\nx-injected: 1" },
  { label: "string:rtl-override", value: "\u202eevil\u202c" },
  { label: "string:zero-width", value: "\u200b\u200c\u200d\ufeff" },
  { label: "string:emoji", value: "😀👩‍👩‍👧‍👦🏳️‍🌈" },
  { label: "string:combining", value: "e\u0301\u0301\u0301\u0301\u0301" },
  { label: "string:lone-surrogate", value: "\ud800" },
  { label: "string:reversed-surrogates", value: "\udc00\ud800" },
  { label: "string:noncharacter", value: "\uffff\ufffe" },
  { label: "string:cjk", value: "阿达奥比" },
  { label: "string:arabic-digits", value: "١٢٣٤٥٦٧٨٩٠١" },
  { label: "string:fullwidth-digits", value: "１２３４５６７８９０１" },
  { label: "string:sql-injection", value: "' OR '1'='1' --" },
  { label: "string:sql-drop", value: "x'); DROP TABLE customers; --" },
  { label: "string:format-string", value: "%s%s%s%n%x" },
  { label: "string:template-injection", value: "${jndi:ldap://127.0.0.1/a}{{7*7}}" },
  { label: "string:html", value: "<script>alert(1)</script>" },
  { label: "string:path-traversal", value: "../../../../etc/passwd" },
  { label: "string:proto", value: "__proto__" },
  { label: "string:numeric", value: "12345678901" },
  { label: "string:true", value: "true" },
  { label: "string:null", value: "null" },
  { label: "string:uuid-nil", value: "00000000-0000-0000-0000-000000000000" },
  { label: "string:256", value: repeat("a", 256) },
  { label: "string:10k", value: repeat("a", 10_000) },
  { label: "string:100k-multibyte", value: repeat("é", 100_000) },
  { label: "string:~1MB", value: repeat("a", MAX_BODY - 200), big: true },
  { label: "string:>1MB", value: repeat("a", MAX_BODY + 10), big: true }
]

/** Wrong JSON types. */
export const hostileTypes: ReadonlyArray<Hostile> = [
  { label: "type:null", value: null },
  { label: "type:true", value: true },
  { label: "type:false", value: false },
  { label: "type:number", value: 12345 },
  { label: "type:string", value: "x" },
  { label: "type:array", value: [] },
  { label: "type:array-of-values", value: [1, "a", null] },
  { label: "type:object", value: {} },
  { label: "type:object-proto", raw: `{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}` }
]

/** Numbers at every boundary, as raw JSON text so their spelling reaches the server. */
export const hostileNumbers: ReadonlyArray<Hostile> = [
  { label: "number:0", raw: "0" },
  { label: "number:-0", raw: "-0" },
  { label: "number:-1", raw: "-1" },
  { label: "number:1", raw: "1" },
  { label: "number:0.1", raw: "0.1" },
  { label: "number:1e308", raw: "1e308" },
  { label: "number:1e-7", raw: "1e-7" },
  { label: "number:5e-324", raw: "5e-324" },
  { label: "number:1e400(Infinity)", raw: "1e400" },
  { label: "number:-1e400", raw: "-1e400" },
  { label: "number:2^53+1", raw: "9007199254740993" },
  { label: "number:2^63", raw: "9223372036854775808" },
  { label: "number:20-digits", raw: "99999999999999999999" },
  { label: "number:1e21", raw: "1e21" },
  { label: "number:300.00000000000001", raw: "300.00000000000001" },
  { label: "number:150.999999999999999", raw: "150.999999999999999" },
  { label: "number:1e3", raw: "1e3" },
  { label: "number:1E3", raw: "1E3" },
  { label: "number:1.5e2", raw: "1.5e2" },
  { label: "number:3-decimals", raw: "100.001" },
  { label: "number:1.005", raw: "1.005" },
  { label: "number:17-sig-digits", raw: "123456789012345.67" },
  { label: "number:16-digits", raw: "1234567890123456" },
  { label: "number:15-digits", raw: "123456789012345" },
  { label: "number:trailing-zeros", raw: "150.10000" },
  { label: "number:1.0", raw: "1.0" },
  { label: "number:negative-fraction", raw: "-0.01" },
  { label: "number:long-fraction", raw: "1." + "0".repeat(400) + "1" },
  { label: "number:1000-digits", raw: "9".repeat(1000) }
]

/** Strings that look like numbers (NaN-likes, spellings a lax parser would accept). */
export const numberLikeStrings: ReadonlyArray<Hostile> = [
  { label: "numstr:NaN", value: "NaN" },
  { label: "numstr:Infinity", value: "Infinity" },
  { label: "numstr:-Infinity", value: "-Infinity" },
  { label: "numstr:100", value: "100" },
  { label: "numstr:1e3", value: "1e3" },
  { label: "numstr:0x10", value: "0x10" },
  { label: "numstr:0b1", value: "0b1" },
  { label: "numstr:space-padded", value: " 100 " },
  { label: "numstr:underscore", value: "1_000" },
  { label: "numstr:comma", value: "1,000.00" },
  { label: "numstr:plus", value: "+100" },
  { label: "numstr:empty", value: "" }
]

/** Non-JSON number literals (raw). A JSON parser must refuse them: 400 MALFORMED_JSON. */
export const invalidNumberLiterals: ReadonlyArray<Hostile> = [
  { label: "literal:NaN", raw: "NaN" },
  { label: "literal:Infinity", raw: "Infinity" },
  { label: "literal:hex", raw: "0x10" },
  { label: "literal:leading-zero", raw: "0123" },
  { label: "literal:plus", raw: "+1" },
  { label: "literal:leading-dot", raw: ".5" },
  { label: "literal:trailing-dot", raw: "1." },
  { label: "literal:undefined", raw: "undefined" }
]

/** Amount values docs/reference.md "Money, balances and the ledger" says must be 400 for a 2-decimal fiat amount (never rounded). */
export const invalidFiatAmounts = new Set([
  "number:0", "number:-0", "number:-1", "number:1e308", "number:1e-7", "number:5e-324", "number:1e400(Infinity)",
  "number:-1e400", "number:2^53+1", "number:2^63", "number:20-digits", "number:1e21", "number:300.00000000000001",
  "number:150.999999999999999", "number:1e3", "number:1E3", "number:1.5e2", "number:3-decimals", "number:1.005",
  "number:17-sig-digits", "number:16-digits", "number:negative-fraction", "number:long-fraction", "number:1000-digits"
])

/** Amounts that are invalid whatever the asset's scale (exponent form, sign, too many digits, zero). */
export const invalidAnyAmounts = new Set([
  "number:0", "number:-0", "number:-1", "number:1e308", "number:1e-7", "number:5e-324", "number:1e400(Infinity)",
  "number:-1e400", "number:2^53+1", "number:2^63", "number:20-digits", "number:1e21", "number:300.00000000000001",
  "number:150.999999999999999", "number:1e3", "number:1E3", "number:1.5e2", "number:17-sig-digits",
  "number:16-digits", "number:negative-fraction", "number:long-fraction", "number:1000-digits"
])

/** Deeply nested values (raw). */
const makeDeepValues = (long: boolean): ReadonlyArray<Hostile> => [
  { label: "deep:array-100", raw: "[".repeat(100) + "]".repeat(100) },
  { label: "deep:array-10k", raw: "[".repeat(10_000) + "]".repeat(10_000) },
  { label: "deep:object-10k", raw: `{"a":`.repeat(10_000) + "1" + "}".repeat(10_000) },
  { label: "deep:array-200k", raw: "[".repeat(200_000) + "]".repeat(200_000) },
  ...(long ? [{ label: "deep:array-500k", raw: "[".repeat(500_000) + "]".repeat(500_000), big: true }] : []),
  { label: "deep:wide-array-100k", raw: "[" + Array(100_000).fill("0").join(",") + "]" },
  { label: "deep:wide-object-20k", raw: "{" + Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(",") + "}" }
]
/**
 * Built once per kind of run, on first use (a CI run never builds the long set): the generator picks from them for
 * many requests, and building the large ones again for each pick was about 6 % of the CI fuzz suite's CPU.
 */
const deepValuesOf = new Map<boolean, ReadonlyArray<Hostile>>()
export const deepValues = (long: boolean): ReadonlyArray<Hostile> => {
  const built = deepValuesOf.get(long) ?? makeDeepValues(long)
  deepValuesOf.set(long, built)
  return built
}

/** Hostile query-string values (already URL-encoded where needed: these are put in the query verbatim). */
export const hostileQueryValues: ReadonlyArray<{ readonly label: string; readonly raw: string }> = [
  { label: "q:empty", raw: "" },
  { label: "q:space", raw: "%20" },
  { label: "q:NUL", raw: "%00" },
  { label: "q:control", raw: "%01%1B%7F" },
  { label: "q:bad-percent", raw: "%zz" },
  { label: "q:lone-percent", raw: "%" },
  { label: "q:truncated-utf8", raw: "%E2%82" },
  { label: "q:invalid-utf8", raw: "%FF%FE" },
  { label: "q:overlong-utf8", raw: "%C0%AF" },
  { label: "q:unicode", raw: encodeURIComponent("😀阿") },
  { label: "q:negative", raw: "-1" },
  { label: "q:zero", raw: "0" },
  { label: "q:-0", raw: "-0" },
  { label: "q:1e3", raw: "1e3" },
  { label: "q:fraction", raw: "1.5" },
  { label: "q:hex", raw: "0x10" },
  { label: "q:2^63", raw: "9223372036854775808" },
  { label: "q:300.00000000000001", raw: "300.00000000000001" },
  { label: "q:NaN", raw: "NaN" },
  { label: "q:Infinity", raw: "Infinity" },
  { label: "q:plus", raw: "+1" },
  { label: "q:sql", raw: encodeURIComponent("' OR 1=1 --") },
  { label: "q:array-syntax", raw: "1&x[]=2" },
  { label: "q:long-2k", raw: "a".repeat(2_000) },
  { label: "q:long-7k", raw: "9".repeat(7_000) }
]

export const hostilePathSegments: ReadonlyArray<{ readonly label: string; readonly raw: string; readonly changesRoute?: boolean }> = [
  { label: "id:not-uuid", raw: "not-a-uuid" },
  { label: "id:unknown-uuid", raw: "6f1c1a9e-9d7b-4c1e-8e7a-2b3c4d5e6f70" },
  { label: "id:nil-uuid", raw: "00000000-0000-0000-0000-000000000000" },
  { label: "id:uuid-braces", raw: encodeURIComponent("{6f1c1a9e-9d7b-4c1e-8e7a-2b3c4d5e6f70}") },
  { label: "id:uuid-no-dashes", raw: "6f1c1a9e9d7b4c1e8e7a2b3c4d5e6f70" },
  { label: "id:numeric", raw: "12345" },
  { label: "id:negative", raw: "-1" },
  { label: "id:NUL", raw: "%00" },
  { label: "id:encoded-slash", raw: "a%2Fb", changesRoute: true },
  { label: "id:dot-dot", raw: "..", changesRoute: true },
  { label: "id:encoded-dot-dot", raw: "%2E%2E", changesRoute: true },
  { label: "id:space", raw: "%20" },
  { label: "id:bad-percent", raw: "%zz" },
  { label: "id:invalid-utf8", raw: "%FF" },
  { label: "id:unicode", raw: encodeURIComponent("阿😀") },
  { label: "id:sql", raw: encodeURIComponent("1' OR '1'='1") },
  { label: "id:long-4k", raw: "a".repeat(4_000) },
  { label: "id:semicolon-params", raw: "x;y=1" },
  { label: "id:proto", raw: "__proto__" }
]

/** Content types for a JSON body. `expect415` when a JSON route must refuse it. */
export const hostileContentTypes: ReadonlyArray<{ readonly label: string; readonly value: string | undefined; readonly expect415: boolean }> = [
  { label: "ct:none", value: undefined, expect415: true },
  { label: "ct:text/plain", value: "text/plain", expect415: true },
  { label: "ct:form-urlencoded", value: "application/x-www-form-urlencoded", expect415: true },
  { label: "ct:multipart-no-boundary", value: "multipart/form-data", expect415: true },
  { label: "ct:multipart-with-boundary", value: "multipart/form-data; boundary=fuzzboundary", expect415: true },
  { label: "ct:xml", value: "application/xml", expect415: true },
  { label: "ct:json-suffix", value: "application/jsonx", expect415: true },
  { label: "ct:json-seq", value: "application/json-seq", expect415: true },
  { label: "ct:star", value: "*/*", expect415: true },
  { label: "ct:garbage", value: ";;;=", expect415: true },
  { label: "ct:uppercase-json", value: "APPLICATION/JSON", expect415: false },
  { label: "ct:json-charset-utf8", value: "application/json; charset=utf-8", expect415: false },
  { label: "ct:json-charset-latin1", value: "application/json; charset=iso-8859-1", expect415: false },
  { label: "ct:json-charset-utf16", value: "application/json; charset=utf-16", expect415: false },
  { label: "ct:json-huge-param", value: "application/json; x=" + "a".repeat(4000), expect415: false }
]

/** Multipart bodies, each a function of a boundary. */
export const pngBytes = (): Uint8Array =>
  Uint8Array.from(Buffer.from(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
      "1f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082",
    "hex"
  ))

export interface MultipartPart {
  readonly name: string
  readonly filename?: string
  readonly contentType?: string
  readonly data: string | Uint8Array
}

export const multipartBody = (boundary: string, parts: ReadonlyArray<MultipartPart>, close = true): Uint8Array => {
  const chunks: Array<Buffer> = []
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`
    if (part.filename !== undefined) head += `; filename="${part.filename}"`
    head += "\r\n"
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`
    chunks.push(Buffer.from(head + "\r\n"), Buffer.from(part.data), Buffer.from("\r\n"))
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Uint8Array.from(Buffer.concat(chunks))
}
