/**
 * The cost of observability per request: 2,000 GET balance requests over loopback (one keep-alive connection, one at
 * a time) against the service in this process, on an in-memory PGlite, with metrics off/on and tracing off/on.
 *
 *   npx tsx test/bench/observability.ts [--requests N]
 *
 * CPU is this process's (process.cpuUsage: the service, the client and, with tracing, a loopback OTLP receiver that
 * reads and discards the exports): the client's share is the same in every configuration, so the differences are
 * what metrics and tracing cost. Each configuration warms up with 300 requests first. Figures: docs/observability.md.
 */
import { HttpServer } from "@effect/platform"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime, Option, Redacted } from "effect"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { baseUrlOf, makeServicesLayer, ServerLayer } from "../../src/App.js"
import { AppConfig, type AppConfigShape } from "../../src/config/AppConfig.js"
import { migratedPgliteTemplate, pgliteLayer } from "../../src/db/Database.js"

const argv = process.argv.slice(2)
const requests = Number(argv[argv.indexOf("--requests") + 1] || 2000)
const agent = new NodeHttp.Agent({ keepAlive: true, maxSockets: 1 })

const call = (url: string, method = "GET", headers: Record<string, string> = {}, body?: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = NodeHttp.request(url, { method, agent, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
    })
    req.on("error", reject)
    req.end(body)
  })

const receiver = NodeHttp.createServer((req, res) => {
  req.resume()
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"))
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
const otlpEndpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
const template = await migratedPgliteTemplate()

const config = (overrides: Partial<AppConfigShape>): AppConfigShape => ({
  port: 0, host: "127.0.0.1", dataDir: ":memory:", databaseUrl: Option.none(), mode: "sandbox",
  encryptionKey: Option.some(Redacted.make("11".repeat(32))), logLevel: LogLevel.Warning, maxJsonBodyBytes: 1 << 20,
  actorMailboxCapacity: 256, actorIdleMs: 60_000, actorsMax: 10_000, webhookTimeoutMs: 10_000, consolePasswordCost: 10,
  ...overrides
})

const measure = async (name: string, overrides: Partial<AppConfigShape>) => {
  const cfg = config(overrides)
  const layer = ServerLayer.pipe(
    Layer.provideMerge(makeServicesLayer(pgliteLayer({ loadDataDir: template }))),
    Layer.provide(Logger.minimumLogLevel(cfg.logLevel)),
    Layer.provideMerge(Layer.succeed(AppConfig, cfg))
  )
  const runtime = ManagedRuntime.make(layer as Layer.Layer<any, any, never>)
  const server = await runtime.runPromise(HttpServer.HttpServer as Effect.Effect<HttpServer.HttpServer, never, any>)
  const base = baseUrlOf(server.address)
  const partner = JSON.parse((await call(`${base}/sandbox/partners`, "POST", { "content-type": "application/json" }, "{}")).text).data
  const key = { "x-api-key": partner.apiKey, "content-type": "application/json" }
  const customer = JSON.parse((await call(`${base}/partner/v1/customers`, "POST", key, JSON.stringify({
    firstName: "Ada", lastName: "Obi", email: "ada@example.com", phoneNumber: "+2348012345678", country: "NG"
  }))).text).data
  const url = `${base}/partner/v1/customers/${customer.id}/balance`
  for (let i = 0; i < 300; i++) await call(url, "GET", key)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < requests; i++) {
    const reply = await call(url, "GET", key)
    if (reply.status !== 200) throw new Error(`${name}: ${reply.status} ${reply.text}`)
  }
  const wall = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  await runtime.dispose()
  const perRequest = (cpu.user + cpu.system) / requests
  console.log(`${name.padEnd(22)} ${perRequest.toFixed(1).padStart(6)} µs CPU/request  ${(wall * 1000 / requests).toFixed(1).padStart(6)} µs wall/request`)
}

for (const round of [1, 2, 3]) {
  console.log(`round ${round}, ${requests} requests each`)
  await measure("off", {})
  await measure("metrics", { metricsPort: 0 })
  await measure("tracing", { otlpEndpoint })
  await measure("metrics + tracing", { metricsPort: 0, otlpEndpoint })
}
receiver.close()
agent.destroy()
