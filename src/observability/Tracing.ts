import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { type Duration, Effect, Layer } from "effect"
import type { AppConfigShape } from "../config/AppConfig.js"

/** The service name traces carry when OTEL_SERVICE_NAME is unset. */
export const defaultServiceName = "partner-money-movement"

/** Whether traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT is set): only then does the service build spans. */
export const tracingEnabled = (config: AppConfigShape) => config.otlpEndpoint !== undefined

/** Where spans are posted: the endpoint's `/v1/traces`, as the OTLP/HTTP specification builds a signal's URL. */
export const tracesUrl = (endpoint: string) => `${endpoint.replace(/\/+$/, "")}/v1/traces`

/**
 * The tracer, exporting over OTLP/HTTP with JSON bodies (@effect/opentelemetry's OtlpTracer, over Effect's
 * HttpClient on fetch: no OpenTelemetry SDK). Loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set; without it, an
 * empty layer and nothing imported. Spans are batched and posted every `exportInterval` (and when 1,000 are
 * waiting); an unreachable collector pauses export for a minute (spans in between are dropped, never queued without
 * bound); what is buffered at shutdown is posted then, within three seconds.
 */
export const layer = (config: AppConfigShape, exportInterval: Duration.DurationInput = "1 seconds"): Layer.Layer<never> => {
  const endpoint = config.otlpEndpoint
  if (endpoint === undefined) return Layer.empty
  return Layer.unwrapEffect(Effect.promise(async () => {
    const [OtlpTracer, OtlpSerialization] = await Promise.all([
      import("@effect/opentelemetry/OtlpTracer"),
      import("@effect/opentelemetry/OtlpSerialization")
    ])
    return OtlpTracer.layer({
      url: tracesUrl(endpoint),
      resource: { serviceName: config.otelServiceName ?? defaultServiceName, serviceVersion: "0.1.0" },
      headers: config.otlpHeaders ?? {},
      exportInterval
    }).pipe(Layer.provide([FetchHttpClient.layer, OtlpSerialization.layerJson]))
  }))
}
