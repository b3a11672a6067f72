import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import type * as HttpApp from "@effect/platform/HttpApp"
import { FiberRef, Layer } from "effect"
import type { AppConfigShape } from "../config/AppConfig.js"
import { pathOf, requestRoute, routeNames, withRequestMetrics } from "./RequestMetrics.js"
import * as Tracing from "./Tracing.js"

export { MetricsEndpoint, layer as metricsServerLayer } from "./MetricsServer.js"

/** Health probes are not traced: a span every few seconds per probe would drown the requests worth reading. */
const untraced = (path: string) => path === "/api/v1/health" || path.startsWith("/api/v1/health/")

/**
 * What the HTTP server gets from observability (wired in src/App.ts), each part only when configured:
 * - `aroundMiddleware`: request counts and latency by route pattern and status, with METRICS_PORT;
 * - `server`: with an exporter (OTEL_EXPORTER_OTLP_ENDPOINT), one span per request named `<METHOD> <route pattern>`
 *   and the tracer, the handlers' spans (`Customers.create`, SQL statements) its children; without one, the tracer
 *   is off for the whole server, decided once when it starts (every request's fiber inherits it), and the platform's
 *   span per request stays disabled: no span is built for nobody, and no request pays to turn tracing off.
 */
export const make = (
  config: AppConfigShape,
  api: HttpApi.HttpApi.Any,
  extraRoutes: ReadonlyArray<{ readonly method: string; readonly path: string }>
) => {
  const tracing = Tracing.tracingEnabled(config)
  const metrics = config.metricsPort !== undefined
  const routes = routeNames(api, extraRoutes)
  return {
    aroundMiddleware: <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
      metrics ? withRequestMetrics(routes)(app) : app,
    server: <A, E, R>(served: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
      tracing
        ? served.pipe(
          HttpMiddleware.withTracerDisabledWhen((request) => untraced(pathOf(request.url))),
          HttpMiddleware.withSpanNameGenerator((request) => {
            const { method, route } = requestRoute(routes, request)
            return `${method} ${route}`
          }),
          Layer.provide(Tracing.layer(config))
        )
        : served.pipe(HttpMiddleware.withTracerDisabledWhen(() => true), Layer.locally(FiberRef.currentTracerEnabled, false))
  }
}
