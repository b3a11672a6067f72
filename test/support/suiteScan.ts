import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import ts from "typescript"

/**
 * Why a test file touches a database, read from its source (test/suites.test.ts checks the lists of
 * test/support/suites.ts against it). A file touches one when it:
 * - imports (statically, dynamically or by re-export; `import type` does not count) a database helper of
 *   test/support (TestApp, LedgerHarness, ServerProcess, template, globalSetup), any module under src/db/, or the
 *   drivers (pg, @electric-sql/pglite, @effect/sql); a helper under test/ (test/support, test/fuzz, test/rails, ...)
 *   counts through what it imports;
 * - names TEST_DATABASE_URL or DATABASE_URL, or reads the template globalSetup provides (inject("pg..."));
 * - spawns the service (imports node:child_process and names src/main.ts or dist/main.js).
 */
const root = NodePath.resolve(import.meta.dirname, "../..")
export const relative = (file: string) => NodePath.relative(root, file).split(NodePath.sep).join("/")

const databaseHelpers = new Set(["TestApp", "LedgerHarness", "ServerProcess", "template", "globalSetup"].map((name) => `test/support/${name}.ts`))

const databasePackage = (specifier: string) =>
  specifier === "pg" || specifier.startsWith("pg/") || specifier.startsWith("@electric-sql/pglite") ||
  specifier === "@effect/sql" || specifier.startsWith("@effect/sql/") || specifier.startsWith("@effect/sql-")

/** The specifiers a file imports at run time: static imports and re-exports that are not type-only, and import("..."). */
export const valueImports = (file: string, text = NodeFs.readFileSync(file, "utf8")): Array<string> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
  const found: Array<string> = []
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (
        clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((element) => element.isTypeOnly)
      ))
      if (!typeOnly) found.push(node.moduleSpecifier.text)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      found.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument !== undefined && ts.isStringLiteralLike(argument)) found.push(argument.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** `./x.js` names `./x.ts` or `./x.tsx` (NodeNext); undefined when nothing matches (a package, a data file). */
const resolveRelative = (from: string, specifier: string): string | undefined => {
  const base = NodePath.resolve(NodePath.dirname(from), specifier)
  const stem = base.replace(/\.(m|c)?jsx?$/, "")
  return [`${stem}.ts`, `${stem}.tsx`, base, `${base}.ts`, NodePath.join(base, "index.ts")]
    .find((candidate) => NodeFs.existsSync(candidate) && NodeFs.statSync(candidate).isFile())
}

const scanned = new Map<string, Array<string>>()

const importMarkers = (file: string, seen: Set<string>): Array<string> => {
  const known = scanned.get(file)
  if (known !== undefined) return known
  if (seen.has(file)) return [] // an import cycle: its markers are being collected further up
  seen.add(file)
  const markers: Array<string> = []
  for (const specifier of valueImports(file)) {
    if (databasePackage(specifier)) markers.push(`imports ${specifier}`)
    if (!specifier.startsWith(".")) continue
    const target = resolveRelative(file, specifier)
    if (target === undefined) continue
    const name = relative(target)
    if (name.startsWith("src/db/")) markers.push(`imports ${name}`)
    if (databaseHelpers.has(name)) markers.push(`imports ${name}`)
    else if (name.startsWith("test/")) {
      for (const marker of importMarkers(target, seen)) markers.push(`imports ${name}, which ${marker}`)
    }
  }
  scanned.set(file, markers)
  return markers
}

/** Why `file` (a path) touches a database; empty when it does not. */
export const databaseMarkers = (file: string): Array<string> => {
  const text = NodeFs.readFileSync(file, "utf8")
  const markers = importMarkers(file, new Set())
  const named = /\b(?:TEST_)?DATABASE_URL\b/.exec(text)
  if (named) markers.push(`names ${named[0]}`)
  if (/\binject\(\s*["']pg/.test(text)) markers.push("reads the template (inject)")
  if (valueImports(file, text).some((specifier) => specifier === "node:child_process" || specifier === "child_process")) {
    const service = /\b(?:src\/main\.ts|dist\/main\.js)\b/.exec(text)
    if (service) markers.push(`spawns ${service[0]}`)
  }
  return [...new Set(markers)]
}

/** Every test file vitest runs (vitest.config.ts includes test/**\/*.test.ts and .tsx), relative to the root. */
export const testFiles = (directory = NodePath.join(root, "test")): Array<string> =>
  NodeFs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = NodePath.join(directory, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(path)
    return /\.test\.tsx?$/.test(entry.name) ? [relative(path)] : []
  }).sort()

export const absolute = (file: string) => NodePath.join(root, file)
