import { Metric, MetricKeyType, type MetricPair, MetricState, Option } from "effect"

/**
 * The Prometheus text exposition format (version 0.0.4) of Effect metrics: what `GET /metrics` on METRICS_PORT
 * answers (src/observability/MetricsServer.ts). A formatter of our own over `Metric.unsafeSnapshot()` instead of the
 * OpenTelemetry SDK's PrometheusExporter: docs/observability.md has the measurements behind the choice.
 *
 * Counters (incremental ones) are `counter`, gauges and other counters `gauge`, histograms `histogram` (cumulative
 * `_bucket{le=...}` lines, `_sum`, `_count`), frequencies a `counter` per key (label `key`), summaries `summary`.
 */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

const sanitizeName = (name: string) => name.replace(/[^a-zA-Z0-9_:]/g, "_").replace(/^([0-9])/, "_$1")

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")

const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const formatValue = (value: number | bigint) =>
  typeof value === "bigint"
    ? value.toString()
    : Number.isNaN(value)
    ? "NaN"
    : value === Infinity
    ? "+Inf"
    : value === -Infinity
    ? "-Inf"
    : String(value)

const formatLabels = (pairs: ReadonlyArray<readonly [string, string]>) =>
  pairs.length === 0 ? "" : `{${pairs.map(([k, v]) => `${sanitizeName(k)}="${escapeLabel(v)}"`).join(",")}}`

interface Family {
  type: "counter" | "gauge" | "histogram" | "summary"
  help: string
  readonly samples: Array<string>
}

const typeOf = (pair: MetricPair.MetricPair.Untyped): Family["type"] | undefined => {
  const keyType = pair.metricKey.keyType
  if (MetricKeyType.isCounterKey(keyType)) return keyType.incremental ? "counter" : "gauge"
  if (MetricKeyType.isGaugeKey(keyType)) return "gauge"
  if (MetricKeyType.isHistogramKey(keyType)) return "histogram"
  if (MetricKeyType.isFrequencyKey(keyType)) return "counter"
  if (MetricKeyType.isSummaryKey(keyType)) return "summary"
  return undefined
}

/** The sample lines of one metric (one label set). */
const samplesOf = (name: string, tags: ReadonlyArray<readonly [string, string]>, state: MetricState.MetricState.Untyped) => {
  const lines: Array<string> = []
  if (MetricState.isCounterState(state)) lines.push(`${name}${formatLabels(tags)} ${formatValue(state.count)}`)
  else if (MetricState.isGaugeState(state)) lines.push(`${name}${formatLabels(tags)} ${formatValue(state.value)}`)
  else if (MetricState.isHistogramState(state)) {
    // Effect's buckets are cumulative already, the last one +Inf.
    let sawInfinity = false
    for (const [boundary, count] of state.buckets) {
      if (boundary === Infinity) sawInfinity = true
      lines.push(`${name}_bucket${formatLabels([...tags, ["le", formatValue(boundary)]])} ${count}`)
    }
    if (!sawInfinity) lines.push(`${name}_bucket${formatLabels([...tags, ["le", "+Inf"]])} ${state.count}`)
    lines.push(`${name}_sum${formatLabels(tags)} ${formatValue(state.sum)}`)
    lines.push(`${name}_count${formatLabels(tags)} ${state.count}`)
  } else if (MetricState.isFrequencyState(state)) {
    for (const [key, count] of state.occurrences) lines.push(`${name}${formatLabels([...tags, ["key", key]])} ${count}`)
  } else if (MetricState.isSummaryState(state)) {
    for (const [quantile, value] of state.quantiles) {
      if (Option.isSome(value)) lines.push(`${name}${formatLabels([...tags, ["quantile", String(quantile)]])} ${formatValue(value.value)}`)
    }
    lines.push(`${name}_sum${formatLabels(tags)} ${formatValue(state.sum)}`)
    lines.push(`${name}_count${formatLabels(tags)} ${state.count}`)
  }
  return lines
}

/** Formats a snapshot of metrics (all of the process's by default), one family per name, names sorted. */
export const format = (snapshot: ReadonlyArray<MetricPair.MetricPair.Untyped> = Metric.unsafeSnapshot()): string => {
  const families = new Map<string, Family>()
  for (const pair of snapshot) {
    const type = typeOf(pair)
    if (type === undefined) continue
    const name = sanitizeName(pair.metricKey.name)
    let family = families.get(name)
    if (family === undefined) {
      family = { type, help: Option.getOrElse(pair.metricKey.description, () => ""), samples: [] }
      families.set(name, family)
    }
    const tags = pair.metricKey.tags.map((label) => [label.key, label.value] as const)
    family.samples.push(...samplesOf(name, tags, pair.metricState))
  }
  const out: Array<string> = []
  for (const name of [...families.keys()].sort()) {
    const family = families.get(name)!
    if (family.help !== "") out.push(`# HELP ${name} ${escapeHelp(family.help)}`)
    out.push(`# TYPE ${name} ${family.type}`)
    out.push(...family.samples)
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`
}
