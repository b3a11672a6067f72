import { spawnSync } from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runServiceCommand, type ServerProcess, startServer, stopServer } from "./support/ServerProcess.js"

/**
 * The partner console in production mode, as real processes (docs/console.md "Production mode, end to end"): the
 * server (`serve` with SERVICE_MODE=production) and compliance's operator command (`partner-kyb <email> approve`)
 * as a second process on the same PostgreSQL database, both from the service's bundle (ServerProcess). A
 * business signs up, sets its company details, submits KYB, gets no key before the command approves it, then issues
 * a `sk_live_` key that works on `/partner/v1`.
 *
 * Production requires PostgreSQL (DATABASE_URL; the embedded database is refused). The test runs in the PostgreSQL
 * pass (TEST_DATABASE_URL, as `.ci/run` and `npm run test:pg` set it). Without it — outside CI — it starts its own
 * throwaway PostgreSQL 15 cluster with `.ci/pg.sh` when PostgreSQL 15 is installed; otherwise (and in CI's PGlite pass,
 * where the PostgreSQL pass runs it) it is skipped.
 */
const root = NodePath.resolve(__dirname, "..")
const pgBin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"
const givenServer = process.env.TEST_DATABASE_URL || undefined
const ownCluster = givenServer === undefined && !process.env.CI && NodeFs.existsSync(NodePath.join(pgBin, "pg_ctl"))
const describeProcess = givenServer !== undefined || ownCluster ? describe : describe.skip

/** The service's CLI with `args` and the server's environment, to its exit. */
const runCommand = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const { exit, stdout, stderr } = await runServiceCommand(args, env)
  return { code: exit.code, stdout, stderr }
}

const call = async (baseUrl: string, method: string, path: string, options: { token?: string; apiKey?: string; body?: unknown } = {}) => {
  const headers: Record<string, string> = {}
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.apiKey !== undefined) headers["x-api-key"] = options.apiKey
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(baseUrl + path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {})
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as any }
}

describeProcess("the console in production mode, as processes", () => {
  let serverUrl: string
  let pgTmp: string | undefined
  let databaseName: string
  let databaseUrl: string
  let dataDir: string
  let server: ServerProcess | undefined

  beforeAll(async () => {
    if (givenServer !== undefined) {
      serverUrl = givenServer
    } else {
      // A throwaway cluster, as .ci/run starts one for the PostgreSQL pass.
      const started = spawnSync("bash", [".ci/pg.sh", "start"], { cwd: root, encoding: "utf8", env: { ...process.env, PG_BIN: pgBin } })
      if (started.status !== 0) throw new Error(`could not start PostgreSQL:\n${started.stdout}\n${started.stderr}`)
      pgTmp = /PG_TMP=(\S+)/.exec(started.stdout)?.[1]
      serverUrl = /TEST_DATABASE_URL=(\S+)/.exec(started.stdout)![1]!
    }
    // pmm_t_: the suite's global teardown drops any such database left behind
    databaseName = `pmm_t_console_${NodeCrypto.randomBytes(6).toString("hex")}`
    const admin = new Pg.Client({ connectionString: serverUrl })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${databaseName}`)
    await admin.end()
    const url = new URL(serverUrl)
    url.pathname = `/${databaseName}`
    databaseUrl = url.toString()
    dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-console-process-"))
  })

  afterAll(async () => {
    if (server !== undefined) await stopServer(server)
    if (dataDir !== undefined) NodeFs.rmSync(dataDir, { recursive: true, force: true })
    if (serverUrl !== undefined && databaseName !== undefined) {
      const admin = new Pg.Client({ connectionString: serverUrl })
      await admin.connect()
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)
      await admin.end()
    }
    if (pgTmp !== undefined) spawnSync("bash", [".ci/pg.sh", "stop", pgTmp], { cwd: root, env: { ...process.env, PG_BIN: pgBin } })
  })

  it("signs up, submits KYB, gets no key until the operator command approves, then a sk_live_ key works on /partner/v1", async () => {
    const env = {
      PORT: "0",
      HOST: "127.0.0.1",
      SERVICE_MODE: "production",
      DATABASE_URL: databaseUrl,
      ENCRYPTION_KEY: NodeCrypto.randomBytes(32).toString("hex"),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warning"
    }
    server = await startServer(env)
    const base = server.baseUrl
    expect(server.stdout()).toContain("(production)")
    expect((await call(base, "GET", "/health")).body).toEqual({ success: true, data: { status: "ok", mode: "production" } })

    const email = `owner.${NodeCrypto.randomBytes(4).toString("hex")}@obipay.example.com`
    const password = "correct horse battery staple"
    const signUp = await call(base, "POST", "/partner/sign-up", { body: { email, password, companyName: "Obi Payments" } })
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(201)
    const token: string = signUp.body.data.session.accessToken
    const partnerId: string = signUp.body.data.console.partner.id
    expect(signUp.body.data.console.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "DRAFT" })

    const company = {
      legalName: "Obi Payments Ltd",
      registrationNumber: "RC 1234567",
      country: "NG",
      address: "12 Marina Road, Lagos",
      contactEmail: "compliance@obipay.example.com"
    }
    expect((await call(base, "PUT", "/partner/company", { token, body: company })).status).toBe(200)
    const submitted = await call(base, "POST", "/partner/kyb/submit", { token })
    expect(submitted.status).toBe(200)
    expect(submitted.body.data.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "UNDER_REVIEW" })

    // before approval: no key is issued, none is listed; the sandbox decision route does not exist in production
    const early = await call(base, "POST", "/partner/api-keys", { token })
    expect(early.status).toBe(403)
    expect(early.body.code).toBe("PARTNER_NOT_APPROVED")
    expect(early.body.message).toMatch(/^Your partner account is not yet approved/)
    expect((await call(base, "GET", "/partner/api-keys", { token })).body).toEqual({ success: true, data: [] })
    expect((await call(base, "POST", "/sandbox/console/kyb-decision", { token, body: { decision: "APPROVED" } })).status).toBe(404)
    expect((await call(base, "GET", "/sandbox/console/clock", { token })).status).toBe(404)
    // The web console from the built bundle's console/ directory: the production page (no sandbox extras), its
    // script, under the page's policy.
    const origin = base.replace(/\/api\/v1$/, "")
    const page = await fetch(`${origin}/console`)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(await page.text()).toContain(`<meta name="pmm-mode" content="production">`)
    const script = await fetch(`${origin}/console/app.js`)
    expect(script.status).toBe(200)
    expect(script.headers.get("content-type")).toMatch(/javascript/)
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(10_000)

    // the operator command refuses a rejection without a reason, and changes nothing
    const noReason = await runCommand(["partner-kyb", email, "reject"], env)
    expect(noReason.code, noReason.stdout + noReason.stderr).not.toBe(0)
    expect(noReason.stdout + noReason.stderr).toContain("reason: is required when decision is REJECTED")
    expect((await call(base, "GET", "/partner/me", { token })).body.data.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "UNDER_REVIEW" })
    expect((await call(base, "POST", "/partner/api-keys", { token })).status).toBe(403)

    // compliance approves with the operator command, a separate process on the same database
    const approve = await runCommand(["partner-kyb", email, "approve"], env)
    expect(approve.code, approve.stdout + approve.stderr).toBe(0)
    expect(approve.stdout).toContain(`partner ${partnerId}: KYB APPROVED`)
    expect((await call(base, "GET", "/partner/me", { token })).body.data.partner).toMatchObject({
      kybStatus: "APPROVED",
      kybStage: "APPROVED",
      kybReason: null
    })

    // a second decision: the command exits non-zero naming the stage
    const again = await runCommand(["partner-kyb", partnerId, "approve"], env)
    expect(again.code).not.toBe(0)
    expect(again.stdout + again.stderr).toContain("KYB is APPROVED: compliance decides only a KYB UNDER_REVIEW")

    const issued = await call(base, "POST", "/partner/api-keys", { token })
    expect(issued.status, JSON.stringify(issued.body)).toBe(201)
    const apiKey: string = issued.body.data.apiKey
    expect(apiKey).toMatch(/^sk_live_[0-9A-Za-z]{40,}$/)
    const customers = await call(base, "GET", "/partner/v1/customers", { apiKey })
    expect(customers.status, JSON.stringify(customers.body)).toBe(200)
    expect(customers.body.data).toEqual([])

    // the decision's event, written by the command's process
    const db = new Pg.Client({ connectionString: databaseUrl })
    await db.connect()
    try {
      const events = await db.query("SELECT type, data FROM events WHERE partner_id = $1 ORDER BY seq", [partnerId])
      expect(events.rows).toEqual([{ type: "partner.approved", data: { partnerId, status: "APPROVED" } }])
    } finally {
      await db.end()
    }

    // rotation in the running server: the old live key is refused at once
    const rotated = await call(base, "POST", "/partner/api-keys", { token })
    expect(rotated.status).toBe(201)
    expect((await call(base, "GET", "/partner/v1/customers", { apiKey })).status).toBe(401)
    expect((await call(base, "GET", "/partner/v1/customers", { apiKey: rotated.body.data.apiKey })).status).toBe(200)

    const exit = await stopServer(server)
    server = undefined
    expect(exit).toEqual({ code: 0, signal: null })
  }, 300_000)
})
