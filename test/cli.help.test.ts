import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { beforeAll, describe, expect, inject, it } from "vitest"
import { type CommandHelp, type OptionSpec, render, useColor } from "../src/cli/Help.js"
import {
  ledgerCheckHelp,
  listenHelp,
  listenOptions,
  partnerKybHelp,
  partnerKybOptions,
  scenarioHelp,
  scenarioOptions,
  serveHelp,
  serviceHelp,
  triggerHelp,
  triggerOptions,
  tuiHelp,
  tuiOptions
} from "../src/cli/HelpTexts.js"

/**
 * Every command-line tool's `--help` (src/cli/HelpTexts.ts), run as `npm run <script> -- --help` runs it: the
 * package.json script's tsx entry, bundled with esbuild.config.mjs's options (what `npm start` builds) so each
 * run is one plain node process, stdout a pipe (test/support/globalSetup.ts builds the bundles once per run). Exit 0, plain text (no escape byte), none of @effect/cli's generated
 * boilerplate, every option of the command's spec list named with its value. `--help` only prints and exits: no
 * service starts and no database opens (a unit suite). A wrong option still answers a usage error with the tool's
 * exit code.
 */

const root = NodePath.resolve(__dirname, "..")
const scripts: Record<string, string> = JSON.parse(NodeFs.readFileSync(NodePath.join(root, "package.json"), "utf8")).scripts

/** `[entry, ...args]` of an `npm run` script that is `tsx <entry> [args]`. */
const scriptCommand = (name: string): Array<string> => {
  const [runner, ...rest] = scripts[name]!.split(/\s+/)
  expect(runner, `package.json script ${name}`).toBe("tsx")
  return rest
}

/** The package.json scripts' entries, bundled by this run's global set-up (what `npm start` builds). */
const bundled = new Map<string, string>()
beforeAll(() => {
  for (const script of ["listen", "trigger", "scenario", "tui"]) {
    const entry = scriptCommand(script)[0]!
    const file = NodePath.join(inject("testBuild"), `${NodePath.basename(entry, ".ts")}.js`)
    expect(NodeFs.existsSync(file), `${file}, the bundle of ${entry}`).toBe(true)
    bundled.set(entry, file)
  }
})

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `[entry, ...args]`: the entry's bundle under node, else the entry under tsx. */
const run = ([entry, ...args]: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const bundle = bundled.get(entry!)
    const child = spawn(process.execPath, [...(bundle === undefined ? ["--import", "tsx", entry!] : [bundle]), ...args], {
      cwd: root,
      // a clean environment: no NO_COLOR or FORCE_COLOR of the runner; stdout is a pipe, not a terminal
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_NO_WARNINGS: "1", DATA_DIR: "/nonexistent/cli-help-test", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.once("error", reject)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** @effect/cli's generated help, which no tool prints any more. */
const boilerplate = [
  "A user-defined piece of text",
  "A true or false value",
  "This setting is optional",
  "One of the following",
  "--completions",
  "--log-level",
  "--wizard",
  "--version",
  "0.1.0",
  "USAGE",
  "DESCRIPTION"
]

const service = scriptCommand("scenario")[0]!

const tools: ReadonlyArray<{
  readonly title: string
  readonly args: ReadonlyArray<string>
  readonly help: CommandHelp
  readonly options: ReadonlyArray<OptionSpec>
  /** A wrong option: the exit code the tool answers it with. */
  readonly usageExit: number
  /** Arguments before the wrong option. */
  readonly before?: ReadonlyArray<string>
}> = [
  { title: "npm run listen", args: scriptCommand("listen"), help: listenHelp, options: Object.values(listenOptions), usageExit: 2 },
  { title: "npm run trigger", args: scriptCommand("trigger"), help: triggerHelp, options: Object.values(triggerOptions), usageExit: 2 },
  { title: "npm run tui", args: scriptCommand("tui"), help: tuiHelp, options: Object.values(tuiOptions), usageExit: 1 },
  { title: "npm run scenario", args: scriptCommand("scenario"), help: scenarioHelp, options: Object.values(scenarioOptions), usageExit: 2 },
  { title: "npm run ledger:check", args: scriptCommand("ledger:check"), help: ledgerCheckHelp, options: [], usageExit: 2 },
  { title: "the service, no command", args: [service], help: serviceHelp, options: [], usageExit: 2 },
  { title: "the service's serve", args: [service, "serve"], help: serveHelp, options: [], usageExit: 2 },
  { title: "the service's partner-kyb", args: [service, "partner-kyb"], help: partnerKybHelp, options: Object.values(partnerKybOptions), usageExit: 2, before: ["ops@acme.example", "approve"] }
]

describe("--help of every command-line tool", () => {
  it.each(tools)("$title: plain text for a person, every option, exit 0", async ({ args, help, options }) => {
    const ran = await run([...args, "--help"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stderr).toBe("")
    expect(ran.stdout).not.toContain("\x1b")
    for (const phrase of boilerplate) expect(ran.stdout).not.toContain(phrase)
    // What the tool prints is its spec rendered; each option of the spec list is named with its value.
    expect(ran.stdout).toBe(render(help, { color: false }))
    expect(ran.stdout).toMatch(/^\S.*: \S/) // the one-line summary first
    for (const heading of ["Usage", "Options", "Examples"]) expect(ran.stdout).toContain(`\n${heading}\n`)
    expect(ran.stdout).toContain(`More: ${help.docs.split(" ")[0]}`)
    for (const option of [...options, { name: "help", value: undefined }]) {
      expect(ran.stdout).toMatch(new RegExp(`\\n  (-\\w, )?--${option.name}\\b${option.value === undefined ? "" : `[^\\n]* ${option.value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`}`))
    }
    // -h, and after other arguments, prints the same
    const short = await run([...args, "--url", "http://127.0.0.1:9", "-h"])
    expect(short.code, short.stderr).toBe(0)
    expect(short.stdout).toBe(ran.stdout)
  }, 120_000)

  it.each(tools)("$title: a wrong option is a usage error naming it, pointing at --help", async ({ args, before, help, usageExit }) => {
    const wrong = await run([...args, ...(before ?? []), "--no-such-option"])
    if (help === scenarioHelp) {
      expect(wrong.code).toBe(1) // "--no-such-option is not a valid scenario file": nothing was run
      return
    }
    expect(wrong.code, wrong.stdout + wrong.stderr).toBe(usageExit)
    expect(wrong.stdout).toBe("")
    expect(wrong.stderr).not.toContain("\x1b")
    expect(wrong.stderr).toMatch(help === serviceHelp ? /Invalid subcommand/ : /no-such-option/)
    expect(wrong.stderr).toContain(`Run \`${help.command} --help\` for usage.`)
    expect(wrong.stderr).not.toContain("level=ERROR")
  }, 120_000)

  it("the @effect/cli parsers accept exactly the spec'd options (besides @effect/cli's built-ins)", async () => {
    const builtIns = ["completions", "help", "log-level", "version", "wizard"]
    const accepted = async (args: ReadonlyArray<string>) => {
      const ran = await run([...args, "--completions", "bash"])
      expect(ran.code, ran.stderr).toBe(0)
      return [...new Set(ran.stdout.match(/--[a-z][a-z-]*/g) ?? [])].map((flag) => flag.slice(2)).filter((name) => !builtIns.includes(name)).sort()
    }
    expect(await accepted(scriptCommand("listen"))).toEqual(Object.values(listenOptions).map((o) => o.name).sort())
    // the service: every subcommand's options together
    expect(await accepted([service])).toEqual(
      [...new Set([...Object.values(scenarioOptions), ...Object.values(partnerKybOptions)].map((o) => o.name))].sort()
    )
  }, 120_000)

  it("colour only on a terminal without NO_COLOR: bold headings at most", () => {
    const coloured = render(listenHelp, { color: true })
    expect(coloured.replace(/\x1b\[1m|\x1b\[22m/g, "")).toBe(render(listenHelp, { color: false }))
    expect(coloured).toContain("\x1b[1mOptions\x1b[22m")
    expect(useColor({ isTTY: true }, {})).toBe(true)
    expect(useColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false)
    expect(useColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true)
    expect(useColor({ isTTY: false }, {})).toBe(false)
    expect(useColor({}, {})).toBe(false)
  })
})
