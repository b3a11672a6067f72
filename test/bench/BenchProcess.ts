/**
 * Process plumbing shared by the benchmarks (bench:http, bench:scale): a cleanup registry run once on exit, failure
 * or signal; CPU and memory of processes from /proc; child processes; free ports; running as the postgres user; a
 * one-off PostgreSQL client.
 */
import { execFileSync, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import Pg from "pg"

export const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

export const log = (line: string) => console.log(line)
export const elapsed = (since: number) => (performance.now() - since) / 1000
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------------------------
// Cleanup: synchronous steps run once, in reverse, on normal exit, failure, SIGINT/SIGTERM/SIGHUP.

export const cleanups: Array<{ name: string; run: () => void }> = []
let cleanedUp = false
export const onCleanup = (name: string, run: () => void) => {
  const entry = { name, run }
  cleanups.push(entry)
  return () => {
    const index = cleanups.indexOf(entry)
    if (index >= 0) cleanups.splice(index, 1)
  }
}
export const cleanup = () => {
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

export interface ProcStat { readonly pid: number; readonly ppid: number; readonly comm: string; readonly ticks: number; readonly childTicks: number }

export const readStat = (pid: number | "self"): ProcStat | undefined => {
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

export const allStats = (): Array<ProcStat> =>
  NodeFs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => readStat(Number(name)) ?? [])

/** The process and every descendant, with its depth below `root`. */
export const processTree = (root: number): Array<ProcStat & { depth: number }> => {
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

/** Whether a process exists and is not a zombie. */
export const alive = (pid: number) => {
  try {
    const text = NodeFs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return text.slice(text.lastIndexOf(")") + 2, text.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

/** Sends `signal` to the process group led by `pid` (a child spawned with `detached: true`); a group already gone is no error. */
export const signalGroup = (pid: number | undefined, signal: NodeJS.Signals) => {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // gone
  }
}

/** CPU seconds of one process (all its threads). */
export const processCpu = (pid: number) => (readStat(pid)?.ticks ?? NaN) / clockTicks

/**
 * CPU seconds of a process and every live process below it: the service with `WORKERS=N` is a primary and its N
 * worker processes (node:cluster), each of which serves requests.
 */
export const treeCpu = (pid: number) => {
  const tree = processTree(pid)
  return tree.length === 0 ? NaN : tree.reduce((sum, stat) => sum + stat.ticks, 0) / clockTicks
}

/**
 * CPU seconds of a PostgreSQL cluster: every live process of the postmaster's tree plus what its exited children
 * (backends of closed connections, autovacuum workers) used, which the postmaster collects when it reaps them.
 */
export const clusterCpu = (postmasterPid: number | undefined) => {
  if (postmasterPid === undefined) return NaN
  const tree = processTree(postmasterPid)
  if (tree.length === 0) return NaN
  return (tree.reduce((sum, stat) => sum + stat.ticks, 0) + tree[0]!.childTicks) / clockTicks
}

/** CPU seconds of this process and, separately, of its children that have exited (pgbench runs). */
export const selfCpu = () => {
  const usage = process.cpuUsage()
  return { own: (usage.user + usage.system) / 1e6, children: (readStat("self")?.childTicks ?? NaN) / clockTicks }
}

/** CPU seconds of the whole machine from /proc/stat: busy (every process, this run's or not) and interrupt work. */
export const machineCpu = () => {
  const fields = NodeFs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields
  return { busy: (user + nice + system + irq + softirq + steal) / clockTicks, irq: (irq + softirq) / clockTicks }
}


export interface Ran { readonly code: number | null; readonly stdout: string; readonly stderr: string }

export const runProcess = (command: string, args: Array<string>, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()) =>
  new Promise<Ran>((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })


export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as NodeNet.AddressInfo).port
      server.close(() => resolve(port))
    })
  })


export const isRoot = process.getuid?.() === 0
export const shellQuote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`
export const asPostgres = (command: string) =>
  isRoot
    ? execFileSync("su", ["postgres", "-s", "/bin/bash", "-c", command], { stdio: "pipe" })
    : execFileSync("bash", ["-c", command], { stdio: "pipe" })


export const withClient = async <A>(url: string, f: (client: Pg.Client) => Promise<A>): Promise<A> => {
  const client = new Pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}


/**
 * A throwaway PostgreSQL 15 cluster: initdb as the postgres user into a temp dir (`/tmp/<prefix>XXXXXX`), a free
 * private port and socket dir, default durability (initdb's --no-sync only speeds up initdb itself), stopped and
 * removed by the cleanup registry. `options` adds server settings (`-c name=value ...`).
 */
export const startThrowawayCluster = async (pgBin: string, prefix: string, options = "") => {
  if (!NodeFs.existsSync(`${pgBin}/initdb`)) throw new Error(`no PostgreSQL at ${pgBin} (set PG_BIN)`)
  const dir = NodeFs.mkdtempSync(`/tmp/${prefix}`)
  onCleanup("remove the cluster directory", () => NodeFs.rmSync(dir, { recursive: true, force: true }))
  if (isRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
    NodeFs.chownSync(dir, uid, gid)
  }
  const port = await freePort()
  const data = `${dir}/data`
  asPostgres(`${pgBin}/initdb -D ${shellQuote(data)} -U postgres --auth=trust --no-sync -E UTF8 >${shellQuote(`${dir}/initdb.log`)} 2>&1`)
  onCleanup("stop the PostgreSQL cluster", () => {
    try {
      asPostgres(`${pgBin}/pg_ctl -D ${shellQuote(data)} -m fast -w stop >/dev/null 2>&1`)
    } catch {
      // not running
    }
  })
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 ${options}`.trim()
  try {
    asPostgres(`${pgBin}/pg_ctl -D ${shellQuote(data)} -l ${shellQuote(`${dir}/server.log`)} -w -o ${shellQuote(serverOptions)} start >/dev/null`)
  } catch (error) {
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${NodeFs.readFileSync(`${dir}/server.log`, "utf8")}`)
  }
  const postmasterPid = Number(NodeFs.readFileSync(`${data}/postmaster.pid`, "utf8").split("\n")[0])
  return { dir, port, adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`, postmasterPid }
}

/** Inodes of the sockets listening on a TCP port (IPv4 and IPv6). */
const listeningInodes = (port: number) => {
  const inodes = new Set<string>()
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = ""
    try {
      text = NodeFs.readFileSync(file, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10 || fields[3] !== "0A") continue // 0A: LISTEN
      if (parseInt(fields[1]!.split(":")[1]!, 16) === port) inodes.add(fields[9]!)
    }
  }
  return inodes
}

/**
 * The process of `root`'s tree that listens on `port` (with WORKERS, the primary, which stops its workers on SIGTERM);
 * else its deepest node process.
 */
export const servingProcess = (root: number, port: number) => {
  const tree = processTree(root)
  const inodes = listeningInodes(port)
  for (const stat of tree) {
    try {
      for (const fd of NodeFs.readdirSync(`/proc/${stat.pid}/fd`)) {
        const link = NodeFs.readlinkSync(`/proc/${stat.pid}/fd/${fd}`)
        const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1]
        if (inode !== undefined && inodes.has(inode)) return stat
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return tree.filter((stat) => stat.comm === "node").sort((a, b) => b.depth - a.depth)[0]
}
