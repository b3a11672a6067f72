import type * as HttpApi from "@effect/platform/HttpApi"

/** A route the API does not declare but the server serves (the docs page, the OpenAPI document, the web console). */
export interface ExtraRoute {
  readonly method: string
  readonly path: string
}

/**
 * `build(api, key)` once per API object and key (compared as JSON), per process: for what a service start derives
 * from the API alone and a few plain values (the route table and the route names of metrics, from the extra routes;
 * the docs page, from Scalar's settings; the OpenAPI document), which every start of the same API would otherwise
 * build again.
 */
export const perApi = <K, A, Api extends HttpApi.HttpApi.Any = HttpApi.HttpApi.Any>(build: (api: Api, key: K) => A) => {
  const cache = new WeakMap<Api, Map<string, A>>()
  return (api: Api, key: K): A => {
    let byKey = cache.get(api)
    if (byKey === undefined) cache.set(api, byKey = new Map())
    const text = JSON.stringify(key)
    if (byKey.has(text)) return byKey.get(text)!
    const built = build(api, key)
    byKey.set(text, built)
    return built
  }
}
