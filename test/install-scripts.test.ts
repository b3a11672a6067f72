import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { describe, expect, it } from "vitest"

/**
 * Every installed dependency with an install script has a decision in package.json `allowScripts` (docs/operations.md
 * "Install scripts"): npm 11 blocks such scripts unless approved and lists the undecided ones after every install, and
 * older npm versions would run them. A new dependency with a script fails here until it is approved or denied
 * (`npm install-scripts approve|deny <pkg>`), and an entry for a package no longer installed fails too.
 */
const root = NodePath.resolve(__dirname, "..")
const lifecycle = ["preinstall", "install", "postinstall"] as const

/** `name -> scripts` of every package under node_modules (scoped ones included, nested node_modules too). */
const installedWithScripts = (): Map<string, Array<string>> => {
  const found = new Map<string, Array<string>>()
  const visit = (modules: string) => {
    if (!NodeFs.existsSync(modules)) return
    for (const entry of NodeFs.readdirSync(modules)) {
      if (entry.startsWith(".")) continue
      const dirs = entry.startsWith("@") ? NodeFs.readdirSync(NodePath.join(modules, entry)).map((name) => NodePath.join(modules, entry, name)) : [NodePath.join(modules, entry)]
      for (const dir of dirs) {
        const manifest = NodePath.join(dir, "package.json")
        if (!NodeFs.existsSync(manifest)) continue
        const pkg: { name?: string; scripts?: Record<string, string> } = JSON.parse(NodeFs.readFileSync(manifest, "utf8"))
        const scripts = lifecycle.filter((name) => typeof pkg.scripts?.[name] === "string")
        if (pkg.name !== undefined && scripts.length > 0) found.set(pkg.name, scripts)
        visit(NodePath.join(dir, "node_modules"))
      }
    }
  }
  visit(NodePath.join(root, "node_modules"))
  return found
}

describe("install scripts of dependencies", () => {
  const allowScripts: Record<string, boolean> = JSON.parse(NodeFs.readFileSync(NodePath.join(root, "package.json"), "utf8")).allowScripts ?? {}
  const installed = installedWithScripts()

  it("each one has a decision in package.json allowScripts", () => {
    const undecided = [...installed].filter(([name]) => !(name in allowScripts)).map(([name, scripts]) => `${name} (${scripts.join(", ")})`)
    expect(undecided, "npm install-scripts approve|deny <pkg>, and say why in docs/operations.md").toEqual([])
    expect(installed.size).toBeGreaterThan(0)
  })

  it("allowScripts names only installed packages that have one", () => {
    expect(Object.keys(allowScripts).filter((name) => !installed.has(name))).toEqual([])
  })
})
