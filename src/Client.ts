import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Effect, FiberRef, Predicate } from "effect"
import { Api } from "./Api.js"

/**
 * A typed client derived from the contract, for partners' TypeScript code, the TUI, scenarios and tests. Like the
 * contract it imports schemas and errors only (test/contract.imports.test.ts). Every endpoint is
 * `client.<group>.<endpoint>({ path, urlParams, payload })`: requests are encoded by the contract's schemas
 * (an invalid body fails with a ParseError before anything is sent), successes decode to the plain data (the
 * `{ success: true, data }` envelope is part of the success schemas) and lists to `{ items, nextCursor }`, and a
 * refusal arrives in the failure channel as its error class (`CustomerForbidden`, `WithdrawalBelowMinimum`, ...).
 * The client needs an `HttpClient` (`FetchHttpClient.layer` from `@effect/platform` works everywhere).
 */

/** Sends the partner's API key on every request. */
export const withApiKey = (apiKey: string) => HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", apiKey))

/**
 * The error envelope on the wire names its class in `error` (docs/contract.md "Errors"), while the error schemas are
 * tagged classes decoded by `_tag`: copy one into the other so that a refusal decodes to its class.
 */
const tagErrorBody = (response: HttpClientResponse.HttpClientResponse) =>
  response.status < 400 || !(response.headers["content-type"] ?? "").startsWith("application/json")
    ? Effect.succeed(response)
    : Effect.map(response.text, (text) => {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      const tagged = Predicate.isRecord(body) && typeof body.error === "string" && !("_tag" in body)
        ? JSON.stringify({ ...body, _tag: body.error })
        : text
      return HttpClientResponse.fromWeb(
        response.request,
        new Response(tagged, { status: response.status, headers: response.headers })
      )
    })

export interface Options {
  /** The service's origin, e.g. `https://sandbox.example.com`: the contract's paths already start with /api/v1. */
  readonly baseUrl: string | URL
  /**
   * Sent as `x-api-key`. Omitted: the key of `currentApiKey` in the calling fiber, if any (one client serving several
   * partners), else none (the one unauthenticated route, POST /sandbox/partners).
   */
  readonly apiKey?: string | undefined
}

/**
 * The API key a client made without one sends (`Effect.locally(call, currentApiKey, key)`): building a client derives
 * every endpoint's codecs from the contract, so code that talks for many partners (the test fixtures) builds one.
 */
export const currentApiKey: FiberRef.FiberRef<string | undefined> = FiberRef.unsafeMake<string | undefined>(undefined)

const withCurrentApiKey = HttpClient.mapRequestEffect((request: HttpClientRequest.HttpClientRequest) =>
  Effect.map(FiberRef.get(currentApiKey), (apiKey) => (apiKey === undefined ? request : HttpClientRequest.setHeader(request, "x-api-key", apiKey)))
)

export const make = (options: Options) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      client.pipe(
        HttpClient.transformResponse(Effect.flatMap(tagErrorBody)),
        options.apiKey === undefined ? withCurrentApiKey : withApiKey(options.apiKey)
      )
  })

/**
 * `client` with every call sent under `apiKey` (`currentApiKey`): the same codecs, another partner. A client made
 * with its own `apiKey` keeps sending that one.
 */
export const forApiKey = (client: Client, apiKey: string): Client => {
  const keyed = (endpoint: (...args: Array<any>) => Effect.Effect<any, any, any>) =>
    (...args: Array<any>) => Effect.locally(endpoint(...args), currentApiKey, apiKey)
  return Object.fromEntries(Object.entries(client).map(([name, member]) => [
    name,
    typeof member === "function"
      ? keyed(member)
      : Object.fromEntries(Object.entries(member as Record<string, any>).map(([endpoint, call]) => [endpoint, keyed(call)]))
  ])) as unknown as Client
}

/** The client's type: `client.customers.create(...)`, `client.withdrawals.quote(...)`, ... */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>
