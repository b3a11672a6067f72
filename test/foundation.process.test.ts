import { type ChildProcess, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serviceCommand } from "./support/ServerProcess.js"

/**
 * The real process: `serve` as `npm start` runs it (the bundle under node; ServerProcess.serviceCommand) on the
 * embedded database (PGlite in DATA_DIR). These test the default deployment, so they run in the PGlite pass only
 * (skipped when TEST_DATABASE_URL is set).
 */
const describeProcess = process.env.TEST_DATABASE_URL ? describe.skip : describe

const root = NodePath.resolve(__dirname, "..")

/** A clean environment: nothing from the test runner's (DATABASE_URL, SERVICE_MODE, ...) leaks in. */
const baseEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  TMPDIR: NodeOs.tmpdir(),
  NODE_NO_WARNINGS: "1",
  ...extra
})

interface Running {
  readonly child: ChildProcess
  readonly baseUrl: string
  readonly apiKey: string
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const collect = (child: ChildProcess) => {
  let stdout = ""
  let stderr = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal }))
  )
  return { stdout: () => stdout, stderr: () => stderr, exited }
}

const serve = async (env: Record<string, string>): Promise<Running> => {
  // Own process group: a forced kill reaches every process of the service.
  const [command, args] = serviceCommand(["serve"])
  const child = spawn(command, args, { cwd: root, env: baseEnv(env), stdio: ["ignore", "pipe", "pipe"], detached: true })
  const output = collect(child)
  const banner = await new Promise<{ baseUrl: string; apiKey: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 90 s:\n${output.stdout()}\n${output.stderr()}`)), 90_000)
    const check = () => {
      const base = /Base URL:\s+(http:\/\/\S+\/api\/v1)/.exec(output.stdout())
      const key = /API key:\s+(\S+)/.exec(output.stdout())
      if (base && key) {
        clearTimeout(timer)
        resolve({ baseUrl: base[1]!, apiKey: key[1]! })
      }
    }
    child.stdout!.on("data", check)
    void output.exited.then(({ code }) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before the banner:\n${output.stdout()}\n${output.stderr()}`))
    })
  })
  return { child, ...banner, ...output }
}

const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  } catch {
    child.kill("SIGKILL")
  }
}

const stop = async (running: Running) => {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return running.exited
  running.child.kill("SIGTERM")
  const timer = setTimeout(() => killGroup(running.child), 30_000)
  const result = await running.exited
  clearTimeout(timer)
  return result
}

const json = async (response: Response) => ({ status: response.status, body: await response.json() as any })

describeProcess("the serve process", () => {
  let dataDir: string
  const started: Array<Running> = []

  beforeAll(() => {
    dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-process-"))
  })
  afterAll(async () => {
    for (const running of started) await stop(running)
    NodeFs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("prints the base URL and a key, serves, stops cleanly on SIGTERM, and keeps key and data across a restart", async () => {
    const env = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info" }
    const first = await serve(env)
    started.push(first)
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/)
    expect(first.apiKey).toMatch(/^sk_sandbox_\S{32,}$/)

    const health = await json(await fetch(`${first.baseUrl}/health`))
    expect(health).toEqual({ status: 200, body: { success: true, data: { status: "ok", mode: "sandbox" } } })

    const created = await json(
      await fetch(`${first.baseUrl}/partner/v1/customers`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": first.apiKey },
        body: JSON.stringify({
          firstName: "Ada",
          lastName: "Obi",
          email: "ada.process@example.com",
          phoneNumber: "+2348012345678",
          country: "NG"
        })
      })
    )
    expect(created.status).toBe(201)
    const customer = created.body.data

    const exit = await stop(first)
    expect(exit).toEqual({ code: 0, signal: null })

    // one log line per request, and never the API key in one (read after exit: the pipe is then fully drained)
    const logLines = first.stdout().split("\n").filter((line) => /message=http\b/.test(line))
    expect(logLines.length).toBeGreaterThanOrEqual(2)
    expect(logLines.some((line) => line.includes("path=/api/v1/partner/v1/customers") && line.includes("status=201") &&
      /requestId=req_[0-9a-f]{24}/.test(line) && line.includes("method=POST") && /durationMs=[\d.]+/.test(line))).toBe(true)
    for (const line of logLines) expect(line).not.toContain(first.apiKey)
    expect(first.stderr()).not.toMatch(/\n\s+at /)
    expect(first.stderr()).not.toMatch(/Error/)

    // Restarted at LOG_LEVEL=warning: no line per request.
    const second = await serve({ ...env, LOG_LEVEL: "warning" })
    started.push(second)
    expect(second.apiKey).toBe(first.apiKey)
    const read = await json(
      await fetch(`${second.baseUrl}/partner/v1/customers/${customer.id}`, { headers: { "x-api-key": second.apiKey } })
    )
    expect(read).toEqual({ status: 200, body: { success: true, data: customer } })
    const listed = await json(await fetch(`${second.baseUrl}/partner/v1/customers`, { headers: { "x-api-key": second.apiKey } }))
    expect(listed.body.data.map((c: any) => c.id)).toEqual([customer.id])
    // the duplicate rule survives the restart too
    const duplicate = await fetch(`${second.baseUrl}/partner/v1/customers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": second.apiKey },
      body: JSON.stringify({ firstName: "A", lastName: "B", email: "ADA.process@example.com", phoneNumber: "+2348012345678", country: "NG" })
    })
    expect(duplicate.status).toBe(409)
    expect(await stop(second)).toEqual({ code: 0, signal: null })
    expect(second.stdout().split("\n").filter((line) => /message=http\b/.test(line))).toEqual([])
  }, 240_000)

  const invalid: Array<[string, Record<string, string>, string]> = [
    ["PORT=abc", { PORT: "abc" }, "PORT"],
    ["PORT=70000", { PORT: "70000" }, "PORT"],
    ["SERVICE_MODE=staging", { SERVICE_MODE: "staging" }, "SERVICE_MODE"],
    ["LOG_LEVEL=loud", { LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    ["ENCRYPTION_KEY=short", { ENCRYPTION_KEY: "short" }, "ENCRYPTION_KEY"],
    ["SERVICE_MODE=production without DATABASE_URL", { SERVICE_MODE: "production", ENCRYPTION_KEY: "ab".repeat(32) }, "DATABASE_URL"],
    ["MAX_JSON_BODY_BYTES=0", { MAX_JSON_BODY_BYTES: "0" }, "MAX_JSON_BODY_BYTES"]
  ]
  for (const [label, env, variable] of invalid) {
    it(`refuses ${label}: exit code 78, one stderr line naming ${variable}, no stack trace`, async () => {
      const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-badconfig-"))
      try {
        const [command, args] = serviceCommand(["serve"])
        const child = spawn(command, args, {
          cwd: root,
          env: baseEnv({ PORT: "0", DATA_DIR: dir, ...env }),
          stdio: ["ignore", "pipe", "pipe"],
          detached: true
        })
        const output = collect(child)
        const timer = setTimeout(() => killGroup(child), 60_000)
        const exit = await output.exited
        clearTimeout(timer)
        expect(exit.code, output.stderr()).toBe(78)
        const lines = output.stderr().split("\n").filter((line) => line.trim() !== "")
        expect(lines, output.stderr()).toHaveLength(1)
        expect(lines[0]).toMatch(/^Invalid configuration: /)
        expect(lines[0]).toContain(variable)
        expect(output.stderr()).not.toMatch(/\bat .+:\d+/)
        expect(output.stdout()).not.toContain("listening")
        // nothing was created on disk for a refused start
        expect(NodeFs.existsSync(NodePath.join(dir, "pgdata"))).toBe(false)
      } finally {
        NodeFs.rmSync(dir, { recursive: true, force: true })
      }
    }, 90_000)
  }
})
