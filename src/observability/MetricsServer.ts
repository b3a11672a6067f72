import { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Layer, Metric, Runtime } from "effect"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { AppConfig } from "../config/AppConfig.js"
import { CustomerActors } from "../ledger/CustomerActors.js"
import * as Metrics from "./Metrics.js"
import * as Prometheus from "./Prometheus.js"

/** Where the metrics endpoint listens, when METRICS_PORT is set (tests read the port 0 picked). */
export class MetricsEndpoint extends Context.Tag("MetricsEndpoint")<
  MetricsEndpoint,
  { readonly address: { readonly host: string; readonly port: number } | undefined }
>() {}

/** The database counts of a scrape wait at most this long; a slow or unreachable database leaves them as they were. */
const countsTimeout = Duration.millis(1_000)

/**
 * The gauges read when scraped: live actors and their mailboxes, the database pools, and two counts from the
 * database (pending webhook deliveries and pending jobs: index-only scans of partial indexes on PENDING rows).
 */
const refreshGauges = Effect.gen(function*() {
  const actors = yield* CustomerActors
  const sql = yield* SqlClient.SqlClient
  yield* Metric.set(Metrics.actorsLive, yield* actors.size)
  const depths = yield* actors.mailboxDepths
  yield* Metric.set(Metrics.mailboxDepthTotal, depths.total)
  yield* Metric.set(Metrics.mailboxDepthMax, depths.max)
  const pools = Metrics.poolUsage()
  yield* Metric.set(Metrics.dbConnectionsInUse, pools.inUse)
  yield* Metric.set(Metrics.dbConnectionsIdle, pools.idle)
  yield* Metric.set(Metrics.dbWaiting, pools.waiting)
  const counts = yield* sql<{ readonly webhooks: number; readonly jobs: number }>`
    SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING')::integer AS webhooks,
           (SELECT count(*) FROM jobs WHERE status = 'PENDING')::integer AS jobs`.pipe(
    Effect.timeout(countsTimeout),
    Effect.option
  )
  if (counts._tag === "Some" && counts.value[0] !== undefined) {
    yield* Metric.set(Metrics.webhookBacklog, counts.value[0].webhooks)
    yield* Metric.set(Metrics.jobsPending, counts.value[0].jobs)
  }
})

/** One scrape: the gauges refreshed, then every metric of the process in the Prometheus text format. */
export const scrape = Effect.zipRight(refreshGauges, Effect.sync(() => Prometheus.format()))

const answer = (response: NodeHttp.ServerResponse, status: number, body: string, contentType = "text/plain; charset=utf-8") => {
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) })
  response.end(body)
}

/**
 * The metrics endpoint: `GET /metrics` on METRICS_HOST:METRICS_PORT, a plain node:http server apart from the
 * partner API (no API key, no envelope, never in the OpenAPI document). Without METRICS_PORT, nothing listens.
 * Closed with the application.
 */
export const layer = Layer.scoped(
  MetricsEndpoint,
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (config.metricsPort === undefined) return { address: undefined }
    const runtime = yield* Effect.runtime<CustomerActors | SqlClient.SqlClient>()
    const run = Runtime.runPromise(runtime)
    const server = NodeHttp.createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0]
      if (path !== "/metrics") return answer(response, 404, "not found: the metrics are at GET /metrics\n")
      if (request.method !== "GET" && request.method !== "HEAD") return answer(response, 405, "method not allowed\n")
      run(scrape).then(
        (text) => answer(response, 200, text, Prometheus.contentType),
        () => answer(response, 500, "metrics could not be collected\n")
      )
    })
    const host = config.metricsHost ?? "127.0.0.1"
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        // With WORKERS > 1 each worker has its own port (METRICS_PORT + its number - 1), listened to on its own
        // (`exclusive`: not shared through the cluster's primary, so a scrape reads one process's metrics).
        const port = config.metricsPort === 0 ? 0 : config.metricsPort! + (config.workerNumber ?? 1) - 1
        server.listen({ port, host, exclusive: true }, () => resume(Effect.void))
      }),
      () => Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    ).pipe(Effect.orDie)
    const address = server.address() as AddressInfo
    return { address: { host, port: address.port } }
  })
)
