import { AsyncLocalStorage } from "node:async_hooks"

/**
 * Which HTTP requests a trigger run made, one entry per request, as they complete. The scenario library's client
 * (src/scenario/Client.ts) calls the global `fetch`; while a run is recorded, a wrapper installed once notes every
 * call to the run's service. AsyncLocalStorage keeps concurrent runs (and a service running in the same process,
 * as in the tests) apart: only calls made on a recorded run's behalf, to its base URL, are noted.
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

interface Recorder {
  readonly baseUrl: string
  readonly onRequest: (entry: RequestEntry) => void
}

const recorders = new AsyncLocalStorage<Recorder>()
let installed = false

const urlOf = (input: Parameters<typeof fetch>[0]): string =>
  typeof input === "string" ? input : input instanceof URL ? input.href : input.url

const install = () => {
  if (installed) return
  installed = true
  const original = globalThis.fetch
  globalThis.fetch = async (input, init) => {
    const recorder = recorders.getStore()
    const url = urlOf(input)
    if (recorder === undefined || !url.startsWith(`${recorder.baseUrl}/`)) return original(input, init)
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase()
    const path = url.slice(recorder.baseUrl.length)
    const started = performance.now()
    try {
      const response = await original(input, init)
      recorder.onRequest({ method, path, status: response.status, durationMs: performance.now() - started })
      return response
    } catch (error) {
      recorder.onRequest({ method, path, status: 0, durationMs: performance.now() - started, error: (error as Error).message })
      throw error
    }
  }
}

/** Runs `body`, calling `onRequest` for every request it makes to `baseUrl` (`http://host:port/api/v1`). */
export const recordRequests = <A>(baseUrl: string, onRequest: (entry: RequestEntry) => void, body: () => Promise<A>): Promise<A> => {
  install()
  return recorders.run({ baseUrl, onRequest }, body)
}
