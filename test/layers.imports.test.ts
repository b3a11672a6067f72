import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { describe, expect, inject, it } from "vitest"

/**
 * The contract's vocabulary (errors, envelopes, pagination, the current partner) lives in src/api/, imported by
 * contracts and services alike; src/http/ is the server's plumbing (middleware, body readers, the error envelope
 * writer, SSE), imported only by the server's edge: the handler files (`*Http.ts`), `App.ts` and `main.ts`.
 */
const root = NodePath.resolve(import.meta.dirname, "..")

const sourceFiles = (directory: string): Array<string> =>
  NodeFs.readdirSync(NodePath.join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = `${directory}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })

const isServerEdge = (file: string) =>
  file.startsWith("src/http/") || /Http\.ts$/.test(file) || file === "src/App.ts" || file === "src/main.ts"

const importsOf = (file: string): Array<string> =>
  [...NodeFs.readFileSync(NodePath.join(root, file), "utf8").matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((match) => match[1]!)

const resolvesInto = (file: string, specifier: string, directory: string) =>
  specifier.startsWith(".") &&
  NodePath.relative(root, NodePath.resolve(root, NodePath.dirname(file), specifier)).split(NodePath.sep).join("/").startsWith(directory)

describe("layers of the code", () => {
  const files = [...sourceFiles("src"), ...sourceFiles("simulators")]

  it("finds the source files it checks", () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files).toContain("src/withdrawals/Withdrawals.ts")
  })

  it("no service, repository or contract imports the server's plumbing (src/http/)", () => {
    const offenders = files
      .filter((file) => !isServerEdge(file))
      .flatMap((file) => importsOf(file).filter((specifier) => resolvesInto(file, specifier, "src/http/")).map((specifier) => `${file} imports ${specifier}`))
    expect(offenders).toEqual([])
  })

  it("src/api/ imports nothing of src/http/", () => {
    const offenders = sourceFiles("src/api").flatMap((file) =>
      importsOf(file).filter((specifier) => resolvesInto(file, specifier, "src/http/")).map((specifier) => `${file} imports ${specifier}`))
    expect(offenders).toEqual([])
  })

  it("the check sees an import of src/http/ when there is one", () => {
    expect(resolvesInto("src/withdrawals/Withdrawals.ts", "../http/Middleware.js", "src/http/")).toBe(true)
    expect(resolvesInto("src/withdrawals/Withdrawals.ts", "../api/ApiError.js", "src/http/")).toBe(false)
    expect(importsOf("src/App.ts").some((specifier) => resolvesInto("src/App.ts", specifier, "src/http/"))).toBe(true)
  })
})

/**
 * `@effect/platform` by module path (`@effect/platform/HttpApiBuilder`), never through its index: the index re-exports
 * every module, and the bundle then counts `HttpApiScalar` (Scalar's script, one 3.3 MB string) as reachable from the
 * service and puts it in a chunk every start loads. The docs page imports it on its first request
 * (src/http/DocsPage.ts): checked in the run's bundles (test/support/globalSetup.ts builds them as `npm start` does).
 */
describe("what a start loads", () => {
  it("src/ and simulators/ import @effect/platform and @effect/platform-node by module path, not through their indexes", () => {
    const files = [...sourceFiles("src"), ...sourceFiles("simulators")]
    const offenders = files.filter((file) => importsOf(file).some((specifier) => specifier === "@effect/platform" || specifier === "@effect/platform-node"))
    expect(offenders).toEqual([])
  })

  it("the bundle loads Scalar's script only through a dynamic import (the docs page's first request)", () => {
    const dir = inject("testBuild")
    const chunks = NodeFs.readdirSync(dir).filter((name) => name.endsWith(".js"))
    const text = new Map(chunks.map((name) => [name, NodeFs.readFileSync(NodePath.join(dir, name), "utf8")]))
    const scalar = chunks.filter((name) => text.get(name)!.includes("@scalar/api-reference") && text.get(name)!.length > 2_000_000)
    expect(scalar, "the one chunk holding Scalar's script").toHaveLength(1)
    const [chunk] = scalar
    // Not in the service's own chunk (the one with the withdrawal command), and imported by none statically.
    expect(text.get(chunk!)).not.toContain("\"Withdrawals.withdraw\"")
    expect(chunks.filter((name) => text.get(name)!.includes("\"Withdrawals.withdraw\"")), "the service's chunk").toHaveLength(1)
    const staticImporters = chunks.filter((name) => new RegExp(`(from|import)\\s*"\\./${chunk!.replace(".", "\\.")}"`).test(text.get(name)!))
    const dynamicImporters = chunks.filter((name) => text.get(name)!.includes(`import("./${chunk}")`))
    expect(staticImporters).toEqual([])
    expect(dynamicImporters).toHaveLength(1)
  })

  it("a bare `serve` (npm start) loads neither @effect/cli's parsers nor the scenario runner (src/cli/Running.ts)", () => {
    const dir = inject("testBuild")
    const chunks = NodeFs.readdirSync(dir).filter((name) => name.endsWith(".js"))
    const text = new Map(chunks.map((name) => [name, NodeFs.readFileSync(NodePath.join(dir, name), "utf8")]))
    /** The files `roots` load before any dynamic import runs. */
    const staticClosure = (roots: ReadonlyArray<string>) => {
      const seen = new Set<string>()
      const visit = (name: string) => {
        if (seen.has(name)) return
        seen.add(name)
        for (const [, imported] of text.get(name)!.matchAll(/(?:^|[\n;])\s*import\s*(?:[^"';]*?from\s*)?"\.\/([^"]+)"/g)) visit(imported!)
      }
      roots.forEach(visit)
      return seen
    }
    const holding = (marker: string) => chunks.filter((name) => text.get(name)!.includes(marker))
    // serve's path: main.js, then its dynamic imports of src/cli/Running.ts and of src/cli/ServiceRun.ts
    const running = holding("serveMain")
    const serviceRun = holding("applying migrations (database created in")
    expect(running.length, "the chunk of src/cli/Running.ts").toBeGreaterThan(0)
    expect(serviceRun, "the chunk of src/cli/ServiceRun.ts").toHaveLength(1)
    const loaded = staticClosure(["main.js", ...running, ...serviceRun])
    const markers = { "@effect/cli": "withSubcommands", "the scenario runner's YAML reader": "LineCounter", "tinyglobby": "isDynamicPattern" }
    for (const [what, marker] of Object.entries(markers)) {
      expect(holding(marker).length, `${what} is in the bundle`).toBeGreaterThan(0)
      expect([...loaded].filter((name) => text.get(name)!.includes(marker)), `${what} loaded by a bare serve`).toEqual([])
    }
  })
})
