import * as NodeFs from "node:fs"
import { builtinModules } from "node:module"
import * as NodePath from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/**
 * The contract is import-safe (docs/architecture.md "Layers"): `src/Api.ts` and `src/Client.ts` reach schemas and errors
 * only, so a partner's code, the TUI and the scenario runner can derive a typed client without pulling in the
 * server. This walks every relative import (static, dynamic, `export ... from` and `import type` alike: a type
 * import is harmless at runtime today but is one edit away from a value import, so the contract keeps none)
 * and names the chain to the first forbidden import it finds.
 */

const root = NodePath.resolve(import.meta.dirname, "..")

const forbiddenDirectories = ["src/config/", "src/clock/", "src/db/", "simulators/"]
const builtins = new Set(builtinModules)

/** Why a package specifier is not allowed in the contract, or undefined when it is. */
const forbiddenPackage = (specifier: string): string | undefined => {
  if (specifier.startsWith("node:") || builtins.has(specifier) || builtins.has(specifier.split("/")[0]!)) {
    return "a node builtin"
  }
  if (specifier === "@effect/sql" || specifier.startsWith("@effect/sql/") || specifier.startsWith("@effect/sql-")) {
    return "SQL"
  }
  if (specifier.startsWith("@electric-sql/")) return "a database"
  if (specifier === "pg" || specifier.startsWith("pg/")) return "a database driver"
  if (specifier === "@effect/platform-node" || specifier.startsWith("@effect/platform-node")) return "a server platform"
  return undefined
}

const relative = (file: string) => NodePath.relative(root, file).split(NodePath.sep).join("/")

/** `./x.js` names `./x.ts` (NodeNext); also accepts an extensionless path or a folder's index. */
const resolveRelative = (from: string, specifier: string): string => {
  const base = NodePath.resolve(NodePath.dirname(from), specifier)
  const candidates = [base.replace(/\.(m|c)?js$/, ".$1ts"), base, `${base}.ts`, NodePath.join(base, "index.ts")]
  const found = candidates.find((candidate) => NodeFs.existsSync(candidate) && NodeFs.statSync(candidate).isFile())
  if (found === undefined) throw new Error(`${relative(from)} imports ${specifier}, which does not resolve to a file`)
  return found
}

interface Violation {
  /** From the root to the offending module, as paths relative to the repository. */
  readonly chain: ReadonlyArray<string>
  readonly specifier: string
  readonly reason: string
}

const describeViolation = (violation: Violation): string =>
  `${violation.chain.join(" -> ")} imports ${violation.specifier} (${violation.reason})`

/** Every forbidden import reachable from `entry`, each with the (first found, shortest) chain that reaches it. */
const walkImports = (entry: string): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = []
  const start = NodePath.resolve(root, entry)
  const chainOf = new Map<string, ReadonlyArray<string>>([[start, [relative(start)]]])
  const queue = [start]
  while (queue.length > 0) {
    const file = queue.shift()!
    const chain = chainOf.get(file)!
    const imports = ts.preProcessFile(NodeFs.readFileSync(file, "utf8"), true, true).importedFiles
    for (const { fileName: specifier } of imports) {
      if (specifier.startsWith(".")) {
        const target = resolveRelative(file, specifier)
        const directory = forbiddenDirectories.find((dir) => relative(target).startsWith(dir))
        if (directory !== undefined) {
          violations.push({ chain, specifier, reason: `server code under ${directory}` })
        } else if (!chainOf.has(target)) {
          chainOf.set(target, [...chain, relative(target)])
          queue.push(target)
        }
      } else {
        const reason = forbiddenPackage(specifier)
        if (reason !== undefined) violations.push({ chain, specifier, reason })
      }
    }
  }
  return violations
}

describe("the contract is import-safe", () => {
  it.each(["src/Api.ts", "src/Client.ts"])("%s reaches no SQL, node, config, clock, db or simulator module", (entry) => {
    expect(walkImports(entry).map(describeViolation)).toEqual([])
  })

  it("the walker finds a forbidden import, however deep", () => {
    const violations = walkImports("test/fixtures/contract-imports/Entry.ts").map(describeViolation)
    expect(violations).toEqual([
      "test/fixtures/contract-imports/Entry.ts -> test/fixtures/contract-imports/Middle.ts imports node:fs (a node builtin)",
      "test/fixtures/contract-imports/Entry.ts -> test/fixtures/contract-imports/Middle.ts imports @effect/sql (SQL)",
      "test/fixtures/contract-imports/Entry.ts -> test/fixtures/contract-imports/Middle.ts imports ../../../src/config/AppConfig.js (server code under src/config/)"
    ])
  })
})
