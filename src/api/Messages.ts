import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Option, ParseResult, Schema, SchemaAST as AST } from "effect"
import { refuseUnknownKeys, StableFilterAnnotationId, type Strict, withoutIgnored } from "./UnknownFields.js"

/**
 * The partner's wording of a request that a schema refuses, produced by Schema itself: every node of an
 * endpoint's payload, url params, path and headers schema gets a `message` annotation (a function of the
 * structured ParseIssue: its node, refinement, union members and actual value). HttpApi's ArrayFormatter then
 * yields issues whose messages are final ("must be a JSON number (got \"12\")"), and the error envelope only joins
 * `path: message` (src/http/ErrorEnvelope.ts). Nodes that carry their own `message` keep it.
 *
 * The wording:
 * - a value of the wrong kind: "must be a string", "must be one of NG, GH", "must be at most 100 characters long",
 *   ... followed by the value given, cut short: ` (got "XX")`; "is not valid (got ...)" for a node that has no
 *   partner wording (a pattern, a custom filter without a message);
 * - a union (an enum, an optional field, `NullOr`) is one issue listing what every member accepts;
 * - a message the schema gives (a filter's message, a transformation's failure) is kept, first line only;
 * - at the top of the body: "request body is required and must be a JSON object", "request body must be a JSON
 *   object (got [])", else "request body: <message>".
 * A missing field is the envelope's "is required" (the issue's `_tag` is `Missing`).
 *
 * Mapping a schema changes neither what it decodes nor its JSON Schema: the nodes are rebuilt with the same
 * children, filters, transformations and annotations, plus `message`.
 */

/** An echoed input value is cut after this many characters (`…` added). */
export const echoedValueMax = 64

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`)

const firstLine = (text: string) => text.split("\n")[0] ?? text

/** How Schema prints a value in "actual ..." (Inspectable's formatting, compact). */
export const formatValue = (input: unknown): string => {
  const seen = new WeakSet<object>()
  const go = (v: unknown): string => {
    if (Array.isArray(v)) {
      if (seen.has(v)) return "[Circular]"
      seen.add(v)
      return `[${v.map(go).join(",")}]`
    }
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? "Invalid Date" : v.toISOString()
    if (
      typeof v === "object" && v !== null && typeof (v as { toString?: unknown }).toString === "function" &&
      v.toString !== Object.prototype.toString && v.toString !== Array.prototype.toString
    ) {
      try {
        return String(v)
      } catch {
        return "[toString threw]"
      }
    }
    if (typeof v === "string") return JSON.stringify(v)
    if (typeof v === "bigint") return `${v}n`
    if (typeof v !== "object" || v === null) return String(v)
    if (v instanceof Set || v instanceof Map) {
      if (seen.has(v)) return "[Circular]"
      seen.add(v)
      return `${v.constructor.name}(${go(Array.from(v))})`
    }
    if (seen.has(v)) return "[Circular]"
    seen.add(v)
    const body = `{${Reflect.ownKeys(v).map((k) => `${typeof k === "string" ? JSON.stringify(k) : String(k)}:${go((v as any)[k])}`).join(",")}}`
    const ctor = (v as { constructor?: { name?: string } }).constructor
    return ctor && ctor !== Object && ctor.name ? `${ctor.name}(${body})` : body
  }
  return go(input)
}

/** ` (got "XX")`: the value given, cut short (a long string is cut before it is quoted: same text, less work). */
const got = (actual: unknown) =>
  ` (got ${cut(formatValue(typeof actual === "string" ? actual.slice(0, echoedValueMax + 1) : actual), echoedValueMax)})`

// ---------------------------------------------------------------------------------------------------------------
// What a node expects, in the partner's terms

/** What one node accepts: `term` undefined when there is no partner wording; `key` tells equal expectations apart. */
interface Expectation {
  readonly key: string
  readonly term: string | undefined
  /** A literal value (an enum member): several of them read "must be one of a, b". */
  readonly literal: boolean
  /** `undefined` (an optional field's other member): not worth naming. */
  readonly isUndefined: boolean
}

const expectation = (ast: AST.AST): Expectation => {
  const of = (term: string | undefined, literal = false): Expectation => ({
    key: `${literal ? "literal" : ast._tag}:${term ?? String(ast)}`,
    term,
    literal,
    isUndefined: false
  })
  switch (ast._tag) {
    case "Literal": {
      const value = ast.literal
      if (value === null) return of("null")
      if (typeof value === "string") return { ...of(JSON.stringify(value).slice(1, -1), true), key: `literal:${JSON.stringify(value)}` }
      if (typeof value === "boolean") return of(String(value), true)
      if (typeof value === "number" && Number.isFinite(value) && !String(value).includes("e")) return of(String(value), true)
      return of(undefined)
    }
    case "StringKeyword":
      return of("a string")
    case "NumberKeyword":
      return of("a JSON number")
    case "BooleanKeyword":
      return of("true or false")
    case "UndefinedKeyword":
      return { key: "undefined", term: undefined, literal: false, isUndefined: true }
    case "TupleType":
      return of("an array")
    case "TypeLiteral":
      return of("a JSON object")
    case "Refinement":
      return of(refinementTerm(ast))
    default:
      return of(undefined)
  }
}

/** Schema's built-in refinements, read from their schema id and JSON Schema annotation (their bounds). */
const refinementTerm = (ast: AST.Refinement): string | undefined => {
  const id = Option.getOrUndefined(AST.getSchemaIdAnnotation(ast))
  const bounds = Option.getOrElse(AST.getJSONSchemaAnnotation(ast), () => ({})) as Record<string, unknown>
  switch (id) {
    case Schema.UUIDSchemaId:
      return "a uuid"
    case Schema.IntSchemaId:
      return "an integer"
    case Schema.ValidDateSchemaId:
      return "a valid date"
    case Schema.BetweenSchemaId:
      return `a number from ${bounds.minimum} to ${bounds.maximum}`
    case Schema.MaxLengthSchemaId:
      return `at most ${bounds.maxLength} characters long`
    case Schema.MinLengthSchemaId:
      return `at least ${bounds.minLength} characters long`
  }
  return undefined
}

/** "must be a string", "must be one of NG, GH", "must be a JSON object or null", or "is not valid". */
const mustBe = (expected: ReadonlyArray<Expectation>): string => {
  const unique = [...new Map(expected.filter((x) => !x.isUndefined).map((x) => [x.key, x])).values()]
  if (unique.length === 0 || unique.some((x) => x.term === undefined)) return "is not valid"
  const terms = unique.map((x) => x.term!)
  if (terms.length > 1 && unique.every((x) => x.literal)) return `must be one of ${terms.join(", ")}`
  return `must be ${terms.join(" or ")}`
}

// ---------------------------------------------------------------------------------------------------------------
// One issue's wording

/** The nodes this module built, and the `message` each had before (undefined: none). */
const built = new WeakMap<AST.AST, AST.MessageAnnotation | undefined>()

/** The `message` a node had of its own (before this module added one). */
const ownMessage = (ast: AST.AST): AST.MessageAnnotation | undefined =>
  built.has(ast) ? built.get(ast) : Option.getOrUndefined(AST.getMessageAnnotation(ast))

/**
 * The expectation an issue fails, when it is a plain "expected X, got Y" (no message of the schema's own):
 * a Type issue, or a refinement whose predicate just said no.
 */
const plainFailure = (issue: ParseResult.ParseIssue): Expectation | undefined => {
  if (issue._tag === "Type") {
    if (issue.message !== undefined || ownMessage(issue.ast) !== undefined) return undefined
    return expectation(issue.ast)
  }
  if (issue._tag === "Refinement" && issue.kind === "Predicate") {
    if (ownMessage(issue.ast) !== undefined) return undefined
    const inner = issue.issue
    return inner._tag === "Type" && inner.ast === issue.ast && inner.message === undefined ? expectation(issue.ast) : undefined
  }
  return undefined
}

const membersOf = (issue: ParseResult.Composite): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issue.issues) ? issue.issues as ReadonlyArray<ParseResult.ParseIssue> : [issue.issues as ParseResult.ParseIssue]

/** A failure seen through the issue tree as the array formatter walks it: where it is and whether it is plain. */
interface Leaf {
  readonly path: ReadonlyArray<PropertyKey>
  readonly plain: Expectation | undefined
}

/**
 * The failures a union's members report, flattened as the array formatter would flatten them if the union had no
 * message of its own (nested unions included).
 */
const leaves = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): Array<Leaf> => {
  switch (issue._tag) {
    case "Pointer":
      return leaves(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Composite":
      return membersOf(issue).flatMap((member) => leaves(member, path))
    case "Refinement":
      if (issue.kind === "From") return leaves(issue.issue, path)
      // An object's unknown fields (refuseUnknownKeys): one failure per field, below the object.
      if (issue.issue._tag === "Composite" && issue.issue.ast === issue.ast) return leaves(issue.issue, path)
      return [{ path, plain: plainFailure(issue) }]
    case "Transformation":
      if (issue.kind !== "Transformation") return leaves(issue.issue, path)
      return [{ path, plain: undefined }]
    case "Type":
      return [{ path, plain: plainFailure(issue) }]
    default:
      return [{ path, plain: undefined }]
  }
}

/** The first message the array formatter gives for an issue (our annotations included). */
const firstMessage = (issue: ParseResult.ParseIssue): string =>
  ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message ?? "is not valid"

const declined = { message: "", override: false } as const

/**
 * The wording of one issue at a node. Composites of fields (an object, an array) decline, so their fields report
 * one issue each; a union answers for all its members when they all fail at the union's own place.
 */
const wording = (issue: ParseResult.ParseIssue, root: boolean): ReturnType<AST.MessageAnnotation> => {
  const atRoot = (message: string) => (root ? `request body: ${message}` : message)
  if (issue._tag === "Refinement" && issue.kind === "From") return declined // Schema words the inner issue
  switch (issue._tag) {
    case "Type":
    case "Refinement": {
      const plain = plainFailure(issue)
      if (plain !== undefined) {
        if (root && (issue.actual === null || issue.actual === undefined)) return "request body is required and must be a JSON object"
        if (root && issue.ast._tag === "TypeLiteral") return `request body must be a JSON object${got(issue.actual)}`
        return atRoot(mustBe([plain]) + got(issue.actual))
      }
      const inner = issue._tag === "Refinement" ? issue.issue : issue
      if (inner._tag === "Type" && inner.message !== undefined) {
        const ast = inner.ast
        // NumberFromString's "Unable to decode ... into a number"
        if (AST.isTransformation(ast) && AST.isStringKeyword(ast.from) && AST.isNumberKeyword(ast.to)) {
          return atRoot(`must be a number${got(inner.actual)}`)
        }
        return atRoot(firstLine(inner.message))
      }
      return firstMessage(inner)
    }
    case "Transformation":
      if (issue.kind !== "Transformation") return declined
      return issue.issue._tag === "Type" ? wording(issue.issue, root) : firstMessage(issue.issue)
    case "Composite": {
      if (!AST.isUnion(issue.ast)) return declined
      const found = leaves(issue, [])
      if (found.some((leaf) => leaf.path.length > 0)) return declined
      if (found.length > 1 && found.every((leaf) => leaf.plain !== undefined)) {
        return { message: atRoot(mustBe(found.map((leaf) => leaf.plain!)) + got(issue.actual)), override: true }
      }
      return { message: firstMessage(membersOf(issue)[0]!), override: true }
    }
    default:
      return declined
  }
}

/** A node's own message stands, except on a union's composite, where Schema would ignore it. */
const messageFor = (own: AST.MessageAnnotation | undefined, root: boolean): AST.MessageAnnotation => (issue) => {
  if (own === undefined) return wording(issue, root)
  const ownMessage = own(issue)
  if (issue._tag === "Composite" && AST.isUnion(issue.ast)) {
    const overrides = typeof ownMessage === "object" && "override" in ownMessage && ownMessage.override
    if (!overrides) return wording(issue, root)
  }
  if (root && issue._tag !== "Composite" && typeof ownMessage === "string") return `request body: ${ownMessage}`
  return ownMessage
}

// ---------------------------------------------------------------------------------------------------------------
// Mapping an AST

const memos = new Map<string, WeakMap<AST.AST, AST.AST>>()
const memoOf = (root: boolean, strict: Strict) => {
  const key = `${root}:${strict}`
  let memo = memos.get(key)
  if (memo === undefined) memos.set(key, memo = new WeakMap())
  return memo
}

/**
 * The same schema with a `message` on every node that can fail. `root`: the node sits at the top of the request
 * (no field name before it), so its wording names the request body. `strict`: its objects refuse unknown fields.
 */
export const withMessages = (ast: AST.AST, root = false, strict: Strict = undefined): AST.AST => {
  if (built.has(ast)) return ast
  const cache = memoOf(root, strict)
  const cached = cache.get(ast)
  if (cached !== undefined) return cached
  const own = Option.getOrUndefined(AST.getMessageAnnotation(ast))
  const parseOptions: AST.ParseOptions = {
    ...(ast.annotations[AST.ParseOptionsAnnotationId] as AST.ParseOptions | undefined),
    // At the top of a request: every problem at once (each missing or invalid field named in one answer), not the
    // first one Schema meets.
    errors: "all",
    // Unknown keys kept in the decoded objects, for the stable filters to name (refuseUnknownKeys).
    ...(strict !== undefined ? { onExcessProperty: "preserve" as const } : {})
  }
  const annotations: AST.Annotations = {
    ...ast.annotations,
    [AST.MessageAnnotationId]: messageFor(own, root),
    ...(root ? { [AST.ParseOptionsAnnotationId]: parseOptions } : {})
  }
  let out = rebuild(ast, annotations, root, strict)
  built.set(out, own)
  if (AST.isTypeLiteral(out) && strict !== undefined && out.indexSignatures.length === 0) {
    // An object of named fields refuses the others: a stable filter over it, invisible in the JSON Schema (a
    // refinement without a JSON Schema annotation is its `from`), so the document still says
    // `additionalProperties: false`. At the top, the parse options move up to the filter, which is now the top.
    const known = out.propertySignatures.map((ps) => ps.name).filter((name): name is string => typeof name === "string")
    const { [AST.ParseOptionsAnnotationId]: topOptions, ...inner } = out.annotations
    const object = new AST.TypeLiteral(out.propertySignatures, out.indexSignatures, inner)
    built.set(object, own)
    out = new AST.Refinement(object, refuseUnknownKeys(known, root, strict), {
      [StableFilterAnnotationId]: true,
      ...(topOptions !== undefined ? { [AST.ParseOptionsAnnotationId]: topOptions } : {})
    })
    built.set(out, undefined)
    if (root && strict === "body") {
      // The ignored `customerId` leaves the decoded body here (the top object keeps it through the filter).
      const filtered = out
      out = new AST.Transformation(
        filtered,
        AST.typeAST(object),
        new AST.FinalTransformation(
          (value) => ParseResult.succeed(withoutIgnored(value)),
          (value) => ParseResult.succeed(value)
        ),
        topOptions !== undefined ? { [AST.ParseOptionsAnnotationId]: topOptions } : {}
      )
      built.set(out, undefined)
    }
  }
  cache.set(ast, out)
  return out
}

const rebuild = (ast: AST.AST, annotations: AST.Annotations, root: boolean, strict: Strict): AST.AST => {
  const same = (child: AST.AST) => withMessages(child, root, strict)
  const field = (child: AST.AST) => withMessages(child, false, strict === "body" ? "body" : undefined)
  switch (ast._tag) {
    case "Declaration":
      return new AST.Declaration(
        ast.typeParameters.map(same),
        (...typeParameters) => {
          const decode = ast.decodeUnknown(...typeParameters)
          return (input, options, self) => ParseResult.mapError(decode(input, options, self), (issue) => withIssueMessages(issue, root))
        },
        ast.encodeUnknown,
        annotations
      )
    case "Literal":
      return new AST.Literal(ast.literal, annotations)
    case "UniqueSymbol":
      return new AST.UniqueSymbol(ast.symbol, annotations)
    case "UndefinedKeyword":
      return new AST.UndefinedKeyword(annotations)
    case "VoidKeyword":
      return new AST.VoidKeyword(annotations)
    case "NeverKeyword":
      return new AST.NeverKeyword(annotations)
    case "UnknownKeyword":
      return new AST.UnknownKeyword(annotations)
    case "AnyKeyword":
      return new AST.AnyKeyword(annotations)
    case "StringKeyword":
      return new AST.StringKeyword(annotations)
    case "NumberKeyword":
      return new AST.NumberKeyword(annotations)
    case "BooleanKeyword":
      return new AST.BooleanKeyword(annotations)
    case "BigIntKeyword":
      return new AST.BigIntKeyword(annotations)
    case "SymbolKeyword":
      return new AST.SymbolKeyword(annotations)
    case "ObjectKeyword":
      return new AST.ObjectKeyword(annotations)
    case "Enums":
      return new AST.Enums(ast.enums, annotations)
    case "TemplateLiteral":
      return new AST.TemplateLiteral(ast.head, ast.spans, annotations)
    case "Refinement":
      return new AST.Refinement(same(ast.from), ast.filter, annotations)
    case "TupleType":
      return new AST.TupleType(
        ast.elements.map((element) => new AST.OptionalType(field(element.type), element.isOptional, element.annotations)),
        ast.rest.map((rest) => new AST.Type(field(rest.type), rest.annotations)),
        ast.isReadonly,
        annotations
      )
    case "TypeLiteral":
      return new AST.TypeLiteral(
        ast.propertySignatures.map((ps) =>
          new AST.PropertySignature(ps.name, field(ps.type), ps.isOptional, ps.isReadonly, ps.annotations)
        ),
        ast.indexSignatures.map((is) => new AST.IndexSignature(is.parameter, field(is.type), is.isReadonly)),
        annotations
      )
    case "Union":
      return AST.Union.make(ast.types.map(same), annotations)
    case "Suspend":
      return new AST.Suspend(() => same(ast.f()), annotations)
    case "Transformation":
      return new AST.Transformation(same(ast.from), same(ast.to), ast.transformation, annotations)
  }
}

/**
 * An issue from a declaration's own decoding (a schema it closes over, which the mapping cannot reach) with its
 * nodes mapped, so it is worded like the rest.
 */
const withIssueMessages = (issue: ParseResult.ParseIssue, root: boolean): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Type":
      return new ParseResult.Type(withMessages(issue.ast, root), issue.actual, issue.message)
    case "Forbidden":
      return new ParseResult.Forbidden(withMessages(issue.ast, root), issue.actual, issue.message)
    case "Pointer":
      return new ParseResult.Pointer(issue.path, issue.actual, withIssueMessages(issue.issue, false))
    case "Refinement":
      return new ParseResult.Refinement(
        withMessages(issue.ast, root) as AST.Refinement,
        issue.actual,
        issue.kind,
        withIssueMessages(issue.issue, root)
      )
    case "Transformation":
      return new ParseResult.Transformation(
        withMessages(issue.ast, root) as AST.Transformation,
        issue.actual,
        issue.kind,
        withIssueMessages(issue.issue, root)
      )
    case "Composite": {
      const issues = Array.isArray(issue.issues)
        ? (issue.issues as ReadonlyArray<ParseResult.ParseIssue>).map((i) => withIssueMessages(i, root)) as unknown as ParseResult.SingleOrNonEmpty<ParseResult.ParseIssue>
        : withIssueMessages(issue.issues as ParseResult.ParseIssue, root)
      return new ParseResult.Composite(withMessages(issue.ast, root), issue.actual, issues, issue.output)
    }
    case "Missing":
    case "Unexpected":
      return issue
  }
}

/**
 * A schema with the partner's wording on every node (same type, same JSON Schema). `strict`: its objects refuse
 * fields they do not list (a JSON body at every level, a query string at the top).
 */
export const withPartnerMessages = <S extends Schema.Schema.Any>(schema: S, root = true, strict: Strict = undefined): S =>
  Schema.make(withMessages(schema.ast, root, strict)) as unknown as S

/** A JSON body (not a multipart upload, whose parts the handler reads). */
const isJsonPayload = (ast: AST.AST) => HttpApiSchema.getMultipart(ast) === undefined && HttpApiSchema.getMultipartStream(ast) === undefined

// ---------------------------------------------------------------------------------------------------------------
// Applying it to an HttpApi

const mapEndpoint = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): HttpApiEndpoint.HttpApiEndpoint.AnyWithProps => {
  let out = endpoint
  if (Option.isSome(endpoint.payloadSchema)) {
    const payload = endpoint.payloadSchema.value
    out = out.setPayload(withPartnerMessages(payload, true, isJsonPayload(payload.ast) ? "body" : undefined) as any) as any
  }
  if (Option.isSome(endpoint.urlParamsSchema)) out = out.setUrlParams(withPartnerMessages(endpoint.urlParamsSchema.value, true, "query") as any) as any
  if (Option.isSome(endpoint.pathSchema)) out = out.setPath(withPartnerMessages(endpoint.pathSchema.value) as any) as any
  if (Option.isSome(endpoint.headersSchema)) out = out.setHeaders(withPartnerMessages(endpoint.headersSchema.value) as any) as any
  return out
}

/**
 * The same HttpApi with the partner's wording on every endpoint's payload, url params, path and headers schema.
 * Endpoints and groups are re-added under their own names (which replaces them in place); everything else about
 * them (errors, success, annotations, middleware, order) is kept.
 */
export const withPartnerMessagesApi = <A extends HttpApi.HttpApi.Any>(api: A): A => {
  let out = api as unknown as HttpApi.HttpApi.AnyWithProps
  for (const group of Object.values(out.groups) as Array<HttpApiGroup.HttpApiGroup.AnyWithProps>) {
    let mapped = group
    for (const endpoint of Object.values(group.endpoints) as Array<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>) {
      mapped = mapped.add(mapEndpoint(endpoint)) as any
    }
    out = out.add(mapped as any) as any
  }
  return out as unknown as A
}
