import { type Fetch, type HttpRequest, type HttpResponse, send } from "./Client.js"
import type { Scope } from "./Interpolate.js"
import type { Mismatch } from "./Matchers.js"
import type { Inbox } from "./Receiver.js"

/** What one scenario's steps share while they run. */
export interface RunContext {
  readonly baseUrl: string
  readonly apiKey: string
  readonly inbox: Inbox
  scope: Scope
  /** What the steps' requests are sent with (see Client.ts `send`); the global `fetch` when not given. */
  readonly fetch?: Fetch | undefined
}

/** A failed step: the message, and what the reader needs to see why (request, response, differences). */
export class StepFailure extends Error {
  constructor(
    message: string,
    readonly details: {
      readonly request?: HttpRequest | undefined
      readonly response?: HttpResponse | undefined
      readonly mismatches?: ReadonlyArray<Mismatch> | undefined
    } = {}
  ) {
    super(message)
  }
}

/** Sends a request as the scenario's partner (x-api-key) unless `auth` is "none". */
export const call = async (context: RunContext, request: HttpRequest, auth: "partner" | "none" = "partner"): Promise<HttpResponse> => {
  const headers: Record<string, string> = auth === "partner" ? { "x-api-key": context.apiKey } : {}
  for (const [key, value] of Object.entries(request.headers ?? {})) headers[key.toLowerCase()] = value
  try {
    return await send(context.baseUrl, { ...request, headers }, { fetch: context.fetch })
  } catch (error) {
    throw new StepFailure(`request failed: ${(error as Error).message}`, { request })
  }
}

/** A control call that must succeed (2xx); returns the envelope's `data`. */
export const control = async (context: RunContext, request: HttpRequest): Promise<any> => {
  const response = await call(context, request)
  if (response.status < 200 || response.status >= 300) {
    throw new StepFailure(`${request.method} ${request.path} answered ${response.status}`, { request, response })
  }
  return (response.body as { data?: unknown } | undefined)?.data
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Retries `attempt` every 100 ms until it returns no mismatches or `timeoutMs` passes; returns the last mismatches. */
export const poll = async <A>(timeoutMs: number, attempt: () => Promise<{ readonly mismatches: ReadonlyArray<Mismatch>; readonly value: A }>) => {
  const deadline = performance.now() + timeoutMs
  while (true) {
    const result = await attempt()
    if (result.mismatches.length === 0 || performance.now() >= deadline) return result
    await sleep(100)
  }
}
