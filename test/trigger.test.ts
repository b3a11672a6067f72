import { ConfigProvider, Effect, Redacted } from "effect"
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { catalog, flowsDir, isCustomerStage, loadFlow } from "../src/cli/trigger/Catalog.js"
import { type Io, main } from "../src/cli/trigger/Cli.js"
import { Partners } from "../src/partners/Partners.js"
import { processEnv } from "./support/ServerProcess.js"
import { startTestApp, type TestApp, testConfig } from "./support/TestApp.js"

/**
 * `npm run trigger` against a real sandbox (the whole service on a loopback port, its clock fixed so that no rail
 * answers by itself): every producible event type of docs/contract.md "Event types" is produced through the CLI entry in-process, as the
 * demo partner found from the environment like `npm start`'s, and read back from GET /sandbox/events.
 */

/** docs/contract.md "Events and webhooks", written out here (not read from the catalog under test). */
const specTypes = [
  "customer.registered", "kyc.status_updated", "kyc.reverification_requested", "deposit.received", "funding.received",
  "withdrawal.submitted", "withdrawal.completed", "withdrawal.failed", "withdrawal.reversed",
  "send.pending", "send.confirmed", "send.failed", "send.broadcast",
  "global_send.initiated", "global_send.completed", "global_send.failed", "global_send.enabled",
  "sale.completed", "purchase.completed",
  "partner.approved", "partner.rejected", "partner.resubmission_requested", "webhook.test"
]
const producible = specTypes.filter((type) => type !== "send.broadcast")

interface Captured {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly json: any
}

/** The global fetch before any run: a trigger run sends with its own recording fetch and never replaces this one. */
const globalFetch = globalThis.fetch

let app: TestApp
let demo: { partnerId: string; apiKey: string }
let env: ConfigProvider.ConfigProvider
let encryptionKeyHex: string

/** Runs the CLI entry in-process with the sandbox's HOST, PORT and ENCRYPTION_KEY as `npm start` would have them. */
const cli = async (args: ReadonlyArray<string>, provider: ConfigProvider.ConfigProvider = env): Promise<Captured> => {
  const out: Array<string> = []
  const err: Array<string> = []
  const io: Io = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), env: provider }
  const code = await main(args, io)
  const stdout = out.join("\n")
  let json: any
  if (args.includes("--print-json")) json = JSON.parse(stdout)
  return { code, stdout, stderr: err.join("\n"), json }
}

const eventsOf = async (apiKey: string, type: string) => {
  const reply = await app.request<any>("GET", `/sandbox/events?type=${type}&limit=100`, { apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data as Array<{ id: string; type: string; customerId: string | null; data: Record<string, unknown> }>
}

beforeAll(async () => {
  app = await startTestApp()
  const created = await app.run(Effect.flatMap(Partners, (partners) => partners.ensureDemo))
  demo = { partnerId: created.partner.id, apiKey: created.apiKey }
  const url = new URL(app.baseUrl)
  const encryptionKey = testConfig().encryptionKey
  if (encryptionKey._tag !== "Some") throw new Error("the test config has an encryption key")
  encryptionKeyHex = Redacted.value(encryptionKey.value)
  env = ConfigProvider.fromMap(new Map([
    ["HOST", url.hostname],
    ["PORT", url.port],
    ["ENCRYPTION_KEY", encryptionKeyHex]
  ]))
})

afterAll(async () => {
  await app?.close()
})

describe("npm run trigger -- --list", () => {
  it("lists every event type of the contract, one per line, and says why send.broadcast cannot be produced", async () => {
    const { code, stdout } = await cli(["--list"])
    expect(code).toBe(0)
    const lines = stdout.split("\n")
    for (const type of specTypes) expect(lines.filter((line) => line.trimStart().startsWith(`${type} `))).toHaveLength(1)
    expect(lines.find((line) => line.trimStart().startsWith("send.broadcast "))).toMatch(/not producible: deprecated/)
    expect(lines.find((line) => line.trimStart().startsWith("withdrawal.failed "))).toMatch(/bank rejects the payout/)
  })

  it("as JSON, in the contract's order", async () => {
    const { code, json } = await cli(["--list", "--print-json"])
    expect(code).toBe(0)
    expect(json.map((item: { type: string }) => item.type)).toEqual(specTypes)
    expect(json.filter((item: { producible: boolean }) => !item.producible).map((item: { type: string }) => item.type)).toEqual(["send.broadcast"])
  })
})

describe("the flows", () => {
  it("are valid scenario files; --customer skips exactly one customer stage where it is allowed, none exists elsewhere", () => {
    expect(catalog.map((entry) => entry.type)).toEqual(specTypes)
    for (const entry of catalog) {
      if (!entry.producible) continue
      const loaded = loadFlow(entry)
      expect(loaded._tag, `${entry.flow}: ${loaded._tag === "Invalid" ? loaded.message : ""}`).toBe("Flow")
      if (loaded._tag !== "Flow") continue
      expect(loaded.scenario.name.startsWith(`${entry.type} - `), entry.flow).toBe(true)
      expect(Object.keys(loaded.scenario.vars)[0], `${entry.flow}: runId comes first`).toBe("runId")
      expect(loaded.scenario.steps.filter(isCustomerStage).length, entry.flow).toBe(entry.customer.reusable ? 1 : 0)
    }
    const files = NodeFs.readdirSync(flowsDir).filter((file) => file.endsWith(".yaml")).sort()
    expect(files).toEqual(catalog.filter((entry) => entry.producible).map((entry) => `${entry.type}.yaml`).sort())
  })
})

describe("npm run trigger -- <type>", () => {
  it.each(producible)("%s: a real event of the type, in the partner's event log", async (type) => {
    const { code, json, stderr } = await cli([type, "--print-json"])
    expect(code, stderr).toBe(0)
    expect(json).toMatchObject({ type, ok: true, exitCode: 0, error: null, partnerId: demo.partnerId })
    expect(json.eventIds.length).toBeGreaterThanOrEqual(1)
    // one line per request on stderr (stdout carries only the JSON), each request in the JSON too
    expect(stderr.split("\n").filter((line) => /^ {2}(GET|POST|PUT) \/\S+ → \d{3} \d+ms$/.test(line))).toHaveLength(json.requests.length)
    expect(json.requests.every((r: { status: number }) => r.status >= 200 && r.status < 300 || r.status === 409)).toBe(true)

    const onNewPartner = type.startsWith("partner.") || type === "webhook.test"
    if (onNewPartner) {
      expect(json.eventsPartnerId).not.toBe(demo.partnerId)
      expect(json.eventsApiKey).toMatch(/^sk_/)
      expect(json.customerId).toBeNull()
    } else {
      expect(json.eventsPartnerId).toBe(demo.partnerId)
      expect(json.eventsApiKey).toBeNull()
      expect(json.customerId).toMatch(/^[0-9a-f-]{36}$/)
    }
    const logged = await eventsOf(onNewPartner ? json.eventsApiKey : demo.apiKey, type)
    for (const id of json.eventIds) {
      const event = logged.find((e) => e.id === id)
      expect(event, `${type} ${id} in GET /sandbox/events?type=${type}`).toBeDefined()
      expect(event!.type).toBe(type)
      if (!onNewPartner) expect(event!.customerId).toBe(json.customerId)
      else expect(event!.data.partnerId).toBe(json.eventsPartnerId)
    }
    // every event listed as produced is of this run's customer (or new partner), oldest first, the type among them
    expect(json.events.map((e: { type: string }) => e.type)).toContain(type)
    if (!onNewPartner) expect(json.events.every((e: { customerId: string }) => e.customerId === json.customerId)).toBe(true)
  })

  it("human output: a line per request, then the event ids produced", async () => {
    const { code, stdout } = await cli(["withdrawal.failed"])
    expect(code).toBe(0)
    const lines = stdout.split("\n")
    expect(lines[0]).toBe(`Triggering withdrawal.failed on ${app.baseUrl}`)
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}POST \/sandbox\/withdrawals\/[0-9a-f-]{36}\/fail → 200 \d+ms$/))
    expect(lines).toContainEqual(expect.stringMatching(/^✓ withdrawal\.failed [0-9a-f-]{36} for partner Demo Partner /))
    expect(lines.filter((line) => / {2}←$/.test(line))).toEqual([expect.stringMatching(/^ {4}withdrawal\.failed +[0-9a-f-]{36} {2}←$/)])
    expect(lines).toContainEqual(expect.stringMatching(/^ {4}withdrawal\.submitted +[0-9a-f-]{36}$/))
  })

  it("--set overrides a flow variable, typed like its default", async () => {
    const { code, json } = await cli(["withdrawal.failed", "--print-json", "--set", "amount=500", "--set", "reason=Beneficiary bank offline"])
    expect(code).toBe(0)
    const failed = (await eventsOf(demo.apiKey, "withdrawal.failed")).find((e) => e.id === json.eventIds[0])
    expect(failed?.data).toMatchObject({ totalDebited: "500.00", failureReason: "Beneficiary bank offline", status: "FAILED" })
    const magic = await cli(["kyc.status_updated", "--print-json", "--set", "bvn=00000000000"])
    expect(magic.code).toBe(0)
    const review = (await eventsOf(demo.apiKey, "kyc.status_updated")).find((e) => e.id === magic.json.eventIds[0])
    expect(review?.data).toMatchObject({ level: 1, status: "REVIEW" })
  })

  it("--customer reuses an existing customer: nothing registered, the events are that customer's", async () => {
    const registered = await cli(["customer.registered", "--print-json"])
    const customerId = registered.json.customerId as string
    const kyc = await cli(["kyc.status_updated", "--print-json", "--customer", customerId])
    expect(kyc.code, kyc.stderr).toBe(0)
    const sent = await cli(["withdrawal.completed", "--print-json", "--customer", customerId])
    expect(sent.code, sent.stderr).toBe(0)
    for (const run of [kyc, sent]) {
      expect(run.json.customerId).toBe(customerId)
      expect(run.json.requests.some((r: { method: string; path: string }) => r.method === "POST" && r.path === "/partner/v1/customers")).toBe(false)
      expect(run.json.events.map((e: { type: string }) => e.type)).not.toContain("customer.registered")
    }
    const again = await cli(["withdrawal.completed", "--print-json", "--customer", customerId, "--set", "amount=200"])
    expect(again.code, "the bank account saved by the first run is used as it is").toBe(0)
    const customers = await app.request<any>("GET", "/partner/v1/customers?limit=100", { apiKey: demo.apiKey })
    expect(customers.body.data.filter((c: { id: string }) => c.id === customerId)).toHaveLength(1)
  })

  it("a flow that fails exits 1 with the step, the response and a hint", async () => {
    const registered = await cli(["customer.registered", "--print-json"])
    const { code, stderr } = await cli(["funding.received", "--customer", registered.json.customerId])
    expect(code).toBe(1)
    expect(stderr).toContain("TIER1_REQUIRED")
    expect(stderr).toContain("✗ funding.received: a step of the flow failed")
    expect(stderr).toContain("with --customer, this flow needs a customer with Tier 1 approved")
  })

  it("usage errors exit 2 before anything is written", async () => {
    const before = await app.request<any>("GET", "/sandbox/events?limit=1", { apiKey: demo.apiKey })
    const unknown = await cli(["withdrawl.failed"])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("did you mean withdrawal.failed?")
    const broadcast = await cli(["send.broadcast"])
    expect(broadcast.code).toBe(2)
    expect(broadcast.stderr).toMatch(/send\.broadcast cannot be produced: deprecated/)
    const unknownVariable = await cli(["deposit.received", "--set", "amout=5"])
    expect(unknownVariable.code).toBe(2)
    expect(unknownVariable.stderr).toContain("amout: not a variable of this flow; its variables: email, asset, network, amount")
    const notANumber = await cli(["deposit.received", "--set", "amount=lots"])
    expect(notANumber.code).toBe(2)
    const notReusable = await cli(["partner.rejected", "--customer", "00000000-0000-4000-8000-000000000000"])
    expect(notReusable.code).toBe(2)
    expect(notReusable.stderr).toContain("--customer does not apply to partner.rejected")
    const foreign = await cli(["deposit.received", "--customer", "00000000-0000-4000-8000-000000000000"])
    expect(foreign.code).toBe(2)
    expect((await cli([])).code).toBe(2)
    expect((await cli(["a.b", "c.d"])).code).toBe(2)
    expect((await cli(["deposit.received", "--bogus"])).code).toBe(2)
    const after = await app.request<any>("GET", "/sandbox/events?limit=1", { apiKey: demo.apiKey })
    expect(after.body.data[0]?.id).toBe(before.body.data[0]?.id)
  })

  it("exits 3 when the sandbox cannot be reached or refuses the key", async () => {
    const refused = await cli(["deposit.received", "--api-key", "sk_sandbox_not_a_key"])
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain("refused the API key (401)")
    const closed = await cli(["deposit.received", "--url", "http://127.0.0.1:9"])
    expect(closed.code).toBe(3)
    expect(closed.stderr).toContain("cannot reach the sandbox at http://127.0.0.1:9/api/v1")
    const noKey = await cli(["deposit.received"], ConfigProvider.fromMap(new Map([["DATA_DIR", "/nonexistent/trigger-test"]])))
    expect(noKey.code).toBe(3)
    expect(noKey.stderr).toContain("no API key")
  })

  it("records each run's requests through its own fetch: the global fetch untouched, concurrent runs and other requests kept out", async () => {
    // requests to the same service by someone else in this process while the runs go on
    let running = true
    let outsiderRequests = 0
    let globalFetchReplaced = false
    const outsider = (async () => {
      while (running) {
        globalFetchReplaced ||= globalThis.fetch !== globalFetch
        const response = await fetch(`${app.baseUrl}/sandbox/partner?outsider=${outsiderRequests++}`, { headers: { "x-api-key": demo.apiKey } })
        await response.text()
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    })()
    const [withdrawal, deposit, unreachable] = await Promise.all([
      cli(["withdrawal.failed", "--print-json"]),
      cli(["deposit.received", "--print-json"]),
      cli(["deposit.received", "--print-json", "--url", "http://127.0.0.1:9"])
    ]).finally(() => (running = false))
    await outsider
    expect(globalThis.fetch).toBe(globalFetch)
    expect(globalFetchReplaced, "globalThis.fetch was replaced during a run").toBe(false)
    expect(outsiderRequests).toBeGreaterThan(1)

    expect(withdrawal.code, withdrawal.stderr).toBe(0)
    expect(deposit.code, deposit.stderr).toBe(0)
    const paths = (run: Captured) => run.json.requests.map((r: { method: string; path: string }) => `${r.method} ${r.path}`) as Array<string>
    for (const [run, other] of [[withdrawal, deposit], [deposit, withdrawal]] as const) {
      // one customer registered per run: the other run's registration is not in this run's log
      expect(paths(run).filter((line) => line === "POST /partner/v1/customers")).toHaveLength(1)
      expect(paths(run).filter((line) => line.includes(other.json.customerId))).toEqual([])
      expect(paths(run).filter((line) => line.includes("outsider"))).toEqual([])
      expect(run.json.requests.every((r: { status: number }) => r.status !== 0)).toBe(true)
      expect(run.stderr.split("\n").filter((line) => /^ {2}(GET|POST|PUT) \/\S+ → \d{3} \d+ms$/.test(line))).toHaveLength(run.json.requests.length)
    }
    expect(paths(withdrawal)).toContainEqual(expect.stringMatching(/^POST \/sandbox\/withdrawals\/[0-9a-f-]{36}\/fail$/))
    expect(paths(deposit).filter((line) => line.includes("/withdrawals"))).toEqual([])
    expect(paths(deposit)).toContain(`POST /sandbox/customers/${deposit.json.customerId}/deposits`)

    // a request that gets no answer is recorded with status 0, in its own run's log only
    expect(unreachable.code).toBe(3)
    expect(unreachable.json.requests).toEqual([{ method: "GET", path: "/sandbox/partner", status: 0, durationMs: expect.any(Number) }])
    expect(unreachable.stderr).toMatch(/^ {2}GET \/sandbox\/partner → no answer \(.+\) \d+ms$/m)
  })

  it("leaves the calling partner's KYB, rail policies and webhook as they were", async () => {
    const partner = await app.request<any>("GET", "/sandbox/partner", { apiKey: demo.apiKey })
    expect(partner.body.data).toMatchObject({ partnerId: demo.partnerId, kybStatus: "APPROVED" })
    const rails = await app.request<any>("GET", "/sandbox/rails", { apiKey: demo.apiKey })
    expect(rails.body.data.every((policy: { isDefault: boolean }) => policy.isDefault)).toBe(true)
    const webhook = await app.request<any>("GET", "/partner/v1/webhook", { apiKey: demo.apiKey })
    expect(webhook.body.data.url).toBeNull()
  })
})

describe("the command as a process", () => {
  it("npm run trigger's script runs, prints JSON and exits 0", async () => {
    const root = NodePath.resolve(__dirname, "..")
    const child = spawn(NodePath.join(root, "node_modules/.bin/tsx"), ["src/cli/trigger.ts", "deposit.received", "--print-json", "--set", "amount=7.25"], {
      cwd: root,
      env: processEnv({ HOST: new URL(app.baseUrl).hostname, PORT: new URL(app.baseUrl).port, ENCRYPTION_KEY: encryptionKeyHex }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve))
    expect(code, stderr).toBe(0)
    const result = JSON.parse(stdout)
    expect(result).toMatchObject({ type: "deposit.received", ok: true, partnerId: demo.partnerId })
    const deposit = (await eventsOf(demo.apiKey, "deposit.received")).find((e) => e.id === result.eventIds[0])
    expect(deposit?.data).toMatchObject({ asset: "USDT", network: "TRON", amount: 7.25 })
  })
})
