/**
 * Whole-stack HTTP benchmark, side by side with PostgreSQL's own pgbench on the same cluster in one run.
 *
 *   npm run bench:http                       # throwaway PostgreSQL 15 cluster, 10 s per workload, 3 runs of each
 *   npm run bench:http -- --seconds 30       # longer workloads
 *   npm run bench:http -- --runs 5           # each workload (and pgbench) measured 5 times: min / median / max
 *   npm run bench:http -- --quick            # 3 s per workload, 1 run: a smoke run
 *   npm run bench:http -- --profile          # plus a CPU profile of the service during the spread withdraw workload
 *   npm run bench:http -- --repo /tmp/before # bench another checkout of this project (before/after)
 *   npm run bench:http -- --out FILE         # raw figures to FILE instead of .tmp/bench-http.json
 *   npm run bench:http -- --no-stat-statements   # leave pg_stat_statements out of the throwaway cluster
 *   BENCH_DATABASE_URL=postgresql://user@host:port/db npm run bench:http   # an existing server (creates and drops
 *                                            # databases on it; PostgreSQL CPU only when its data dir is local)
 *
 * 1. A throwaway PostgreSQL 15 cluster with the DEFAULT durability settings (fsync, synchronous_commit and
 *    full_page_writes on — unlike .ci/pg.sh, because pgbench is the reference), private port and socket dir,
 *    pg_stat_statements preloaded when installed, stopped and removed on exit, failure or SIGINT.
 * 2. pgbench -i -s 10, then TPC-B and select-only (-c 32 -j 2 -M prepared), N times each, in a database of their own.
 * 3. The real service of the target checkout (--repo) as a separate process, started the way its `npm start` does:
 *    package.json's "prestart" once before anything is timed, then the "start" script (sh -c, node_modules/.bin on
 *    PATH; `tsx src/main.ts serve` is spawned as tsx directly), sandbox mode, on a fresh database of the same cluster:
 *    time from spawn to the first 200 of GET /api/v1/health and the RSS of the node process that listens on the port
 *    (found through /proc, below any sh/npm/tsx launcher); seeding over HTTP (partner, 200 customers + 1 hot
 *    customer: Tier 1 KYC, virtual account, credit, bank account; bank rail manual, so no job runs while measuring).
 * 4. autocannon, 32 keep-alive connections, N times each: withdraw spread over the 200 customers, withdraw on one hot
 *    customer, balance reads spread, one customer's reads spread, the first list page of 20; req/s, p50/p99, non-2xx
 *    (printed), ratio to pgbench, CPU per request of the service's node process and of the PostgreSQL processes (from
 *    /proc/<pid>/stat, before and after each workload),
 *    statements / commits per request (pg_stat_statements) and WAL bytes per request. Then the service is restarted
 *    N times on the existing database: ready time and RSS after start. Then both cores: the service as 2 processes
 *    (WORKERS=2) on a fresh database of the cluster, seeded alike: withdraw spread and balance spread, N times each,
 *    beside the one process's figures (CPU per request counts every process of the service).
 * 5. With --profile: the service again, on a fresh database, spawned as `node --cpu-prof ...`; seeded, warmed up, the
 *    spread withdraw workload, SIGTERM (node writes the .cpuprofile to .tmp/bench-http-profile/), and a summary of
 *    the samples taken during that workload (test/bench/profileSummary.ts); then the same on a fresh PGlite data
 *    directory.
 * 6. The spread withdraw workload again (N times) with the service on the embedded PGlite (DATA_DIR in a temp dir),
 *    then N restarts on that existing data directory: ready time and RSS after start.
 * 7. One table at the end: min / median / max over the runs, ratio of medians to pgbench, the issue's goals with
 *    met / NOT MET. Every raw figure goes to .tmp/bench-http.json. `ledger-check` runs on both databases afterwards.
 *
 * The load generator (autocannon, in this process), pgbench, the service and PostgreSQL share the machine's cores:
 * the CPU lines say who used what. Exits non-zero on a failed step, an unexpected non-2xx answer or a ledger
 * violation — never because a goal is not met.
 */
import autocannon from "autocannon"
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { formatSummary, type ProfileSummary, readProfile, summarize } from "./profileSummary.js"
import { alive, allStats, cleanup, clockTicks, clusterCpu, elapsed, freePort, log, machineCpu, onCleanup, type ProcStat, processTree, readStat, runProcess, selfCpu, servingProcess, signalGroup, sleep, startThrowawayCluster, treeCpu, withClient } from "./BenchProcess.js"

// ---------------------------------------------------------------------------------------------------------------
// Settings

const argv = process.argv.slice(2)
const usage = "usage: npm run bench:http -- [--seconds N] [--quick] [--runs N] [--profile] [--repo DIR] [--out FILE] [--no-stat-statements]"
const optionValue = (name: string) => {
  const index = argv.indexOf(name)
  if (index < 0) return undefined
  const value = argv[index + 1]
  if (value === undefined || value.startsWith("--")) {
    console.error(`${name} needs a value\n${usage}`)
    process.exit(2)
  }
  return value
}
const known = new Set(["--quick", "--profile", "--no-stat-statements", "--seconds", "--runs", "--repo", "--out"])
for (let i = 0; i < argv.length; i++) {
  if (!known.has(argv[i]!)) {
    console.error(`unknown argument ${argv[i]}\n${usage}`)
    process.exit(2)
  }
  if (["--seconds", "--runs", "--repo", "--out"].includes(argv[i]!)) i++
}
const quick = argv.includes("--quick")
const profileRun = argv.includes("--profile")
const useStatStatements = !argv.includes("--no-stat-statements")
const seconds = Number(optionValue("--seconds") ?? (quick ? 3 : 10))
const runs = Number(optionValue("--runs") ?? (quick ? 1 : 3))
if (!Number.isInteger(seconds) || seconds < 1 || !Number.isInteger(runs) || runs < 1) {
  console.error(usage)
  process.exit(2)
}
const warmupSeconds = quick ? 1 : 2
const connections = 32
/** The processes of the "both cores" workloads (WORKERS). */
const workerProcesses = 2
const pgbenchScale = 10
const customerCount = 200
const seedConcurrency = 8
const withdrawAmount = 200 // NGN: fee 11.00, the bank receives 189.00 (minimum request 110.56)
const creditAmount = 1_000_000_000 // NGN per customer: lasts for millions of withdrawals
const pgBin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"
/** The checkout this script lives in: results are written here. */
const benchRoot = NodePath.resolve(fileURLToPath(new URL("../..", import.meta.url)))
/** The checkout whose service is measured (--repo, default this one). */
const repoRoot = NodePath.resolve(optionValue("--repo") ?? benchRoot)
if (!NodeFs.existsSync(NodePath.join(repoRoot, "package.json"))) {
  console.error(`--repo ${repoRoot}: no package.json there\n${usage}`)
  process.exit(2)
}
const tsxBin = NodePath.join(repoRoot, "node_modules/.bin/tsx")
const outputFile = NodePath.resolve(optionValue("--out") ?? NodePath.join(benchRoot, ".tmp/bench-http.json"))
const profileDir = NodePath.join(benchRoot, ".tmp/bench-http-profile")

/**
 * How `npm start` starts the service in the target repository: its package.json "start" script (with `serve`
 * appended when the script does not name it), run by `sh -c` with node_modules/.bin on PATH as npm does; "prestart"
 * runs once before anything is timed. The exact script `tsx src/main.ts serve` is spawned as tsx directly.
 */
const startScripts = (() => {
  let scripts: Record<string, string> = {}
  try {
    scripts = JSON.parse(NodeFs.readFileSync(NodePath.join(repoRoot, "package.json"), "utf8")).scripts ?? {}
  } catch {
    // no scripts: the default below
  }
  const start = (scripts.start ?? "tsx src/main.ts serve").trim()
  return {
    start: /(^|\s)serve(\s|$)/.test(start) ? start : `${start} serve`,
    prestart: scripts.prestart?.trim()
  }
})()
const repoCommit = (() => {
  try {
    return execFileSync("git", ["-C", repoRoot, "rev-parse", "--short", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
  } catch {
    return "?"
  }
})()
const runTag = NodeCrypto.randomBytes(4).toString("hex")

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

const mustRun = async (command: string, args: Array<string>, env?: NodeJS.ProcessEnv) => {
  const ran = await runProcess(command, args, env, repoRoot)
  if (ran.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${ran.code}:\n${ran.stdout}${ran.stderr}`)
  return ran
}

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL: a throwaway cluster with default durability, or BENCH_DATABASE_URL

interface Cluster {
  /** URL of a database to administer from (CREATE/DROP DATABASE). */
  readonly adminUrl: string
  readonly postmasterPid: number | undefined
  readonly description: string
  readonly settings: Record<string, string>
  readonly dropDatabases: boolean
  /** pg_stat_statements is loaded and queryable from adminUrl. */
  readonly statements: boolean
}

const startCluster = async (): Promise<{ adminUrl: string; postmasterPid: number; description: string }> => {
  // pg_stat_statements (postgresql-15 contrib) when installed: statements and commits per request, and with
  // track_planning how often each statement was planned (a prepared statement planned on every call is re-planned:
  // docs/performance.md "Plans of prepared statements"). It costs pgbench and the service alike;
  // --no-stat-statements leaves it out.
  const statStatements = useStatStatements && NodeFs.existsSync(`${pgBin}/../lib/pg_stat_statements.so`)
  const cluster = await startThrowawayCluster(pgBin, "pmm-bench-http-pg-", statStatements ? "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on" : "")
  return {
    adminUrl: cluster.adminUrl,
    postmasterPid: cluster.postmasterPid,
    description: `throwaway PostgreSQL cluster ${cluster.dir} on 127.0.0.1:${cluster.port} (postmaster ${cluster.postmasterPid})`
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
      dropDatabases: true,
      // Only when the server already has it: nothing is installed on a server that is not this run's own.
      statements: await withClient(existing, (client) => client.query("SELECT 1 FROM pg_stat_statements LIMIT 1")).then(() => true, () => false)
    }
  }
  const started = await startCluster()
  const statements = await withClient(started.adminUrl, async (client) => {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    await client.query("SELECT 1 FROM pg_stat_statements LIMIT 1")
  }).then(() => true, () => false)
  return { ...started, settings: await settingsOf(started.adminUrl), dropDatabases: false, statements }
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

/**
 * What the database did during a measurement: WAL bytes written (whole cluster), and with pg_stat_statements the
 * statements the clients sent to one database (top-level, utility statements included), of which COMMIT/END and
 * ROLLBACK, and the most frequent ones. pg_stat_statements is reset when the window opens.
 */
interface DbActivity {
  readonly walBytes: number
  /** Transaction ids assigned in the whole cluster: transactions (and subtransactions) that wrote, committed or not. */
  readonly writeTransactions: number
  readonly statements: number
  readonly commits: number
  readonly rollbacks: number
  /** `plans`: times PostgreSQL planned the statement (pg_stat_statements.track_planning): a prepared statement planned on every call is re-planned. */
  readonly top: Array<{ readonly query: string; readonly calls: number; readonly execMs: number; readonly plans: number; readonly planMs: number }>
}

const statementLine = (t: { perReq: number; execMsPerCall: number; plansPerCall: number; planMsPerCall: number; query: string }) =>
  `  ${t.perReq.toFixed(2).padStart(6)}  ${t.execMsPerCall.toFixed(3).padStart(7)}  ${t.plansPerCall.toFixed(2).padStart(5)}  ` +
  `${t.planMsPerCall.toFixed(3).padStart(7)}  ${t.query.slice(0, 120)}`

const dbWindow = async (cluster: Cluster, database: string) => {
  const before = await withClient(cluster.adminUrl, async (client) => {
    if (cluster.statements) await client.query("SELECT pg_stat_statements_reset()")
    return (await client.query<{ lsn: string; xid: string }>(
      "SELECT pg_current_wal_lsn()::text AS lsn, pg_snapshot_xmax(pg_current_snapshot())::text AS xid")).rows[0]!
  }).catch(() => undefined)
  return (): Promise<DbActivity | undefined> =>
    before === undefined ? Promise.resolve(undefined) : withClient(cluster.adminUrl, async (client) => {
      const now = (await client.query<{ bytes: string; xid: string }>(
        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text AS bytes, pg_snapshot_xmax(pg_current_snapshot())::text AS xid", [before.lsn])).rows[0]!
      const walBytes = Number(now.bytes)
      const writeTransactions = Number(now.xid) - Number(before.xid)
      if (!cluster.statements) return { walBytes, writeTransactions, statements: NaN, commits: NaN, rollbacks: NaN, top: [] }
      const { rows } = await client.query<{ query: string; calls: string; exec_ms: string; plans: string; plan_ms: string }>(
        "SELECT s.query, sum(s.calls)::text AS calls, sum(s.total_exec_time)::text AS exec_ms, sum(s.plans)::text AS plans, " +
          "sum(s.total_plan_time)::text AS plan_ms FROM pg_stat_statements s " +
          "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 GROUP BY s.query ORDER BY sum(s.calls) DESC", [database])
      const calls = rows.map((r) => ({
        query: r.query.replace(/\s+/g, " ").trim(),
        calls: Number(r.calls),
        execMs: Number(r.exec_ms),
        plans: Number(r.plans),
        planMs: Number(r.plan_ms)
      }))
      const sum = (pattern: RegExp) => calls.filter((c) => pattern.test(c.query)).reduce((n, c) => n + c.calls, 0)
      return {
        walBytes,
        writeTransactions,
        statements: sum(/./),
        commits: sum(/^(commit|end)\b/i),
        rollbacks: sum(/^rollback\b/i),
        top: calls.slice(0, 12)
      }
    }).catch(() => undefined)
}

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
  readonly statementsPerTx: number
  readonly commitsPerTx: number
  readonly writeTxPerTx: number
  readonly walBytesPerTx: number
}

const pgbench = async (cluster: Cluster, url: string, label: string, extra: Array<string>): Promise<PgbenchRun> => {
  await checkpoint(cluster)
  const db = await dbWindow(cluster, new URL(url).pathname.slice(1))
  const pgBefore = clusterCpu(cluster.postmasterPid)
  const selfBefore = selfCpu()
  const backends = processTree(cluster.postmasterPid ?? -1).length
  const neighbours = watchNeighbours(cluster.postmasterPid)
  const ran = await mustRun(`${pgBin}/pgbench`, [...extra, "-c", String(connections), "-j", "2", "-T", String(seconds), "-M", "prepared", url])
  // pgbench's backends end after it disconnects; their CPU reaches the postmaster's count once they are reaped.
  for (let i = 0; i < 100 && processTree(cluster.postmasterPid ?? -1).length > backends; i++) await sleep(50)
  const pgAfter = clusterCpu(cluster.postmasterPid)
  const selfAfter = selfCpu()
  const activity = await db()
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
    neighbours: neighbours(),
    statementsPerTx: (activity?.statements ?? NaN) / transactions,
    commitsPerTx: (activity?.commits ?? NaN) / transactions,
    writeTxPerTx: (activity?.writeTransactions ?? NaN) / transactions,
    walBytesPerTx: (activity?.walBytes ?? NaN) / transactions
  }
  log(`  ${label.padEnd(22)} ${tps.toFixed(0).padStart(7)} tps   latency avg ${run.latencyMs.toFixed(2)} ms   ` +
    `${transactions} tx, ${run.failed} failed   CPU/tx: PostgreSQL ${fmtMs(run.postgresCpuMsPerTx)}, pgbench ${fmtMs(run.pgbenchCpuMsPerTx)}`)
  log(`  ${"".padEnd(22)} per tx: ${fmt(run.statementsPerTx, 2)} statements, ${fmt(run.commitsPerTx, 2)} COMMIT statements, ${fmt(run.writeTxPerTx, 2)} write transactions, ${fmt(run.walBytesPerTx, 0)} WAL bytes`)
  log(`  ${"".padEnd(22)} meanwhile: ${describeNeighbours(run.neighbours)}`)
  return run
}

// ---------------------------------------------------------------------------------------------------------------
// The service as a separate process

interface Service {
  readonly label: string
  readonly origin: string
  readonly apiBase: string
  /** The node process that serves (listens on the port), not a launcher (sh, npm, tsx) above it. */
  readonly pid: number
  readonly launcherPid: number
  readonly command: string
  readonly dataDir: string
  readonly spawnToFirst200Ms: number
  readonly rssAfterStartMb: number
  readonly output: () => string
  readonly stop: () => Promise<number>
}


const repoPath = () => `${NodePath.join(repoRoot, "node_modules/.bin")}${NodePath.delimiter}${process.env.PATH ?? ""}`

/** Runs package.json's "prestart" of the target repository once (a build step), before anything is timed. */
const runPrestart = async () => {
  if (startScripts.prestart === undefined || startScripts.prestart === "") return undefined
  const started = performance.now()
  await mustRun("sh", ["-c", startScripts.prestart], { ...process.env, PATH: repoPath() })
  const ms = performance.now() - started
  log(`  prestart (${startScripts.prestart}): ${fmt(ms, 0)} ms`)
  return ms
}

/**
 * The command that starts the service: the start script as npm runs it (sh -c, node_modules/.bin on PATH), or tsx
 * spawned directly for the script `tsx src/main.ts serve`. With a profile directory, node itself is spawned with
 * --cpu-prof (not allowed in NODE_OPTIONS), `tsx X` becoming `node --import tsx X`: one node process, the server.
 */
const startCommand = (profileTo: string | undefined): { command: string; args: Array<string>; description: string } => {
  const script = startScripts.start
  const words = script.split(/\s+/)
  const plain = words.every((word) => /^[\w./@:=,+-]+$/.test(word)) // no shell syntax: splitting on spaces is exact
  if (profileTo !== undefined) {
    const flags = ["--cpu-prof", `--cpu-prof-dir=${profileTo}`]
    if (plain && words[0] === "tsx") {
      return { command: process.execPath, args: [...flags, "--import", "tsx", ...words.slice(1)], description: `node ${flags.join(" ")} --import tsx ${words.slice(1).join(" ")}` }
    }
    if (plain && words[0] === "node") {
      return { command: process.execPath, args: [...flags, ...words.slice(1)], description: `node ${flags.join(" ")} ${words.slice(1).join(" ")}` }
    }
    // A build step then `exec node X` (the start script runs compiled JavaScript): the build already ran as a
    // step of its own or is cheap; profile the final node command.
    const last = script.split("&&").map((part) => part.trim().replace(/^exec\s+/, "")).at(-1) ?? ""
    const lastWords = last.split(/\s+/)
    if (last !== script && lastWords[0] === "node" && lastWords.every((word) => /^[\w./@:=,+-]+$/.test(word))) {
      const first = script.slice(0, script.lastIndexOf("&&")).trim()
      return {
        command: "sh",
        args: ["-c", `${first} && exec ${process.execPath} ${flags.join(" ")} ${lastWords.slice(1).join(" ")}`],
        description: `${first} && exec node ${flags.join(" ")} ${lastWords.slice(1).join(" ")}`
      }
    }
    throw new Error(`--profile: cannot insert --cpu-prof into the start script "${script}" (expected "tsx ...", "node ..." or "... && exec node ...")`)
  }
  if (script === "tsx src/main.ts serve") return { command: tsxBin, args: ["src/main.ts", "serve"], description: script }
  return { command: "sh", args: ["-c", script], description: `sh -c '${script}'` }
}

const startService = async (label: string, env: Record<string, string>, options: { dataDir?: string; profileTo?: string; quiet?: boolean } = {}): Promise<Service> => {
  const port = await freePort()
  const dataDir = options.dataDir ?? NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-bench-http-data-"))
  if (options.dataDir === undefined) onCleanup(`remove ${label} data dir`, () => NodeFs.rmSync(dataDir, { recursive: true, force: true }))
  const start = startCommand(options.profileTo)
  const started = performance.now()
  const child: ChildProcess = spawn(start.command, start.args, {
    cwd: repoRoot,
    detached: true, // its own process group: a Ctrl-C reaches this script, which stops it
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PATH: repoPath(),
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
  const killGroup = (signal: NodeJS.Signals) => signalGroup(child.pid, signal)
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
  const server = servingProcess(child.pid!, port)
  if (server === undefined) throw new Error(`cannot find the ${label} service's node process under pid ${child.pid}`)
  const rssAfterStartMb = memoryMb(server.pid).rss
  if (!options.quiet) {
    log(`  ${label}: ${apiBase}; first 200 on GET /health ${fmt(spawnToFirst200Ms, 0)} ms after spawn of \`${start.description}\`; ` +
      `serving pid ${server.pid} (${server.comm}${server.pid === child.pid ? "" : `, launched by ${child.pid}`}); RSS ${fmt(rssAfterStartMb, 0)} MB`)
  }
  return {
    label, origin, apiBase, pid: server.pid, launcherPid: child.pid!, command: start.description, dataDir, spawnToFirst200Ms, rssAfterStartMb,
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
      // A launcher (sh) may exit a moment before the server: wait for the server itself (its profile is written last).
      for (let i = 0; i < 300 && alive(server.pid); i++) await sleep(20)
      forget()
      return performance.now() - stopping
    }
  }
}

/** Starts the service on an existing data directory / database and stops it: ready time and RSS after start. */
const restart = async (label: string, env: Record<string, string>, dataDir: string) => {
  const service = await startService(label, env, { dataDir, quiet: true })
  const stopMs = await service.stop()
  return { spawnToFirst200Ms: service.spawnToFirst200Ms, rssAfterStartMb: service.rssAfterStartMb, stopMs }
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
  /** From the database (PostgreSQL only; statements and commits need pg_stat_statements). */
  readonly statementsPerReq: number
  readonly commitsPerReq: number
  readonly writeTxPerReq: number
  readonly rollbacksPerReq: number
  readonly walBytesPerReq: number
  /** Calls per request and mean execution time per call (pg_stat_statements' total_exec_time / calls, ms). */
  readonly topStatements: Array<{ readonly query: string; readonly perReq: number; readonly execMsPerCall: number; readonly plansPerCall: number; readonly planMsPerCall: number }>
  /** Monotonic clock (µs, as in a V8 CPU profile) at the start and end of the measurement. */
  readonly fromUs: number
  readonly toUs: number
}

interface Shape {
  readonly name: string
  readonly method: "GET" | "POST"
  readonly path: () => string
  readonly body?: () => string
  /** "<status> <code>" answers that are not failures of this workload. */
  readonly expected?: ReadonlyArray<string>
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

const drive = async (service: Service, apiKey: string, shape: Shape, duration: number, postmasterPid: number | undefined, quiet = false,
  db?: { readonly cluster: Cluster; readonly database: string }): Promise<Workload> => {
  const statuses: Record<string, number> = {}
  const samples: Array<string> = []
  const dbActivity = db === undefined ? undefined : await dbWindow(db.cluster, db.database)
  const fromUs = monotonicUs()
  const appBefore = treeCpu(service.launcherPid)
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
  const toUs = monotonicUs()
  const appAfter = treeCpu(service.launcherPid)
  const pgAfter = clusterCpu(postmasterPid)
  const selfAfter = selfCpu()
  const activity = dbActivity === undefined ? undefined : await dbActivity()
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
    rssAfterMb: memoryMb(service.pid).rss,
    statementsPerReq: (activity?.statements ?? NaN) / ok,
    commitsPerReq: (activity?.commits ?? NaN) / ok,
    writeTxPerReq: (activity?.writeTransactions ?? NaN) / ok,
    rollbacksPerReq: (activity?.rollbacks ?? NaN) / ok,
    walBytesPerReq: (activity?.walBytes ?? NaN) / ok,
    topStatements: (activity?.top ?? []).map((t) => ({
      query: t.query,
      perReq: t.calls / ok,
      execMsPerCall: t.calls > 0 ? t.execMs / t.calls : 0,
      plansPerCall: t.calls > 0 ? t.plans / t.calls : 0,
      planMsPerCall: t.calls > 0 ? t.planMs / t.calls : 0
    })),
    fromUs,
    toUs
  }
  if (!quiet) {
    log(`  ${shape.name.padEnd(22)} ${fmt(workload.reqPerSec, 0).padStart(7)} req/s   p50 ${workload.p50Ms} ms   p99 ${workload.p99Ms} ms   ` +
      `${ok} 2xx, ${workload.non2xx} non-2xx, ${workload.errors} errors, ${workload.timeouts} timeouts`)
    log(`  ${"".padEnd(22)} CPU/request: service ${fmtMs(workload.appCpuMsPerReq)} (${fmt(workload.appCpuCores, 2)} cores), ` +
      `PostgreSQL ${fmtMs(workload.postgresCpuMsPerReq)} (${fmt(workload.postgresCpuCores, 2)} cores), ` +
      `autocannon ${fmtMs(workload.loadgenCpuMsPerReq)}; CPU s before→after: service ${fmt(appBefore, 2)}→${fmt(appAfter, 2)}, ` +
      `PostgreSQL ${fmt(pgBefore, 2)}→${fmt(pgAfter, 2)}; service RSS ${fmt(workload.rssAfterMb, 0)} MB`)
    if (activity !== undefined) {
      log(`  ${"".padEnd(22)} database per request: ${fmt(workload.statementsPerReq, 2)} statements, ${fmt(workload.commitsPerReq, 2)} COMMIT, ` +
        `${fmt(workload.rollbacksPerReq, 2)} ROLLBACK statements, ${fmt(workload.writeTxPerReq, 2)} write transactions, ${fmt(workload.walBytesPerReq, 0)} WAL bytes`)
    }
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

/** min / median / max of the runs' figures. */
interface Spread { readonly min: number; readonly median: number; readonly max: number; readonly values: Array<number> }

const spreadOf = (values: Array<number>): Spread => {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b)
  if (finite.length === 0) return { min: NaN, median: NaN, max: NaN, values }
  const middle = Math.floor(finite.length / 2)
  const median = finite.length % 2 === 1 ? finite[middle]! : (finite[middle - 1]! + finite[middle]!) / 2
  return { min: finite[0]!, median, max: finite[finite.length - 1]!, values }
}
const over = <A>(items: ReadonlyArray<A>, f: (item: A) => number) => spreadOf(items.map(f))

/** "min / median / max", or the one value of a single run. */
const mmm = (s: Spread, digits: number) =>
  s.values.length <= 1 || (s.min === s.max && Number.isFinite(s.min)) ? fmt(s.median, digits) : `${fmt(s.min, digits)} / ${fmt(s.median, digits)} / ${fmt(s.max, digits)}`

interface Row { readonly figure: string; readonly value: string; readonly reference: string; readonly ratio: string; readonly goal: string; readonly met: string }

const row = (figure: string, value: string, reference = "", ratio = "", goal = "", met = ""): Row => ({ figure, value, reference, ratio, goal, met })
const ratioOf = (value: number, reference: number) => (Number.isFinite(value) && Number.isFinite(reference) && reference > 0 ? `${(value / reference).toFixed(3)}` : "")
const verdict = (ok: boolean | undefined) => (ok === undefined ? "n/a" : ok ? "met" : "NOT MET")

const printTable = (rows: Array<Row>, valueHeader: string) => {
  const headers = row("figure", valueHeader, "pgbench reference (median)", "ratio", "goal", "met")
  const keys = ["figure", "value", "reference", "ratio", "goal", "met"] as const
  const widths = keys.map((key) => Math.max(...[headers, ...rows].map((r) => r[key].length)))
  const line = (r: Row) =>
    `| ${r.figure.padEnd(widths[0]!)} | ${r.value.padStart(widths[1]!)} | ${r.reference.padEnd(widths[2]!)} | ${r.ratio.padStart(widths[3]!)} | ${r.goal.padEnd(widths[4]!)} | ${r.met.padEnd(widths[5]!)} |`
  log(line(headers))
  log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`)
  for (const r of rows) log(line(r))
}

// ---------------------------------------------------------------------------------------------------------------
// Main

const main = async () => {
  const runStarted = performance.now()
  log(`bench:http — ${NodeOs.cpus().length} CPUs (${NodeOs.cpus()[0]?.model ?? "?"}), node ${process.version}, ` +
    `${seconds} s per workload, ${runs} run(s) of each, ${connections} connections${quick ? " (--quick)" : ""}${profileRun ? " (--profile)" : ""}`)
  log(`  service: ${repoRoot} (commit ${repoCommit}); npm start = "${startScripts.start}"` +
    (startScripts.prestart ? `, prestart = "${startScripts.prestart}"` : ", no prestart"))
  let failed = false
  const idleCheck = machineCpu().busy
  await sleep(1000)
  const busyBefore = machineCpu().busy - idleCheck // this process sleeps meanwhile
  log(`  machine before the run: ${busyBefore.toFixed(2)} of ${NodeOs.cpus().length} cores busy, load average ` +
    `${NodeOs.loadavg().map((n) => n.toFixed(2)).join(" ")}` +
    (busyBefore > 0.3 ? " — OTHER WORK IS RUNNING ON THIS MACHINE: the figures below share the CPU with it (see \"other processes\")" : ""))
  const prestartMs = await runPrestart()

  log("\nPostgreSQL")
  const cluster = await openCluster()
  log(`  ${cluster.description}`)
  log(`  settings: ${Object.entries(cluster.settings).map(([k, v]) => `${k}=${v}`).join(", ")}; pg_stat_statements ${cluster.statements ? "on" : "off"}`)

  log(`\npgbench (scale ${pgbenchScale}, -c ${connections} -j 2 -T ${seconds} -M prepared, ${runs} run(s))`)
  const pgbenchUrl = await createDatabase(cluster, `pmm_bench_pgbench_${runTag}`)
  let started = performance.now()
  await mustRun(`${pgBin}/pgbench`, ["-i", "-q", "-s", String(pgbenchScale), pgbenchUrl])
  const pgbenchInitSeconds = elapsed(started)
  log(`  pgbench -i -s ${pgbenchScale}: ${pgbenchInitSeconds.toFixed(1)} s`)
  const tpcbRuns: Array<PgbenchRun> = []
  const selectRuns: Array<PgbenchRun> = []
  const runLabel = (label: string, i: number) => (runs > 1 ? `${label} #${i + 1}` : label)
  for (let i = 0; i < runs; i++) {
    tpcbRuns.push(await pgbench(cluster, pgbenchUrl, runLabel("TPC-B", i), []))
    selectRuns.push(await pgbench(cluster, pgbenchUrl, runLabel("select-only (-S)", i), ["-S"]))
  }

  log("\nService on PostgreSQL")
  const serviceDb = `pmm_bench_http_${runTag}`
  const serviceUrl = await createDatabase(cluster, serviceDb)
  const dbOfService = { cluster, database: serviceDb }
  const pgService = await startService("PostgreSQL", { DATABASE_URL: serviceUrl })
  const pgSeed = await seed(pgService)
  const spread = roundRobin(pgSeed.customers)
  const pgWarmup = await drive(pgService, pgSeed.apiKey, withdrawShape("warm-up", spread), warmupSeconds, cluster.postmasterPid, true)
  log(`  warm-up: ${warmupSeconds} s of withdraw spread, ${pgWarmup.ok} 2xx (not measured)`)
  const pgWithdraws: Array<Workload> = []
  const pgHots: Array<Workload> = []
  const pgBalances: Array<Workload> = []
  const pgCustomers: Array<Workload> = []
  const pgLists: Array<Workload> = []
  for (let i = 0; i < runs; i++) {
    await checkpoint(cluster)
    pgWithdraws.push(await drive(pgService, pgSeed.apiKey, withdrawShape(runLabel("withdraw spread", i), spread), seconds, cluster.postmasterPid, false, dbOfService))
    await checkpoint(cluster)
    pgHots.push(await drive(pgService, pgSeed.apiKey, withdrawShape(runLabel("withdraw hot", i), () => pgSeed.hot), seconds, cluster.postmasterPid, false, dbOfService))
    await checkpoint(cluster)
    pgBalances.push(await drive(pgService, pgSeed.apiKey, {
      name: runLabel("balance spread", i), method: "GET", path: () => `/api/v1/partner/v1/customers/${spread()}/balance`
    }, seconds, cluster.postmasterPid, false, dbOfService))
    // Two more reads (no goal here; the list's goal is bench:scale's): one customer, and the first page of 20.
    pgCustomers.push(await drive(pgService, pgSeed.apiKey, {
      name: runLabel("customer spread", i), method: "GET", path: () => `/api/v1/partner/v1/customers/${spread()}`
    }, seconds, cluster.postmasterPid, false, dbOfService))
    pgLists.push(await drive(pgService, pgSeed.apiKey, {
      name: runLabel("list page of 20", i), method: "GET", path: () => "/api/v1/partner/v1/customers?limit=20"
    }, seconds, cluster.postmasterPid, false, dbOfService))
  }
  const pgMemory = memoryMb(pgService.pid)
  const pgServiceOutput = pgService.output()
  const pgStopMs = await pgService.stop()
  log(`  stopped (SIGTERM) in ${fmt(pgStopMs, 0)} ms; service RSS at the end ${fmt(pgMemory.rss, 0)} MB, peak ${fmt(pgMemory.peak, 0)} MB`)
  const pgRestarts: Array<{ spawnToFirst200Ms: number; rssAfterStartMb: number; stopMs: number }> = []
  for (let i = 0; i < runs; i++) pgRestarts.push(await restart("PostgreSQL", { DATABASE_URL: serviceUrl }, pgService.dataDir))
  log(`  restarted on the existing database ${runs} time(s): first 200 on GET /health ${pgRestarts.map((r) => fmt(r.spawnToFirst200Ms, 0)).join(", ")} ms ` +
    `after spawn; RSS after start ${pgRestarts.map((r) => fmt(r.rssAfterStartMb, 0)).join(", ")} MB`)
  const pgWorkloads = [pgWarmup, ...pgWithdraws, ...pgHots]
  const pgOk = pgWorkloads.reduce((n, w) => n + w.ok, 0)
  const pgRows = await countWithdrawals(serviceUrl)
  // A request in flight when autocannon stops is dropped by the client but may still commit.
  const pgRowsOk = pgRows >= pgOk && pgRows <= pgOk + pgWorkloads.length * connections + pgWorkloads.reduce((n, w) => n + w.non2xx, 0)
  log(`  withdrawals stored: ${pgRows} for ${pgOk} 2xx answers${pgRowsOk ? "" : " — MISMATCH"}`)
  const pgCheck = await ledgerCheck("PostgreSQL", { DATABASE_URL: serviceUrl })

  // Both cores: the same service as two processes sharing the port (WORKERS=2, docs/operations.md "Both cores"), on a
  // fresh database of the same cluster, seeded alike; the CPU figures count both workers and their primary.
  log(`\nService on PostgreSQL, ${workerProcesses} processes (WORKERS=${workerProcesses})`)
  const workersDb = `pmm_bench_http_workers_${runTag}`
  const workersUrl = await createDatabase(cluster, workersDb)
  const workersService = await startService(`PostgreSQL, WORKERS=${workerProcesses}`, { DATABASE_URL: workersUrl, WORKERS: String(workerProcesses) })
  const workersSeed = await seed(workersService)
  const workersSpread = roundRobin(workersSeed.customers)
  await drive(workersService, workersSeed.apiKey, withdrawShape("warm-up", workersSpread), warmupSeconds, cluster.postmasterPid, true)
  const workersWithdraws: Array<Workload> = []
  const workersBalances: Array<Workload> = []
  const dbOfWorkers = { cluster, database: workersDb }
  for (let i = 0; i < runs; i++) {
    await checkpoint(cluster)
    workersWithdraws.push(await drive(workersService, workersSeed.apiKey, withdrawShape(runLabel("withdraw spread", i), workersSpread), seconds, cluster.postmasterPid, false, dbOfWorkers))
    await checkpoint(cluster)
    workersBalances.push(await drive(workersService, workersSeed.apiKey, {
      name: runLabel("balance spread", i), method: "GET", path: () => `/api/v1/partner/v1/customers/${workersSpread()}/balance`
    }, seconds, cluster.postmasterPid, false, dbOfWorkers))
  }
  const workersStopMs = await workersService.stop()
  log(`  stopped (SIGTERM) in ${fmt(workersStopMs, 0)} ms`)
  const workersOk = [...workersWithdraws].reduce((n, w) => n + w.ok, 0)
  const workersRows = await countWithdrawals(workersUrl)
  log(`  withdrawals stored: ${workersRows} (${workersOk} 2xx answers in the measured runs, the warm-up's besides)`)
  const workersCheck = await ledgerCheck(`PostgreSQL, WORKERS=${workerProcesses}`, { DATABASE_URL: workersUrl })

  type Profiled = { summary: ProfileSummary; file: string; workload: Workload; command: string; balance?: { summary: ProfileSummary; workload: Workload } }
  /**
   * The service under --cpu-prof on a fresh database: seeded, warmed up, the spread withdraw workload, then (on
   * PostgreSQL) the balance spread workload, SIGTERM; each workload's window summarised apart.
   */
  const profileService = async (label: string, env: Record<string, string>, dataDir: string | undefined, postmasterPid: number | undefined): Promise<Profiled> => {
    NodeFs.mkdirSync(profileDir, { recursive: true })
    const profiled = await startService(`${label} --cpu-prof`, env, { profileTo: profileDir, ...(dataDir === undefined ? {} : { dataDir }) })
    const profiledSeed = await seed(profiled)
    const profiledSpread = roundRobin(profiledSeed.customers)
    await drive(profiled, profiledSeed.apiKey, withdrawShape("warm-up", profiledSpread), warmupSeconds, postmasterPid, true)
    if (postmasterPid !== undefined) await checkpoint(cluster)
    const workload = await drive(profiled, profiledSeed.apiKey, withdrawShape("withdraw spread (profiled)", profiledSpread), seconds, postmasterPid)
    const balanceWorkload = postmasterPid === undefined ? undefined : await drive(profiled, profiledSeed.apiKey, {
      name: "balance spread (profiled)", method: "GET", path: () => `/api/v1/partner/v1/customers/${profiledSpread()}/balance`
    }, seconds, postmasterPid)
    const stopMs = await profiled.stop()
    // One file per thread of the process (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): node 20 runs module
    // hooks (tsx under --import) on a thread of their own. The main thread is 0; the busiest one is summarised.
    const files = NodeFs.readdirSync(profileDir).filter((name) => name.endsWith(".cpuprofile") && name.split(".")[3] === String(profiled.pid))
      .map((name) => NodePath.join(profileDir, name))
    if (files.length === 0) throw new Error(`--profile: no .cpuprofile of pid ${profiled.pid} in ${profileDir} after SIGTERM (stopped in ${fmt(stopMs, 0)} ms)`)
    const summaries = files.map((file) => ({
      file,
      summary: summarize(readProfile(file), { file: NodePath.relative(process.cwd(), file) || file, top: 25, fromUs: workload.fromUs, toUs: workload.toUs })
    })).sort((a, b) => b.summary.busyMs - a.summary.busyMs)
    const { file, summary } = summaries[0]!
    log(`  stopped (SIGTERM) in ${fmt(stopMs, 0)} ms; profile of the spread workload's ${seconds} s window only (start-up and seeding left out)` +
      (summaries.length > 1 ? `; other threads' profiles: ${summaries.slice(1).map((s) => `${NodePath.basename(s.file)} busy ${fmt(s.summary.busyMs, 0)} ms`).join(", ")}` : "") + ":")
    for (const line of formatSummary(summary, { requests: workload.ok })) log(`  ${line}`)
    if (balanceWorkload === undefined) return { summary, file, workload, command: profiled.command }
    const balanceSummary = summarize(readProfile(file), { file: NodePath.relative(process.cwd(), file) || file, top: 25, fromUs: balanceWorkload.fromUs, toUs: balanceWorkload.toUs })
    log(`  the balance spread workload's ${seconds} s window of the same profile:`)
    for (const line of formatSummary(balanceSummary, { requests: balanceWorkload.ok })) log(`  ${line}`)
    return { summary, file, workload, command: profiled.command, balance: { summary: balanceSummary, workload: balanceWorkload } }
  }

  let profile: Profiled | undefined
  let liteProfile: Profiled | undefined
  if (profileRun) {
    log("\nProfile: the service on PostgreSQL under --cpu-prof, withdraw spread then balance spread (a fresh database; figures not in the table)")
    const profileUrl = await createDatabase(cluster, `pmm_bench_http_profile_${runTag}`)
    profile = await profileService("PostgreSQL", { DATABASE_URL: profileUrl }, undefined, cluster.postmasterPid)
    log("\nProfile: the service on the embedded PGlite under --cpu-prof, withdraw spread only (a fresh data directory; the database's WebAssembly is in the same process)")
    const liteProfileDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-bench-http-pglite-profile-"))
    onCleanup("remove the profiled PGlite data dir", () => NodeFs.rmSync(liteProfileDir, { recursive: true, force: true }))
    liteProfile = await profileService("PGlite", {}, liteProfileDir, undefined)
  }

  log("\nService on the embedded PGlite")
  const pgliteDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-bench-http-pglite-"))
  onCleanup("remove the PGlite data dir", () => NodeFs.rmSync(pgliteDir, { recursive: true, force: true }))
  const liteService = await startService("PGlite", {}, { dataDir: pgliteDir })
  const liteSeed = await seed(liteService)
  const liteSpread = roundRobin(liteSeed.customers)
  const liteWarmup = await drive(liteService, liteSeed.apiKey, withdrawShape("warm-up", liteSpread), warmupSeconds, undefined, true)
  log(`  warm-up: ${warmupSeconds} s of withdraw spread, ${liteWarmup.ok} 2xx (not measured)`)
  const liteWithdraws: Array<Workload> = []
  for (let i = 0; i < runs; i++) {
    liteWithdraws.push(await drive(liteService, liteSeed.apiKey, withdrawShape(runLabel("withdraw spread", i), liteSpread), seconds, undefined))
  }
  const liteMemory = memoryMb(liteService.pid)
  const liteServiceOutput = liteService.output()
  const liteStopMs = await liteService.stop()
  log(`  stopped (SIGTERM) in ${fmt(liteStopMs, 0)} ms; service RSS at the end ${fmt(liteMemory.rss, 0)} MB, peak ${fmt(liteMemory.peak, 0)} MB`)
  const liteRestarts: Array<{ spawnToFirst200Ms: number; rssAfterStartMb: number; stopMs: number }> = []
  for (let i = 0; i < runs; i++) liteRestarts.push(await restart("PGlite", {}, pgliteDir))
  log(`  restarted on the existing data directory ${runs} time(s): first 200 on GET /health ${liteRestarts.map((r) => fmt(r.spawnToFirst200Ms, 0)).join(", ")} ms ` +
    `after spawn; RSS after start ${liteRestarts.map((r) => fmt(r.rssAfterStartMb, 0)).join(", ")} MB`)
  const liteCheck = await ledgerCheck("PGlite", { DATA_DIR: pgliteDir })

  for (const [label, output] of [["PostgreSQL", pgServiceOutput], ["PGlite", liteServiceOutput]] as const) {
    const extra = output.split("\n").filter((line) => line.trim() !== "" && !/^(Partner Money Movement|  (Base URL|Docs|Rails|API key|Try):)/.test(line))
    if (extra.length > 0) {
      log(`\nThe ${label} service logged ${extra.length} line(s) at warning or above; the first ones:`)
      for (const line of extra.slice(0, 10)) log(`  ${line.slice(0, 400)}`)
    }
  }

  const workloads = [...pgWithdraws, ...pgHots, ...pgBalances, ...pgCustomers, ...pgLists, ...workersWithdraws, ...workersBalances, ...liteWithdraws]
  failed ||= workloads.some((w) => w.unexpected > 0) || !pgRowsOk || !pgCheck.ok || !liteCheck.ok || !workersCheck.ok ||
    [...tpcbRuns, ...selectRuns].some((r) => r.failed > 0)
  const runSeconds = elapsed(runStarted)

  // Figures over the runs
  const tpcb = { tps: over(tpcbRuns, (r) => r.tps), latencyMs: over(tpcbRuns, (r) => r.latencyMs), cpu: over(tpcbRuns, (r) => r.postgresCpuMsPerTx),
    statements: over(tpcbRuns, (r) => r.statementsPerTx), commits: over(tpcbRuns, (r) => r.writeTxPerTx), wal: over(tpcbRuns, (r) => r.walBytesPerTx) }
  const sel = { tps: over(selectRuns, (r) => r.tps), latencyMs: over(selectRuns, (r) => r.latencyMs), cpu: over(selectRuns, (r) => r.postgresCpuMsPerTx) }
  const figures = (ws: Array<Workload>) => ({
    reqPerSec: over(ws, (w) => w.reqPerSec), p50: over(ws, (w) => w.p50Ms), p99: over(ws, (w) => w.p99Ms),
    appCpu: over(ws, (w) => w.appCpuMsPerReq), pgCpu: over(ws, (w) => w.postgresCpuMsPerReq),
    statements: over(ws, (w) => w.statementsPerReq), commits: over(ws, (w) => w.writeTxPerReq), commitStatements: over(ws, (w) => w.commitsPerReq), wal: over(ws, (w) => w.walBytesPerReq),
    non2xx: ws.reduce((n, w) => n + w.non2xx + w.errors + w.timeouts, 0),
    statuses: ws.reduce<Record<string, number>>((all, w) => {
      for (const [k, n] of Object.entries(w.statuses)) all[k] = (all[k] ?? 0) + n
      return all
    }, {})
  })
  const spreadF = figures(pgWithdraws)
  const hotF = figures(pgHots)
  const balanceF = figures(pgBalances)
  const customerF = figures(pgCustomers)
  const listF = figures(pgLists)
  const liteF = figures(liteWithdraws)
  const workersSpreadF = figures(workersWithdraws)
  const workersBalanceF = figures(workersBalances)
  const pgReady = { ms: over(pgRestarts, (r) => r.spawnToFirst200Ms), rss: over(pgRestarts, (r) => r.rssAfterStartMb) }
  const liteReady = { ms: over(liteRestarts, (r) => r.spawnToFirst200Ms), rss: over(liteRestarts, (r) => r.rssAfterStartMb) }

  const ratio = (a: Spread, b: Spread) => (Number.isFinite(a.median) && Number.isFinite(b.median) && b.median > 0 ? a.median / b.median : NaN)
  // The goals for this shared two-core machine (docs/performance.md "Goals"): pgbench, the service and the load
  // generator share the cores, so the ratios are what one machine leaves a whole withdrawal.
  const goals = {
    spread: ratio(spreadF.reqPerSec, tpcb.tps) >= 0.15 && spreadF.p99.median <= 80,
    hot: ratio(hotF.reqPerSec, tpcb.tps) >= 0.12,
    balance: ratio(balanceF.reqPerSec, sel.tps) >= 0.08,
    pglite: liteF.reqPerSec.median >= 200,
    liteRss: liteReady.rss.median <= 250,
    liteReady: liteReady.ms.median <= 1000,
    pgReady: pgReady.ms.median <= 2000
  }
  const statuses = (f: ReturnType<typeof figures>) =>
    f.non2xx === 0 ? "0" : `${f.non2xx} (${Object.entries(f.statuses).map(([k, n]) => `${k}: ${n}`).join(", ")})`
  const tpcbRef = `TPC-B ${fmt(tpcb.tps.median, 0)} tps`
  const cpu = (s: Spread) => mmm(s, 3)
  const rows: Array<Row> = [
    row("pgbench TPC-B (tps)", mmm(tpcb.tps, 0)),
    row("pgbench select-only (tps)", mmm(sel.tps, 0)),
    row("pgbench TPC-B: PostgreSQL CPU per tx (ms)", cpu(tpcb.cpu)),
    row("pgbench select-only: PostgreSQL CPU per tx (ms)", cpu(sel.cpu)),
    row("pgbench TPC-B: statements / write transactions / WAL bytes per tx", `${fmt(tpcb.statements.median, 2)} / ${fmt(tpcb.commits.median, 2)} / ${fmt(tpcb.wal.median, 0)}`),
    row("PG withdraw spread (req/s)", mmm(spreadF.reqPerSec, 0), tpcbRef, ratioOf(spreadF.reqPerSec.median, tpcb.tps.median), "≥ 0.15× TPC-B and p99 ≤ 80 ms", verdict(goals.spread)),
    row("PG withdraw spread p50 (ms)", mmm(spreadF.p50, 0), `TPC-B avg ${fmt(tpcb.latencyMs.median, 1)} ms`),
    row("PG withdraw spread p99 (ms)", mmm(spreadF.p99, 0), "", "", "≤ 80 ms", verdict(spreadF.p99.median <= 80)),
    row("PG withdraw spread non-2xx", statuses(spreadF)),
    row("PG withdraw spread: app CPU per withdrawal (ms)", cpu(spreadF.appCpu)),
    row("PG withdraw spread: PostgreSQL CPU per withdrawal (ms)", cpu(spreadF.pgCpu), `TPC-B ${fmt(tpcb.cpu.median, 3)} ms/tx`, ratioOf(spreadF.pgCpu.median, tpcb.cpu.median)),
    row("PG withdraw spread: statements / write transactions per withdrawal", `${mmm(spreadF.statements, 2)} / ${mmm(spreadF.commits, 2)}`, `TPC-B ${fmt(tpcb.statements.median, 2)} / ${fmt(tpcb.commits.median, 2)}`),
    row("PG withdraw spread: WAL bytes per withdrawal", mmm(spreadF.wal, 0), `TPC-B ${fmt(tpcb.wal.median, 0)}`, ratioOf(spreadF.wal.median, tpcb.wal.median)),
    row("PG withdraw hot (req/s)", mmm(hotF.reqPerSec, 0), tpcbRef, ratioOf(hotF.reqPerSec.median, tpcb.tps.median), "≥ 0.12× TPC-B", verdict(goals.hot)),
    row("PG withdraw hot p50 (ms)", mmm(hotF.p50, 0)),
    row("PG withdraw hot p99 (ms)", mmm(hotF.p99, 0)),
    row("PG withdraw hot non-2xx", statuses(hotF)),
    row("PG withdraw hot: app CPU per withdrawal (ms)", cpu(hotF.appCpu)),
    row("PG withdraw hot: PostgreSQL CPU per withdrawal (ms)", cpu(hotF.pgCpu), `TPC-B ${fmt(tpcb.cpu.median, 3)} ms/tx`, ratioOf(hotF.pgCpu.median, tpcb.cpu.median)),
    row("PG withdraw hot: statements / write transactions per withdrawal", `${mmm(hotF.statements, 2)} / ${mmm(hotF.commits, 2)}`, `TPC-B ${fmt(tpcb.statements.median, 2)} / ${fmt(tpcb.commits.median, 2)}`),
    row("PG balance spread (req/s)", mmm(balanceF.reqPerSec, 0), `select-only ${fmt(sel.tps.median, 0)} tps`, ratioOf(balanceF.reqPerSec.median, sel.tps.median), "≥ 0.08× select-only", verdict(goals.balance)),
    row("PG balance spread p50 (ms)", mmm(balanceF.p50, 0), `select-only avg ${fmt(sel.latencyMs.median, 2)} ms`),
    row("PG balance spread p99 (ms)", mmm(balanceF.p99, 0)),
    row("PG balance spread non-2xx", statuses(balanceF)),
    row("PG balance spread: app / PostgreSQL CPU per read (ms)", `${cpu(balanceF.appCpu)} / ${cpu(balanceF.pgCpu)}`, `select-only ${fmt(sel.cpu.median, 3)} ms/tx`, ratioOf(balanceF.pgCpu.median, sel.cpu.median)),
    row("PG customer spread (req/s), p99 (ms)", `${mmm(customerF.reqPerSec, 0)}; ${mmm(customerF.p99, 0)}`, `select-only ${fmt(sel.tps.median, 0)} tps`, ratioOf(customerF.reqPerSec.median, sel.tps.median)),
    row("PG customer spread: app / PostgreSQL CPU per read (ms)", `${cpu(customerF.appCpu)} / ${cpu(customerF.pgCpu)}`),
    row("PG customer spread non-2xx", statuses(customerF)),
    row("PG list page of 20 (req/s), p99 (ms)", `${mmm(listF.reqPerSec, 0)}; ${mmm(listF.p99, 0)}`, "", "", "(bench:scale judges lists at 100,000 customers)"),
    row("PG list page of 20: app / PostgreSQL CPU per page (ms)", `${cpu(listF.appCpu)} / ${cpu(listF.pgCpu)}`),
    row("PG list page of 20 non-2xx", statuses(listF)),
    row("PG service: ready, fresh database (ms)", fmt(pgService.spawnToFirst200Ms, 0)),
    row("PG service: ready, existing database (ms)", mmm(pgReady.ms, 0), "", "", "≤ 2000 ms", verdict(goals.pgReady)),
    row("PG service: RSS after start, existing database (MB)", mmm(pgReady.rss, 0)),
    row("PG service: RSS after workloads / peak (MB)", `${fmt(pgMemory.rss, 0)} / ${fmt(pgMemory.peak, 0)}`),
    row(`PG seeding over HTTP (${pgSeed.requests} requests, s)`, fmt(pgSeed.seconds, 1)),
    row("PG ledger-check after the run", pgCheck.ok ? "ok" : "FAILED"),
    row(`PG ${workerProcesses} processes: withdraw spread (req/s)`, mmm(workersSpreadF.reqPerSec, 0), `1 process ${fmt(spreadF.reqPerSec.median, 0)}`, ratioOf(workersSpreadF.reqPerSec.median, spreadF.reqPerSec.median)),
    row(`PG ${workerProcesses} processes: withdraw spread p50 / p99 (ms)`, `${mmm(workersSpreadF.p50, 0)} / ${mmm(workersSpreadF.p99, 0)}`, `1 process p99 ${fmt(spreadF.p99.median, 0)}`),
    row(`PG ${workerProcesses} processes: withdraw spread: service / PostgreSQL CPU per withdrawal (ms)`, `${cpu(workersSpreadF.appCpu)} / ${cpu(workersSpreadF.pgCpu)}`, `1 process ${fmt(spreadF.appCpu.median, 3)} / ${fmt(spreadF.pgCpu.median, 3)}`),
    row(`PG ${workerProcesses} processes: balance spread (req/s)`, mmm(workersBalanceF.reqPerSec, 0), `1 process ${fmt(balanceF.reqPerSec.median, 0)}`, ratioOf(workersBalanceF.reqPerSec.median, balanceF.reqPerSec.median)),
    row(`PG ${workerProcesses} processes: balance spread p50 / p99 (ms)`, `${mmm(workersBalanceF.p50, 0)} / ${mmm(workersBalanceF.p99, 0)}`, `1 process p99 ${fmt(balanceF.p99.median, 0)}`),
    row(`PG ${workerProcesses} processes: balance spread: service / PostgreSQL CPU per read (ms)`, `${cpu(workersBalanceF.appCpu)} / ${cpu(workersBalanceF.pgCpu)}`, `1 process ${fmt(balanceF.appCpu.median, 3)} / ${fmt(balanceF.pgCpu.median, 3)}`),
    row(`PG ${workerProcesses} processes: non-2xx`, statuses(figures([...workersWithdraws, ...workersBalances]))),
    row(`PG ${workerProcesses} processes: ledger-check after the run`, workersCheck.ok ? "ok" : "FAILED"),
    row("PGlite withdraw spread (req/s)", mmm(liteF.reqPerSec, 0), tpcbRef, ratioOf(liteF.reqPerSec.median, tpcb.tps.median), "≥ 200/s (sustained: npm run bench:soak)", verdict(goals.pglite)),
    row("PGlite withdraw spread p50 / p99 (ms)", `${mmm(liteF.p50, 0)} / ${mmm(liteF.p99, 0)}`),
    row("PGlite withdraw spread non-2xx", statuses(liteF)),
    row("PGlite withdraw spread: service CPU per withdrawal (ms)", cpu(liteF.appCpu)),
    row("PGlite service: ready, fresh data dir (ms)", fmt(liteService.spawnToFirst200Ms, 0)),
    row("PGlite service: ready, existing data dir (ms)", mmm(liteReady.ms, 0), "", "", "≤ 1000 ms", verdict(goals.liteReady)),
    row("PGlite service: RSS after start, existing data dir (MB)", mmm(liteReady.rss, 0), "", "", "≤ 250 MB", verdict(goals.liteRss)),
    row("PGlite service: RSS after workload / peak (MB)", `${fmt(liteMemory.rss, 0)} / ${fmt(liteMemory.peak, 0)}`),
    row(`PGlite seeding over HTTP (${liteSeed.requests} requests, s)`, fmt(liteSeed.seconds, 1)),
    row("PGlite ledger-check after the run", liteCheck.ok ? "ok" : "FAILED"),
    row("machine busy before the run (cores)", fmt(busyBefore, 2)),
    row("other processes' CPU, median (cores): TPC-B / -S / spread / hot / balance / PGlite",
      [tpcbRuns, selectRuns, pgWithdraws, pgHots, pgBalances, liteWithdraws].map((ms) => fmt(over(ms, (m: { neighbours: Neighbours }) => m.neighbours.otherCores).median, 2)).join(" / ")),
    row("kernel interrupt CPU, median (cores): TPC-B / -S / spread / hot / balance / PGlite",
      [tpcbRuns, selectRuns, pgWithdraws, pgHots, pgBalances, liteWithdraws].map((ms) => fmt(over(ms, (m: { neighbours: Neighbours }) => m.neighbours.kernelIrqCores).median, 2)).join(" / ")),
    row("whole run (s)", fmt(runSeconds, 0))
  ]

  log(`\nResult: ${repoRoot} (commit ${repoCommit}), ${seconds} s per workload, ${runs} run(s), ${connections} connections; ` +
    `ratio = median / median of the reference; goals judged on medians`)
  printTable(rows, runs > 1 ? `min / median / max of ${runs} runs` : "value (1 run)")
  const goalList = Object.values(goals)
  log(`Goals: ${goalList.filter(Boolean).length} of ${goalList.length} met (a goal not met does not fail the run).`)
  log("CPU per request = CPU seconds used during the workload / 2xx answers; the app figure is the serving node process " +
    "(with PGlite: the database too; with WORKERS, every process of the service), PostgreSQL's every process of the cluster. Statements per request: " +
    "pg_stat_statements (top-level statements sent to that database); write transactions: transaction ids assigned " +
    "in the cluster (transactions and subtransactions that wrote, committed or rolled back). autocannon ran in this process: " +
    `${workloads.map((w) => `${w.service} ${w.name} ${cpu(spreadOf([w.loadgenCpuMsPerReq]))} ms/req`).join(", ")}; ` +
    `pgbench client: TPC-B ${cpu(over(tpcbRuns, (r) => r.pgbenchCpuMsPerTx))}, select-only ${cpu(over(selectRuns, (r) => r.pgbenchCpuMsPerTx))} ms/tx.`)
  const top = pgWithdraws[0]?.topStatements ?? []
  if (top.length > 0) {
    log(`Statements per withdrawal (spread, run 1), most frequent first: calls per withdrawal, mean execution ms per call, plans per call, ` +
      `mean planning ms per call (a prepared statement with about 1 plan per call is planned again on every execution):`)
    for (const t of top) log(statementLine(t))
  }
  const topHot = pgHots[0]?.topStatements ?? []
  if (topHot.length > 0) {
    log(`Statements per withdrawal (hot, run 1), most frequent first:`)
    for (const t of topHot.slice(0, 8)) log(statementLine(t))
  }

  NodeFs.mkdirSync(NodePath.dirname(outputFile), { recursive: true })
  NodeFs.writeFileSync(outputFile, JSON.stringify({
    generatedAt: new Date().toISOString(),
    repo: { path: repoRoot, commit: repoCommit, start: startScripts.start, prestart: startScripts.prestart ?? null, prestartMs: prestartMs ?? null },
    machine: { busyCoresBefore: busyBefore, loadAverage: NodeOs.loadavg(), cpus: NodeOs.cpus().length, cpuModel: NodeOs.cpus()[0]?.model, memoryMb: Math.round(NodeOs.totalmem() / 2 ** 20), node: process.version },
    settings: { seconds, runs, warmupSeconds, connections, customers: customerCount, withdrawAmount, pgbenchScale, quick, profile: profileRun, statStatements: cluster.statements },
    postgres: { description: cluster.description, settings: cluster.settings },
    pgbench: { initSeconds: pgbenchInitSeconds, tpcb: tpcbRuns, selectOnly: selectRuns },
    services: {
      postgres: {
        command: pgService.command, spawnToFirst200MsFresh: pgService.spawnToFirst200Ms, rssAfterStartMbFresh: pgService.rssAfterStartMb,
        restarts: pgRestarts, rssAtEndMb: pgMemory.rss, peakRssMb: pgMemory.peak,
        seeding: { seconds: pgSeed.seconds, requests: pgSeed.requests }, stopMs: pgStopMs, withdrawalsStored: pgRows, ledgerCheck: pgCheck
      },
      pglite: {
        command: liteService.command, spawnToFirst200MsFresh: liteService.spawnToFirst200Ms, rssAfterStartMbFresh: liteService.rssAfterStartMb,
        restarts: liteRestarts, rssAtEndMb: liteMemory.rss, peakRssMb: liteMemory.peak,
        seeding: { seconds: liteSeed.seconds, requests: liteSeed.requests }, stopMs: liteStopMs, ledgerCheck: liteCheck
      }
    },
    workloads: {
      postgres: { withdrawSpread: pgWithdraws, withdrawHot: pgHots, balanceSpread: pgBalances, customerSpread: pgCustomers, listPage: pgLists },
      postgresWorkers: { processes: workerProcesses, withdrawSpread: workersWithdraws, balanceSpread: workersBalances, ledgerCheck: workersCheck },
      pglite: { withdrawSpread: liteWithdraws }
    },
    summary: {
      tpcb, selectOnly: sel, withdrawSpread: spreadF, withdrawHot: hotF, balanceSpread: balanceF, pgliteWithdrawSpread: liteF,
      workersWithdrawSpread: workersSpreadF, workersBalanceSpread: workersBalanceF,
      readyExisting: { postgres: pgReady, pglite: liteReady }, goals
    },
    profile: profile === undefined ? null : { file: profile.file, command: profile.command, workload: profile.workload, summary: profile.summary, balance: profile.balance ?? null },
    pgliteProfile: liteProfile === undefined ? null : { file: liteProfile.file, command: liteProfile.command, workload: liteProfile.workload, summary: liteProfile.summary },
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
