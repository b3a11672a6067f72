import { Metric, MetricBoundaries, MetricLabel } from "effect"

/**
 * The service's metrics, recorded with Effect's Metric module (one process-wide registry) and served in the
 * Prometheus text format by src/observability/MetricsServer.ts when METRICS_PORT is set (docs/observability.md).
 * Recording costs a few map look-ups whether or not anything serves them: the label arrays are cached, so an update
 * finds its metric without building a key (Effect caches a tagged metric per label array).
 *
 * Names follow Prometheus conventions: a `pmm_` prefix, base units (seconds), `_total` on counters.
 */

const secondsBuckets = MetricBoundaries.fromIterable([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])

/** Requests answered, by method, route pattern (the API's path with `:parameters`) and status. */
export const httpRequests = Metric.counter("pmm_http_requests_total", {
  description: "HTTP requests answered, by method, route pattern and status",
  incremental: true
})

/** Time from the request's arrival at the API's app to its response, by method, route pattern and status. */
export const httpRequestDuration = Metric.histogram(
  "pmm_http_request_duration_seconds",
  secondsBuckets,
  "HTTP request latency in seconds, by method, route pattern and status"
)

/** Commands per group-commit batch of the customer actors (src/ledger/CustomerActors.ts): one transaction each. */
export const actorBatchSize = Metric.histogram(
  "pmm_actor_batch_commands",
  MetricBoundaries.fromIterable([1, 2, 4, 8, 16, 32]),
  "Commands per customer-actor batch (one transaction, one commit)"
)

/** Live customer actors (read when scraped). */
export const actorsLive = Metric.gauge("pmm_actors_live", { description: "Live customer actors" })

/** Commands queued in all customer actors' mailboxes, and in the fullest one (read when scraped). */
export const mailboxDepthTotal = Metric.gauge("pmm_actor_mailbox_depth_total", {
  description: "Commands queued in all customer actors' mailboxes"
})
export const mailboxDepthMax = Metric.gauge("pmm_actor_mailbox_depth_max", {
  description: "Commands queued in the fullest customer actor mailbox"
})

/** How late a scheduled job ran: its partner's clock when claimed minus its due time, in seconds. */
export const jobLag = Metric.histogram(
  "pmm_job_lag_seconds",
  MetricBoundaries.fromIterable([0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600]),
  "Scheduled job lag in seconds (claimed at minus due at, on the job's partner's clock)"
)

/** Jobs run, by kind and outcome (`done`, `retry`, `failed`). */
export const jobsRun = Metric.counter("pmm_jobs_total", { description: "Scheduled jobs run, by kind and outcome", incremental: true })

/** Pending jobs (read when scraped). */
export const jobsPending = Metric.gauge("pmm_jobs_pending", { description: "Scheduled jobs not run yet" })

/** Webhook deliveries waiting for an attempt (status PENDING; read when scraped). */
export const webhookBacklog = Metric.gauge("pmm_webhook_backlog", {
  description: "Webhook deliveries pending (waiting for their first or next attempt)"
})

/** Webhook attempts by outcome (`delivered`, `retrying`, `dead`) and reason. */
export const webhookAttempts = Metric.counter("pmm_webhook_attempts_total", {
  description: "Webhook delivery attempts, by outcome (delivered, retrying, dead) and reason",
  incremental: true
})

/** The database pool: connections in use and idle, requests waiting for one (read when scraped). */
export const dbConnectionsInUse = Metric.gauge("pmm_db_connections_in_use", { description: "Database connections checked out" })
export const dbConnectionsIdle = Metric.gauge("pmm_db_connections_idle", { description: "Database connections idle in the pool" })
export const dbWaiting = Metric.gauge("pmm_db_waiting", {
  description: "Queries waiting for a database connection (on PGlite: transactions queued for its one connection)"
})

// Present from the first scrape (Effect lists a metric once it has a value): the unlabelled histograms and gauges.
for (const metric of [actorBatchSize, actorsLive, mailboxDepthTotal, mailboxDepthMax, jobLag, jobsPending, webhookBacklog,
  dbConnectionsInUse, dbConnectionsIdle, dbWaiting]) metric.register()

const labelCache = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()

/**
 * The same label array for the same labels: Effect finds a tagged metric by its label array's identity, so a cached
 * array makes an update a map look-up. Callers pass bounded label values only (route patterns, statuses, kinds).
 */
export const labels = (pairs: Readonly<Record<string, string>>): ReadonlyArray<MetricLabel.MetricLabel> => {
  const key = JSON.stringify(pairs)
  let cached = labelCache.get(key)
  if (cached === undefined) {
    cached = Object.entries(pairs).map(([name, value]) => MetricLabel.make(name, value))
    labelCache.set(key, cached)
  }
  return cached
}

/** One group-commit batch of `commands` commands. */
export const recordBatch = (commands: number) => actorBatchSize.unsafeUpdate(commands, [])

/** A job claimed `lagMs` after it fell due. */
export const recordJobLag = (lagMs: number) => jobLag.unsafeUpdate(Math.max(0, lagMs) / 1000, [])

/** How a job's run ended: done, to be retried, or failed for good. */
export const recordJobOutcome = (kind: string, outcome: "done" | "retry" | "failed") =>
  jobsRun.unsafeUpdate(1, labels({ kind, outcome }))

/** What a webhook attempt's record says: its outcome and, for a failure, why (a bounded set of reasons). */
export const webhookOutcomeOf = (record: {
  readonly status: string
  readonly responseStatus: number | null
  readonly error: string | null
}): { readonly outcome: "delivered" | "retrying" | "dead"; readonly reason: string } => {
  if (record.status === "DELIVERED") return { outcome: "delivered", reason: "ok" }
  const outcome = record.status === "DEAD" ? "dead" : "retrying"
  const error = record.error ?? ""
  const reason = record.responseStatus !== null
    ? record.responseStatus === 410 ? "http_410" : `http_${Math.floor(record.responseStatus / 100)}xx`
    : error.startsWith("timed out") ? "timeout"
    : error.startsWith("sandbox webhook chaos") ? "chaos"
    : error.startsWith("the webhook signing secret") ? "secret"
    : error.startsWith("connection failed") ? "connection"
    : "refused"
  return { outcome, reason }
}

/** One webhook attempt recorded by the dispatcher. */
export const recordWebhookAttempt = (record: Parameters<typeof webhookOutcomeOf>[0]) => {
  const { outcome, reason } = webhookOutcomeOf(record)
  webhookAttempts.unsafeUpdate(1, labels({ outcome, reason }))
}

/** A connection pool as node-postgres exposes it publicly (`pg.Pool`'s counters). */
export interface PoolCounters {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
}

const pools = new Set<PoolCounters>()

/** Counts `pool` in the pool gauges (src/db/Database.ts), until `untrackPool`; returns the pool. */
export const trackPool = <P extends PoolCounters>(pool: P): P => {
  pools.add(pool)
  return pool
}

export const untrackPool = (pool: PoolCounters) => void pools.delete(pool)

/** The pools' counters summed (one pool per database layer; tests run several apps in one process). */
export const poolUsage = () => {
  let inUse = 0
  let idle = 0
  let waiting = 0
  for (const pool of pools) {
    inUse += pool.totalCount - pool.idleCount
    idle += pool.idleCount
    waiting += pool.waitingCount
  }
  return { inUse, idle, waiting }
}
