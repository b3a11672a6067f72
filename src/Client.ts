import { HttpApiClient, HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Effect, Function, Predicate } from "effect"
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
  /** Sent as `x-api-key`; omit it for the one unauthenticated route (POST /sandbox/partners). */
  readonly apiKey?: string | undefined
}

export const make = (options: Options) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      client.pipe(
        HttpClient.transformResponse(Effect.flatMap(tagErrorBody)),
        options.apiKey === undefined ? Function.identity : withApiKey(options.apiKey)
      )
  })

/** The client's type: `client.customers.create(...)`, `client.withdrawals.quote(...)`, ... */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>
