import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { promisify } from "node:util"
import { inject } from "vitest"
import { processEnv } from "./ServerProcess.js"

/**
 * The terminal UI (`src/tui/main.tsx`) as a real process: in a pseudo-terminal of a private tmux server (keys in
 * with `send-keys`, the screen out with `capture-pane`), or with pipes for `--output json` and the start-up errors.
 */

const execFileAsync = promisify(execFile)
const root = NodePath.resolve(__dirname, "../..")

/**
 * One node process running the TUI's bundle (src/tui/main.tsx built with esbuild.config.mjs's options by the test
 * run's global set-up, as the service is): its signals and exit code are the TUI's own, and it starts without
 * compiling TypeScript (0.4 s of CPU instead of 2.8 s under tsx).
 */
export const tuiCommand = (args: ReadonlyArray<string>): ReadonlyArray<string> =>
  [process.execPath, NodePath.join(inject("testBuild"), "main.tsx.js"), ...args]

/**
 * The TUI's environment: nothing from the test runner's. In particular no `CI`: Ink draws nothing when `CI` is set
 * (its is-in-ci check), and `.ci/run` exports `CI=true`.
 */
export const tuiEnv = (): NodeJS.ProcessEnv => processEnv({ LANG: "C.UTF-8", LC_ALL: "C.UTF-8", SHELL: "/bin/sh" })

/** `tmux -V` (e.g. `tmux 3.3a`), or undefined when tmux is not installed. */
export const tmuxVersion = (): string | undefined => {
  const result = spawnSync("tmux", ["-V"], { encoding: "utf8" })
  return result.status === 0 ? result.stdout.trim() : undefined
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`

export interface TuiTerminal {
  /** The visible screen, one string per row (trailing blanks trimmed by tmux). */
  readonly screen: () => Promise<ReadonlyArray<string>>
  /**
   * Polls the screen every 100 ms until `predicate` holds and answers that screen; fails after `timeoutMs` with
   * `what` and the last screen. A predicate may throw: that counts as "not yet".
   */
  readonly waitForScreen: (
    what: string,
    predicate: (rows: ReadonlyArray<string>) => boolean,
    timeoutMs?: number
  ) => Promise<ReadonlyArray<string>>
  /**
   * `tmux send-keys`: key names (`Enter`, `Down`, `Escape`) or single characters. Several keys in one call reach the
   * TUI in one burst, as a fast typist's or a paste do.
   */
  readonly send: (...keys: ReadonlyArray<string>) => Promise<void>
  /** `tmux resize-window`: the terminal becomes `columns` x `rows` (the TUI gets SIGWINCH). */
  readonly resize: (columns: number, rows: number) => Promise<void>
  /** Waits until the session has ended (the TUI exited) and answers the TUI's exit code. */
  readonly waitForExit: (timeoutMs?: number) => Promise<number>
  /** What the TUI wrote on stderr so far. */
  readonly stderr: () => string
  /** Kills the TUI (its process group) and the private tmux server; safe to call twice. */
  readonly close: () => Promise<void>
}

/** Starts the TUI with `args` in a `columns` x `rows` pseudo-terminal of a private tmux server. */
export const startTuiTerminal = async (
  args: ReadonlyArray<string>,
  options: { readonly columns?: number; readonly rows?: number } = {}
): Promise<TuiTerminal> => {
  const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-tui-e2e-"))
  // A private tmux server whose socket lives in our temporary directory: `-L name` would leave a socket file in
  // /tmp/tmux-UID/ behind (tmux 3.3 does not remove it when the server exits).
  const socket = NodePath.join(dir, "tmux.sock")
  const exitFile = NodePath.join(dir, "exit")
  const errFile = NodePath.join(dir, "stderr")
  const env = tuiEnv()
  const tmux = (...tmuxArgs: Array<string>) =>
    execFileAsync("tmux", ["-S", socket, ...tmuxArgs], { env, encoding: "utf8", timeout: 10_000 })
  const target = "tui"
  // The pane runs sh, which runs the TUI in the foreground of the pty (stdin and stdout the terminal, stderr kept
  // in a file for failure messages) and records its exit code; when the TUI exits, sh ends, the pane and the
  // session end, and (exit-empty) the private server ends.
  const command = `${tuiCommand(args).map(quote).join(" ")} 2> ${quote(errFile)}; echo $? > ${quote(exitFile)}`
  await tmux(
    "-f", "/dev/null",
    "new-session", "-d", "-s", target,
    "-x", String(options.columns ?? 160), "-y", String(options.rows ?? 45),
    "-c", root,
    command
  )
  let panePid: number | undefined
  try {
    panePid = Number((await tmux("display-message", "-p", "-t", target, "#{pane_pid}")).stdout.trim())
  } catch {
    panePid = undefined // already gone: waitForScreen or waitForExit will say so
  }

  const alive = async () => {
    try {
      await tmux("has-session", "-t", target)
      return true
    } catch {
      return false
    }
  }
  const screen = async () => {
    const { stdout } = await tmux("capture-pane", "-p", "-t", target)
    return stdout.replace(/\n$/, "").split("\n")
  }
  const stderr = () => {
    try {
      return NodeFs.readFileSync(errFile, "utf8")
    } catch {
      return ""
    }
  }
  const exitCode = () => {
    try {
      return Number(NodeFs.readFileSync(exitFile, "utf8").trim())
    } catch {
      return undefined
    }
  }

  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    if (panePid !== undefined && Number.isInteger(panePid) && panePid > 0) {
      try {
        process.kill(-panePid, "SIGKILL") // sh and the TUI: the pane's process group
      } catch {
        // already gone
      }
    }
    await tmux("kill-server").catch(() => undefined)
    NodeFs.rmSync(dir, { recursive: true, force: true })
  }

  return {
    screen,
    waitForScreen: async (what, predicate, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs
      let last: ReadonlyArray<string> = []
      while (true) {
        try {
          last = await screen()
        } catch {
          if (!(await alive())) {
            throw new Error(`waiting for ${what}: the TUI exited (code ${exitCode() ?? "unknown"}, stderr: ${JSON.stringify(stderr())}); last screen:\n${last.join("\n")}`)
          }
        }
        let ok = false
        try {
          ok = predicate(last)
        } catch {
          ok = false
        }
        if (ok) return last
        if (Date.now() > deadline) {
          throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; TUI stderr: ${JSON.stringify(stderr())}; last screen:\n${last.join("\n")}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
    send: async (...keys) => {
      await tmux("send-keys", "-t", target, ...keys)
    },
    resize: async (columns, rows) => {
      await tmux("resize-window", "-t", target, "-x", String(columns), "-y", String(rows))
    },
    waitForExit: async (timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs
      while (await alive()) {
        if (Date.now() > deadline) throw new Error(`the TUI did not exit within ${timeoutMs / 1000} s`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const code = exitCode()
      if (code === undefined) throw new Error("the TUI's session ended without recording an exit code (killed?)")
      return code
    },
    stderr,
    close
  }
}

export interface TuiRun {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

/** Runs the TUI with pipes (no terminal): for `--output json` and the start-up errors. */
export const spawnTui = (args: ReadonlyArray<string>): TuiRun => {
  const [node, ...rest] = tuiCommand(args)
  const child = spawn(node!, rest, { cwd: root, env: tuiEnv(), stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal }))
  )
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}
