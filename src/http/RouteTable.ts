import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Option } from "effect"
import { type ExtraRoute, perApi } from "../api/PerApi.js"

/**
 * Routing facts the middleware (src/http/Middleware.ts) needs before the router runs: the route table (404 against
 * 405, the body each route takes, its path parameters and whether it reads a query), and the URL the router is given
 * (`routableUrl`: segments find-my-way cannot route, made routable; `originForm`: an absolute-form target's path).
 */

/** Method and path pattern of every route, to tell an unknown path (404) from a wrong method (405). */
export interface RouteTable {
  readonly allowedMethods: (path: string) => ReadonlyArray<string>
  /** Whether the route takes a `multipart/form-data` body (the KYC document upload) instead of JSON. */
  readonly takesMultipart: (method: string, path: string) => boolean
  /** The name of the path parameter at a segment index of the path (`customerId`), if a route has one there. */
  readonly parameterAt: (path: string, index: number) => string | undefined
  /**
   * Whether the route takes query parameters (it has a url params schema, which refuses the ones it does not list;
   * src/api/Messages.ts). A route without one refuses any (checked here, before the handler).
   */
  readonly takesQuery: (method: string, path: string) => boolean
}

/** The route table of an API with its extra routes, built once per process (`perApi`). */
export const routeTable = perApi((api, extra: ReadonlyArray<ExtraRoute>) => buildRouteTable(api, extra))

const buildRouteTable = (
  api: HttpApi.HttpApi.Any,
  extra: ReadonlyArray<{ readonly method: string; readonly path: string }>
): RouteTable => {
  // A path's length: its non-empty segments (a parameter matches one non-empty segment; a trailing slash adds none).
  const lengthOf = (path: string) => path.split("/").filter((segment) => segment !== "").length
  const routes: Array<{ method: string; pattern: RegExp; segments: ReadonlyArray<string>; length: number; multipart: boolean; query: boolean }> = []
  const add = (method: string, path: string, multipart: boolean, query: boolean) =>
    routes.push({
      method,
      pattern: new RegExp("^" + path.replace(/:[A-Za-z0-9_]+/g, "[^/]+") + "/?$"),
      segments: path.split("/"),
      length: lengthOf(path),
      multipart,
      query
    })
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) =>
      add(
        endpoint.method,
        endpoint.path,
        Option.match(endpoint.payloadSchema, {
          onNone: () => false,
          onSome: ({ ast }) => HttpApiSchema.getMultipartStream(ast) !== undefined || HttpApiSchema.getMultipart(ast) !== undefined
        }),
        Option.isSome(endpoint.urlParamsSchema)
      )
  })
  // Routes served beside the API (the docs page, the event stream) read their own query strings.
  for (const route of extra) add(route.method, route.path, false, true)
  // Routes by length: a path is tested only against the patterns of its own length, a fifth of the hundred or so.
  const byLength = new Map<number, Array<(typeof routes)[number]>>()
  for (const route of routes) {
    const same = byLength.get(route.length)
    if (same === undefined) byLength.set(route.length, [route])
    else same.push(route)
  }
  // A request asks about its path several times (allowed methods, multipart, parameters): the last path's routes are
  // kept, so the patterns are tested once per request.
  let lastPath: string | undefined
  let lastRoutes: typeof routes = []
  const matching = (path: string) => {
    if (path !== lastPath) {
      lastRoutes = (byLength.get(lengthOf(path)) ?? []).filter((r) => r.pattern.test(path))
      lastPath = path
    }
    return lastRoutes
  }
  return {
    allowedMethods: (path) => [...new Set(matching(path).map((r) => r.method))],
    takesMultipart: (method, path) => matching(path).some((r) => r.method === method && r.multipart),
    parameterAt: (path, index) =>
      matching(path).map((r) => r.segments[index]).find((segment) => segment?.startsWith(":"))?.slice(1),
    takesQuery: (method, path) => matching(path).some((r) => r.method === method && r.query)
  }
}


const unroutableCharacter = /[%;#]/

/**
 * A path segment the router can route, or `undefined` when it can route it as it is. The router's parameter length
 * limit is configured away (src/App.ts, `maxParamLength`); what find-my-way does not let a config change is kept
 * here, as the one rewrite left: it answers "no route" for a path that is not valid percent-encoding (`%zz`, `%FF`,
 * a truncated UTF-8 sequence: its `decodeURI` throws) and cuts the path at a `;` or `#` (`x;y=1/kyc` would reach
 * another route). Such a segment becomes the percent-encoding of its own text (`%zz` is the three characters
 * `%zz`, `;` and `#` are characters): no id, rail or level, so in a parameter's place the route's own validation
 * answers it as any invalid value (403 `CUSTOMER_FORBIDDEN`, the resource's 404, 400 naming the field); in a
 * literal segment's place no route matches.
 */
export const routableSegment = (segment: string): string | undefined => {
  // Nearly every segment: nothing encoded, nothing the router cuts at.
  if (!unroutableCharacter.test(segment)) return undefined
  let text: string
  try {
    text = decodeURIComponent(segment)
  } catch {
    // Node refuses a request target with a byte outside ASCII, so `segment` is ASCII and encodes without fail.
    return encodeURIComponent(segment)
  }
  return segment.includes(";") || segment.includes("#") ? encodeURIComponent(text) : undefined
}

/** An absolute-form request target's origin (`http://host:port`, RFC 9112 section 3.2.2; what proxies are sent). */
const absoluteOrigin = /^https?:\/\/[^/?#]*/i

/** A request target in origin form: `http://host/a?b` is `/a?b` (as the router reads it), `/a?b` itself. */
export const originForm = (url: string): string => {
  const origin = absoluteOrigin.exec(url)
  if (origin === null) return url
  const rest = url.slice(origin[0].length)
  return rest.startsWith("/") ? rest : `/${rest}`
}

/** The URL to route: `url` with every segment of its path that the router cannot route made routable. */
export const routableUrl = (url: string): string => {
  const query = url.indexOf("?")
  const path = query < 0 ? url : url.slice(0, query)
  let changed = false
  const segments = path.split("/").map((segment) => {
    const routable = routableSegment(segment)
    if (routable === undefined) return segment
    changed = true
    return routable
  })
  return changed ? segments.join("/") + (query < 0 ? "" : url.slice(query)) : url
}
