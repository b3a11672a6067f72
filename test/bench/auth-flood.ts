/**
 * A valid partner's latency while one address floods the service with wrong API keys (docs/benchmarks.md
 * "Wrong-key flood"; the limits: docs/operations.md "Limits on abuse").
 *
 *   npm run bench:flood                      # or: npx tsx test/bench/auth-flood.ts
 *   npm run bench:flood -- --keys 10000      # a longer flood (3,000 by default)
 *   npm run bench:flood -- --no-limit        # AUTH_FAILURES_BURST=0: every wrong key is looked up, as before the limit
 *
 * 1. The service (`tsx src/main.ts serve`, sandbox mode) on a throwaway embedded PGlite (DATA_DIR=:memory:) on a
 *    free loopback port, in a process of its own; one partner created over HTTP (POST /sandbox/partners).
 * 2. Idle: the partner's key, GET /partner/v1/customers one request at a time (a warm-up, then 400 timed): median.
 * 3. Flood: 3,000 random well-formed keys (`sk_sandbox_` + 43 base62 characters), 20 at a time, from 127.0.0.1 (the
 *    same address as the partner's requests), while the partner's requests go on one at a time: their median
 *    during the flood, the flood's answers by status and its rate.
 * 4. Prints both medians and their ratio (the goal: within 2x of idle). The load generator (this process) and the
 *    service share the machine's cores. Exits non-zero when a step fails or a valid request is refused.
 */
import { spawn } from "node:child_process"
import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { cleanup, freePort, log, onCleanup, signalGroup, sleep } from "./BenchProcess.js"

const argv = process.argv.slice(2)
const keysIndex = argv.indexOf("--keys")
const floodKeys = keysIndex >= 0 ? Number(argv[keysIndex + 1]) : 3000
const noLimit = argv.includes("--no-limit")
const concurrency = 20
const idleSamples = 400
const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "../..")

const agent = new NodeHttp.Agent({ keepAlive: true, maxSockets: concurrency + 4 })

const send = (port: number, method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<{ status: number; text: string; ms: number }>((resolve, reject) => {
    const started = performance.now()
    const request = NodeHttp.request({ host: "127.0.0.1", port, method, path: `/api/v1${path}`, headers, agent }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }))
    })
    request.on("error", reject)
    request.end(body)
  })

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const wrongKey = () => "sk_sandbox_" + Array.from(NodeCrypto.randomBytes(43), (byte) => base62[byte % 62]).join("")

const startService = async () => {
  const port = await freePort()
  const env = { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: ":memory:", LOG_LEVEL: "warning", ...(noLimit ? { AUTH_FAILURES_BURST: "0" } : {}) }
  const child = spawn(NodePath.join(root, "node_modules/.bin/tsx"), ["src/main.ts", "serve"], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"], detached: true })
  onCleanup("service", () => signalGroup(child.pid, "SIGTERM"))
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`)
    const health = await send(port, "GET", "/health", {}).catch(() => undefined)
    if (health?.status === 200) return port
    if (Date.now() > deadline) throw new Error("the service did not answer /api/v1/health within 120 s")
    await sleep(200)
  }
}

const main = async () => {
  log(`auth flood: ${floodKeys} wrong keys, ${concurrency} at a time, from 127.0.0.1${noLimit ? " (AUTH_FAILURES_BURST=0: no limit)" : ""}`)
  const port = await startService()
  const created = await send(port, "POST", "/sandbox/partners", { "content-type": "application/json" }, JSON.stringify({ kybStatus: "APPROVED" }))
  if (created.status !== 201) throw new Error(`partner creation: ${created.status} ${created.text}`)
  const apiKey: string = JSON.parse(created.text).data.apiKey
  const valid = async () => {
    const reply = await send(port, "GET", "/partner/v1/customers", { "x-api-key": apiKey })
    if (reply.status !== 200) throw new Error(`a valid key was refused: ${reply.status} ${reply.text}`)
    return reply.ms
  }
  for (let i = 0; i < 200; i++) await valid()
  const idle: Array<number> = []
  for (let i = 0; i < idleSamples; i++) idle.push(await valid())

  const statuses = new Map<number, number>()
  let sent = 0
  let flooding = true
  const floodStarted = performance.now()
  const worker = async () => {
    while (sent < floodKeys) {
      sent++
      const reply = await send(port, "GET", "/partner/v1/customers", { "x-api-key": wrongKey() })
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
    }
  }
  const underFlood: Array<number> = []
  const prober = async () => {
    while (flooding) underFlood.push(await valid())
  }
  const probing = prober()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const floodSeconds = (performance.now() - floodStarted) / 1000
  flooding = false
  await probing

  const idleMedian = median(idle)
  const floodMedian = median(underFlood)
  log(`flood answers: ${[...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${count}x ${status}`).join(", ")}; ${(floodKeys / floodSeconds).toFixed(0)} wrong keys/s over ${floodSeconds.toFixed(1)} s`)
  log(`valid key, median idle:        ${idleMedian.toFixed(2)} ms (${idle.length} requests)`)
  log(`valid key, median under flood: ${floodMedian.toFixed(2)} ms (${underFlood.length} requests)`)
  log(`ratio: ${(floodMedian / idleMedian).toFixed(2)}x (goal: within 2x) — ${floodMedian <= 2 * idleMedian ? "met" : "NOT MET"}`)
}

main().then(
  () => {
    cleanup()
    process.exit(0)
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error))
    cleanup()
    process.exit(1)
  }
)
