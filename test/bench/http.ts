/**
 * Whole-stack HTTP benchmark, side by side with PostgreSQL's own pgbench on the same cluster in one run.
 *
 *   npm run bench:http                       # throwaway PostgreSQL 15 cluster, 10 s per workload (about 3 minutes)
 *   npm run bench:http -- --seconds 30       # longer workloads
 *   npm run bench:http -- --quick            # 3 s per workload: a smoke run
 *   BENCH_DATABASE_URL=postgresql://user@host:port/db npm run bench:http   # an existing server (creates and drops
 *                                            # two databases on it; PostgreSQL CPU only when its data dir is local)
 *
 * 1. A throwaway PostgreSQL 15 cluster with the DEFAULT durability settings (fsync, synchronous_commit and
 *    full_page_writes on — unlike .ci/pg.sh, because pgbench is the reference), private port and socket dir,
 *    stopped and removed on exit, failure or SIGINT.
 * 2. pgbench -i -s 10, then TPC-B and select-only (-c 32 -j 2 -M prepared), in a database of their own.
 * 3. The real service as a separate process (`tsx src/main.ts serve`, sandbox mode) on a fresh database of the same
 *    cluster: time from spawn to the first 200 of GET /api/v1/health and the RSS of its node process; seeding over
 *    HTTP (partner, 200 customers + 1 hot customer: Tier 1 KYC, virtual account, credit, bank account; bank rail
 *    manual, so no job runs while measuring).
 * 4. autocannon, 32 keep-alive connections: withdraw spread over the 200 customers, withdraw on one hot customer,
 *    balance reads spread; req/s, p50/p99, non-2xx (printed), ratio to pgbench, CPU per request of the service's
 *    node process and of the PostgreSQL processes (from /proc/<pid>/stat, before and after each workload).
 * 5. The spread withdraw workload again with the service on the embedded PGlite (DATA_DIR in a temp dir).
 * 6. One table at the end, also written to .tmp/bench-http.json. `ledger-check` runs on both databases afterwards.
 *
 * The load generator (autocannon, in this process), pgbench, the service and PostgreSQL share the machine's cores:
 * the CPU lines say who used what. Exits non-zero on a failed step, an unexpected non-2xx answer or a ledger violation.
 */
import autocannon from "autocannon"
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import Pg from "pg"

// ---------------------------------------------------------------------------------------------------------------
// Settings

const argv = process.argv.slice(2)
const quick = argv.includes("--quick")
const secondsArg = argv.indexOf("--seconds")
const seconds = secondsArg >= 0 ? Number(argv[secondsArg + 1]) : quick ? 3 : 10
if (!Number.isInteger(seconds) || seconds < 1) {
  console.error("usage: npm run bench:http -- [--seconds N] [--quick]")
  process.exit(2)
}
const warmupSeconds = quick ? 1 : 2
const connections = 32
const pgbenchScale = 10
const customerCount = 200
const seedConcurrency = 8
const withdrawAmount = 200 // NGN: fee 11.00, the bank receives 189.00 (minimum request 110.56)
const creditAmount = 1_000_000_000 // NGN per customer: lasts for millions of withdrawals
const pgBin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"
const repoRoot = NodePath.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const tsxBin = NodePath.join(repoRoot, "node_modules/.bin/tsx")
const outputFile = NodePath.join(repoRoot, ".tmp/bench-http.json")
const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()
const runTag = NodeCrypto.randomBytes(4).toString("hex")

const log = (line: string) => console.log(line)
const elapsed = (since: number) => (performance.now() - since) / 1000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------------------------
// Cleanup: synchronous steps run once, in reverse, on normal exit, failure, SIGINT/SIGTERM/SIGHUP.

const cleanups: Array<{ name: string; run: () => void }> = []
let cleanedUp = false
const onCleanup = (name: string, run: () => void) => {
  const entry = { name, run }
  cleanups.push(entry)
  return () => {
    const index = cleanups.indexOf(entry)
    if (index >= 0) cleanups.splice(index, 1)
  }
}
const cleanup = () => {
  if (cleanedUp) return
  cleanedUp = true
  for (const entry of cleanups.reverse()) {
    try {
      entry.run()
    } catch (error) {
      console.error(`cleanup "${entry.name}" failed: ${String(error)}`)
    }
  }
}
process.on("exit", cleanup)
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the service and the PostgreSQL cluster`)
    cleanup()
    process.exit(130)
  })
}

// ---------------------------------------------------------------------------------------------------------------
// /proc: CPU and memory of processes

interface ProcStat { readonly pid: number; readonly ppid: number; readonly comm: string; readonly ticks: number; readonly childTicks: number }

const readStat = (pid: number | "self"): ProcStat | undefined => {
  try {
    const text = NodeFs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const close = text.lastIndexOf(")")
    const fields = text.slice(close + 2).split(" ")
    return {
      pid: Number(text.slice(0, text.indexOf(" "))),
      comm: text.slice(text.indexOf("(") + 1, close),
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]), // utime + stime
      childTicks: Number(fields[13]) + Number(fields[14]) // cutime + cstime: children waited for
    }
  } catch {
    return undefined
  }
}

const allStats = (): Array<ProcStat> =>
  NodeFs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => readStat(Number(name)) ?? [])

/** The process and every descendant, with its depth below `root`. */
const processTree = (root: number): Array<ProcStat & { depth: number }> => {
  const stats = allStats()
  const byParent = new Map<number, Array<ProcStat>>()
  for (const stat of stats) byParent.set(stat.ppid, [...(byParent.get(stat.ppid) ?? []), stat])
  const rootStat = stats.find((stat) => stat.pid === root)
  if (rootStat === undefined) return []
  const out: Array<ProcStat & { depth: number }> = []
  const walk = (stat: ProcStat, depth: number) => {
    out.push({ ...stat, depth })
    for (const child of byParent.get(stat.pid) ?? []) walk(child, depth + 1)
  }
  walk(rootStat, 0)
  return out
}

/** CPU seconds of one process (all its threads). */
const processCpu = (pid: number) => (readStat(pid)?.ticks ?? NaN) / clockTicks

/**
 * CPU seconds of a PostgreSQL cluster: every live process of the postmaster's tree plus what its exited children
 * (backends of closed connections, autovacuum workers) used, which the postmaster collects when it reaps them.
 */
const clusterCpu = (postmasterPid: number | undefined) => {
  if (postmasterPid === undefined) return NaN
  const tree = processTree(postmasterPid)
  if (tree.length === 0) return NaN
  return (tree.reduce((sum, stat) => sum + stat.ticks, 0) + tree[0]!.childTicks) / clockTicks
}

/** CPU seconds of this process and, separately, of its children that have exited (pgbench runs). */
const selfCpu = () => {
  const usage = process.cpuUsage()
  return { own: (usage.user + usage.system) / 1e6, children: (readStat("self")?.childTicks ?? NaN) / clockTicks }
}

/** CPU seconds of the whole machine from /proc/stat: busy (every process, this run's or not) and interrupt work. */
const machineCpu = () => {
  const fields = NodeFs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields
  return { busy: (user + nice + system + irq + softirq + steal) / clockTicks, irq: (irq + softirq) / clockTicks }
}

const describeProcess = (stat: ProcStat) => {
  let script = ""
  try {
    const args = NodeFs.readFileSync(`/proc/${stat.pid}/cmdline`, "utf8").split("\0")
    script = args.find((arg) => /\.(ts|js|mjs)$/.test(arg) && !arg.includes("node_modules"))?.split("/").slice(-2).join("/") ?? ""
  } catch {
    // gone
  }
  return script === "" ? stat.comm : `${stat.comm} ${script}`
}

/**
 * What else used the CPU during a measurement: processes outside this run (this script's tree, which holds the
 * service and pgbench, and the PostgreSQL cluster's tree), by name, and the kernel's interrupt work (loopback
 * networking), which /proc charges to no process.
 */
interface Neighbours { readonly otherCores: number; readonly kernelIrqCores: number; readonly top: string }

const watchNeighbours = (postmasterPid: number | undefined) => {
  const started = performance.now()
  const before = new Map(allStats().map((stat) => [stat.pid, stat.ticks]))
  const machineBefore = machineCpu()
  return (): Neighbours => {
    const seconds = elapsed(started)
    const machineAfter = machineCpu()
    const ours = new Set([...processTree(process.ppid), ...(postmasterPid === undefined ? [] : processTree(postmasterPid))].map((stat) => stat.pid))
    const others = allStats().filter((stat) => !ours.has(stat.pid))
      .map((stat) => ({ stat, cores: (stat.ticks - (before.get(stat.pid) ?? 0)) / clockTicks / seconds }))
      .filter((other) => other.cores > 0)
      .sort((a, b) => b.cores - a.cores)
    return {
      otherCores: others.reduce((sum, other) => sum + other.cores, 0),
      kernelIrqCores: (machineAfter.irq - machineBefore.irq) / seconds,
      top: others.slice(0, 3).filter((other) => other.cores >= 0.05).map((other) => `${describeProcess(other.stat)} ${other.cores.toFixed(2)}`).join(", ")
    }
  }
}

const describeNeighbours = (n: Neighbours) =>
  `other processes ${fmt(n.otherCores, 2)} cores${n.top === "" ? "" : ` (${n.top})`}, kernel interrupts ${fmt(n.kernelIrqCores, 2)} cores`

const memoryMb = (pid: number) => {
  try {
    const status = NodeFs.readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN)
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 }
  } catch {
    return { rss: NaN, peak: NaN }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes

interface Ran { readonly code: number | null; readonly stdout: string; readonly stderr: string }

const runProcess = (command: string, args: Array<string>, env: NodeJS.ProcessEnv = process.env) =>
  new Promise<Ran>((resolve, reject) => {
    const child = spawn(command, args, { env, cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const mustRun = async (command: string, args: Array<string>, env?: NodeJS.ProcessEnv) => {
  const ran = await runProcess(command, args, env)
  if (ran.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${ran.code}:\n${ran.stdout}${ran.stderr}`)
  return ran
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as NodeNet.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL: a throwaway cluster with default durability, or BENCH_DATABASE_URL

interface Cluster {
  /** URL of a database to administer from (CREATE/DROP DATABASE). */
  readonly adminUrl: string
  readonly postmasterPid: number | undefined
  readonly description: string
  readonly settings: Record<string, string>
  readonly dropDatabases: boolean
}

const isRoot = process.getuid?.() === 0
const shellQuote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`
const asPostgres = (command: string) =>
  isRoot
    ? execFileSync("su", ["postgres", "-s", "/bin/bash", "-c", command], { stdio: "pipe" })
    : execFileSync("bash", ["-c", command], { stdio: "pipe" })

const startCluster = async (): Promise<{ adminUrl: string; postmasterPid: number; description: string }> => {
  if (!NodeFs.existsSync(`${pgBin}/initdb`)) {
    throw new Error(`no PostgreSQL at ${pgBin} (set PG_BIN, or BENCH_DATABASE_URL to use an existing server)`)
  }
  const dir = NodeFs.mkdtempSync("/tmp/pmm-bench-http-pg-")
  onCleanup("remove the cluster directory", () => NodeFs.rmSync(dir, { recursive: true, force: true }))
  if (isRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
    NodeFs.chownSync(dir, uid, gid)
  }
  const port = await freePort()
  const data = `${dir}/data`
  // --no-sync only makes initdb itself faster; the server below runs with fsync, synchronous_commit and
  // full_page_writes at their defaults (on).
  asPostgres(`${pgBin}/initdb -D ${shellQuote(data)} -U postgres --auth=trust --no-sync -E UTF8 >${shellQuote(`${dir}/initdb.log`)} 2>&1`)
  onCleanup("stop the PostgreSQL cluster", () => {
    try {
      asPostgres(`${pgBin}/pg_ctl -D ${shellQuote(data)} -m fast -w stop >/dev/null 2>&1`)
    } catch {
      // not running
    }
  })
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`
  try {
    asPostgres(`${pgBin}/pg_ctl -D ${shellQuote(data)} -l ${shellQuote(`${dir}/server.log`)} -w -o ${shellQuote(options)} start >/dev/null`)
  } catch (error) {
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${NodeFs.readFileSync(`${dir}/server.log`, "utf8")}`)
  }
  const postmasterPid = Number(NodeFs.readFileSync(`${data}/postmaster.pid`, "utf8").split("\n")[0])
  return {
    adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    postmasterPid,
    description: `throwaway PostgreSQL cluster ${dir} on 127.0.0.1:${port} (postmaster ${postmasterPid})`
  }
}

const withClient = async <A>(url: string, f: (client: Pg.Client) => Promise<A>): Promise<A> => {
  const client = new Pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

const settingsOf = (url: string) =>
  withClient(url, async (client) => {
    const names = ["server_version", "fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers",
      "max_connections", "max_wal_size", "checkpoint_timeout", "jit"]
    const result = await client.query<{ name: string; setting: string; unit: string | null }>(
      "SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)", [names]
    )
    return Object.fromEntries(result.rows.map((row) => [row.name, row.unit ? `${row.setting} (${row.unit})` : row.setting]))
  })

/** The postmaster of an existing server when its data directory is readable here; undefined otherwise. */
const localPostmaster = (url: string) =>
  withClient(url, async (client) => {
    try {
      const { rows } = await client.query<{ data_directory: string }>("SHOW data_directory")
      const text = NodeFs.readFileSync(`${rows[0]!.data_directory}/postmaster.pid`, "utf8")
      const pid = Number(text.split("\n")[0])
      return readStat(pid) === undefined ? undefined : pid
    } catch {
      return undefined
    }
  })

const openCluster = async (): Promise<Cluster> => {
  const existing = process.env.BENCH_DATABASE_URL
  if (existing !== undefined && existing !== "") {
    const postmasterPid = await localPostmaster(existing)
    return {
      adminUrl: existing,
      postmasterPid,
      description: `existing server from BENCH_DATABASE_URL (${new URL(existing).host})` +
        (postmasterPid === undefined ? "; its processes are not visible here: no PostgreSQL CPU figures" : `, postmaster ${postmasterPid}`),
      settings: await settingsOf(existing),
      dropDatabases: true
    }
  }
  const started = await startCluster()
  return { ...started, settings: await settingsOf(started.adminUrl), dropDatabases: false }
}

const databaseUrl = (adminUrl: string, name: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const createDatabase = async (cluster: Cluster, name: string) => {
  await withClient(cluster.adminUrl, (client) => client.query(`CREATE DATABASE ${name}`))
  if (cluster.dropDatabases) {
    onCleanup(`drop database ${name}`, () => {
      // Synchronous (cleanup runs on exit too): psql is there wherever pgbench is.
      try {
        execFileSync(`${pgBin}/psql`, [cluster.adminUrl, "-q", "-c", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], { stdio: "pipe" })
      } catch (error) {
        console.error(`could not drop database ${name}: ${String(error)}`)
      }
    })
  }
  return databaseUrl(cluster.adminUrl, name)
}

const checkpoint = (cluster: Cluster) => withClient(cluster.adminUrl, (client) => client.query("CHECKPOINT")).catch(() => undefined)

// ---------------------------------------------------------------------------------------------------------------
// pgbench

interface PgbenchRun {
  readonly label: string
  readonly tps: number
  readonly latencyMs: number
  readonly transactions: number
  readonly failed: number
  readonly postgresCpuMsPerTx: number
  readonly pgbenchCpuMsPerTx: number
  /** Cores used meanwhile by work that is not part of this measurement. */
  readonly neighbours: Neighbours
}

const pgbench = async (cluster: Cluster, url: string, label: string, extra: Array<string>): Promise<PgbenchRun> => {
  await checkpoint(cluster)
  const pgBefore = clusterCpu(cluster.postmasterPid)
  const selfBefore = selfCpu()
  const backends = processTree(cluster.postmasterPid ?? -1).length
  const neighbours = watchNeighbours(cluster.postmasterPid)
  const ran = await mustRun(`${pgBin}/pgbench`, [...extra, "-c", String(connections), "-j", "2", "-T", String(seconds), "-M", "prepared", url])
  // pgbench's backends end after it disconnects; their CPU reaches the postmaster's count once they are reaped.
  for (let i = 0; i < 100 && processTree(cluster.postmasterPid ?? -1).length > backends; i++) await sleep(50)
  const pgAfter = clusterCpu(cluster.postmasterPid)
  const selfAfter = selfCpu()
  const number = (pattern: RegExp) => Number(pattern.exec(ran.stdout)?.[1] ?? NaN)
  const tps = number(/tps = ([\d.]+) \(without initial connection time\)/)
  const transactions = number(/number of transactions actually processed: (\d+)/)
  const run: PgbenchRun = {
    label,
    tps,
    latencyMs: number(/latency average = ([\d.]+) ms/),
    transactions,
    failed: number(/number of failed transactions: (\d+)/) || 0,
    postgresCpuMsPerTx: ((pgAfter - pgBefore) * 1000) / transactions,
    pgbenchCpuMsPerTx: ((selfAfter.children - selfBefore.children) * 1000) / transactions,
    neighbours: neighbours()
  }
  log(`  ${label.padEnd(22)} ${tps.toFixed(0).padStart(7)} tps   latency avg ${run.latencyMs.toFixed(2)} ms   ` +
    `${transactions} tx, ${run.failed} failed   CPU/tx: PostgreSQL ${fmtMs(run.postgresCpuMsPerTx)}, pgbench ${fmtMs(run.pgbenchCpuMsPerTx)}`)
  log(`  ${"".padEnd(22)} meanwhile: ${describeNeighbours(run.neighbours)}`)
  return run
}

// ---------------------------------------------------------------------------------------------------------------
// The service as a separate process

interface Service {
  readonly label: string
  readonly origin: string
  readonly apiBase: string
  /** The node process that runs the service (tsx's child), not the tsx launcher. */
  readonly pid: number
  readonly spawnToFirst200Ms: number
  readonly rssAfterStartMb: number
  readonly output: () => string
  readonly stop: () => Promise<number>
}

const startService = async (label: string, env: Record<string, string>): Promise<Service> => {
  const port = await freePort()
  const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-bench-http-data-"))
  onCleanup(`remove ${label} data dir`, () => NodeFs.rmSync(dataDir, { recursive: true, force: true }))
  const started = performance.now()
  const child: ChildProcess = spawn(tsxBin, ["src/main.ts", "serve"], {
    cwd: repoRoot,
    detached: true, // its own process group: a Ctrl-C reaches this script, which stops it
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      SERVICE_MODE: "sandbox",
      LOG_LEVEL: "warning",
      ...env
    }
  })
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  let exited: number | null | undefined = undefined
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code, signal) => resolve((exited = code ?? (signal ? 128 : null)))))
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      // gone
    }
  }
  const forget = onCleanup(`kill the ${label} service`, () => killGroup("SIGKILL"))

  const origin = `http://127.0.0.1:${port}`
  const apiBase = `${origin}/api/v1`
  for (;;) {
    if (exited !== undefined) throw new Error(`the ${label} service exited with ${exited} before answering:\n${output}`)
    if (elapsed(started) > 180) throw new Error(`the ${label} service did not answer GET /health within 180 s:\n${output}`)
    const ok = await fetch(`${apiBase}/health`).then((response) => response.status === 200, () => false)
    if (ok) break
    await sleep(10)
  }
  const spawnToFirst200Ms = performance.now() - started
  const nodes = processTree(child.pid!).filter((stat) => stat.comm === "node")
  const server = nodes.sort((a, b) => b.depth - a.depth)[0]
  if (server === undefined) throw new Error(`cannot find the ${label} service's node process under pid ${child.pid}`)
  const rssAfterStartMb = memoryMb(server.pid).rss
  log(`  ${label}: ${apiBase}; first 200 on GET /health ${fmt(spawnToFirst200Ms, 0)} ms after spawn; node pid ${server.pid} ` +
    `(tsx launcher ${child.pid}); RSS ${fmt(rssAfterStartMb, 0)} MB`)
  return {
    label, origin, apiBase, pid: server.pid, spawnToFirst200Ms, rssAfterStartMb,
    output: () => output,
    stop: async () => {
      const stopping = performance.now()
      try {
        process.kill(server.pid, "SIGTERM")
      } catch {
        // gone
      }
      const timer = setTimeout(() => killGroup("SIGKILL"), 15_000)
      await exit
      clearTimeout(timer)
      forget()
      return performance.now() - stopping
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding over HTTP

interface Seeded { readonly apiKey: string; readonly customers: Array<string>; readonly hot: string; readonly seconds: number; readonly requests: number }

const seed = async (service: Service): Promise<Seeded> => {
  const started = performance.now()
  let requests = 0
  const call = async (method: string, path: string, apiKey: string | undefined, body?: unknown, expected = [200, 201]) => {
    requests++
    const response = await fetch(`${service.apiBase}${path}`, {
      method,
      headers: { ...(apiKey ? { "x-api-key": apiKey } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
    const text = await response.text()
    if (!expected.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
    return JSON.parse(text) as { data: any }
  }
  const partner = await call("POST", "/sandbox/partners", undefined, { name: "bench-http" })
  const apiKey: string = partner.data.apiKey
  // Manual bank rail: a withdrawal stays PROCESSING, no payout job runs while measuring.
  const rail = await call("PUT", "/sandbox/rails/bank", apiKey, { mode: "manual" })
  if (rail.data.mode !== "manual") throw new Error(`bank rail not manual: ${JSON.stringify(rail.data)}`)
  const ids: Array<string> = new Array(customerCount + 1)
  let next = 0
  const worker = async () => {
    for (let i = next++; i <= customerCount; i = next++) {
      const customer = await call("POST", "/partner/v1/customers", apiKey, {
        firstName: "Bench", lastName: `Customer${i}`, email: `bench.${runTag}.${i}@example.com`, phoneNumber: "+2348012345678", country: "NG"
      })
      const id: string = customer.data.id
      const base = `/partner/v1/customers/${id}`
      const kyc = await call("POST", `${base}/kyc/tier1`, apiKey, { bvn: "12345678901", nin: "10987654321" })
      if (kyc.data.status !== "APPROVED") throw new Error(`KYC tier 1 of customer ${i}: ${JSON.stringify(kyc.data)}`)
      await call("GET", `${base}/virtual-account`, apiKey)
      await call("POST", `/sandbox/customers/${id}/virtual-account/credit`, apiKey, { amount: creditAmount })
      await call("POST", `${base}/accounts`, apiKey, { bankCode: "058", accountNumber: "0123456789" })
      ids[i] = id
    }
  }
  await Promise.all(Array.from({ length: seedConcurrency }, worker))
  const result = { apiKey, customers: ids.slice(0, customerCount), hot: ids[customerCount]!, seconds: elapsed(started), requests }
  log(`  seeded over HTTP: 1 partner, ${customerCount} + 1 hot customers (Tier 1, virtual account, NGN ${creditAmount} ` +
    `credit, bank account), bank rail manual: ${requests} requests in ${result.seconds.toFixed(1)} s ` +
    `(${(requests / result.seconds).toFixed(0)} req/s, ${seedConcurrency} at a time)`)
  return result
}

// ---------------------------------------------------------------------------------------------------------------
// Workloads

interface Workload {
  readonly service: string
  readonly name: string
  readonly reqPerSec: number
  readonly okPerSec: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly ok: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly statuses: Record<string, number>
  readonly unexpected: number
  readonly samples: Array<string>
  readonly appCpuMsPerReq: number
  readonly postgresCpuMsPerReq: number
  readonly loadgenCpuMsPerReq: number
  readonly appCpuCores: number
  readonly postgresCpuCores: number
  readonly neighbours: Neighbours
  readonly rssAfterMb: number
}

interface Shape {
  readonly name: string
  readonly method: "GET" | "POST"
  readonly path: () => string
  readonly body?: () => string
  /** "<status> <code>" answers that are not failures of this workload. */
  readonly expected?: ReadonlyArray<string>
}

const drive = async (service: Service, apiKey: string, shape: Shape, duration: number, postmasterPid: number | undefined, quiet = false): Promise<Workload> => {
  const statuses: Record<string, number> = {}
  const samples: Array<string> = []
  const appBefore = processCpu(service.pid)
  const pgBefore = clusterCpu(postmasterPid)
  const selfBefore = selfCpu()
  const neighbours = watchNeighbours(postmasterPid)
  const result = await autocannon({
    url: service.origin,
    connections,
    duration,
    pipelining: 1,
    timeout: 30,
    headers: { "x-api-key": apiKey, ...(shape.body ? { "content-type": "application/json" } : {}) },
    requests: [{
      method: shape.method,
      setupRequest: (request) => ({ ...request, path: shape.path(), ...(shape.body ? { body: shape.body() } : {}) }),
      onResponse: (status, body) => {
        if (status >= 200 && status < 300) return
        let code = ""
        try {
          code = String(JSON.parse(body).code ?? "")
        } catch {
          code = "(not JSON)"
        }
        const key = `${status} ${code}`.trim()
        statuses[key] = (statuses[key] ?? 0) + 1
        if (samples.length < 3) samples.push(`${status} ${body.slice(0, 300)}`)
      }
    }]
  })
  const appAfter = processCpu(service.pid)
  const pgAfter = clusterCpu(postmasterPid)
  const selfAfter = selfCpu()
  const ok = result["2xx"]
  const unexpected = Object.entries(statuses).filter(([key]) => !(shape.expected ?? []).includes(key)).reduce((sum, [, n]) => sum + n, 0)
  const workload: Workload = {
    service: service.label,
    name: shape.name,
    reqPerSec: result.requests.average,
    okPerSec: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    unexpected: unexpected + result.errors + result.timeouts,
    samples,
    appCpuMsPerReq: ((appAfter - appBefore) * 1000) / ok,
    postgresCpuMsPerReq: ((pgAfter - pgBefore) * 1000) / ok,
    loadgenCpuMsPerReq: ((selfAfter.own - selfBefore.own) * 1000) / ok,
    appCpuCores: (appAfter - appBefore) / result.duration,
    postgresCpuCores: (pgAfter - pgBefore) / result.duration,
    neighbours: neighbours(),
    rssAfterMb: memoryMb(service.pid).rss
  }
  if (!quiet) {
    log(`  ${shape.name.padEnd(22)} ${fmt(workload.reqPerSec, 0).padStart(7)} req/s   p50 ${workload.p50Ms} ms   p99 ${workload.p99Ms} ms   ` +
      `${ok} 2xx, ${workload.non2xx} non-2xx, ${workload.errors} errors, ${workload.timeouts} timeouts`)
    log(`  ${"".padEnd(22)} CPU/request: service ${fmtMs(workload.appCpuMsPerReq)} (${fmt(workload.appCpuCores, 2)} cores), ` +
      `PostgreSQL ${fmtMs(workload.postgresCpuMsPerReq)} (${fmt(workload.postgresCpuCores, 2)} cores), ` +
      `autocannon ${fmtMs(workload.loadgenCpuMsPerReq)}; CPU s before→after: service ${fmt(appBefore, 2)}→${fmt(appAfter, 2)}, ` +
      `PostgreSQL ${fmt(pgBefore, 2)}→${fmt(pgAfter, 2)}; service RSS ${fmt(workload.rssAfterMb, 0)} MB`)
    log(`  ${"".padEnd(22)} meanwhile: ${describeNeighbours(workload.neighbours)}`)
    for (const [key, n] of Object.entries(statuses)) {
      log(`  ${"".padEnd(22)} non-2xx ${key}: ${n}${(shape.expected ?? []).includes(key) ? " (expected)" : " UNEXPECTED"}`)
    }
    for (const sample of samples) log(`  ${"".padEnd(22)} e.g. ${sample}`)
  }
  return workload
}

const withdrawShape = (name: string, customers: () => string): Shape => {
  let reference = 0
  return {
    name,
    method: "POST",
    path: () => `/api/v1/partner/v1/customers/${customers()}/withdraw`,
    body: () => JSON.stringify({ amount: withdrawAmount, reference: `bench-${runTag}-${name.replace(/\W+/g, "-")}-${reference++}` }),
    // Back-pressure the service documents (a full customer mailbox): retry with the same reference.
    expected: ["503 CUSTOMER_BUSY"]
  }
}

const roundRobin = (ids: Array<string>) => {
  let i = 0
  return () => ids[i++ % ids.length]!
}

const ledgerCheck = async (label: string, env: Record<string, string>) => {
  const started = performance.now()
  const ran = await runProcess(tsxBin, ["src/main.ts", "ledger-check"], { ...process.env, DATABASE_URL: "", LOG_LEVEL: "warning", ...env })
  const ok = ran.code === 0 && ran.stdout.includes("every invariant holds")
  let summary = ""
  try {
    const report = JSON.parse(ran.stdout.slice(ran.stdout.indexOf("{"), ran.stdout.lastIndexOf("}") + 1))
    summary = `${report.transactions} transactions, ${report.entries} entries, ${report.violations.length} violations`
  } catch {
    summary = (ran.stdout + ran.stderr).trim().split("\n").slice(-5).join(" | ")
  }
  log(`  ledger-check (${label}): ${ok ? "every invariant holds" : "FAILED"}: ${summary} (${elapsed(started).toFixed(1)} s)`)
  return { ok, summary }
}

const countWithdrawals = (url: string) =>
  withClient(url, async (client) => Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM withdrawals")).rows[0]!.n))

// ---------------------------------------------------------------------------------------------------------------
// Formatting

const fmt = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")
const fmtMs = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(3)} ms` : "n/a")

interface Row { readonly figure: string; readonly value: string; readonly reference: string; readonly ratio: string }

const row = (figure: string, value: string, reference = "", ratio = ""): Row => ({ figure, value, reference, ratio })
const ratioOf = (value: number, reference: number) => (Number.isFinite(value) && Number.isFinite(reference) && reference > 0 ? `${(value / reference).toFixed(3)}` : "")

const printTable = (rows: Array<Row>) => {
  const headers = row("figure", "value", "pgbench reference", "ratio")
  const widths = (["figure", "value", "reference", "ratio"] as const).map((key) => Math.max(...[headers, ...rows].map((r) => r[key].length)))
  const line = (r: Row) =>
    `| ${r.figure.padEnd(widths[0]!)} | ${r.value.padStart(widths[1]!)} | ${r.reference.padEnd(widths[2]!)} | ${r.ratio.padStart(widths[3]!)} |`
  log(line(headers))
  log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`)
  for (const r of rows) log(line(r))
}

// ---------------------------------------------------------------------------------------------------------------
// Main

const main = async () => {
  const runStarted = performance.now()
  log(`bench:http — ${NodeOs.cpus().length} CPUs (${NodeOs.cpus()[0]?.model ?? "?"}), node ${process.version}, ` +
    `${seconds} s per workload, ${connections} connections${quick ? " (--quick)" : ""}`)
  let failed = false
  const idleCheck = machineCpu().busy
  await sleep(1000)
  const busyBefore = machineCpu().busy - idleCheck // this process sleeps meanwhile
  log(`  machine before the run: ${busyBefore.toFixed(2)} of ${NodeOs.cpus().length} cores busy, load average ` +
    `${NodeOs.loadavg().map((n) => n.toFixed(2)).join(" ")}` +
    (busyBefore > 0.3 ? " — OTHER WORK IS RUNNING ON THIS MACHINE: the figures below share the CPU with it (see \"other processes\")" : ""))

  log("\nPostgreSQL")
  const cluster = await openCluster()
  log(`  ${cluster.description}`)
  log(`  settings: ${Object.entries(cluster.settings).map(([k, v]) => `${k}=${v}`).join(", ")}`)

  log(`\npgbench (scale ${pgbenchScale}, -c ${connections} -j 2 -T ${seconds} -M prepared)`)
  const pgbenchUrl = await createDatabase(cluster, `pmm_bench_pgbench_${runTag}`)
  let started = performance.now()
  await mustRun(`${pgBin}/pgbench`, ["-i", "-q", "-s", String(pgbenchScale), pgbenchUrl])
  const pgbenchInitSeconds = elapsed(started)
  log(`  pgbench -i -s ${pgbenchScale}: ${pgbenchInitSeconds.toFixed(1)} s`)
  const tpcb = await pgbench(cluster, pgbenchUrl, "TPC-B", [])
  const selectOnly = await pgbench(cluster, pgbenchUrl, "select-only (-S)", ["-S"])

  log("\nService on PostgreSQL")
  const serviceUrl = await createDatabase(cluster, `pmm_bench_http_${runTag}`)
  const pgService = await startService("PostgreSQL", { DATABASE_URL: serviceUrl })
  const pgSeed = await seed(pgService)
  const spread = roundRobin(pgSeed.customers)
  const pgWarmup = await drive(pgService, pgSeed.apiKey, withdrawShape("warm-up", spread), warmupSeconds, cluster.postmasterPid, true)
  log(`  warm-up: ${warmupSeconds} s of withdraw spread, ${pgWarmup.ok} 2xx (not measured)`)
  await checkpoint(cluster)
  const pgWithdraw = await drive(pgService, pgSeed.apiKey, withdrawShape("withdraw spread", spread), seconds, cluster.postmasterPid)
  await checkpoint(cluster)
  const pgHot = await drive(pgService, pgSeed.apiKey, withdrawShape("withdraw hot", () => pgSeed.hot), seconds, cluster.postmasterPid)
  await checkpoint(cluster)
  const pgBalance = await drive(pgService, pgSeed.apiKey, {
    name: "balance spread", method: "GET", path: () => `/api/v1/partner/v1/customers/${spread()}/balance`
  }, seconds, cluster.postmasterPid)
  const pgMemory = memoryMb(pgService.pid)
  const pgServiceOutput = pgService.output()
  const pgStopMs = await pgService.stop()
  log(`  stopped (SIGTERM) in ${fmt(pgStopMs, 0)} ms; service RSS at the end ${fmt(pgMemory.rss, 0)} MB, peak ${fmt(pgMemory.peak, 0)} MB`)
  const pgOk = pgWarmup.ok + pgWithdraw.ok + pgHot.ok
  const pgRows = await countWithdrawals(serviceUrl)
  // A request in flight when autocannon stops is dropped by the client but may still commit.
  const pgRowsOk = pgRows >= pgOk && pgRows <= pgOk + 3 * connections + pgWarmup.non2xx + pgWithdraw.non2xx + pgHot.non2xx
  log(`  withdrawals stored: ${pgRows} for ${pgOk} 2xx answers${pgRowsOk ? "" : " — MISMATCH"}`)
  const pgCheck = await ledgerCheck("PostgreSQL", { DATABASE_URL: serviceUrl })

  log("\nService on the embedded PGlite")
  const pgliteDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-bench-http-pglite-"))
  onCleanup("remove the PGlite data dir", () => NodeFs.rmSync(pgliteDir, { recursive: true, force: true }))
  const liteService = await startService("PGlite", { DATA_DIR: pgliteDir })
  const liteSeed = await seed(liteService)
  const liteSpread = roundRobin(liteSeed.customers)
  const liteWarmup = await drive(liteService, liteSeed.apiKey, withdrawShape("warm-up", liteSpread), warmupSeconds, undefined, true)
  log(`  warm-up: ${warmupSeconds} s of withdraw spread, ${liteWarmup.ok} 2xx (not measured)`)
  const liteWithdraw = await drive(liteService, liteSeed.apiKey, withdrawShape("withdraw spread", liteSpread), seconds, undefined)
  const liteMemory = memoryMb(liteService.pid)
  const liteServiceOutput = liteService.output()
  const liteStopMs = await liteService.stop()
  log(`  stopped (SIGTERM) in ${fmt(liteStopMs, 0)} ms; service RSS at the end ${fmt(liteMemory.rss, 0)} MB, peak ${fmt(liteMemory.peak, 0)} MB`)
  const liteCheck = await ledgerCheck("PGlite", { DATA_DIR: pgliteDir })

  for (const [label, output] of [["PostgreSQL", pgServiceOutput], ["PGlite", liteServiceOutput]] as const) {
    const extra = output.split("\n").filter((line) => line.trim() !== "" && !/^(Partner Money Movement|  (Base URL|Docs|Rails|API key|Try):)/.test(line))
    if (extra.length > 0) {
      log(`\nThe ${label} service logged ${extra.length} line(s) at warning or above; the first ones:`)
      for (const line of extra.slice(0, 10)) log(`  ${line.slice(0, 400)}`)
    }
  }

  const workloads = [pgWithdraw, pgHot, pgBalance, liteWithdraw]
  failed ||= workloads.some((w) => w.unexpected > 0) || !pgRowsOk || !pgCheck.ok || !liteCheck.ok || tpcb.failed > 0 || selectOnly.failed > 0
  const runSeconds = elapsed(runStarted)

  const tps = (r: PgbenchRun) => `${r.label} ${fmt(r.tps, 0)} tps`
  const latencies = (w: Workload) => `${w.p50Ms} / ${w.p99Ms}`
  const statuses = (w: Workload) => (w.non2xx + w.errors + w.timeouts === 0 ? "0" : `${w.non2xx} (${Object.entries(w.statuses).map(([k, n]) => `${k}: ${n}`).join(", ")})` + (w.errors + w.timeouts > 0 ? ` + ${w.errors} errors, ${w.timeouts} timeouts` : ""))
  const cpu = (ms: number) => fmt(ms, 3)
  const rows: Array<Row> = [
    row("pgbench TPC-B (tps)", fmt(tpcb.tps, 0)),
    row("pgbench select-only (tps)", fmt(selectOnly.tps, 0)),
    row("pgbench TPC-B: PostgreSQL CPU per tx (ms)", cpu(tpcb.postgresCpuMsPerTx)),
    row("pgbench select-only: PostgreSQL CPU per tx (ms)", cpu(selectOnly.postgresCpuMsPerTx)),
    row("PG service: spawn to first 200 /health (ms)", fmt(pgService.spawnToFirst200Ms, 0)),
    row("PG service: RSS after start (MB)", fmt(pgService.rssAfterStartMb, 0)),
    row("PG service: RSS after workloads / peak (MB)", `${fmt(pgMemory.rss, 0)} / ${fmt(pgMemory.peak, 0)}`),
    row(`PG seeding over HTTP (${pgSeed.requests} requests, s)`, fmt(pgSeed.seconds, 1)),
    row("PG withdraw spread (req/s)", fmt(pgWithdraw.reqPerSec, 0), tps(tpcb), ratioOf(pgWithdraw.reqPerSec, tpcb.tps)),
    row("PG withdraw spread p50 / p99 (ms)", latencies(pgWithdraw), `TPC-B avg ${fmt(tpcb.latencyMs, 1)} ms`),
    row("PG withdraw spread non-2xx", statuses(pgWithdraw)),
    row("PG withdraw spread: service CPU per req (ms)", cpu(pgWithdraw.appCpuMsPerReq)),
    row("PG withdraw spread: PostgreSQL CPU per req (ms)", cpu(pgWithdraw.postgresCpuMsPerReq), `TPC-B ${cpu(tpcb.postgresCpuMsPerTx)} ms/tx`, ratioOf(pgWithdraw.postgresCpuMsPerReq, tpcb.postgresCpuMsPerTx)),
    row("PG withdraw hot (req/s)", fmt(pgHot.reqPerSec, 0), tps(tpcb), ratioOf(pgHot.reqPerSec, tpcb.tps)),
    row("PG withdraw hot p50 / p99 (ms)", latencies(pgHot), `TPC-B avg ${fmt(tpcb.latencyMs, 1)} ms`),
    row("PG withdraw hot non-2xx", statuses(pgHot)),
    row("PG withdraw hot: service CPU per req (ms)", cpu(pgHot.appCpuMsPerReq)),
    row("PG withdraw hot: PostgreSQL CPU per req (ms)", cpu(pgHot.postgresCpuMsPerReq), `TPC-B ${cpu(tpcb.postgresCpuMsPerTx)} ms/tx`, ratioOf(pgHot.postgresCpuMsPerReq, tpcb.postgresCpuMsPerTx)),
    row("PG balance spread (req/s)", fmt(pgBalance.reqPerSec, 0), tps(selectOnly), ratioOf(pgBalance.reqPerSec, selectOnly.tps)),
    row("PG balance spread p50 / p99 (ms)", latencies(pgBalance), `select-only avg ${fmt(selectOnly.latencyMs, 2)} ms`),
    row("PG balance spread non-2xx", statuses(pgBalance)),
    row("PG balance spread: service CPU per req (ms)", cpu(pgBalance.appCpuMsPerReq)),
    row("PG balance spread: PostgreSQL CPU per req (ms)", cpu(pgBalance.postgresCpuMsPerReq), `select-only ${cpu(selectOnly.postgresCpuMsPerTx)} ms/tx`, ratioOf(pgBalance.postgresCpuMsPerReq, selectOnly.postgresCpuMsPerTx)),
    row("PG ledger-check after the run", pgCheck.ok ? "ok" : "FAILED"),
    row("PGlite service: spawn to first 200 /health (ms)", fmt(liteService.spawnToFirst200Ms, 0)),
    row("PGlite service: RSS after start (MB)", fmt(liteService.rssAfterStartMb, 0)),
    row("PGlite service: RSS after workload / peak (MB)", `${fmt(liteMemory.rss, 0)} / ${fmt(liteMemory.peak, 0)}`),
    row(`PGlite seeding over HTTP (${liteSeed.requests} requests, s)`, fmt(liteSeed.seconds, 1)),
    row("PGlite withdraw spread (req/s)", fmt(liteWithdraw.reqPerSec, 0), tps(tpcb), ratioOf(liteWithdraw.reqPerSec, tpcb.tps)),
    row("PGlite withdraw spread p50 / p99 (ms)", latencies(liteWithdraw)),
    row("PGlite withdraw spread non-2xx", statuses(liteWithdraw)),
    row("PGlite withdraw spread: service CPU per req (ms)", cpu(liteWithdraw.appCpuMsPerReq)),
    row("PGlite ledger-check after the run", liteCheck.ok ? "ok" : "FAILED"),
    row("machine busy before the run (cores)", fmt(busyBefore, 2)),
    row("other processes' CPU (cores): TPC-B / -S / spread / hot / balance / PGlite",
      [tpcb, selectOnly, ...workloads].map((m) => fmt(m.neighbours.otherCores, 2)).join(" / ")),
    row("kernel interrupt CPU (cores): TPC-B / -S / spread / hot / balance / PGlite",
      [tpcb, selectOnly, ...workloads].map((m) => fmt(m.neighbours.kernelIrqCores, 2)).join(" / ")),
    row("whole run (s)", fmt(runSeconds, 0))
  ]

  log(`\nResult (${seconds} s per workload, ${connections} connections; ratio = value / reference)`)
  printTable(rows)
  log("CPU per request = CPU seconds used during the workload / 2xx answers; the service figure is its node process " +
    "(with PGlite: the database too), PostgreSQL's every process of the cluster. autocannon ran in this process: " +
    `${workloads.map((w) => `${w.service} ${w.name} ${cpu(w.loadgenCpuMsPerReq)} ms/req`).join(", ")}; ` +
    `pgbench client: TPC-B ${cpu(tpcb.pgbenchCpuMsPerTx)}, select-only ${cpu(selectOnly.pgbenchCpuMsPerTx)} ms/tx.`)

  NodeFs.mkdirSync(NodePath.dirname(outputFile), { recursive: true })
  NodeFs.writeFileSync(outputFile, JSON.stringify({
    generatedAt: new Date().toISOString(),
    machine: { busyCoresBefore: busyBefore, loadAverage: NodeOs.loadavg(), cpus: NodeOs.cpus().length, cpuModel: NodeOs.cpus()[0]?.model, memoryMb: Math.round(NodeOs.totalmem() / 2 ** 20), node: process.version },
    settings: { seconds, warmupSeconds, connections, customers: customerCount, withdrawAmount, pgbenchScale, quick },
    postgres: { description: cluster.description, settings: cluster.settings },
    pgbench: { initSeconds: pgbenchInitSeconds, tpcb, selectOnly },
    services: {
      postgres: {
        spawnToFirst200Ms: pgService.spawnToFirst200Ms, rssAfterStartMb: pgService.rssAfterStartMb, rssAtEndMb: pgMemory.rss,
        peakRssMb: pgMemory.peak, seeding: { seconds: pgSeed.seconds, requests: pgSeed.requests }, stopMs: pgStopMs,
        withdrawalsStored: pgRows, ledgerCheck: pgCheck
      },
      pglite: {
        spawnToFirst200Ms: liteService.spawnToFirst200Ms, rssAfterStartMb: liteService.rssAfterStartMb, rssAtEndMb: liteMemory.rss,
        peakRssMb: liteMemory.peak, seeding: { seconds: liteSeed.seconds, requests: liteSeed.requests }, stopMs: liteStopMs,
        ledgerCheck: liteCheck
      }
    },
    workloads,
    table: rows,
    runSeconds,
    ok: !failed
  }, null, 2) + "\n")
  log(`Written to ${NodePath.relative(process.cwd(), outputFile) || outputFile}; run time ${runSeconds.toFixed(0)} s.`)
  if (failed) {
    log("FAILED: see the UNEXPECTED / MISMATCH / ledger-check lines above")
    process.exitCode = 1
  }
}

main().then(cleanup, (error) => {
  console.error(error)
  cleanup()
  process.exit(1)
})
