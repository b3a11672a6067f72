import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { type Context, Effect } from "effect"
import { perApi } from "../api/PerApi.js"

/**
 * The OpenAPI document, exactly as `HttpApiBuilder.middlewareOpenApi` serves it (`OpenApi.fromApi` of the served API,
 * its `OpenApi.Transform` applied, as compact JSON), built on the document's first request rather than when the server
 * starts, and kept per process for each API (`perApi`).
 *
 * `middlewareOpenApi` builds and encodes the document while the server's layers are built: about 0.1 s of CPU on
 * every start of the bundle (a test run starts the service hundreds of times, in process and spawned), for a
 * document most starts never serve.
 */
const documentOf = perApi((api: Context.Tag.Service<HttpApi.Api>["api"], _: "document") =>
  new TextEncoder().encode(JSON.stringify(OpenApi.fromApi(api)))
)

/** GET `path`: the OpenAPI document of the API the server serves (`HttpApi.Api`). */
export const layer = (options: { readonly path: `/${string}` }) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.flatMap(HttpApi.Api, ({ api }) =>
      router.get(
        options.path,
        Effect.sync(() => HttpServerResponse.uint8Array(documentOf(api, "document"), { contentType: "application/json" }))
      ))
  )
