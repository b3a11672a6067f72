import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { describe, expect, it } from "vitest"

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
