/** Types for parse-prometheus-text-format 1.1.1 (the package ships none): what its parser returns (prom2json's shape). */
declare module "parse-prometheus-text-format" {
  export interface Sample {
    readonly labels?: Record<string, string>
    /** Counters, gauges, untyped. */
    readonly value?: string
    /** Histograms: cumulative count by upper bound (`le`), and the totals. */
    readonly buckets?: Record<string, string>
    readonly count?: string
    readonly sum?: string
  }
  export interface Family {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: ReadonlyArray<Sample>
  }
  const parsePrometheusTextFormat: (text: string) => Array<Family>
  export default parsePrometheusTextFormat
}
