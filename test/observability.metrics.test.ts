import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import parsePrometheusTextFormat, { type Family, type Sample } from "parse-prometheus-text-format"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MetricsEndpoint } from "../src/observability/Observability.js"
import { recordingTracer } from "./support/RecordingTracer.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The metrics endpoint (METRICS_PORT) scraped with a Prometheus text parser, and the spans exported to an OTLP/HTTP
 * receiver (OTEL_EXPORTER_OTLP_ENDPOINT), on one server. Effect's metric registry is process-wide (other suites of
 * the worker count too), so request counts are compared before and after.
 */

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

/** A loopback OTLP/HTTP receiver: collects the spans of every JSON POST to /v1/traces. */
const startOtlpReceiver = async () => {
  const spans: Array<OtlpSpan> = []
  const paths: Array<string> = []
  const server = NodeHttp.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      paths.push(`${request.method} ${request.url} ${request.headers["content-type"]}`)
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) spans.push(...scope.spans)
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A webhook receiver: 500 to `customer.registered`, 200 to anything else. */
const startWebhookReceiver = async () => {
  const server = NodeHttp.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const type = JSON.parse(Buffer.concat(chunks).toString("utf8")).type
      response.writeHead(type === "customer.registered" ? 500 : 200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => server.close() }
}

const waitFor = async <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 8_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

let app: TestApp
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>
let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>
let metricsUrl: string

type Scrape = Array<Family> & { readonly text: string }

const scrape = async (): Promise<Scrape> => {
  const response = await fetch(metricsUrl)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toContain("text/plain; version=0.0.4")
  const text = await response.text()
  return Object.assign(parsePrometheusTextFormat(text), { text })
}

/**
 * One label set of a histogram family. The parser folds a histogram family into a single unlabelled sample, so the
 * family's lines of that label set are handed to it alone, those labels taken off (the `le` of each bucket kept).
 */
const histogram = (scraped: Scrape, name: string, labels: Record<string, string>): Sample | undefined => {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`)
  const lines = scraped.text.split("\n").filter((line) =>
    [`${name}_bucket{`, `${name}_sum{`, `${name}_count{`].some((prefix) => line.startsWith(prefix)) &&
    wanted.every((pair) => line.includes(pair)))
  if (lines.length === 0) return undefined
  const stripped = lines.map((line) => {
    let out = line
    for (const pair of wanted) out = out.replace(`${pair},`, "").replace(pair, "")
    return out.replace(/,}/, "}").replace(/\{\}/, "")
  })
  return parsePrometheusTextFormat([`# TYPE ${name} histogram`, ...stripped, ""].join("\n"))[0]?.metrics[0]
}

const family = (families: ReadonlyArray<Family>, name: string) => {
  const found = families.find((f) => f.name === name)
  if (found === undefined) throw new Error(`no metric ${name}`)
  return found
}

const sample = (families: ReadonlyArray<Family>, name: string, labels: Record<string, string> = {}): Sample | undefined =>
  families.find((f) => f.name === name)?.metrics.find((m) =>
    Object.entries(labels).every(([key, value]) => m.labels?.[key] === value))

const valueOf = (families: ReadonlyArray<Family>, name: string, labels: Record<string, string> = {}) =>
  Number(sample(families, name, labels)?.value ?? 0)

const countOf = (scraped: Scrape, name: string, labels: Record<string, string>) => Number(histogram(scraped, name, labels)?.count ?? 0)

beforeAll(async () => {
  otlp = await startOtlpReceiver()
  hooks = await startWebhookReceiver()
  app = await startTestApp({ config: { metricsPort: 0, otlpEndpoint: otlp.url } })
  const endpoint = await app.run(MetricsEndpoint)
  metricsUrl = `http://127.0.0.1:${endpoint.address!.port}/metrics`
})

afterAll(async () => {
  await app?.close()
  await otlp?.close()
  hooks?.close()
})

const customersRoute = { method: "POST", route: "/api/v1/partner/v1/customers", status: "201" }
const balanceRoute = { method: "GET", route: "/api/v1/partner/v1/customers/:customerId/balance", status: "200" }

describe("the metrics endpoint", () => {
  it("counts and times requests by route pattern and status, never by raw path", async () => {
    const before = await scrape()
    const { apiKey } = await app.newPartner()
    const customers: Array<string> = []
    for (let i = 0; i < 2; i++) {
      const created = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
      expect(created.status).toBe(201)
      customers.push(created.body.data.id)
    }
    for (const id of customers) {
      for (let i = 0; i < 3; i++) expect((await app.request("GET", `/partner/v1/customers/${id}/balance`, { apiKey })).status).toBe(200)
    }
    expect((await app.request("GET", "/no/such/route")).status).toBe(404)
    expect((await app.request("DELETE", "/health")).status).toBe(405)
    const after = await scrape()
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels)

    expect(family(after, "pmm_http_requests_total").type).toBe("COUNTER")
    expect(delta("pmm_http_requests_total", customersRoute)).toBe(2)
    expect(delta("pmm_http_requests_total", balanceRoute)).toBe(6)
    expect(delta("pmm_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1)
    expect(delta("pmm_http_requests_total", { method: "DELETE", route: "/api/v1/health", status: "405" })).toBe(1)

    expect(family(after, "pmm_http_request_duration_seconds").type).toBe("HISTOGRAM")
    const balance = histogram(after, "pmm_http_request_duration_seconds", balanceRoute)!
    expect(countOf(after, "pmm_http_request_duration_seconds", balanceRoute) - countOf(before, "pmm_http_request_duration_seconds", balanceRoute)).toBe(6)
    const buckets = Object.entries(balance.buckets!).map(([le, count]) => [le === "+Inf" ? Infinity : Number(le), Number(count)] as const).sort((a, b) => a[0] - b[0])
    expect(buckets.map(([le]) => le)).toContain(0.005)
    expect(buckets.at(-1)![0]).toBe(Infinity)
    expect(buckets.at(-1)![1]).toBe(Number(balance.count))
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]![1]).toBeGreaterThanOrEqual(buckets[i - 1]![1])
    expect(Number(balance.sum)).toBeGreaterThan(0)

    const routes = after.flatMap((f) => f.metrics.map((m) => m.labels?.route)).filter((r) => r !== undefined)
    expect(routes.some((route) => customers.some((id) => route.includes(id)))).toBe(false)
  })

  it("has the actors, group-commit batches, webhook outcomes and backlog, jobs and the database pool", async () => {
    const before = await scrape()
    const { apiKey } = await app.newPartner()
    expect((await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url: hooks.url } })).status).toBe(200)
    const created = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    expect(created.status).toBe(201)
    const deposit = await app.request("POST", `/sandbox/customers/${created.body.data.id}/deposits`, {
      apiKey,
      body: { asset: "USDT", network: "TRON", amount: 25 }
    })
    expect(deposit.status).toBe(201)
    const attempts = (families: ReadonlyArray<Family>, labels: Record<string, string>) => valueOf(families, "pmm_webhook_attempts_total", labels)
    const after = await waitFor("the webhook outcomes", async () => {
      const now = await scrape()
      const delivered = attempts(now, { outcome: "delivered", reason: "ok" }) > attempts(before, { outcome: "delivered", reason: "ok" })
      const failed = attempts(now, { outcome: "retrying", reason: "http_5xx" }) > attempts(before, { outcome: "retrying", reason: "http_5xx" })
      return delivered && failed ? now : undefined
    })
    expect(valueOf(after, "pmm_actors_live")).toBeGreaterThanOrEqual(1)
    expect(family(after, "pmm_actor_mailbox_depth_total").type).toBe("GAUGE")
    expect(valueOf(after, "pmm_actor_mailbox_depth_max")).toBeGreaterThanOrEqual(0)
    const batches = (families: ReadonlyArray<Family>) => Number(families.find((f) => f.name === "pmm_actor_batch_commands")?.metrics[0]?.count ?? 0)
    expect(batches(after) - batches(before)).toBeGreaterThanOrEqual(1)
    // The failed customer.registered delivery waits for its retry (the test clock is frozen): the backlog counts it.
    expect(valueOf(after, "pmm_webhook_backlog")).toBeGreaterThanOrEqual(1)
    expect(family(after, "pmm_jobs_pending").type).toBe("GAUGE")
    expect(family(after, "pmm_job_lag_seconds").type).toBe("HISTOGRAM")
    expect(valueOf(after, "pmm_db_connections_in_use") + valueOf(after, "pmm_db_connections_idle")).toBeGreaterThanOrEqual(1)
    expect(valueOf(after, "pmm_db_waiting")).toBeGreaterThanOrEqual(0)
  })

  it("serves only GET /metrics", async () => {
    expect((await fetch(metricsUrl.replace("/metrics", "/"))).status).toBe(404)
    expect((await fetch(metricsUrl, { method: "POST" })).status).toBe(405)
  })
})

describe("traces over OTLP/HTTP", () => {
  it("exports a span per request and a child span per named command", async () => {
    const { apiKey } = await app.newPartner()
    const created = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    expect(created.status).toBe(201)
    const command = await waitFor("a Customers.create span", () => otlp.spans.find((s) => s.name === "Customers.create"))
    const request = await waitFor("its request span", () => {
      // The request span ends last: it is exported in the same or a later batch.
      const byId = new Map(otlp.spans.map((s) => [s.spanId, s]))
      let span: OtlpSpan | undefined = command
      while (span !== undefined && span.name !== "POST /api/v1/partner/v1/customers") {
        span = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId)
      }
      return span
    })
    expect(request.traceId).toBe(command.traceId)
    expect(request.kind).toBe(2) // SPAN_KIND_SERVER
    const attribute = (key: string) => request.attributes.find((a) => a.key === key)?.value
    expect(attribute("http.response.status_code")).toEqual({ intValue: 201 })
    // The API key is never exported.
    expect(JSON.stringify(otlp.spans)).not.toContain(apiKey)
    expect(otlp.paths[0]).toBe("POST /v1/traces application/json")
  })

  it("does not trace health probes", async () => {
    expect((await app.request("GET", "/health/live")).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(otlp.spans.some((s) => s.name.includes("/health"))).toBe(false)
  })
})

describe("without a trace exporter", () => {
  it("no span is made for a request: the tracer is off for the whole server, decided when it starts", async () => {
    // Effect's own tracer, recording what it is asked for. With tracing on, a customer's creation asks for its request
    // span and Customers.create, the read for Customers.getOwned.
    const { names, tracer: recording } = recordingTracer()
    const plain = await startTestApp({ tracer: recording })
    try {
      const { apiKey } = await plain.newPartner()
      const created = await plain.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
      expect(created.status).toBe(201)
      expect((await plain.request("GET", `/partner/v1/customers/${(created.body as any).data.id}`, { apiKey })).status).toBe(200)
      // Start-up and the daemons (migrations, job registration and polling) run outside the server and may ask for
      // spans of their own (sql.execute, Jobs.register); nothing a request runs may.
      expect(names.filter((name) => name.startsWith("Customers.") || name.startsWith("Partners.") || name.includes("/api/v1"))).toEqual([])
    } finally {
      await plain.close()
    }
  })
})
