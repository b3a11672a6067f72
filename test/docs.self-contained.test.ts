import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import { describe, expect, it } from "vitest"

/**
 * The repository is self-contained: no tracked file points at documents outside it, and every relative link of the
 * README and docs/*.md lands on a file of the repository. The contract lives in docs/contract.md, the architecture
 * in docs/architecture.md. No database, no server: git and the file system only.
 */
const root = NodePath.resolve(NodePath.dirname(NodeUrl.fileURLToPath(import.meta.url)), "..")

/** The names of the outside documents, assembled so that this file does not mention them itself. */
const outside = ["SPEC", "DESIGN"].map((name) => `${name}.md`)

const tracked = (): ReadonlyArray<string> =>
  NodeChildProcess.execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter((file) => file !== "" && NodePath.basename(file) !== "package-lock.json")

/** A file's text, or undefined for a binary file (a NUL byte in its first 8 KB) or one deleted from the work tree. */
const textOf = (file: string): string | undefined => {
  const path = NodePath.join(root, file)
  if (!NodeFs.existsSync(path) || !NodeFs.statSync(path).isFile()) return undefined
  const bytes = NodeFs.readFileSync(path)
  if (bytes.subarray(0, 8192).includes(0)) return undefined
  return bytes.toString("utf8")
}

/** Every mention of an outside document in a text, as `line: text`. */
export const outsideMentions = (text: string): ReadonlyArray<string> =>
  text.split("\n").flatMap((line, i) => outside.some((name) => line.includes(name)) ? [`${i + 1}: ${line.trim()}`] : [])

/** Fenced code blocks and inline code spans are examples, not links. */
const withoutCode = (markdown: string): string =>
  markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "")

/** The relative targets of `[text](target)` links (no scheme, no pure `#anchor`), without their anchor or title. */
export const relativeLinks = (markdown: string): ReadonlyArray<string> =>
  [...withoutCode(markdown).matchAll(/\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => decodeURIComponent(target.split("#")[0]!.split("?")[0]!))

/** The links of one markdown file that do not resolve to an existing file or directory, relative to that file. */
export const brokenLinks = (file: string, markdown: string): ReadonlyArray<string> =>
  relativeLinks(markdown).filter((target) => {
    const resolved = target.startsWith("/") ? NodePath.join(root, target) : NodePath.resolve(NodePath.dirname(NodePath.join(root, file)), target)
    return !NodeFs.existsSync(resolved)
  })

const markdownFiles = (): ReadonlyArray<string> => [
  "README.md",
  ...NodeFs.readdirSync(NodePath.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)
]

describe("the repository is self-contained", () => {
  it("no tracked text file mentions a document outside the repository", () => {
    const files = tracked()
    expect(files.length).toBeGreaterThan(100)
    const found = files.flatMap((file) => {
      const text = textOf(file)
      return text === undefined ? [] : outsideMentions(text).map((mention) => `${file}:${mention}`)
    })
    expect(found).toEqual([])
  })

  it("every relative markdown link of README.md and docs/*.md resolves to a file", () => {
    const files = markdownFiles()
    expect(files).toContain("docs/contract.md")
    const broken = files.flatMap((file) => brokenLinks(file, NodeFs.readFileSync(NodePath.join(root, file), "utf8")).map((target) => `${file} -> ${target}`))
    expect(broken).toEqual([])
  })

  it("every docs page is reachable from the README, directly or through docs pages", () => {
    const seen = new Set<string>()
    const queue = ["README.md"]
    while (queue.length > 0) {
      const file = queue.shift()!
      if (seen.has(file)) continue
      seen.add(file)
      if (!file.endsWith(".md")) continue
      const path = NodePath.join(root, file)
      if (!NodeFs.existsSync(path)) continue
      for (const target of relativeLinks(NodeFs.readFileSync(path, "utf8"))) {
        const next = NodePath.relative(root, NodePath.resolve(NodePath.dirname(path), target))
        if (next.startsWith("docs/") || next === "README.md") queue.push(next)
      }
    }
    // Tracked pages only: a page another change is still writing is checked once it is committed.
    const files = new Set(tracked())
    const pages = NodeFs.readdirSync(NodePath.join(root, "docs")).filter((name) => name.endsWith(".md") || name.endsWith(".ts"))
      .map((name) => `docs/${name}`)
      .filter((page) => files.has(page))
    expect(pages.filter((page) => !seen.has(page))).toEqual([])
  })

  it("the checks catch what they look for", () => {
    expect(outsideMentions(`see ../shared/${outside[0]} "Errors"`)).toHaveLength(1)
    expect(outsideMentions(`the ${outside[1]} layers`)).toHaveLength(1)
    expect(outsideMentions("docs/contract.md \"Errors\"")).toEqual([])
    expect(relativeLinks("[a](contract.md#errors) [b](https://x.test/) [c](#local) `[d](nope.md)`")).toEqual(["contract.md"])
    expect(brokenLinks("docs/x.md", "[gone](no-such-page.md) [there](contract.md#errors) [up](../README.md)")).toEqual(["no-such-page.md"])
  })
})
