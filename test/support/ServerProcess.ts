import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { inject } from "vitest"

/**
 * The real service as a child process, for tests that kill it, restart it and run the command-line tools against
 * the same database: what `npm start` runs (the esbuild bundle of src/main.ts under node with the start script's
 * flags), bundled once per test run by test/support/globalSetup.ts.
 */
const root = NodePath.resolve(__dirname, "../..")

/** The node flags of package.json's `start` script (`exec node <flags> dist/main.js serve`). */
const startFlags = (): ReadonlyArray<string> => {
  const start: string = JSON.parse(NodeFs.readFileSync(NodePath.join(root, "package.json"), "utf8")).scripts.start
  const flags = /\bexec node((?:\s+--\S+)*)\s+dist\/main\.js\b/.exec(start)
  if (flags === null) throw new Error(`package.json's start script is not "... exec node <flags> dist/main.js serve": ${start}`)
  return flags[1]!.trim().split(/\s+/).filter((flag) => flag !== "")
}

/** A bundle of this test run (test/support/globalSetup.ts builds them). */
const bundle = (name: "main.js" | "listen.js"): string => {
  const file = NodePath.join(inject("testBuild"), name)
  if (!NodeFs.existsSync(file)) throw new Error(`no ${file}: test/support/globalSetup.ts builds it`)
  return file
}

/**
 * `[command, args]` that run the service's CLI with `args` (`serve`, `ledger-check`, `scenario <files>`,
 * `partner-kyb ...`) as `npm start` runs `serve`: `node <start flags> <bundle of src/main.ts> ...args`.
 */
export const serviceCommand = (args: ReadonlyArray<string>): [string, Array<string>] =>
  [process.execPath, [...startFlags(), bundle("main.js"), ...args]]

/** `[command, args]` that run `listen` (`npm run listen -- ...args`) from its bundle: one node process. */
export const listenCommand = (args: ReadonlyArray<string>): [string, Array<string>] =>
  [process.execPath, [bundle("listen.js"), ...args]]

/**
 * A new DATA_DIR whose embedded database already exists, migrated and empty: this run's PGlite template (a dump of
 * the data directory, test/support/globalSetup.ts) unpacked into `pgdata/`, as a first start would have left it,
 * minus the key (the service writes `encryption.key` and records its fingerprint on its first start there). A start
 * on it skips initdb and the migrations (about 4 s of CPU each). The first start on an empty DATA_DIR is
 * test/foundation.process.test.ts's. Without a PGlite template (the PostgreSQL pass) the directory stays empty.
 */
export const seededDataDir = (prefix: string): string => {
  const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), prefix))
  const template = inject("pgliteTemplate")
  if (template !== "") {
    NodeFs.mkdirSync(NodePath.join(dir, "pgdata"))
    const untar = spawnSync("tar", ["-xf", template, "-C", NodePath.join(dir, "pgdata")], { encoding: "utf8" })
    if (untar.status !== 0) throw new Error(`tar -xf ${template}: ${untar.stderr || untar.error?.message}`)
  }
  return dir
}

/** A clean environment: nothing from the test runner's (DATABASE_URL, SERVICE_MODE, ...) leaks in. */
export const processEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  TMPDIR: NodeOs.tmpdir(),
  NODE_NO_WARNINGS: "1",
  ...extra
})

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface ServerProcess {
  readonly child: ChildProcess
  /** `http://127.0.0.1:<port>/api/v1` */
  readonly baseUrl: string
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<Exit>
}

const collect = (child: ChildProcess) => {
  let stdout = ""
  let stderr = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<Exit>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })))
  return { stdout: () => stdout, stderr: () => stderr, exited }
}

/** Starts `serve` and resolves once the banner names the base URL; rejects if the process exits first. */
export const startServer = async (env: Record<string, string>): Promise<ServerProcess> => {
  // detached: its own process group, so that a SIGKILL reaches every process of the service
  const [command, args] = serviceCommand(["serve"])
  const child = spawn(command, args, { cwd: root, env: processEnv(env), stdio: ["ignore", "pipe", "pipe"], detached: true })
  const output = collect(child)
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child)
      reject(new Error(`no banner within 90 s:\n${output.stdout()}\n${output.stderr()}`))
    }, 90_000)
    const check = () => {
      const base = /Base URL:\s+(http:\/\/\S+\/api\/v1)/.exec(output.stdout())
      if (base) {
        clearTimeout(timer)
        resolve(base[1]!)
      }
    }
    child.stdout!.on("data", check)
    void output.exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`serve exited (code ${code}, signal ${signal}) before the banner:\n${output.stdout()}\n${output.stderr()}`))
    })
  })
  return { child, baseUrl, ...output }
}

/**
 * SIGKILL to the whole process group: the service is one node process today, but a wrapper (tsx runs the program
 * in a child node process) would otherwise leave the real server running as an orphan.
 */
const killGroup = (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, "SIGKILL")
  } catch {
    // already gone
  }
}

const running = (server: ServerProcess) => server.child.exitCode === null && server.child.signalCode === null

/** SIGKILL (the service's process group): no shutdown hook, no database close — the processes just stop. */
export const killServer = async (server: ServerProcess): Promise<Exit> => {
  killGroup(server.child)
  return server.exited
}

/** SIGTERM (graceful), escalating to SIGKILL after 30 s. */
export const stopServer = async (server: ServerProcess): Promise<Exit> => {
  if (!running(server)) return server.exited
  server.child.kill("SIGTERM")
  const timer = setTimeout(() => killGroup(server.child), 30_000)
  const exit = await server.exited
  clearTimeout(timer)
  return exit
}

export interface LedgerCheckRun {
  readonly exit: Exit
  readonly stdout: string
  readonly stderr: string
  /** The report printed by `ledger-check`, or undefined when none could be read. */
  readonly report: { transactions: number; entries: number; accounts: number; reservations: number; violations: Array<string> } | undefined
}

/** A run of the service's CLI to its end: how it exited and what it printed. */
export interface CommandRun {
  readonly exit: Exit
  readonly stdout: string
  readonly stderr: string
}

/**
 * The service's CLI with `args` (`serviceCommand`: what `npm run ...` runs, from the bundle) in the environment of
 * `processEnv(env)`; resolves when it exits, SIGKILLed after `timeoutMs`. Asynchronous, so a service in the calling
 * process can answer the command.
 */
export const runServiceCommand = async (args: ReadonlyArray<string>, env: Record<string, string> = {}, timeoutMs = 120_000): Promise<CommandRun> => {
  const [command, commandArgs] = serviceCommand(args)
  const child = spawn(command, commandArgs, { cwd: root, env: processEnv(env), stdio: ["ignore", "pipe", "pipe"] })
  const output = collect(child)
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
  const exit = await output.exited
  clearTimeout(timer)
  return { exit, stdout: output.stdout(), stderr: output.stderr() }
}

/** `ledger-check` (what `npm run ledger:check` runs, from the bundle) with the given environment. */
export const runLedgerCheck = async (env: Record<string, string>): Promise<LedgerCheckRun> => {
  const { exit, stdout, stderr } = await runServiceCommand(["ledger-check"], env, 90_000)
  const lines = stdout.split("\n")
  const start = lines.indexOf("{")
  const end = lines.indexOf("}", start)
  let report: LedgerCheckRun["report"]
  if (start >= 0 && end > start) {
    try {
      report = JSON.parse(lines.slice(start, end + 1).join("\n"))
    } catch {
      report = undefined
    }
  }
  return { exit, stdout, stderr, report }
}
