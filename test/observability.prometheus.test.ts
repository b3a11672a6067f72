import { Metric, MetricBoundaries, MetricLabel } from "effect"
import parsePrometheusTextFormat from "parse-prometheus-text-format"
import { describe, expect, it } from "vitest"
import { Api } from "../src/Api.js"
import { webhookOutcomeOf } from "../src/observability/Metrics.js"
import { format } from "../src/observability/Prometheus.js"
import { pathOf, routeNames } from "../src/observability/RequestMetrics.js"

/** The Prometheus formatter, the route names of request metrics and the webhook outcome reasons, without a server. */
describe("the Prometheus text format", () => {
  it("formats counters, gauges and histograms that a Prometheus parser reads back", () => {
    const counter = Metric.counter("t_requests_total", { description: "requests", incremental: true })
    const gauge = Metric.gauge("t_depth")
    const histogram = Metric.histogram("t_seconds", MetricBoundaries.fromIterable([0.1, 1]), "latency")
    const a = [MetricLabel.make("route", "/a/:id"), MetricLabel.make("note", "quote \" and \\ and\nnewline")]
    counter.unsafeUpdate(2, a)
    counter.unsafeUpdate(3, a)
    gauge.unsafeUpdate(7, [])
    for (const value of [0.05, 0.5, 5]) histogram.unsafeUpdate(value, [])
    const snapshot = Metric.unsafeSnapshot().filter((pair) => pair.metricKey.name.startsWith("t_"))
    const text = format(snapshot)
    expect(text).toContain("# TYPE t_requests_total counter")
    expect(text).toContain("# HELP t_seconds latency")
    const families = parsePrometheusTextFormat(text)
    const byName = new Map(families.map((f) => [f.name, f]))
    expect(byName.get("t_requests_total")!.metrics[0]).toEqual({ value: "5", labels: { route: "/a/:id", note: "quote \" and \\ and\nnewline" } })
    expect(byName.get("t_depth")!).toMatchObject({ type: "GAUGE", metrics: [{ value: "7" }] })
    expect(byName.get("t_seconds")!).toMatchObject({
      type: "HISTOGRAM",
      metrics: [{ buckets: { "0.1": "1", "1": "2", "+Inf": "3" }, count: "3", sum: "5.55" }]
    })
  })
})

describe("route names", () => {
  const routes = routeNames(Api, [{ method: "GET", path: "/api/v1/docs" }])

  it("names a request by its route pattern, a literal segment before a parameter", () => {
    expect(routes("GET", "/api/v1/partner/v1/customers/0b6b6f5e-2f4a-4f61-9d5e-1c1f1a1b1c1d/balance"))
      .toBe("/api/v1/partner/v1/customers/:customerId/balance")
    expect(routes("POST", "/api/v1/partner/v1/customers")).toBe("/api/v1/partner/v1/customers")
    expect(routes("GET", "/api/v1/health/ready")).toBe("/api/v1/health/ready")
    expect(routes("GET", "/api/v1/docs")).toBe("/api/v1/docs")
  })

  it("keeps a known path's pattern for another method and calls anything else unmatched", () => {
    expect(routes("DELETE", "/api/v1/health")).toBe("/api/v1/health")
    expect(routes("GET", "/api/v1/nothing/here")).toBe("unmatched")
    expect(pathOf("http://host/api/v1/health?x=1")).toBe("/api/v1/health")
    expect(pathOf("/api/v1/health?x=1")).toBe("/api/v1/health")
  })
})

describe("webhook outcome reasons", () => {
  const at = (status: string, responseStatus: number | null, error: string | null) => webhookOutcomeOf({ status, responseStatus, error })
  it("is delivered, retrying or dead, with a reason from a bounded set", () => {
    expect(at("DELIVERED", 200, null)).toEqual({ outcome: "delivered", reason: "ok" })
    expect(at("PENDING", 503, "HTTP 503")).toEqual({ outcome: "retrying", reason: "http_5xx" })
    expect(at("DEAD", 410, "HTTP 410: the endpoint is gone; not retried")).toEqual({ outcome: "dead", reason: "http_410" })
    expect(at("PENDING", null, "timed out after 10000 ms")).toEqual({ outcome: "retrying", reason: "timeout" })
    expect(at("PENDING", null, "connection failed: ECONNREFUSED")).toEqual({ outcome: "retrying", reason: "connection" })
    expect(at("PENDING", null, "sandbox webhook chaos: attempt 1 of the first 2 fails on purpose (nothing was sent)").reason).toBe("chaos")
  })
})
