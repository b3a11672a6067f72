import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { perApi } from "../api/PerApi.js"

/**
 * The interactive docs page: Scalar's page exactly as `HttpApiScalar` builds it (the OpenAPI document, the
 * configuration and Scalar's script inline, about 3.5 MB), built on the page's first request rather than when the
 * server starts, and kept per process for each API and configuration (`perApi`).
 *
 * `HttpApiScalar.layer` builds the page while the server's layers are built: about 30 ms of CPU and 7 MB of garbage
 * on every start, for a page most starts never serve (a test run or a scenario run starts the service hundreds of
 * times). Here the library's own router layer (`HttpApiScalar.layerHttpLayerRouter`) renders it once, through
 * `HttpLayerRouter.toWebHandler`, and the route answers with those bytes.
 *
 * The module itself is imported on that first request too: it holds Scalar's script as one 3.3 MB string, which
 * every start otherwise read and compiled (the bundle puts a dynamically imported module in a chunk of its own;
 * docs/performance-startup.md "What changed").
 */
const pageOf = perApi(async (api, scalar: HttpApiScalar.ScalarConfig) => {
  const Scalar = await import("@effect/platform/HttpApiScalar")
  const { dispose, handler } = HttpLayerRouter.toWebHandler(
    Scalar.layerHttpLayerRouter({ api, path: "/docs", scalar }),
    { disableLogger: true }
  )
  try {
    const response = await handler(new Request("http://docs.invalid/docs"))
    if (response.status !== 200) throw new Error(`the docs page rendered with status ${response.status}`)
    return { body: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get("content-type") ?? "text/html" }
  } finally {
    await dispose()
  }
})

/** GET `path`: the docs page of the API the server serves (`HttpApi.Api`). */
export const layer = (options: { readonly path: `/${string}`; readonly scalar: HttpApiScalar.ScalarConfig }) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.flatMap(HttpApi.Api, ({ api }) =>
      router.get(
        options.path,
        Effect.map(
          Effect.promise(() => pageOf(api, options.scalar)),
          (page) => HttpServerResponse.uint8Array(page.body, { contentType: page.contentType })
        )
      ))
  )
