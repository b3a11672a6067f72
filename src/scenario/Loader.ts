import { Either, ParseResult, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { LineCounter, parseDocument, type Document } from "yaml"
import { FixtureHeader, type Scenario, ScenarioHeader, type Step, type StepKind, stepKindNames, stepKinds } from "./Language.js"

/**
 * Reads scenario files: YAML with line numbers, validated against the language's Schemas before anything runs.
 * Every error names its file and line. Included fixtures are loaded (and validated) with the file that uses them.
 */
export interface LoadError {
  readonly file: string
  readonly line: number
  readonly column: number
  readonly message: string
}

export type Loaded =
  | { readonly _tag: "Scenario"; readonly scenario: Scenario }
  | { readonly _tag: "Fixture"; readonly file: string }
  | { readonly _tag: "Invalid"; readonly file: string; readonly errors: ReadonlyArray<LoadError> }

type Path = ReadonlyArray<PropertyKey>

interface ParsedFile {
  readonly file: string
  readonly raw: unknown
  readonly doc: Document
  readonly lines: LineCounter
}

class Invalid extends Error {
  constructor(readonly errors: ReadonlyArray<LoadError>) {
    super(errors.map((e) => e.message).join("; "))
  }
}

const display = (file: string) => NodePath.relative(process.cwd(), file) || file

const parseFile = (file: string): ParsedFile => {
  let text: string
  try {
    text = NodeFs.readFileSync(file, "utf8")
  } catch (error) {
    throw new Invalid([{ file: display(file), line: 0, column: 0, message: `cannot read the file: ${(error as Error).message}` }])
  }
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length > 0) {
    throw new Invalid(doc.errors.map((error) => {
      const pos = lines.linePos(error.pos[0])
      return { file: display(file), line: pos.line, column: pos.col, message: `YAML: ${error.message.split("\n")[0]}` }
    }))
  }
  return { file, raw: doc.toJS(), doc, lines }
}

/** Line and column of the node at `path`, or of its nearest existing ancestor (a missing key: the mapping that lacks it). */
const locate = (parsed: ParsedFile, path: Path): { line: number; column: number } => {
  for (let length = path.length; length >= 0; length--) {
    const segments = path.slice(0, length).map((s) => (typeof s === "number" ? s : String(s)))
    const node = length === 0 ? parsed.doc.contents : parsed.doc.getIn(segments, true)
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range
    if (range !== undefined) {
      const pos = parsed.lines.linePos(range[0])
      return { line: pos.line, column: pos.col }
    }
  }
  return { line: 1, column: 1 }
}

const errorAt = (parsed: ParsedFile, path: Path, message: string): LoadError => ({
  file: display(parsed.file),
  ...locate(parsed, path),
  message: path.length > 0 ? `${path.map(String).join(".")}: ${message}` : message
})

/** Decodes with `schema`; every issue becomes an error at its own line (the deepest issues first). */
const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown, parsed: ParsedFile, at: Path): A => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(value)
  if (Either.isRight(result)) return result.right
  const issues = ParseResult.ArrayFormatter.formatErrorSync(result.left)
  const deepest = Math.max(...issues.map((issue) => issue.path.length))
  const chosen = issues.filter((issue) => issue.path.length === deepest)
  throw new Invalid(chosen.map((issue) => errorAt(parsed, [...at, ...issue.path], issue.message)))
}

interface Context {
  readonly stack: ReadonlyArray<string>
  readonly cache: Map<string, ParsedFile>
}

const loadSteps = (parsed: ParsedFile, raw: ReadonlyArray<unknown>, at: Path, context: Context): Array<Step> => {
  const errors: Array<LoadError> = []
  const steps: Array<Step> = []
  raw.forEach((item, index) => {
    try {
      steps.push(loadStep(parsed, item, [...at, index], context))
    } catch (error) {
      if (error instanceof Invalid) errors.push(...error.errors)
      else throw error
    }
  })
  if (errors.length > 0) throw new Invalid(errors)
  return steps
}

/**
 * Multipart file parts read from `path` are resolved against the file that holds the step, here, so a fixture's
 * uploads work wherever it is included; a missing file is an error now rather than when the step runs (unless
 * the path is interpolated, then it is checked when the step runs).
 */
const resolveUploads = (parsed: ParsedFile, kind: StepKind, spec: any, at: Path): any => {
  const key = kind === "request" ? "request" : kind === "parallel" ? "parallel" : undefined
  if (key === undefined) return spec
  const holder = key === "request" ? spec : spec.parallel
  const request = holder.request
  if (typeof request !== "object" || request.multipart === undefined) return spec
  const multipart: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(request.multipart as Record<string, unknown>)) {
    const part = value as { path?: string }
    if (typeof value !== "object" || value === null || part.path === undefined) {
      multipart[field] = value
      continue
    }
    const absolute = NodePath.resolve(NodePath.dirname(parsed.file), part.path)
    if (!part.path.includes("${") && !NodeFs.existsSync(absolute)) {
      const where = key === "request" ? [...at, "request", "multipart", field, "path"] : [...at, "parallel", "request", "multipart", field, "path"]
      throw new Invalid([errorAt(parsed, where, `no such file: ${display(absolute)}`)])
    }
    multipart[field] = { ...part, path: absolute }
  }
  const resolved = { ...request, multipart }
  return key === "request" ? { ...spec, request: resolved } : { ...spec, parallel: { ...spec.parallel, request: resolved } }
}

const loadStep = (parsed: ParsedFile, raw: unknown, at: Path, context: Context): Step => {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new Invalid([errorAt(parsed, at, `a step is a mapping with one of: ${stepKindNames.join(", ")}`)])
  }
  const kinds = Object.keys(raw).filter((key): key is StepKind => (stepKindNames as ReadonlyArray<string>).includes(key))
  if (kinds.length !== 1) {
    const found = Object.keys(raw).join(", ")
    throw new Invalid([errorAt(parsed, at, kinds.length === 0
      ? `unknown step (keys: ${found}); a step has one of: ${stepKindNames.join(", ")}`
      : `one action per step, found ${kinds.join(" and ")}`)])
  }
  const kind = kinds[0]!
  const spec = resolveUploads(parsed, kind, decode(stepKinds[kind] as Schema.Schema<any, any>, raw, parsed, at), at)
  const base = { kind, spec, file: display(parsed.file), line: locate(parsed, at).line }
  if (kind === "repeat") {
    return { ...base, children: loadSteps(parsed, spec.repeat.steps, [...at, "repeat", "steps"], context) } as Step
  }
  if (kind === "include") {
    const target = NodePath.resolve(NodePath.dirname(parsed.file), spec.include)
    if (context.stack.includes(target)) {
      throw new Invalid([errorAt(parsed, [...at, "include"], `include cycle: ${[...context.stack, target].map(display).join(" -> ")}`)])
    }
    if (!NodeFs.existsSync(target)) throw new Invalid([errorAt(parsed, [...at, "include"], `no such file: ${display(target)}`)])
    const fixture = context.cache.get(target) ?? parseFile(target)
    context.cache.set(target, fixture)
    const header = decode(FixtureHeader, fixture.raw, fixture, [])
    const missing = (header.params ?? []).filter((param) => !(spec.with !== undefined && param in spec.with))
    if (missing.length > 0) throw new Invalid([errorAt(parsed, at, `include of ${spec.include} needs with: ${missing.join(", ")}`)])
    return { ...base, children: loadSteps(fixture, header.steps, ["steps"], { ...context, stack: [...context.stack, target] }) } as Step
  }
  return { ...base, children: [] } as Step
}

/** Loads one file: a scenario to run, a fixture (skipped when listed directly), or the reasons it is invalid. */
export const loadFile = (path: string): Loaded => {
  const file = NodePath.resolve(path)
  try {
    const parsed = parseFile(file)
    const raw = parsed.raw
    if (raw !== null && typeof raw === "object" && "fixture" in raw) {
      decode(FixtureHeader, raw, parsed, [])
      return { _tag: "Fixture", file: display(file) }
    }
    const header = decode(ScenarioHeader, raw, parsed, [])
    const steps = loadSteps(parsed, header.steps, ["steps"], { stack: [file], cache: new Map() })
    return {
      _tag: "Scenario",
      scenario: {
        file: display(file),
        name: header.name,
        description: header.description,
        seed: String(header.seed ?? header.name),
        partner: header.partner ?? {},
        vars: header.vars ?? {},
        steps
      }
    }
  } catch (error) {
    if (error instanceof Invalid) return { _tag: "Invalid", file: display(file), errors: error.errors }
    throw error
  }
}
