import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect } from "effect"
import { type ExtraRoute, perApi } from "../api/PerApi.js"
import { httpRequestDuration, httpRequests, labels } from "./Metrics.js"

/**
 * The route pattern of a request (`/api/v1/partner/v1/customers/:customerId/balance`), from the API's own endpoints:
 * what request metrics and span names carry instead of the raw path, whose ids would make a series per customer.
 * A path no route matches is `unmatched`.
 */
export type RouteNames = (method: string, path: string) => string

export const unmatched = "unmatched"

interface Pattern {
  readonly method: string
  readonly path: string
  readonly regex: RegExp
  readonly parameters: number
}

const segmentsOf = (path: string) => path.split("/").filter((segment) => segment !== "").length

/** The route names of an API with its extra routes, built once per process (`perApi`). */
const cachedRouteNames = perApi((api, extra: ReadonlyArray<ExtraRoute>) => buildRouteNames(api, extra))

export const routeNames = (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<ExtraRoute> = []): RouteNames => cachedRouteNames(api, extra)

const buildRouteNames = (
  api: HttpApi.HttpApi.Any,
  extra: ReadonlyArray<{ readonly method: string; readonly path: string }>
): RouteNames => {
  const byLength = new Map<number, Array<Pattern>>()
  const add = (method: string, path: string) => {
    const pattern: Pattern = {
      method,
      path,
      regex: new RegExp("^" + path.replace(/:[A-Za-z0-9_]+/g, "[^/]+") + "/?$"),
      parameters: (path.match(/:[A-Za-z0-9_]+/g) ?? []).length
    }
    const length = segmentsOf(path)
    byLength.set(length, [...(byLength.get(length) ?? []), pattern])
  }
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path)
  })
  for (const route of extra) add(route.method, route.path)
  // Fewest parameters first: a literal segment (`/customers/search`) wins over a parameter (`/customers/:id`).
  for (const patterns of byLength.values()) patterns.sort((a, b) => a.parameters - b.parameters)
  return (method, path) => {
    const candidates = (byLength.get(segmentsOf(path)) ?? []).filter((pattern) => pattern.regex.test(path))
    // A known path with another method (405) keeps its pattern; nothing matching is `unmatched`.
    return (candidates.find((pattern) => pattern.method === method) ?? candidates[0])?.path ?? unmatched
  }
}

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** The path of a request target, origin form or absolute form, without its query. */
export const pathOf = (url: string) => {
  let target = url
  if (!target.startsWith("/")) {
    try {
      target = new URL(target).pathname
    } catch {
      return url
    }
  }
  const query = target.indexOf("?")
  return query < 0 ? target : target.slice(0, query)
}

/** Method and route of a request, as the metrics and span names label it. */
export const requestRoute = (routes: RouteNames, request: HttpServerRequest.HttpServerRequest) => {
  const method = knownMethods.has(request.method) ? request.method : "OTHER"
  return { method, route: routes(method, pathOf(request.url)) }
}

/**
 * Counts every request and times it, by method, route pattern and status. It wraps the whole app, the middleware
 * of src/http/Middleware.ts included, and reads the response in a pre-response handler appended once the app has
 * answered (or failed): it runs after the middleware's own (the error envelope, 404/405), so the status is the one
 * written. The time runs from the request reaching the app to that handler.
 */
export const withRequestMetrics = (routes: RouteNames) => <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const started = performance.now()
    const record = (_request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) =>
      Effect.sync(() => {
        const { method, route } = requestRoute(routes, request)
        const tags = labels({ method, route, status: String(response.status) })
        httpRequests.unsafeUpdate(1, tags)
        httpRequestDuration.unsafeUpdate((performance.now() - started) / 1000, tags)
        return response
      })
    return Effect.ensuring(app, HttpApp.appendPreResponseHandler(record))
  })
