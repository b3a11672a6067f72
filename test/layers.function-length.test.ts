import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/**
 * No function in src/ or simulators/ has a body longer than `maxOwnLines` lines of its own: the lines of its body
 * less those of the bodies of functions nested in it (a service's `effect:` closure is measured by its wiring, each
 * command by its own body). A longer one is split: a repository into `make` parts by table or concern, a service's
 * commands into a module of named steps beside it (src/kyc/KycSteps.ts).
 */

const root = NodePath.resolve(import.meta.dirname, "..")
const maxOwnLines = 80
const roots = ["src", "simulators"]
// Migrations are immutable history (already applied in databases): their one long function stays as written.
const exempt = ["src/db/migrations/"]

interface Measured {
  /** `path:line` of the function's start (1-based). */
  readonly at: string
  readonly own: number
  readonly total: number
}

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node)

/** Every function with a body in the source, with the lines of its body and those of its own (nested bodies excluded). */
const measure = (sourceFile: ts.SourceFile, name: string): ReadonlyArray<Measured> => {
  const lineOf = (position: number) => sourceFile.getLineAndCharacterOfPosition(position).line
  const linesOf = (body: ts.Node) => lineOf(body.end) - lineOf(body.getStart(sourceFile)) + 1
  const measured: Array<Measured> = []
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body !== undefined) {
      let nested = 0
      const inner = (child: ts.Node): void => {
        if (isFunction(child) && child.body !== undefined) {
          nested += linesOf(child.body)
          return
        }
        ts.forEachChild(child, inner)
      }
      ts.forEachChild(node.body, inner)
      const total = linesOf(node.body)
      measured.push({ at: `${name}:${lineOf(node.getStart(sourceFile)) + 1}`, own: total - nested, total })
    }
    ts.forEachChild(node, visit)
  }
  visit(sourceFile)
  return measured
}

const parse = (name: string, text: string) => ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true)

const relative = (file: string) => NodePath.relative(root, file).split(NodePath.sep).join("/")

const sourceFiles = (): ReadonlyArray<string> => {
  const files: Array<string> = []
  const walk = (directory: string): void => {
    for (const entry of NodeFs.readdirSync(directory, { withFileTypes: true })) {
      const path = NodePath.join(directory, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (/\.tsx?$/.test(entry.name)) files.push(path)
    }
  }
  for (const directory of roots) walk(NodePath.join(root, directory))
  return files
}

const measureFile = (file: string) => measure(parse(file, NodeFs.readFileSync(file, "utf8")), relative(file))

describe("function length", () => {
  it("measures a function's own lines, nested function bodies excluded", () => {
    const statements = (count: number) => Array.from({ length: count }, (_, i) => `  const v${i} = ${i}`).join("\n")
    const source = [
      "export const outer = () => {",
      statements(90),
      "  const inner = function() {",
      statements(30),
      "  }",
      "  return inner",
      "}",
      "function short() {",
      "  return 1",
      "}"
    ].join("\n")
    const found = measure(parse("synthetic.ts", source), "synthetic.ts")
    // outer: lines 1 to 125, of which inner's body (lines 92 to 123) is not its own.
    expect(found).toEqual([
      { at: "synthetic.ts:1", own: 125 - 32, total: 125 },
      { at: "synthetic.ts:92", own: 32, total: 32 },
      { at: "synthetic.ts:126", own: 3, total: 3 }
    ])
    expect(found.filter((measured) => measured.own > maxOwnLines).map((measured) => measured.at)).toEqual(["synthetic.ts:1"])
  })

  it("walks the sources it guards", () => {
    const files = sourceFiles().map(relative)
    expect(files.length).toBeGreaterThan(100)
    expect(files).toContain("src/webhooks/WebhooksRepo.ts")
    expect(files.some((file) => file.startsWith("simulators/"))).toBe(true)
    // A known repository is found and measured: its `make` parts are functions of their own, tens of lines long.
    const measured = measureFile(NodePath.join(root, "src/webhooks/WebhooksRepo.ts"))
    expect(measured.length).toBeGreaterThan(10)
    expect(measured.every(({ own, total }) => own >= 0 && own <= total)).toBe(true)
    expect(Math.max(...measured.map(({ own }) => own))).toBeGreaterThan(40)
  })

  it(`keeps every function in ${roots.join(" and ")} within ${maxOwnLines} lines of its own`, () => {
    const files = sourceFiles().filter((file) => !exempt.some((prefix) => relative(file).startsWith(prefix)))
    const tooLong = files
      .flatMap(measureFile)
      .filter((measured) => measured.own > maxOwnLines)
      .sort((a, b) => b.own - a.own)
      .map((measured) => `${measured.at}: ${measured.own} lines of its own (${measured.total} with nested functions)`)
    expect(tooLong, `split these functions (at most ${maxOwnLines} lines of their own)`).toEqual([])
  })
})
