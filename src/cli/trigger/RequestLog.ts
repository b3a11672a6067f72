import type { Fetch } from "../../scenario/Client.js"

/**
 * Which HTTP requests a trigger run made, one entry per request, as they complete. A run sends every request with
 * its own recording `Fetch` (passed to the scenario library's client, src/scenario/Client.ts): only requests made
 * through it are noted, so concurrent runs (and a service running in the same process, as in the tests) stay apart,
 * and the global `fetch` is never touched.
 */
export interface RequestEntry {
  readonly method: string
  /** Relative to the base URL, with the query: `/partner/v1/customers`, `/sandbox/events?type=...`. */
  readonly path: string
  /** 0 when no answer came (connection refused, time-out). */
  readonly status: number
  readonly durationMs: number
  readonly error?: string | undefined
}

/**
 * A `Fetch` that sends with `next` (the global `fetch` at the time of the call when not given) and calls `onRequest`
 * for every request to `baseUrl` (`http://host:port/api/v1`) once it has an answer or has failed.
 */
export const recordingFetch = (baseUrl: string, onRequest: (entry: RequestEntry) => void, next?: Fetch): Fetch =>
  async (url, init) => {
    const send = next ?? fetch
    if (!url.startsWith(`${baseUrl}/`)) return send(url, init)
    const method = (init.method ?? "GET").toUpperCase()
    const path = url.slice(baseUrl.length)
    const started = performance.now()
    try {
      const response = await send(url, init)
      onRequest({ method, path, status: response.status, durationMs: performance.now() - started })
      return response
    } catch (error) {
      onRequest({ method, path, status: 0, durationMs: performance.now() - started, error: (error as Error).message })
      throw error
    }
  }
