/**
 * The Partner Money Movement Service's client: openapi-fetch over the types openapi-typescript generated from the
 * service's OpenAPI document (./schema.d.ts, regenerated with `npm run client:generate` in the service repository).
 *
 * ```ts
 * import { createPartnerClient, unwrap } from "@partner-money-movement/client"
 *
 * const client = createPartnerClient({ baseUrl: "http://127.0.0.1:8080", apiKey: process.env.PMM_API_KEY! })
 * const { data } = unwrap(await client.POST("/api/v1/partner/v1/customers", { body: { firstName: "Ada", ... } }))
 * ```
 *
 * Every call answers openapi-fetch's `{ data, error, response }`: `data` is the success envelope
 * (`{ success: true, data, meta? }`), `error` the error envelope (`{ success: false, statusCode, code, message,
 * error, timestamp, path, details? }`), both typed per route and status. `unwrap` turns that into a value or a thrown
 * `PartnerApiError`. A network failure rejects the promise, as `fetch` does.
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch"
import type { components, paths } from "./schema.js"

export type { components, operations, paths } from "./schema.js"
export * from "./webhooks.js"

/** The document's schemas by name: `Schemas["BadRequest"]`, ... */
export type Schemas = components["schemas"]

/** The client `createPartnerClient` answers: `client.GET(path, init)`, `client.POST(...)`, ... */
export type PartnerClient = Client<paths>

/** The header that carries the partner's API key on every partner and sandbox route. */
export const apiKeyHeader = "x-api-key"

export interface PartnerClientOptions {
  /**
   * The service's origin, e.g. `https://sandbox.example.com` (the document's paths start with /api/v1). The base URL
   * the sandbox prints (`http://127.0.0.1:8080/api/v1`) works too: a trailing `/api/v1` is dropped.
   */
  readonly baseUrl: string | URL
  /** Sent as `x-api-key` on every request; omit it for the unauthenticated routes (health, POST /sandbox/partners). */
  readonly apiKey?: string | undefined
  /** Headers sent on every request besides the API key. */
  readonly headers?: Record<string, string> | undefined
  /** A `fetch` to send with (default: the global one), e.g. to add logging or a proxy. */
  readonly fetch?: ((input: Request) => Promise<Response>) | undefined
}

/** The origin (and any path prefix before /api/v1) requests are sent to, without a trailing slash. */
export const normaliseBaseUrl = (baseUrl: string | URL): string => {
  const url = new URL(baseUrl.toString())
  url.pathname = url.pathname.replace(/\/+$/, "").replace(/\/api\/v1$/, "")
  url.search = ""
  url.hash = ""
  return url.toString().replace(/\/+$/, "")
}

/** A promise-based client of the service, typed by its OpenAPI document, sending the partner's API key. */
export const createPartnerClient = (options: PartnerClientOptions): PartnerClient => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.apiKey !== undefined) headers[apiKeyHeader] = options.apiKey
  const clientOptions: ClientOptions = { baseUrl: normaliseBaseUrl(options.baseUrl), headers }
  if (options.fetch !== undefined) clientOptions.fetch = options.fetch
  return createClient<paths>(clientOptions)
}

/**
 * The error envelope every refusal carries (docs/contract.md "Errors" in the service's repository). Branch on `statusCode` and `code`; `message` is for
 * people and may change. `details` is on a few refusals only (e.g. `WITHDRAWAL_BELOW_MINIMUM`:
 * `{ minimumAmount, currency }`). The per-route union of the exact envelopes is the `error` of a call's result.
 */
export interface ErrorEnvelope {
  readonly success: false
  readonly statusCode: number
  readonly code: string
  readonly message: string
  readonly error: string
  readonly timestamp: string
  readonly path: string
  readonly details?: Record<string, unknown> | undefined
}

/** Whether a value is the service's error envelope. */
export const isErrorEnvelope = (value: unknown): value is ErrorEnvelope =>
  typeof value === "object" && value !== null &&
  (value as { success?: unknown }).success === false &&
  typeof (value as { statusCode?: unknown }).statusCode === "number" &&
  typeof (value as { code?: unknown }).code === "string"

/** A refusal thrown by `unwrap`: the envelope's fields, the whole envelope and the HTTP response. */
export class PartnerApiError extends Error {
  override readonly name = "PartnerApiError"
  /** The HTTP status (the envelope's `statusCode`). */
  readonly statusCode: number
  /** The stable code, e.g. `CUSTOMER_FORBIDDEN`; `HTTP_<status>` when the body was not the envelope (a proxy's page). */
  readonly code: string
  /** The envelope, or undefined when the body was not one. */
  readonly envelope: ErrorEnvelope | undefined
  /** The envelope's machine-readable facts, when the refusal has some. */
  readonly details: Record<string, unknown> | undefined
  readonly response: Response

  constructor(body: unknown, response: Response) {
    const envelope = isErrorEnvelope(body) ? body : undefined
    super(envelope?.message ?? `HTTP ${response.status}${typeof body === "string" && body !== "" ? `: ${body.slice(0, 200)}` : ""}`)
    this.statusCode = envelope?.statusCode ?? response.status
    this.code = envelope?.code ?? `HTTP_${response.status}`
    this.envelope = envelope
    this.details = envelope?.details
    this.response = response
  }
}

/**
 * A call's success body, or a thrown `PartnerApiError` for a refusal:
 * `const { data } = unwrap(await client.GET("/api/v1/partner/v1/customers/{customerId}", { params: { path: { customerId } } }))`.
 * A 204 answers undefined.
 */
export const unwrap = <R extends { readonly data?: unknown; readonly error?: unknown; readonly response: Response }>(
  result: R
): Exclude<R["data"], undefined> => {
  if (!result.response.ok) throw new PartnerApiError(result.error, result.response)
  return result.data as Exclude<R["data"], undefined>
}
