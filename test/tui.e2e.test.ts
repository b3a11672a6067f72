import * as NodeNet from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtures, type Partner } from "./support/Fixtures.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"
import { spawnTui, startTuiTerminal, tmuxVersion, type TuiRun, type TuiTerminal } from "./support/TuiTerminal.js"

/**
 * The terminal UI end to end: the real service on a loopback port (in this process), the TUI as a separate
 * process talking to it over HTTP and SSE only. In a pseudo-terminal (tmux): live events, settling a held
 * withdrawal from the Rails pane, advancing the clock from the Clock pane, quitting. Without a terminal:
 * `--output json` and the one-line start-up errors.
 */

let app: TestApp
const fx = fixtures(() => app)
let origin: string
const terminals: Array<TuiTerminal> = []
const runs: Array<TuiRun> = []

beforeAll(async () => {
  // The wall clock, as `npm start` runs it: the TUI extrapolates the service clock between readings.
  app = await startTestApp({ wallClock: true })
  origin = new URL(app.baseUrl).origin
})

afterAll(async () => {
  for (const terminal of terminals) await terminal.close()
  for (const run of runs) {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL")
    await run.exited
  }
  await app?.close()
})

// --- HTTP, the way a partner (and the TUI) sees the service -----------------------------------------------------

const api = async (method: string, path: string, apiKey: string | undefined, body?: unknown) => {
  const headers: Record<string, string> = {}
  if (apiKey !== undefined) headers["x-api-key"] = apiKey
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(`${origin}/api/v1${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  const parsed = text === "" ? undefined : JSON.parse(text)
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
  return parsed?.data
}

const newPartner = async (name: string): Promise<Partner & { name: string }> => ({ ...await fx.partner({ name }), name })

const newCustomer = async (apiKey: string): Promise<string> => (await fx.customer({ apiKey })).id

const track = (run: TuiRun) => {
  runs.push(run)
  return run
}

const short = (id: string) => id.slice(0, 8)

// --- reading the screen -----------------------------------------------------------------------------------------

const footerText = "q / Ctrl+C quit"

/**
 * One whole frame of the UI where it belongs: the header on the first row (and nowhere else), the tabs on the
 * second, the footer's key hints once, as the last row written. A frame drawn over a stale one, or shifted by a row,
 * fails this.
 */
const coherent = (rows: ReadonlyArray<string>): boolean => {
  const lastWritten = rows.reduce((last, row, index) => (row.trim() === "" ? last : index), -1)
  return rows[0]!.startsWith("PMM sandbox ") &&
    rows.filter((row) => row.includes("PMM sandbox")).length === 1 &&
    /^ 1 Events\s+2 Customers\s+3 Webhooks\s+4 Rails\s+5 Clock/.test(rows[1] ?? "") &&
    rows.filter((row) => row.includes(footerText)).length === 1 &&
    rows[lastWritten]!.includes(footerText)
}

/** An Events pane row: `hh:mm:ss  <type>  <customer id prefix>  ...`. */
const eventRow = (rows: ReadonlyArray<string>, type: string, customerId: string) =>
  rows.some((row) => new RegExp(`^\\d{2}:\\d{2}:\\d{2}  ${type.replace(/\./g, "\\.")}\\s+${short(customerId)}\\b`).test(row))

/** The header's service clock, `clock 2026-01-02 03:04:05 UTC`, in milliseconds. */
const headerClock = (rows: ReadonlyArray<string>): number => {
  const match = /clock (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC/.exec(rows[0] ?? "")
  if (match === null) throw new Error(`no clock in the header: ${rows[0]}`)
  return Date.parse(`${match[1]}T${match[2]}Z`)
}

// --- in a terminal ------------------------------------------------------------------------------------------------

const tmux = tmuxVersion()
const underCi = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false"

if (tmux === undefined && underCi) {
  describe("tui in a terminal", () => {
    it("needs tmux, which CI must provide", () => {
      throw new Error("tmux is not installed: the terminal UI's pty tests cannot run (.ci/run installs it with apt-get)")
    })
  })
} else if (tmux === undefined) {
  console.warn("test/tui.e2e.test.ts: tmux is not installed, so the terminal UI's pty tests are skipped (apt-get install tmux)")
}

describe.skipIf(tmux === undefined)(`tui in a terminal (${tmux ?? "skipped: tmux is not installed"})`, () => {
  it("shows live events, completes a held withdrawal from the Rails pane, advances the clock and quits with 0", async () => {
    const partner = await newPartner("TUI e2e partner")
    const { apiKey } = partner
    const terminal = await startTuiTerminal(["--url", origin, "--key", apiKey], { columns: 160, rows: 45 })
    terminals.push(terminal)
    try {
      await terminal.waitForScreen("the header (service, partner, live feed) and the Events pane", (rows) =>
        coherent(rows) && rows[0]!.includes(origin) && rows[0]!.includes(partner.name) && rows[0]!.includes("● live") &&
        rows.some((row) => row.includes("following")))

      // (1) live events in the Events pane
      const customerId = await newCustomer(apiKey)
      await terminal.waitForScreen("customer.registered in the Events pane", (rows) =>
        coherent(rows) && eventRow(rows, "customer.registered", customerId))

      await fx.setRail(partner, "bank", { mode: "manual" })
      await fx.approveTier1(partner, customerId, { bvn: "12345678901", nin: "10987654321" })
      await fx.fund(partner, customerId, { NGN: 5000 })
      await fx.saveAccount(partner, customerId, { bankCode: "058", accountNumber: "1234567896" })
      const withdrawal = await api("POST", `/partner/v1/customers/${customerId}/withdraw`, apiKey, { amount: 1500, reference: `tui-${short(customerId)}` })
      expect(withdrawal.status).toBe("PROCESSING")
      await terminal.waitForScreen("withdrawal.submitted in the Events pane", (rows) =>
        coherent(rows) && eventRow(rows, "withdrawal.submitted", customerId))

      // (1b) keys in one burst: ↑ ↑ ↑ Enter opens the row the last ↑ highlighted (following: the newest row), and
      // Esc returns to the list
      const listed = await terminal.waitForScreen("the Events pane following", (rows) => coherent(rows) && rows.some((row) => row.includes("following")))
      const eventRows = listed.filter((row) => /^\d{2}:\d{2}:\d{2}  \S/.test(row))
      expect(eventRows.length, listed.join("\n")).toBeGreaterThanOrEqual(4)
      const highlightedType = eventRows[eventRows.length - 4]!.slice(10).trim().split(/\s+/)[0]!
      await terminal.send("Up", "Up", "Up", "Enter")
      await terminal.waitForScreen(`the details of ${highlightedType}, the row three above the newest`, (rows) =>
        rows.some((row) => row.startsWith("Details")) && rows.some((row) => row === `Type      ${highlightedType}` || row.startsWith(`Type      ${highlightedType} `)))
      await terminal.send("Escape")
      await terminal.waitForScreen("the Events pane again", (rows) => coherent(rows) && !rows.some((row) => row.startsWith("Details")))

      // (1c) a resize keeps the screen whole: narrower and shorter, then back
      await terminal.resize(100, 24)
      await terminal.waitForScreen("a whole screen at 100 x 24", (rows) =>
        rows.length <= 24 && coherent(rows) && rows.every((row) => row.length <= 100) && eventRow(rows, "withdrawal.submitted", customerId))
      await terminal.resize(160, 45)
      await terminal.waitForScreen("a whole screen at 160 x 45 again", (rows) =>
        coherent(rows) && eventRow(rows, "withdrawal.submitted", customerId) && eventRow(rows, "customer.registered", customerId))
      await terminal.send("f") // follow again

      // (2) the Rails pane: the held withdrawal, its actions, complete
      await terminal.send("4")
      const isWithdrawalRow = (row: string) => /^\s*bank\s+withdrawal\s/.test(row) && row.includes(short(customerId))
      const rails = await terminal.waitForScreen("the pending withdrawal in the Rails pane", (rows) =>
        coherent(rows) && rows.some((row) => row.includes("Pending operations (")) && rows.some(isWithdrawalRow))
      const listStart = rails.findIndex((row) => /^rail\s+kind\s+status/.test(row)) + 1
      const listEnd = rails.findIndex((row) => row.includes("Rail policies"))
      const operationRows = rails.slice(listStart, listEnd).filter((row) => row.trim() !== "")
      const index = operationRows.findIndex(isWithdrawalRow)
      expect(index, `the withdrawal among the pending operations:\n${operationRows.join("\n")}`).toBeGreaterThanOrEqual(0)
      expect(operationRows[index]).toMatch(/\bmanual\b/) // held by the manual policy: no due time
      for (let i = 0; i < index; i++) await terminal.send("j")
      await terminal.send("Enter")

      const completePath = `/api/v1/sandbox/withdrawals/${withdrawal.id}/complete`
      const menu = await terminal.waitForScreen("the withdrawal's action menu with complete", (rows) =>
        coherent(rows) && rows.some((row) => row.includes(`Actions for withdrawal ${withdrawal.id}`)) &&
        rows.some((row) => row.includes(completePath)))
      const menuStart = menu.findIndex((row) => row.includes(`Actions for withdrawal ${withdrawal.id}`)) + 1
      const actionRows = menu.slice(menuStart).filter((row) => /^\s+\S.*\s(POST|PUT) \/api\/v1\/sandbox\//.test(row))
      const completeAt = actionRows.findIndex((row) => row.includes(completePath))
      expect(actionRows[completeAt]).toMatch(/^\s+Complete\s+POST /)
      for (let i = 0; i < completeAt; i++) await terminal.send("Down")
      await terminal.send("Enter")
      await terminal.waitForScreen("the completion reported and the withdrawal gone from the pending list", (rows) =>
        coherent(rows) && rows.some((row) => row.includes(`complete withdrawal ${short(withdrawal.id)}: done`)) &&
        !rows.some(isWithdrawalRow))

      await terminal.send("1")
      await terminal.waitForScreen("withdrawal.completed in the Events pane", (rows) =>
        coherent(rows) && eventRow(rows, "withdrawal.completed", customerId))
      const settled = await api("GET", `/partner/v1/customers/${customerId}/withdrawals/${withdrawal.id}`, apiKey)
      expect(settled.status).toBe("COMPLETED")

      // (3) the Clock pane: Enter advances the service clock by the default window, 1h
      const before = await api("GET", "/sandbox/clock", apiKey)
      expect(before.offsetSeconds).toBe(0)
      await terminal.send("5")
      const clockPane = await terminal.waitForScreen("the Clock pane", (rows) =>
        coherent(rows) && rows.some((row) => row.startsWith("Service clock ")) &&
        rows.some((row) => /^Advance by: .* 1h /.test(row)) && rows.some((row) => row.startsWith("Falls due by ")) &&
        !rows[0]!.includes("(+"))
      const clockBefore = headerClock(clockPane)
      await terminal.send("Enter")
      const advanced = await terminal.waitForScreen("the advance reported and the header's clock 1h ahead", (rows) =>
        coherent(rows) && rows.some((row) => /^advanced 1h to \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}; \d+ items? fell due/.test(row)) &&
        rows[0]!.includes("UTC (+1h)"))
      // An hour on, give or take the second the header shows (it extrapolates between readings).
      expect(headerClock(advanced) - clockBefore).toBeGreaterThanOrEqual(3_599_000)
      const after = await api("GET", "/sandbox/clock", apiKey)
      expect(after.offsetSeconds - before.offsetSeconds).toBe(3_600)

      // (4) q quits: the process exits with 0 and the tmux session ends
      await terminal.send("q")
      expect(await terminal.waitForExit()).toBe(0)
      // Nothing but terminal controls on stderr (Ink's cursor restore writes `ESC[?25h` there at exit).
      expect(terminal.stderr().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")).toBe("")
    } finally {
      await terminal.close()
    }
  }, 60_000)
})

// --- without a terminal -----------------------------------------------------------------------------------------

describe("tui without a terminal", () => {
  it("--output json prints the live feed as NDJSON on stdout, one event per line and nothing else", async () => {
    const { apiKey } = await newPartner("TUI json partner")
    const run = track(spawnTui(["--url", origin, "--key", apiKey, "--output", "json"]))
    const lines = () => run.stdout().split("\n").filter((line) => line !== "")
    const registered = (customerId: string) =>
      lines().some((line) => {
        try {
          const event = JSON.parse(line)
          return event.type === "customer.registered" && event.customerId === customerId
        } catch {
          return false
        }
      })
    // The feed starts with the events after it connects (it prints nothing before): register customers until one
    // of them comes through.
    const created: Array<string> = []
    const deadline = Date.now() + 20_000
    let seen: string | undefined
    while (seen === undefined) {
      if (run.child.exitCode !== null) throw new Error(`the TUI exited (code ${run.child.exitCode}): ${run.stderr()}`)
      if (Date.now() > deadline) throw new Error(`no customer.registered on stdout within 20 s; stdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`)
      created.push(await newCustomer(apiKey))
      const waitUntil = Date.now() + 1_500
      while (seen === undefined && Date.now() < waitUntil) {
        seen = created.find(registered)
        if (seen === undefined) await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    run.child.kill("SIGTERM")
    expect(await run.exited).toEqual({ code: 0, signal: null })

    const stdout = run.stdout()
    expect(stdout.endsWith("\n")).toBe(true)
    const events = stdout.slice(0, -1).split("\n").map((line) => JSON.parse(line))
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(["createdAt", "customerId", "data", "id", "type"])
      expect(event).toEqual({
        id: expect.any(String),
        type: expect.stringMatching(/^[a-z_]+\.[a-z_.]+$/),
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
        customerId: event.customerId === null ? null : expect.any(String),
        data: expect.any(Object)
      })
    }
    // Only this partner's new events (of the customers created here), each once, the one seen among them.
    const ids = events.map((event) => event.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const event of events) if (event.customerId !== null) expect(created).toContain(event.customerId)
    expect(events.some((event) => event.type === "customer.registered" && event.customerId === seen && event.data.customerId === seen)).toBe(true)
  }, 40_000)

  it("an unreachable service: exit 1 and one line `tui: cannot reach ...` on stderr", async () => {
    const port = await closedPort()
    const run = track(spawnTui(["--url", `http://127.0.0.1:${port}`, "--key", "sk_sandbox_whatever"]))
    expect(await run.exited).toEqual({ code: 1, signal: null })
    expect(run.stdout()).toBe("")
    expect(run.stderr()).toMatch(new RegExp(`^tui: cannot reach http://127\\.0\\.0\\.1:${port}\\b[^\\n]*\\n$`))
  }, 30_000)

  it("a wrong API key: exit 1 and one line on stderr naming the 401", async () => {
    const run = track(spawnTui(["--url", origin, "--key", "sk_sandbox_not_a_real_key"]))
    expect(await run.exited).toEqual({ code: 1, signal: null })
    expect(run.stdout()).toBe("")
    expect(run.stderr()).toMatch(/^tui: [^\n]*\b401\b[^\n]*\n$/)
  }, 30_000)
})

/** A loopback port nothing listens on: bound, then released. */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })
