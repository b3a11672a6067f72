import * as NodeFs from "node:fs"
import { describe, expect, it } from "vitest"
import { globalKeys, paneKeys, paneNames } from "../src/tui/Keys.js"

/** docs/tui.md's key table and the `?` help screen come from the same list: every key is documented. */
describe("docs/tui.md", () => {
  const doc = NodeFs.readFileSync(new URL("../docs/tui.md", import.meta.url), "utf8")
  const rows = new Set(
    doc.split("\n")
      .filter((line) => line.startsWith("| ") && line.includes("`"))
      .map((line) => line.split("|").map((part) => part.trim()))
      .map(([, pane, keys]) => `${pane} ${keys?.replace(/^`|`$/g, "")}`)
  )

  it("lists every global key", () => {
    for (const key of globalKeys) expect(rows, `Global ${key.keys}`).toContain(`Global ${key.keys}`)
  })

  it("lists every key of every pane", () => {
    for (const pane of paneNames) {
      for (const key of paneKeys[pane]) expect(rows, `${pane} ${key.keys}`).toContain(`${pane} ${key.keys}`)
    }
  })

  it("lists no key the UI does not have", () => {
    const known = new Set([
      ...globalKeys.map((key) => `Global ${key.keys}`),
      ...paneNames.flatMap((pane) => paneKeys[pane].map((key) => `${pane} ${key.keys}`))
    ])
    const documented = [...rows].filter((row) => ["Global", ...paneNames].some((pane) => row.startsWith(`${pane} `)))
    expect(documented.filter((row) => !known.has(row))).toEqual([])
  })
})
