import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runScenarios, type RunOptions } from "../src/scenario/Runner.js"
import { runServiceCommand } from "./support/ServerProcess.js"
import { pgliteTemplate, startTestApp, testConfig, type TestApp } from "./support/TestApp.js"

const fixture = (name: string) => `test/fixtures/scenarios/${name}`

let app: TestApp
beforeAll(async () => {
  // a short answer time-out so that the "hang" receiver costs a second, not ten
  app = await startTestApp({ config: { webhookTimeoutMs: 1_000 } })
})
afterAll(() => app?.close())

/** Runs scenario files against the test app (`--url` mode) and returns the summary and the output. */
const run = async (patterns: ReadonlyArray<string>, options: Partial<RunOptions> = {}) => {
  const lines: Array<string> = []
  const summary = await runScenarios({
    patterns,
    url: app.baseUrl,
    concurrency: 2,
    reporter: "console",
    config: testConfig(),
    write: (text) => lines.push(text),
    color: false,
    ...options
  })
  return { summary, output: lines.join("\n") }
}

describe("scenario runner against a running service", () => {
  it("passes a parallel block whose outcome set is exactly one 201 and four 409s", async () => {
    const { summary, output } = await run([fixture("parallel.yaml")])
    expect(output).toContain("✓ 5 × POST /partner/v1/customers at once")
    expect(summary.exitCode).toBe(0)
    expect(summary.totals.steps).toEqual({ passed: 3, failed: 0, skipped: 0 })
  })

  it("fails a parallel block whose outcome set differs, showing the counts", async () => {
    const { summary, output } = await run([fixture("parallel-wrong.yaml")])
    expect(summary.exitCode).toBe(1)
    expect(output).toContain("3 concurrent requests: outcomes 201 ×1, 409 ×2")
    expect(output).toContain("statuses.201: expected 3 but got 1")
    expect(output).toContain("statuses.409: unexpected status 409 ×2")
  })

  it("runs includes inside repeats, pagination with saved cursors and event sequences", async () => {
    const { summary, output } = await run([fixture("include-repeat.yaml")])
    expect(output, output).toContain("✓ Includes and repeats")
    expect(summary.exitCode).toBe(0)
    expect(summary.results[0]?.variables.last).toBe(summary.results[0]?.variables.customerId)
  })

  it("drives the webhook receiver: a hung answer is cut off by the service and the retry is delivered, signed", async () => {
    const { summary, output } = await run([fixture("webhook-hang.yaml")])
    expect(summary.exitCode, output).toBe(0)
    expect(summary.totals.steps).toEqual({ passed: 11, failed: 0, skipped: 0 })
  })

  it("fails a webhook expectation with the answers the receiver gave", async () => {
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "hooks-"))
    const file = NodePath.join(dir, "hooks.yaml")
    NodeFs.writeFileSync(file, [
      "name: Too many webhooks expected",
      "description: The test event arrives once, not twice.",
      "steps:",
      "  - webhook: { register: true }",
      "  - expectWebhooks: { type: webhook.test, count: 2, timeout: 300ms }"
    ].join("\n"))
    const { summary, output } = await run([file])
    expect(summary.exitCode).toBe(1)
    expect(output).toContain("count: expected 2 but got 1 (answers given: 200)")
  })

  it("uploads multipart files (from a path, base64 and text) and shows the parts when a step fails", async () => {
    const passed = await run(["scenarios/kyc-documents.yaml"])
    expect(passed.summary.exitCode, passed.output).toBe(0)
    expect(passed.summary.totals.steps.passed).toBeGreaterThanOrEqual(12)
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "multipart-"))
    NodeFs.writeFileSync(NodePath.join(dir, "up.yaml"), [
      "name: Upload expected to pass but refused",
      "description: an executable is not an image",
      "steps:",
      "  - include: " + NodePath.resolve("scenarios/fixtures/customer.yaml"),
      "    with: { email: up@example.com }",
      "  - request:",
      "      method: POST",
      "      path: /partner/v1/customers/${customerId}/kyc/documents",
      "      multipart: { file: { base64: \"f0VMRgIBAQAAAAAAAAAAAA==\", filename: x.png }, type: SELFIE }",
      "    expect: { status: 201 }"
    ].join("\n"))
    const failed = await run([NodePath.join(dir, "up.yaml")])
    expect(failed.summary.exitCode).toBe(1)
    expect(failed.output).toContain('multipart file=<file "x.png" image/png 16 bytes> type="SELFIE"')
    expect(failed.output).toContain("UNSUPPORTED_DOCUMENT_TYPE")
  }, 60_000)

  it("follows a full URL on the service (url:) and refuses one elsewhere", async () => {
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "url-"))
    const file = NodePath.join(dir, "url.yaml")
    NodeFs.writeFileSync(file, [
      "name: A request by full URL",
      "description: url is resolved against the base URL",
      "steps:",
      "  - request: { method: GET, url: \"${baseUrl}/partner/v1/customers\" }",
      "    expect: { status: 200, body: { data: [] } }",
      "  - request: { method: GET, url: \"http://elsewhere.invalid/api/v1/partner/v1/customers\" }"
    ].join("\n"))
    const { summary, output } = await run([file])
    expect(summary.totals.steps).toMatchObject({ passed: 1, failed: 1 })
    expect(output).toContain('url "http://elsewhere.invalid/api/v1/partner/v1/customers" is not on the service under test')
  }, 60_000)

  it("stops at an invalid file before any step runs, naming file and line", async () => {
    const { summary, output } = await run([fixture("parallel.yaml"), fixture("invalid.yaml")])
    expect(summary.exitCode).toBe(1)
    expect(summary.results).toEqual([])
    expect(output).toContain("test/fixtures/scenarios/invalid.yaml:12:14  steps.2.expect.bodee: is unexpected")
    expect(output).toContain("nothing was run")
  })

  it("expands quoted globs, skips fixtures, and writes JUnit XML", async () => {
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "junit-"))
    const output = NodePath.join(dir, "report.xml")
    const { summary } = await run([fixture("{broken,parallel}.yaml"), fixture("fixtures/*.yaml")], { reporter: "junit", output })
    expect(summary.results.map((r) => r.scenario.name).sort()).toEqual(["A broken scenario", "Concurrent duplicates"])
    const xml = NodeFs.readFileSync(output, "utf8")
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="scenarios" tests="6" failures="1"/)
    expect(xml).toContain('<testcase classname="A broken scenario" name="an invalid email is accepted (it is not)"')
    expect(xml).toContain("<failure message=\"POST /partner/v1/customers: the response differs\">")
    expect(xml).toContain("status: expected 201 but got 400")
    expect(xml).toContain('name="never runs" time="0.000" file="test/fixtures/scenarios/broken.yaml" line="20"><skipped/>')
  })

  it("reports a glob that matches nothing", async () => {
    const { summary, output } = await run(["test/fixtures/scenarios/none-*.yaml"])
    expect(summary.exitCode).toBe(2)
    expect(output).toContain("no scenario files match")
  })
})

describe("scenario command", () => {
  // The command as `npm run scenario` runs it (the service's bundle, one node process), here with --url against this
  // file's service: the command's exit code and report are the same in both modes. Its in-process mode (a fresh
  // service per scenario) is the next test's, through runScenarios, and .ci/run runs the whole library with it.
  it("fails the deliberately broken scenario with a readable diff and a non-zero exit", async () => {
    // asynchronous (runServiceCommand): the service answering the command runs in this process
    const run = await runServiceCommand(["scenario", fixture("broken.yaml"), "--url", app.baseUrl], {}, 170_000)
    const result = { status: run.exit.code, stdout: run.stdout, stderr: run.stderr }
    expect(result.status, result.stderr).toBe(1)
    const out = result.stdout
    expect(out).toContain("✗ A broken scenario")
    expect(out).toContain("✓ a valid customer first")
    expect(out).toContain("✗ an invalid email is accepted (it is not)")
    expect(out).toContain("at test/fixtures/scenarios/broken.yaml:12")
    expect(out).toContain("expected vs actual:")
    expect(out).toContain("status: expected 201 but got 400")
    expect(out).toContain("body.data: expected an object but got (absent)")
    expect(out).toMatch(/response: 400 \{"success":false,"statusCode":400,"code":"BAD_REQUEST","message":"email: must be a valid email address"/)
    expect(out).toContain("- never runs skipped")
    expect(out).toContain("recent events (newest first):")
    expect(out).toMatch(/customer\.registered customer [0-9a-f-]{36}/)
    expect(out).toMatch(/Scenarios: 0 passed, 1 failed \(1\) · Steps: 1 passed, 1 failed, 1 skipped · Time: /)
  }, 180_000)

  it("replays the same ids, clock offsets and timestamps from the same seed, each scenario on its own service", async () => {
    const lines: Array<string> = []
    const options = {
      url: undefined,
      concurrency: 2,
      reporter: "console" as const,
      config: testConfig(),
      write: (t: string) => lines.push(t),
      color: false,
      template: pgliteTemplate()
    }
    // three copies of one file with one seed, two at a time: in-process, each gets a fresh service seeded alike; the
    // first two a new database each, the third one of theirs put back into the template's state (Target.ts)
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "seeded-"))
    for (const name of ["one.yaml", "two.yaml", "three.yaml"]) NodeFs.copyFileSync(fixture("deterministic.yaml"), NodePath.join(dir, name))
    const summary = await runScenarios({ ...options, patterns: [NodePath.join(dir, "*.yaml")] })
    expect(summary.exitCode, lines.join("\n")).toBe(0)
    expect(summary.results).toHaveLength(3)
    const [first, second, third] = summary.results.map((r) => r.variables)
    expect(first?.customerId).toMatch(/^[0-9a-f-]{36}$/)
    for (const name of ["partnerId", "apiKey", "customerId", "offsetSeconds"]) {
      expect(second?.[name]).toEqual(first?.[name])
      expect(third?.[name], `${name} on a reused database`).toEqual(first?.[name])
    }
    // the in-process clock is fixed at 2030-01-01T00:00:00Z and moves only when advanced: timestamps replay too
    expect(first?.clockNow).toBe("2030-01-01T00:00:00.000Z")
    expect(first?.createdAt).toBe("2030-01-01T00:00:00.000Z")
    expect(first?.advancedNow).toBe("2030-01-01T01:00:00.000Z")
    expect(first?.kycCreatedAt).toBe("2030-01-01T01:00:00.000Z")
    const timestamps = ["clockNow", "createdAt", "advancedNow", "kycCreatedAt", "eventCreatedAt", "verifiedAt"]
    for (const name of timestamps) {
      expect(first?.[name], name).toMatch(/^2030-01-01T0[01]:00:00\.000Z$/)
      expect(second?.[name], name).toEqual(first?.[name])
      expect(third?.[name], name).toEqual(first?.[name])
    }
  }, 180_000)
})
