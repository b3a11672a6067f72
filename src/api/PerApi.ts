import type { HttpApi } from "@effect/platform"

/** A route the API does not declare but the server serves (the docs page, the OpenAPI document, the web console). */
export interface ExtraRoute {
  readonly method: string
  readonly path: string
}

/**
 * `build(api, extra)` once per API object and extra routes, per process: for what a service start derives from the
 * API's endpoints alone (the route table, the route names of metrics), which every start of the same API asked for
 * again by reflecting over ~120 endpoints.
 */
export const perApi = <A>(build: (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<ExtraRoute>) => A) => {
  const cache = new WeakMap<HttpApi.HttpApi.Any, Map<string, A>>()
  return (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<ExtraRoute>): A => {
    const byExtra = cache.get(api) ?? new Map<string, A>()
    cache.set(api, byExtra)
    const key = JSON.stringify(extra)
    const known = byExtra.get(key)
    if (known !== undefined) return known
    const built = build(api, extra)
    byExtra.set(key, built)
    return built
  }
}
