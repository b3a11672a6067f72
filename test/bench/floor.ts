/**
 * `npm run bench:floor` — what a request costs in this stack before any domain logic, beside pgbench, on the
 * machine bench:http runs on: the floor under the service's own figures, and so what the goals of
 * docs/performance.md ask of the machine.
 *
 *   npm run bench:floor                      # 5 s per workload
 *   npm run bench:floor -- --seconds 10
 *
 * 1. A throwaway PostgreSQL 15 cluster with default durability (as bench:http); pgbench -i -s 10; TPC-B and
 *    select-only (-c 32 -j 2 -M prepared).
 * 2. The servers of test/bench/floorServer.ts, one at a time, each driven by autocannon with 32 keep-alive
 *    connections: node:http + node-postgres (no framework) and an @effect/platform HttpApi + @effect/sql-pg, each
 *    with 0, 1 and 7 round trips of trivial statements per request (a health check, a balance read's shape, a
 *    withdrawal's seven round trips), a POST of a small JSON body without a statement, and a list page of 20 items
 *    read by one statement of 21 rows.
 * 3. Per workload: req/s, CPU per request of the server process, of PostgreSQL and of autocannon (this process).
 *    Then the budget: the goals are ratios to pgbench on the same 2 cores, so a goal of R × pgbench tps leaves
 *    cores / (R × tps) of CPU per request for the service, PostgreSQL and the load generator together.
 * Nothing is asserted; it fails only when a step breaks.
 */
import autocannon from "autocannon"
import { spawn } from "node:child_process"
import * as NodeOs from "node:os"
import { cleanup, clusterCpu, log, onCleanup, processCpu, processTree, runProcess, selfCpu, sleep, startThrowawayCluster } from "./BenchProcess.js"

const argv = process.argv.slice(2)
const secondsAt = argv.indexOf("--seconds")
const seconds = secondsAt >= 0 ? Number(argv[secondsAt + 1]) : 5
if (!Number.isFinite(seconds) || seconds <= 0) {
  console.error("usage: npm run bench:floor -- [--seconds N]")
  process.exit(2)
}
const pgBin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"
const connections = 32
const cores = NodeOs.cpus().length

const fmt = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")

const pgbench = async (url: string, postmasterPid: number, label: string, extra: Array<string>) => {
  const pgBefore = clusterCpu(postmasterPid)
  const selfBefore = selfCpu()
  const backends = processTree(postmasterPid).length
  const ran = await runProcess(`${pgBin}/pgbench`, [...extra, "-c", String(connections), "-j", "2", "-T", String(seconds), "-M", "prepared", url])
  if (ran.code !== 0) throw new Error(`pgbench ${label} exited ${ran.code}: ${ran.stderr}`)
  for (let i = 0; i < 100 && processTree(postmasterPid).length > backends; i++) await sleep(50)
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(ran.stdout)?.[1] ?? NaN)
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(ran.stdout)?.[1] ?? NaN)
  const pgMs = ((clusterCpu(postmasterPid) - pgBefore) * 1000) / transactions
  const clientMs = ((selfCpu().children - selfBefore.children) * 1000) / transactions
  log(`  ${label.padEnd(12)} ${fmt(tps, 0).padStart(7)} tps   CPU per tx: PostgreSQL ${fmt(pgMs, 3)} ms, pgbench ${fmt(clientMs, 3)} ms`)
  return { tps, pgMs, clientMs }
}

interface Floor { readonly mode: string; readonly reqPerSec: number; readonly p99Ms: number; readonly serverMs: number; readonly pgMs: number; readonly loadMs: number; readonly non2xx: number }

const startServer = async (mode: string, databaseUrl: string) => {
  const child = spawn(process.execPath, ["--import", "tsx", "test/bench/floorServer.ts", mode], {
    env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["ignore", "pipe", "inherit"]
  })
  onCleanup(`stop the ${mode} server`, () => child.kill("SIGKILL"))
  const port = await new Promise<number>((resolve, reject) => {
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const found = /listening (\d+)/.exec(out)
      if (found) resolve(Number(found[1]))
    })
    child.once("exit", (code) => reject(new Error(`${mode} server exited ${code} before listening`)))
  })
  return { child, port }
}

const drive = async (mode: string, databaseUrl: string, postmasterPid: number): Promise<Floor> => {
  const { child, port } = await startServer(mode, databaseUrl)
  const kind = mode.split("-")[1]
  const post = (path: string) => ({ method: "POST" as const, path, body: JSON.stringify({ amount: 1, reference: "bench-floor" }), headers: { "content-type": "application/json" } })
  const request = kind === "7" ? post("/write7") : kind === "post" ? post("/post0")
    : { method: "GET" as const, path: kind === "1" ? "/read1/42" : kind === "page" ? "/page" : "/read0" }
  const run = (duration: number) => autocannon({ url: `http://127.0.0.1:${port}`, connections, duration, pipelining: 1, requests: [request] })
  await run(1) // warm-up: connections, JIT, prepared statements
  const serverBefore = processCpu(child.pid!)
  const pgBefore = clusterCpu(postmasterPid)
  const selfBefore = selfCpu()
  const result = await run(seconds)
  const ok = result["2xx"]
  const floor: Floor = {
    mode,
    reqPerSec: ok / result.duration,
    p99Ms: result.latency.p99,
    serverMs: ((processCpu(child.pid!) - serverBefore) * 1000) / ok,
    pgMs: ((clusterCpu(postmasterPid) - pgBefore) * 1000) / ok,
    loadMs: ((selfCpu().own - selfBefore.own) * 1000) / ok,
    non2xx: result.non2xx + result.errors + result.timeouts
  }
  child.kill("SIGKILL")
  log(`  ${mode.padEnd(10)} ${fmt(floor.reqPerSec, 0).padStart(6)} req/s  p99 ${String(floor.p99Ms).padStart(3)} ms   CPU per request: server ${fmt(floor.serverMs, 3)} ms, ` +
    `PostgreSQL ${fmt(floor.pgMs, 3)} ms, autocannon ${fmt(floor.loadMs, 3)} ms${floor.non2xx > 0 ? `   ${floor.non2xx} non-2xx or errors` : ""}`)
  if (floor.non2xx > 0) throw new Error(`${mode}: ${floor.non2xx} requests failed`)
  return floor
}

const main = async () => {
  log(`bench:floor — ${cores} CPUs (${NodeOs.cpus()[0]?.model ?? "?"}), node ${process.version}, ${seconds} s per workload, ${connections} connections`)
  const cluster = await startThrowawayCluster(pgBin, "pmm-bench-floor-pg-")
  const init = await runProcess(`${pgBin}/pgbench`, ["-i", "-s", "10", "-q", cluster.adminUrl])
  if (init.code !== 0) throw new Error(`pgbench -i: ${init.stderr}`)
  log("\npgbench on the same cluster (default durability)")
  const tpcb = await pgbench(cluster.adminUrl, cluster.postmasterPid, "TPC-B", [])
  const select = await pgbench(cluster.adminUrl, cluster.postmasterPid, "select-only", ["-S"])

  log("\nFloors: trivial statements, nothing else (test/bench/floorServer.ts)")
  const floors: Array<Floor> = []
  for (const mode of ["node-0", "node-post", "node-1", "node-7", "node-page", "effect-0", "effect-post", "effect-1", "effect-7", "effect-page"]) floors.push(await drive(mode, cluster.adminUrl, cluster.postmasterPid))

  const budget = (ratio: number, tps: number) => (cores * 1000) / (ratio * tps)
  log("\nWhat the goals leave per request (all CPU of the machine: service + PostgreSQL + load generator)")
  const lines: Array<[string, number, string]> = [
    // The goals of docs/performance.md ("Goals for this shared two-core machine").
    ["withdrawals ≥ 0.15× TPC-B", budget(0.15, tpcb.tps), "node-7"],
    ["hot customer ≥ 0.12× TPC-B", budget(0.12, tpcb.tps), "node-7"],
    ["balance ≥ 0.08× select-only", budget(0.08, select.tps), "node-1"]
  ]
  for (const [goal, ms, floorMode] of lines) {
    const nodeFloor = floors.find((f) => f.mode === floorMode)!
    const effectFloor = floors.find((f) => f.mode === floorMode.replace("node", "effect"))!
    const total = (f: Floor) => f.serverMs + f.pgMs + f.loadMs
    log(`  ${goal.padEnd(44)} ${fmt(ms, 3)} ms; floor without a framework (${floorMode}) ${fmt(total(nodeFloor), 3)} ms, ` +
      `with HttpApi + @effect/sql (${effectFloor.mode}) ${fmt(total(effectFloor), 3)} ms`)
  }
  // The list goal is a latency at 32 connections, so its floor is the page floors' own p99 (closed loop: p99 is at
  // least 32 / throughput, and throughput is bound by the CPU a page costs).
  for (const mode of ["node-page", "effect-page"]) {
    const f = floors.find((floor) => floor.mode === mode)!
    log(`  ${"list page p99 ≤ 20 ms at 32 connections".padEnd(44)} floor ${mode}: p99 ${f.p99Ms} ms ` +
      `(${fmt(f.reqPerSec, 0)} pages/s, mean ≥ ${fmt((connections * 1000) / f.reqPerSec, 1)} ms)`)
  }
  log("  (a floor's statements are trivial: a real request adds its own PostgreSQL work and logic on top; a withdrawal")
  log("  is five round trips now, so the seven-trip floor is an upper bound of its own)")
}

main().then(
  () => {
    cleanup()
    process.exit(0)
  },
  (error) => {
    console.error(error)
    cleanup()
    process.exit(1)
  }
)
