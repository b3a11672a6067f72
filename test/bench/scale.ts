/**
 * Read paths at scale: the customer list (first page and deep pages through cursors) and the balance, over real
 * HTTP, with 100,000 customers and 1,000,000 ledger entries in PostgreSQL. docs/benchmarks-scale.md has the figures.
 *
 *   npm run bench:scale                          # throwaway PostgreSQL 15 cluster, 10 s per workload (about 4 minutes)
 *   npm run bench:scale -- --seconds 30          # longer workloads
 *   npm run bench:scale -- --quick               # 3 s per workload
 *   npm run bench:scale -- --customers 10000     # a smaller data set (10 ledger entries per customer either way)
 *   npm run bench:scale -- --connections 8       # other concurrency (the goal is stated for 32)
 *   npm run bench:scale -- --workers 2           # the measured service as two processes (WORKERS=2, both cores)
 *   npm run bench:scale -- --profile .tmp/prof   # the measured service under node --cpu-prof (.cpuprofile there)
 *
 * 1. A throwaway PostgreSQL 15 cluster (initdb from PG_BIN, default /usr/lib/postgresql/15/bin, as user postgres
 *    when run as root) with default settings, private port and socket dir, stopped and removed on exit, failure or
 *    SIGINT/SIGTERM/SIGHUP.
 * 2. The real service (`tsx src/main.ts serve`, sandbox mode, DATABASE_URL): it migrates the database. Three
 *    partners over HTTP (POST /sandbox/partners); then a bulk seed in SQL (generate_series): customers interleaved
 *    over the partners, 96 % to the main one (its list is deep), the other two 2 % each; one NGN available account per
 *    customer; 5 journal transactions per customer (3 credits from, 2 debits to the `bank_settlement` house account),
 *    each with its outbox event: 10 entries per customer, balanced per transaction, balance_after set, the cached
 *    balance the sum of the entries, never negative. VACUUM ANALYZE afterwards.
 * 3. EXPLAIN (ANALYZE, BUFFERS) of the statements the measured requests run (API-key lookup, owned customer,
 *    customer page first / deep / small partner, balances), printed and written to .tmp/bench-scale-plans.txt.
 * 4. Cursors: the main partner's whole list walked over HTTP (limit 100), keeping every nextCursor.
 * 5. autocannon, 32 keep-alive connections (after a warm-up): (a) first page of the main partner's list,
 *    (b) the deep pages, their cursors round-robin, (c) the first page of a small partner (2 % of the rows,
 *    interleaved with the main partner's), (d) GET balance over every customer of the main partner in random
 *    order. req/s, p50, p99, CPU per request of the service and of PostgreSQL; met / not met against p99 ≤ 20 ms.
 * 6. `tsx src/main.ts ledger-check` on the seeded (and benchmarked) database: the seed keeps every invariant.
 *    Results also in .tmp/bench-scale.json. Exits non-zero on a failed step, a non-2xx answer or a ledger violation
 *    (a p99 above the goal is reported, not a failure).
 *
 * The load generator (this process), the service and PostgreSQL share the machine's cores.
 */
import autocannon from "autocannon"
import { spawn, type ChildProcess } from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { cleanup, clusterCpu, machineCpu, elapsed, freePort, log, onCleanup, runProcess, servingProcess, signalGroup, sleep, startThrowawayCluster, treeCpu, withClient } from "./BenchProcess.js"

// ---------------------------------------------------------------------------------------------------------------
// Settings

const argv = process.argv.slice(2)
const option = (name: string) => {
  const at = argv.indexOf(name)
  return at >= 0 ? argv[at + 1] : undefined
}
const quick = argv.includes("--quick")
const seconds = Number(option("--seconds") ?? (quick ? 3 : 10))
const customerCount = Number(option("--customers") ?? 100_000)
const connections = Number(option("--connections") ?? 32)
/** `--workers N`: the measured service runs as N processes sharing its port (WORKERS, docs/operations.md). */
const workers = Number(option("--workers") ?? 1)
if (![seconds, customerCount, connections, workers].every((n) => Number.isInteger(n) && n >= 1) || customerCount < 100) {
  console.error("usage: npm run bench:scale -- [--seconds N] [--quick] [--customers N>=100] [--connections N] [--workers N]")
  process.exit(2)
}
const transactionsPerCustomer = 5 // two entries each: 10 entries per customer
const entryCount = customerCount * transactionsPerCustomer * 2
const warmupSeconds = quick ? 1 : 3
const goalP99Ms = 20
const walkLimit = 100
/** `--profile DIR`: the measured service runs with node --cpu-prof, its .cpuprofile written to DIR when it stops. */
const profileDir = option("--profile")
const pgBin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"
const repoRoot = NodePath.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const tsxBin = NodePath.join(repoRoot, "node_modules/.bin/tsx")
const outputFile = NodePath.join(repoRoot, ".tmp/bench-scale.json")
const plansFile = NodePath.join(repoRoot, ".tmp/bench-scale-plans.txt")
const fmt = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")

// Cleanup, /proc readings and child processes: ./BenchProcess.ts (shared with bench:http).
const machineBusy = () => machineCpu().busy

// ---------------------------------------------------------------------------------------------------------------
// Child processes

const startCluster = async () => {
  const cluster = await startThrowawayCluster(pgBin, "pmm-bench-scale-pg-")
  return { ...cluster, url: `postgresql://postgres@127.0.0.1:${cluster.port}/pmm_bench_scale` }
}

interface Service {
  readonly origin: string
  readonly apiBase: string
  readonly pid: number
  /** CPU seconds the service has used so far: every process of its tree (with WORKERS, the workers too). */
  readonly cpu: () => number
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/**
 * One key for every start of the run: each start has a DATA_DIR of its own, and without ENCRYPTION_KEY each would
 * generate a key there, which the database (sealed by the first start) refuses on the second.
 */
const encryptionKey = NodeCrypto.randomBytes(32).toString("hex")

const startService = async (env: Record<string, string>, nodeArgs: Array<string> = []): Promise<Service> => {
  const port = await freePort()
  const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-bench-scale-data-"))
  onCleanup("remove the service data dir", () => NodeFs.rmSync(dataDir, { recursive: true, force: true }))
  const started = performance.now()
  const child: ChildProcess = spawn(tsxBin, [...nodeArgs, "src/main.ts", "serve"], {
    cwd: repoRoot,
    detached: true, // its own process group: a Ctrl-C reaches this script, which stops it
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", SERVICE_MODE: "sandbox", LOG_LEVEL: "warning", ENCRYPTION_KEY: encryptionKey, ...env }
  })
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  let exited: number | null | undefined = undefined
  const exit = new Promise<void>((resolve) => child.on("exit", (code, signal) => {
    exited = code ?? (signal ? 128 : null)
    resolve()
  }))
  const killGroup = (signal: NodeJS.Signals) => signalGroup(child.pid, signal)
  const forget = onCleanup("kill the service", () => killGroup("SIGKILL"))
  const origin = `http://127.0.0.1:${port}`
  const apiBase = `${origin}/api/v1`
  for (;;) {
    if (exited !== undefined) throw new Error(`the service exited with ${exited} before answering:\n${output}`)
    if (elapsed(started) > 180) throw new Error(`the service did not answer GET /health within 180 s:\n${output}`)
    if (await fetch(`${apiBase}/health`).then((response) => response.status === 200, () => false)) break
    await sleep(20)
  }
  const server = servingProcess(child.pid!, port)
  if (server === undefined) throw new Error(`cannot find the service's node process under pid ${child.pid}`)
  log(`  service: ${apiBase}, node pid ${server.pid}, first 200 on /health after ${fmt(elapsed(started), 1)} s`)
  return {
    origin, apiBase, pid: server.pid,
    cpu: () => treeCpu(child.pid!),
    output: () => output,
    stop: async () => {
      try {
        process.kill(server.pid, "SIGTERM")
      } catch {
        // gone
      }
      const timer = setTimeout(() => killGroup("SIGKILL"), 15_000)
      await exit
      clearTimeout(timer)
      forget()
    }
  }
}

const call = async (service: Service, method: string, path: string, apiKey?: string, body?: unknown) => {
  const response = await fetch(`${service.apiBase}${path}`, {
    method,
    headers: { ...(apiKey ? { "x-api-key": apiKey } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {})
  })
  const text = await response.text()
  if (response.status < 200 || response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  return JSON.parse(text) as { data: any; meta?: { nextCursor?: string | null } }
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding in SQL

interface SeedPartner { readonly id: string; readonly apiKey: string; readonly name: string }

/**
 * Customers interleaved over the partners by generate_series position: 1 in 50 to each small partner, the rest to
 * the main one. Per customer: one NGN available account; transactions k = 1..5, credits (k = 1, 2, 4) of 10,000
 * and debits (k = 3, 5) of 5,000 minor units times m = 1 + seq % 7, each against the NGN bank_settlement house
 * account, so the running balance is 10,000 m, 20,000 m, 15,000 m, 25,000 m, 20,000 m: never negative, and the
 * cached balance is 20,000 m = the sum of the customer's entries.
 */
const seedSql = async (url: string, main: SeedPartner, small: ReadonlyArray<SeedPartner>) =>
  withClient(url, async (client) => {
    const step = async (label: string, text: string, params: Array<unknown> = []) => {
      const started = performance.now()
      const result = await client.query(text, params)
      log(`  ${label.padEnd(44)} ${String(result.rowCount ?? "").padStart(9)} rows  ${fmt(elapsed(started), 1)} s`)
      return result
    }
    await client.query("SET synchronous_commit = off")
    // Bulk load: no per-row foreign-key triggers (the seed is consistent by construction; ledger-check verifies it
    // at the end). Superuser only: the throwaway cluster's postgres.
    await client.query("SET session_replication_role = replica")
    await client.query("SET maintenance_work_mem = '256MB'")
    await client.query("SET work_mem = '64MB'")
    await step("customers", `
      INSERT INTO customers (id, partner_id, first_name, last_name, middle_name, email, phone_number, country, currency,
                             verified_at, created_at, updated_at)
      SELECT gen_random_uuid(),
             CASE WHEN g % 50 = 0 THEN $2::uuid WHEN g % 50 = 25 THEN $3::uuid ELSE $1::uuid END,
             'Scale', 'Customer' || g, NULL, 'scale.' || g || '@example.com', '+2348012345678', 'NG', 'NGN',
             CASE WHEN g % 3 = 0 THEN NULL ELSE timestamptz '2024-01-01' + g * interval '1 second' END,
             timestamptz '2024-01-01' + g * interval '1 second', timestamptz '2024-01-01' + g * interval '1 second'
      FROM generate_series(1, $4::int) AS g ORDER BY g`, [main.id, small[0]!.id, small[1]!.id, customerCount])
    await step("house account bank_settlement NGN", `
      INSERT INTO ledger_accounts (id, kind, customer_id, code, currency, balance, created_at)
      VALUES (gen_random_uuid(), 'house', NULL, 'bank_settlement', 'NGN', 0, timestamptz '2024-01-01')
      ON CONFLICT DO NOTHING`)
    await step("customer NGN available accounts", `
      INSERT INTO ledger_accounts (id, kind, customer_id, code, currency, balance, created_at)
      SELECT gen_random_uuid(), 'available', c.id, 'available', 'NGN', 20000 * (1 + c.seq % 7), c.created_at
      FROM customers c WHERE c.partner_id = ANY($1::uuid[]) ORDER BY c.seq`, [[main.id, ...small.map((p) => p.id)]])
    await step("journal plan (temporary table)", `
      CREATE TEMPORARY TABLE seed_tx AS
      SELECT gen_random_uuid() AS tx_id, gen_random_uuid() AS event_id, c.id AS customer_id, c.partner_id, c.seq,
             a.id AS account_id, k,
             (CASE WHEN k IN (3, 5) THEN -5000 ELSE 10000 END) * (1 + c.seq % 7) AS amount,
             (ARRAY[10000, 20000, 15000, 25000, 20000])[k] * (1 + c.seq % 7) AS balance_after,
             c.created_at + k * interval '1 day' AS at
      FROM customers c
      JOIN ledger_accounts a ON a.customer_id = c.id AND a.kind = 'available' AND a.currency = 'NGN'
      CROSS JOIN generate_series(1, ${transactionsPerCustomer}) AS k
      WHERE c.partner_id = ANY($1::uuid[])`, [[main.id, ...small.map((p) => p.id)]])
    await step("events (one per journal transaction)", `
      INSERT INTO events (id, partner_id, customer_id, type, data, created_at)
      SELECT event_id, partner_id, customer_id,
             CASE WHEN amount > 0 THEN 'funding.received' ELSE 'withdrawal.completed' END,
             jsonb_build_object('customerId', customer_id, 'amount', abs(amount) / 100.0, 'currency', 'NGN'), at
      FROM seed_tx ORDER BY at, seq`)
    await step("ledger_transactions", `
      INSERT INTO ledger_transactions (id, partner_id, customer_id, reason, resource_type, resource_id, reference, event_id, created_at)
      SELECT tx_id, partner_id, customer_id,
             CASE WHEN amount > 0 THEN 'funding' ELSE 'withdrawal' END,
             CASE WHEN amount > 0 THEN 'funding_receipt' ELSE 'withdrawal' END,
             'scale-' || seq || '-' || k, 'scale-' || seq || '-' || k, event_id, at
      FROM seed_tx ORDER BY at, seq`)
    await step("ledger_entries (customer side + house side)", `
      INSERT INTO ledger_entries (id, transaction_id, account_id, currency, amount, balance_after)
      SELECT gen_random_uuid(), t.tx_id, CASE WHEN side = 1 THEN t.account_id ELSE h.id END, 'NGN',
             CASE WHEN side = 1 THEN t.amount ELSE -t.amount END,
             CASE WHEN side = 1 THEN t.balance_after END
      FROM seed_tx t
      CROSS JOIN (SELECT id FROM ledger_accounts WHERE kind = 'house' AND code = 'bank_settlement' AND currency = 'NGN') h
      CROSS JOIN generate_series(1, 2) AS side
      ORDER BY t.at, t.seq, side`)
    await client.query("DROP TABLE seed_tx")
    await client.query("SET session_replication_role = DEFAULT")
    const started = performance.now()
    await client.query("VACUUM ANALYZE")
    log(`  ${"VACUUM ANALYZE".padEnd(44)} ${"".padStart(9)}       ${fmt(elapsed(started), 1)} s`)
    const sizes = await client.query<{ name: string; rows: string; size: string }>(`
      SELECT c.relname AS name, c.reltuples::bigint::text AS rows, pg_size_pretty(pg_total_relation_size(c.oid)) AS size
      FROM pg_class c WHERE c.relname IN ('customers', 'ledger_accounts', 'ledger_transactions', 'ledger_entries', 'events')
      ORDER BY c.relname`)
    log(`  tables (rows, with indexes): ${sizes.rows.map((r) => `${r.name} ${r.rows} ${r.size}`).join(", ")}`)
    const counts = await client.query<{ partner_id: string; n: string }>(
      "SELECT partner_id, count(*)::text AS n FROM customers GROUP BY partner_id ORDER BY count(*) DESC")
    return Object.fromEntries(counts.rows.map((row) => [row.partner_id, Number(row.n)]))
  })

// ---------------------------------------------------------------------------------------------------------------
// Plans: the statements the measured requests run, with the service's text (PartnersRepo.findByKeyHash,
// CustomersRepo.findOwned / page, Ledger.balances)

const explainAll = async (url: string, main: SeedPartner, small: SeedPartner) =>
  withClient(url, async (client) => {
    const keyHash = (await client.query<{ key_hash: Buffer }>(
      "SELECT key_hash FROM api_keys WHERE partner_id = $1 AND revoked_at IS NULL LIMIT 1", [main.id])).rows[0]!.key_hash
    const seqs = (await client.query<{ mid: string; deep: string }>(`
      SELECT (percentile_disc(0.5) WITHIN GROUP (ORDER BY seq))::text AS mid,
             (percentile_disc(0.01) WITHIN GROUP (ORDER BY seq))::text AS deep
      FROM customers WHERE partner_id = $1`, [main.id])).rows[0]!
    const some = (await client.query<{ id: string }>(
      "SELECT id FROM customers WHERE partner_id = $1 ORDER BY seq OFFSET 1000 LIMIT 1", [main.id])).rows[0]!.id
    const statements: Array<{ label: string; text: string; params: Array<unknown> }> = [
      {
        label: "auth: API key lookup (PartnersRepo.findByKeyHash)",
        text: `SELECT p.id, p.name, p.kyb_status, p.kyb_reason, p.is_demo, p.created_at, p.updated_at, k.key_hash
               FROM api_keys k JOIN partners p ON p.id = k.partner_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        params: [keyHash]
      },
      { label: "list: first page, main partner", text: "SELECT * FROM customers WHERE partner_id = $1 ORDER BY seq DESC LIMIT $2", params: [main.id, 21] },
      { label: "list: page in the middle, main partner", text: "SELECT * FROM customers WHERE partner_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3", params: [main.id, seqs.mid, 21] },
      { label: "list: page near the end, main partner", text: "SELECT * FROM customers WHERE partner_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3", params: [main.id, seqs.deep, 21] },
      { label: "list: first page, small partner", text: "SELECT * FROM customers WHERE partner_id = $1 ORDER BY seq DESC LIMIT $2", params: [small.id, 21] },
      { label: "list: page in the middle, small partner", text: "SELECT * FROM customers WHERE partner_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3", params: [small.id, seqs.mid, 21] },
      { label: "balance: owned customer (CustomersRepo.findOwned)", text: "SELECT * FROM customers WHERE id = $1 AND partner_id = $2", params: [some, main.id] },
      { label: "balance: accounts (Ledger.balances)", text: "SELECT currency, kind, balance FROM ledger_accounts WHERE customer_id = $1 ORDER BY currency", params: [some] },
      {
        label: "transactions: first page (LedgerReads.entries; not a workload here)",
        text: `SELECT e.seq, e.id, e.amount, e.currency, e.balance_after, t.id AS transaction_id, t.reason, t.reference,
                      t.resource_type, t.resource_id, t.created_at
               FROM ledger_entries e
               JOIN ledger_accounts a ON a.id = e.account_id
               JOIN ledger_transactions t ON t.id = e.transaction_id
               WHERE a.customer_id = $1 AND a.kind = 'available'
               ORDER BY e.seq DESC LIMIT $2`,
        params: [some, 21]
      }
    ]
    const out: Array<{ label: string; plan: string; executionMs: number }> = []
    for (const statement of statements) {
      // Twice: the second run is the one kept (warm cache, as under load).
      await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.params)
      const result = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.params)
      const plan = result.rows.map((row) => row["QUERY PLAN"]).join("\n")
      out.push({ label: statement.label, plan, executionMs: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN) })
    }
    return out
  })

// ---------------------------------------------------------------------------------------------------------------
// Workloads

interface Workload {
  readonly name: string
  readonly reqPerSec: number
  readonly p50Ms: number
  readonly p90Ms: number
  readonly p99Ms: number
  readonly ok: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly samples: Array<string>
  readonly serviceCpuMsPerReq: number
  readonly postgresCpuMsPerReq: number
  readonly loadgenCpuMsPerReq: number
  readonly met: boolean
}

const drive = async (service: Service, postmasterPid: number, name: string, apiKey: string, path: () => string, duration: number, quiet = false): Promise<Workload> => {
  const samples: Array<string> = []
  const appBefore = service.cpu()
  const pgBefore = clusterCpu(postmasterPid)
  const selfBefore = process.cpuUsage()
  const result = await autocannon({
    url: service.origin,
    connections,
    duration,
    pipelining: 1,
    timeout: 30,
    headers: { "x-api-key": apiKey },
    requests: [{
      method: "GET",
      setupRequest: (request) => ({ ...request, path: path() }),
      onResponse: (status, body) => {
        if ((status < 200 || status >= 300) && samples.length < 3) samples.push(`${status} ${body.slice(0, 300)}`)
      }
    }]
  })
  const ok = result["2xx"]
  const self = process.cpuUsage(selfBefore)
  const workload: Workload = {
    name,
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p90Ms: result.latency.p90,
    p99Ms: result.latency.p99,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    samples,
    serviceCpuMsPerReq: ((service.cpu() - appBefore) * 1000) / ok,
    postgresCpuMsPerReq: ((clusterCpu(postmasterPid) - pgBefore) * 1000) / ok,
    loadgenCpuMsPerReq: ((self.user + self.system) / 1000) / ok,
    met: result.latency.p99 <= goalP99Ms && result.non2xx + result.errors + result.timeouts === 0
  }
  if (!quiet) {
    log(`  ${name.padEnd(34)} ${fmt(workload.reqPerSec, 0).padStart(6)} req/s  p50 ${workload.p50Ms} ms  p90 ${workload.p90Ms} ms  ` +
      `p99 ${workload.p99Ms} ms  ${ok} 2xx, ${workload.non2xx} non-2xx, ${workload.errors} errors, ${workload.timeouts} timeouts  ` +
      `p99 ≤ ${goalP99Ms} ms: ${workload.met ? "met" : "NOT MET"}`)
    log(`  ${"".padEnd(34)} CPU/request: service ${fmt(workload.serviceCpuMsPerReq, 3)} ms, PostgreSQL ` +
      `${fmt(workload.postgresCpuMsPerReq, 3)} ms, autocannon ${fmt(workload.loadgenCpuMsPerReq, 3)} ms`)
    for (const sample of samples) log(`  ${"".padEnd(34)} e.g. ${sample}`)
  }
  return workload
}

const roundRobin = (items: ReadonlyArray<string>) => {
  let i = 0
  return () => items[i++ % items.length]!
}

const shuffled = <A>(items: ReadonlyArray<A>): Array<A> => {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Main

const main = async () => {
  const runStarted = performance.now()
  log(`bench:scale — ${NodeOs.cpus().length} CPUs (${NodeOs.cpus()[0]?.model ?? "?"}), node ${process.version}; ` +
    `${customerCount} customers, ${entryCount} ledger entries; ${seconds} s per workload, ${connections} connections${workers > 1 ? `, service as ${workers} processes (WORKERS)` : ""}`)
  const busyBefore = machineBusy()
  await sleep(1000)
  const busyCores = machineBusy() - busyBefore
  log(`  machine before the run: ${fmt(busyCores, 2)} of ${NodeOs.cpus().length} cores busy, load average ` +
    `${NodeOs.loadavg().map((n) => n.toFixed(2)).join(" ")}${busyCores > 0.3 ? " — OTHER WORK IS RUNNING: the figures share the CPU with it" : ""}`)
  let failed = false

  log("\nPostgreSQL")
  const cluster = await startCluster()
  log(`  throwaway cluster ${cluster.dir} (postmaster ${cluster.postmasterPid})`)
  await withClient(cluster.adminUrl, (client) => client.query("CREATE DATABASE pmm_bench_scale"))

  log("\nService (migrates the database) and partners over HTTP")
  let service = await startService({ DATABASE_URL: cluster.url })
  const partner = async (name: string): Promise<SeedPartner> => {
    const created = await call(service, "POST", "/sandbox/partners", undefined, { name })
    return { id: created.data.partnerId, apiKey: created.data.apiKey, name }
  }
  const main = await partner("scale-main")
  const small = [await partner("scale-small-1"), await partner("scale-small-2")]
  if (![main, ...small].every((p) => typeof p.id === "string" && typeof p.apiKey === "string")) {
    throw new Error(`unexpected partner answer: ${JSON.stringify([main, ...small])}`)
  }
  // Stopped while seeding: the service keeps nothing about customers in memory, but a restart after the seed is
  // the honest starting point (cold caches of its own, warm PostgreSQL).
  await service.stop()

  log("\nSeed (SQL)")
  let started = performance.now()
  const perPartner = await seedSql(cluster.url, main, small)
  const seedSeconds = elapsed(started)
  log(`  customers per partner: ${[main, ...small].map((p) => `${p.name} ${perPartner[p.id] ?? 0}`).join(", ")}; seed ${fmt(seedSeconds, 1)} s`)

  log("\nPlans (EXPLAIN (ANALYZE, BUFFERS), second run)")
  const plans = await explainAll(cluster.url, main, small[0]!)
  for (const plan of plans) {
    log(`  -- ${plan.label}: ${fmt(plan.executionMs, 3)} ms`)
    for (const line of plan.plan.split("\n")) log(`     ${line}`)
  }
  NodeFs.mkdirSync(NodePath.dirname(plansFile), { recursive: true })
  NodeFs.writeFileSync(plansFile, plans.map((p) => `-- ${p.label}\n${p.plan}\n`).join("\n"))

  log("\nService")
  service = await startService({ DATABASE_URL: cluster.url, ...(workers > 1 ? { WORKERS: String(workers) } : {}) }, profileDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", NodePath.resolve(profileDir)])

  log(`\nCursors: walking the main partner's list (limit ${walkLimit})`)
  started = performance.now()
  const cursors: Array<string> = []
  let cursor: string | null | undefined = undefined
  let walked = 0
  do {
    const page = await call(service, "GET", `/partner/v1/customers?limit=${walkLimit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, main.apiKey)
    walked += (page.data as Array<unknown>).length
    cursor = page.meta?.nextCursor ?? null
    if (cursor) cursors.push(cursor)
  } while (cursor)
  const walkSeconds = elapsed(started)
  const walkPages = cursors.length + 1
  log(`  ${walked} customers in ${walkPages} pages, ${fmt(walkSeconds, 1)} s (${fmt((walkSeconds * 1000) / walkPages, 2)} ms a page, one at a time)`)
  if (walked !== (perPartner[main.id] ?? -1)) {
    log(`  MISMATCH: the walk saw ${walked} customers, the partner has ${perPartner[main.id]}`)
    failed = true
  }
  const customerIds = shuffled((await withClient(cluster.url, (client) =>
    client.query<{ id: string }>("SELECT id FROM customers WHERE partner_id = $1", [main.id]))).rows.map((row) => row.id))

  log(`\nWorkloads (${connections} connections, ${seconds} s each, after ${warmupSeconds} s warm-up; goal p99 ≤ ${goalP99Ms} ms)`)
  const deep = roundRobin(shuffled(cursors).map((c) => `/api/v1/partner/v1/customers?cursor=${encodeURIComponent(c)}`))
  const balance = roundRobin(customerIds.map((id) => `/api/v1/partner/v1/customers/${id}/balance`))
  const shapes: Array<{ name: string; apiKey: string; path: () => string }> = [
    { name: "(a) list, first page", apiKey: main.apiKey, path: () => "/api/v1/partner/v1/customers" },
    { name: `(b) list, deep pages (${cursors.length} cursors)`, apiKey: main.apiKey, path: deep },
    { name: "(c) list, first page, small partner", apiKey: small[0]!.apiKey, path: () => "/api/v1/partner/v1/customers" },
    { name: `(d) balance (${customerIds.length} customers)`, apiKey: main.apiKey, path: balance }
  ]
  const workloads: Array<Workload> = []
  for (const shape of shapes) {
    await drive(service, cluster.postmasterPid, shape.name, shape.apiKey, shape.path, warmupSeconds, true)
    workloads.push(await drive(service, cluster.postmasterPid, shape.name, shape.apiKey, shape.path, seconds))
  }
  const output = service.output()
  await service.stop()
  const extra = output.split("\n").filter((line) => line.trim() !== "" && !/^(Partner Money Movement|  (Base URL|Docs|Rails|API key|Try):)/.test(line))
  if (extra.length > 0) {
    log(`\nThe service logged ${extra.length} line(s) at warning or above; the first ones:`)
    for (const line of extra.slice(0, 10)) log(`  ${line.slice(0, 400)}`)
  }

  log("\nLedger check")
  started = performance.now()
  const ran = await runProcess(tsxBin, ["src/main.ts", "ledger-check"], { ...process.env, DATABASE_URL: cluster.url, LOG_LEVEL: "warning" })
  const ledgerOk = ran.code === 0 && ran.stdout.includes("every invariant holds")
  let ledgerSummary = (ran.stdout + ran.stderr).trim().split("\n").slice(-5).join(" | ")
  try {
    const report = JSON.parse(ran.stdout.slice(ran.stdout.indexOf("{"), ran.stdout.lastIndexOf("}") + 1))
    ledgerSummary = `${report.transactions} transactions, ${report.entries} entries, ${report.accounts} accounts, ${report.violations.length} violations`
  } catch {
    // summary above
  }
  log(`  ledger-check: ${ledgerOk ? "every invariant holds" : "FAILED"}: ${ledgerSummary} (${fmt(elapsed(started), 1)} s)`)

  failed ||= !ledgerOk || workloads.some((w) => w.non2xx + w.errors + w.timeouts > 0)
  const runSeconds = elapsed(runStarted)
  log(`\nResult (${customerCount} customers, ${entryCount} entries; ${connections} connections, ${seconds} s per workload${workers > 1 ? `; ${workers} service processes` : ""})`)
  log(`| workload | req/s | p50 ms | p99 ms | p99 ≤ ${goalP99Ms} ms | service CPU ms/req | PostgreSQL CPU ms/req |`)
  log("|---|---:|---:|---:|---|---:|---:|")
  for (const w of workloads) {
    log(`| ${w.name} | ${fmt(w.reqPerSec, 0)} | ${w.p50Ms} | ${w.p99Ms} | ${w.met ? "met" : "NOT MET"} | ${fmt(w.serviceCpuMsPerReq, 3)} | ${fmt(w.postgresCpuMsPerReq, 3)} |`)
  }
  log(`Statement execution (EXPLAIN ANALYZE): ${plans.map((p) => `${p.label} ${fmt(p.executionMs, 3)} ms`).join("; ")}`)
  log(`Seed ${fmt(seedSeconds, 0)} s; list walk ${walkPages} pages in ${fmt(walkSeconds, 1)} s; ledger-check ${ledgerOk ? "ok" : "FAILED"}; run ${fmt(runSeconds, 0)} s`)

  NodeFs.writeFileSync(outputFile, JSON.stringify({
    generatedAt: new Date().toISOString(),
    machine: { busyCoresBefore: busyCores, loadAverage: NodeOs.loadavg(), cpus: NodeOs.cpus().length, cpuModel: NodeOs.cpus()[0]?.model, node: process.version },
    settings: { customers: customerCount, entries: entryCount, seconds, warmupSeconds, connections, workers, goalP99Ms },
    seed: { seconds: seedSeconds, customersPerPartner: perPartner },
    walk: { pages: walkPages, customers: walked, seconds: walkSeconds },
    plans,
    workloads,
    ledgerCheck: { ok: ledgerOk, summary: ledgerSummary },
    runSeconds,
    ok: !failed
  }, null, 2) + "\n")
  log(`Written to ${NodePath.relative(process.cwd(), outputFile)} and ${NodePath.relative(process.cwd(), plansFile)}`)
  if (failed) {
    log("FAILED: see the MISMATCH / non-2xx / ledger-check lines above")
    process.exitCode = 1
  }
}

main().then(cleanup, (error) => {
  console.error(error)
  cleanup()
  process.exit(1)
})
