import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import * as Client from "../../src/Client.js"

/**
 * The typed client of src/Client.ts over fetch, for tests. `baseUrl` may be a TestApp's `baseUrl`
 * (`http://127.0.0.1:<port>/api/v1`): only its origin is used, since the contract's paths carry /api/v1.
 */
export const typedClient = (baseUrl: string, apiKey?: string): Client.Client =>
  Client.make({ baseUrl: new URL(baseUrl).origin, apiKey }).pipe(Effect.provide(FetchHttpClient.layer), Effect.runSync)
