/**
 * Soak benchmark: does the service stay as fast as it was while its database fills?
 *
 *   npm run bench:soak                                  # 20,000 withdrawals in 10 runs, then 2 runs after a restart
 *   npm run bench:soak -- --withdrawals 4000 --runs 4   # a quick version
 *   npm run bench:soak -- --no-pg                       # PGlite only
 *   npm run bench:soak -- --stats                       # plus the embedded database's table statistics at the end
 *   npm run bench:soak -- --repo /tmp/before            # the service of another checkout (before/after)
 *
 * 1. The service as `npm start` runs it (package.json "start": its build step once, then the node command), sandbox
 *    mode, on a fresh embedded PGlite DATA_DIR in a temp dir.
 * 2. Seeding over HTTP: a partner, 200 customers (Tier 1, virtual account, credit, bank account), bank rail manual so
 *    that no payout job runs while measuring.
 * 3. `--runs` runs of withdrawals spread over the 200 customers (autocannon, 32 connections, a fixed number of
 *    withdrawals per run: `--withdrawals` / `--runs`): per run req/s, p99, and the service process's CPU per
 *    withdrawal (from /proc/<pid>/stat: with PGlite that includes the database engine, which runs in its thread).
 * 4. The service stopped (SIGTERM) and started again on the same data: 2 more runs.
 * 5. The same on PostgreSQL 15 (a throwaway cluster with default durability) when /usr/lib/postgresql/15/bin exists
 *    (PG_BIN overrides): the service's CPU and the cluster's CPU per withdrawal are printed separately.
 *
 * Goal (docs/performance.md "The embedded database as it fills"): the last run ≥ 0.9× the first, before and after
 * the restart. CPU per withdrawal is the figure to judge on a shared machine: req/s moves with whatever else runs.
 * Exits non-zero on a failed step or an unexpected non-2xx answer, never because the goal is not met.
 */
import autocannon from "autocannon"
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { alive, cleanup, clusterCpu, elapsed, freePort, log, onCleanup, processCpu, signalGroup, sleep, startThrowawayCluster, withClient } from "./BenchProcess.js"

const argv = process.argv.slice(2)
const usage = "usage: npm run bench:soak -- [--withdrawals N] [--runs N] [--restart-runs N] [--no-pg] [--stats] [--repo DIR]"
const option = (name: string, fallback: number) => {
  const index = argv.indexOf(name)
  if (index < 0) return fallback
  const value = Number(argv[index + 1])
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} needs a positive whole number\n${usage}`)
    process.exit(2)
  }
  return value
}
for (let i = 0; i < argv.length; i++) {
  if (["--withdrawals", "--runs", "--restart-runs", "--repo"].includes(argv[i]!)) i++
  else if (!["--no-pg", "--stats"].includes(argv[i]!)) {
    console.error(`unknown argument ${argv[i]}\n${usage}`)
    process.exit(2)
  }
}
const runs = option("--runs", 10)
const withdrawals = option("--withdrawals", 20_000)
const restartRuns = option("--restart-runs", 2)
const perRun = Math.ceil(withdrawals / runs)
const withPg = !argv.includes("--no-pg")
const showStats = argv.includes("--stats")
const connections = 32
const customerCount = 200
const seedConcurrency = 8
const withdrawAmount = 200 // NGN: fee 11.00
const creditAmount = 1_000_000_000
const pgBin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"
const repoIndex = argv.indexOf("--repo")
/** The checkout whose service is measured (--repo DIR: another checkout, for a before/after; default this one). */
const repoRoot = NodePath.resolve(repoIndex >= 0 ? argv[repoIndex + 1] ?? "" : fileURLToPath(new URL("../..", import.meta.url)))
const runTag = NodeCrypto.randomBytes(4).toString("hex")
const fmt = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")

// ---------------------------------------------------------------------------------------------------------------
// The service as `npm start` runs it: the build step once, then the final `node ...` command spawned directly, so
// that the spawned process is the serving one (its CPU is what /proc/<pid>/stat reports).

const startCommand = (() => {
  const script: string = JSON.parse(NodeFs.readFileSync(NodePath.join(repoRoot, "package.json"), "utf8")).scripts.start
  const parts = script.split("&&").map((part) => part.trim().replace(/^exec\s+/, ""))
  const last = parts.at(-1)!.split(/\s+/)
  if (last[0] !== "node") throw new Error(`bench:soak expects the start script to end in "node ...": ${script}`)
  return { build: parts.slice(0, -1), args: last.slice(1) }
})()

interface Service {
  readonly apiBase: string
  readonly origin: string
  readonly pid: number
  readonly output: () => string
  readonly stop: () => Promise<void>
}

const startService = async (env: Record<string, string>): Promise<Service> => {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, startCommand.args, {
    cwd: repoRoot,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DATABASE_URL: "", PORT: String(port), HOST: "127.0.0.1", SERVICE_MODE: "sandbox", LOG_LEVEL: "warning", ...env }
  })
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  let exited: number | null | undefined
  const exit = new Promise<void>((resolve) => child.on("exit", (code) => ((exited = code), resolve())))
  const kill = (signal: NodeJS.Signals) => signalGroup(child.pid, signal)
  const forget = onCleanup("kill the service", () => kill("SIGKILL"))
  const origin = `http://127.0.0.1:${port}`
  const started = performance.now()
  for (;;) {
    if (exited !== undefined) throw new Error(`the service exited with ${exited} before answering:\n${output}`)
    if (elapsed(started) > 180) throw new Error(`the service did not answer GET /health within 180 s:\n${output}`)
    if (await fetch(`${origin}/api/v1/health`).then((r) => r.status === 200, () => false)) break
    await sleep(20)
  }
  log(`  service pid ${child.pid} ready ${fmt(elapsed(started), 2)} s after spawn`)
  return {
    apiBase: `${origin}/api/v1`, origin, pid: child.pid!, output: () => output,
    stop: async () => {
      kill("SIGTERM")
      const timer = setTimeout(() => kill("SIGKILL"), 15_000)
      await exit
      clearTimeout(timer)
      for (let i = 0; i < 300 && alive(child.pid!); i++) await sleep(20)
      forget()
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding over HTTP, as bench:http seeds (test/bench/http.ts runs its benchmark when imported, so its own service
// and seeding functions are not importable; the process plumbing is shared through BenchProcess.ts).

const seed = async (service: Service) => {
  const started = performance.now()
  const call = async (method: string, path: string, apiKey: string | undefined, body?: unknown) => {
    const response = await fetch(`${service.apiBase}${path}`, {
      method,
      headers: { ...(apiKey ? { "x-api-key": apiKey } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
    const text = await response.text()
    if (response.status !== 200 && response.status !== 201) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
    return JSON.parse(text) as { data: any }
  }
  const apiKey: string = (await call("POST", "/sandbox/partners", undefined, { name: "bench-soak" })).data.apiKey
  await call("PUT", "/sandbox/rails/bank", apiKey, { mode: "manual" })
  const ids: Array<string> = []
  let next = 0
  const worker = async () => {
    for (let i = next++; i < customerCount; i = next++) {
      const customer = await call("POST", "/partner/v1/customers", apiKey, {
        firstName: "Soak", lastName: `Customer${i}`, email: `soak.${runTag}.${i}@example.com`, phoneNumber: "+2348012345678", country: "NG"
      })
      const base = `/partner/v1/customers/${customer.data.id}`
      await call("POST", `${base}/kyc/tier1`, apiKey, { bvn: "12345678901", nin: "10987654321" })
      await call("GET", `${base}/virtual-account`, apiKey)
      await call("POST", `/sandbox/customers/${customer.data.id}/virtual-account/credit`, apiKey, { amount: creditAmount })
      await call("POST", `${base}/accounts`, apiKey, { bankCode: "058", accountNumber: "0123456789" })
      ids.push(customer.data.id)
    }
  }
  await Promise.all(Array.from({ length: seedConcurrency }, worker))
  log(`  seeded ${customerCount} customers over HTTP in ${fmt(elapsed(started), 1)} s`)
  return { apiKey, customers: ids }
}

// ---------------------------------------------------------------------------------------------------------------
// Runs

interface Run { readonly label: string; readonly reqPerSec: number; readonly p99Ms: number; readonly serviceCpuMs: number; readonly postgresCpuMs: number }

let reference = 0
let unexpected = 0

const withdrawRun = async (service: Service, seeded: { apiKey: string; customers: Array<string> }, label: string, postmasterPid?: number): Promise<Run> => {
  let i = 0
  const statuses: Record<string, number> = {}
  const cpuBefore = processCpu(service.pid)
  const pgBefore = clusterCpu(postmasterPid)
  const result = await autocannon({
    url: service.origin,
    connections,
    ...({ amount: perRun } as {}), // autocannon's `amount`: stop after this many requests
    timeout: 30,
    headers: { "x-api-key": seeded.apiKey, "content-type": "application/json" },
    requests: [{
      method: "POST",
      setupRequest: (request) => ({
        ...request,
        path: `/api/v1/partner/v1/customers/${seeded.customers[i++ % seeded.customers.length]}/withdraw`,
        body: JSON.stringify({ amount: withdrawAmount, reference: `soak-${runTag}-${reference++}` })
      }),
      onResponse: (status) => {
        if (status < 200 || status >= 300) statuses[status] = (statuses[status] ?? 0) + 1
      }
    }]
  })
  const ok = result["2xx"]
  const run: Run = {
    label,
    reqPerSec: ok / result.duration,
    p99Ms: result.latency.p99,
    serviceCpuMs: ((processCpu(service.pid) - cpuBefore) * 1000) / ok,
    postgresCpuMs: ((clusterCpu(postmasterPid) - pgBefore) * 1000) / ok
  }
  // 503 CUSTOMER_BUSY is documented back-pressure; anything else is a failure of the run.
  unexpected += Object.entries(statuses).filter(([status]) => status !== "503").reduce((n, [, c]) => n + c, 0) + result.errors + result.timeouts
  log(`  ${label.padEnd(12)} ${String(ok).padStart(6)} withdrawals  ${fmt(run.reqPerSec, 0).padStart(5)} req/s  p99 ${String(run.p99Ms).padStart(5)} ms  ` +
    `service CPU ${fmt(run.serviceCpuMs, 2)} ms/withdrawal` +
    (postmasterPid === undefined ? "" : `  PostgreSQL CPU ${fmt(run.postgresCpuMs, 2)} ms/withdrawal`) +
    (Object.keys(statuses).length > 0 ? `  non-2xx ${JSON.stringify(statuses)}` : ""))
  return run
}

const soak = async (label: string, env: Record<string, string>, postmasterPid?: number) => {
  log(`\n${label}: ${runs} runs of ${perRun} withdrawals over ${customerCount} customers, then a restart and ${restartRuns} more`)
  const service = await startService(env)
  const seeded = await seed(service)
  const before: Array<Run> = []
  for (let r = 0; r < runs; r++) before.push(await withdrawRun(service, seeded, `run ${r + 1}`, postmasterPid))
  await service.stop()
  log("  restart on the same data")
  const again = await startService(env)
  const after: Array<Run> = []
  for (let r = 0; r < restartRuns; r++) after.push(await withdrawRun(again, seeded, `restart ${r + 1}`, postmasterPid))
  await again.stop()
  const trend = (runs: Array<Run>, f: (run: Run) => number) => f(runs.at(-1)!) / f(runs[0]!)
  const summary = (what: string, list: Array<Run>, base: Run) =>
    log(`  ${what}: req/s ${fmt(base.reqPerSec, 0)} → ${fmt(list.at(-1)!.reqPerSec, 0)} (${fmt(trend([base, list.at(-1)!], (r) => r.reqPerSec), 2)}×), ` +
      `service CPU per withdrawal ${fmt(base.serviceCpuMs, 2)} → ${fmt(list.at(-1)!.serviceCpuMs, 2)} ms ` +
      `(throughput by CPU ${fmt(base.serviceCpuMs / list.at(-1)!.serviceCpuMs, 2)}×; goal ≥ 0.9×)`)
  summary("first run → last run", before, before[0]!)
  summary("first run → last run after the restart", after, before[0]!)
  return { before, after }
}

const tableStats = async (dataDir: string) => {
  const { PGlite } = await import("@electric-sql/pglite")
  const db = await PGlite.create({ dataDir: `${dataDir}/pgdata` })
  try {
    // pg_stat_* counters live in the process that ran the service (PGlite keeps none across a restart); pg_class
    // keeps what the last ANALYZE / VACUUM wrote: reltuples -1 means never analysed.
    const { rows } = await db.query<Record<string, unknown>>(
      "SELECT c.relname, c.reltuples, c.relpages, pg_relation_size(c.oid) / 8192 AS pages_now, c.relallvisible " +
        "FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace ORDER BY pg_relation_size(c.oid) DESC LIMIT 10")
    log("  the embedded database's largest tables after the soak (pg_class: what the last ANALYZE / VACUUM recorded):")
    for (const row of rows) log(`    ${JSON.stringify(row)}`)
  } finally {
    await db.close()
  }
}

const main = async () => {
  log(`bench:soak — ${NodeOs.cpus().length} CPUs, node ${process.version}, load average ${NodeOs.loadavg().map((n) => n.toFixed(2)).join(" ")} ` +
    "(a shared machine moves req/s; judge by CPU per withdrawal)")
  for (const step of startCommand.build) execFileSync("sh", ["-c", step], { cwd: repoRoot, stdio: "inherit" })
  const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-bench-soak-"))
  onCleanup("remove the data dir", () => NodeFs.rmSync(dataDir, { recursive: true, force: true }))
  await soak("PGlite (DATA_DIR)", { DATA_DIR: dataDir })
  if (showStats) await tableStats(dataDir)
  if (withPg && NodeFs.existsSync(`${pgBin}/initdb`)) {
    const cluster = await startThrowawayCluster(pgBin, "pmm-bench-soak-pg-")
    await withClient(cluster.adminUrl, (client) => client.query("CREATE DATABASE soak"))
    const url = cluster.adminUrl.replace(/\/postgres$/, "/soak")
    await soak("PostgreSQL 15", { DATABASE_URL: url, DATA_DIR: dataDir }, cluster.postmasterPid)
  } else if (withPg) log(`\nPostgreSQL: skipped (no ${pgBin}/initdb)`)
  if (unexpected > 0) {
    log(`FAILED: ${unexpected} unexpected answers or errors`)
    process.exitCode = 1
  }
}

main().then(cleanup, (error) => {
  console.error(error)
  cleanup()
  process.exit(1)
})
