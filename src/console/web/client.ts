/**
 * The web console's way to the API (docs/console.md "The web console"): same origin, `/api/v1/...`. The access token
 * lives in this module's memory only; the refresh token is an HttpOnly cookie the page never sees. A 401 triggers one
 * refresh (with the CSRF cookie echoed in `X-CSRF-Token`), shared by every caller that is waiting for it: a refresh
 * token presented twice ends the session, so two refreshes never run at once.
 */

export interface FieldProblem {
  readonly field: string
  readonly message: string
}

/** A refusal, from the error envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: ReadonlyArray<FieldProblem>,
    readonly retryAfterSeconds: number | undefined
  ) {
    super(message)
  }
}

import { browserDocument } from "./browser.js"

const base = "/api/v1"
let accessToken: string | undefined
let refreshing: Promise<boolean> | undefined
let onSignedOut: () => void = () => {}

export const setSignedOutListener = (listener: () => void) => {
  onSignedOut = listener
}
export const setAccessToken = (token: string | undefined) => {
  accessToken = token
}
export const signedIn = () => accessToken !== undefined

const csrfCookie = () => {
  const found = browserDocument().cookie.split("; ").find((part) => part.startsWith("pmm_console_csrf="))
  return found === undefined ? "" : decodeURIComponent(found.slice("pmm_console_csrf=".length))
}

/** Whether a session cookie may exist (the readable CSRF cookie is set beside the HttpOnly refresh cookie). */
export const mayResume = () => csrfCookie() !== ""

const toError = (status: number, body: unknown, retryAfter: string | null): ApiError => {
  const envelope = (typeof body === "object" && body !== null ? body : {}) as {
    code?: unknown
    message?: unknown
    details?: { fields?: unknown; retryAfterSeconds?: unknown }
  }
  const fields = Array.isArray(envelope.details?.fields) ? (envelope.details.fields as Array<FieldProblem>) : []
  const fromDetails = typeof envelope.details?.retryAfterSeconds === "number" ? envelope.details.retryAfterSeconds : undefined
  const fromHeader = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined
  return new ApiError(
    status,
    typeof envelope.code === "string" ? envelope.code : `HTTP_${status}`,
    typeof envelope.message === "string" ? envelope.message : `The service answered ${status}`,
    fields,
    fromDetails ?? fromHeader
  )
}

const send = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
  const init: RequestInit = { method, headers: { ...headers }, credentials: "same-origin" }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    ;(init.headers as Record<string, string>)["content-type"] = "application/json"
  }
  let response: Response
  try {
    response = await fetch(base + path, init)
  } catch {
    throw new ApiError(0, "UNREACHABLE", "The service cannot be reached: check your connection and try again", [], undefined)
  }
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = text
  }
  return { response, parsed }
}

const doRefresh = async (): Promise<boolean> => {
  const csrf = csrfCookie()
  if (csrf === "") return false
  const { response, parsed } = await send("POST", "/partner/token/refresh", {}, { "x-csrf-token": csrf })
  if (!response.ok) {
    accessToken = undefined
    return false
  }
  accessToken = (parsed as { data: { accessToken: string } }).data.accessToken
  return true
}

/** Refreshes the session once, whoever asks: callers during a refresh share its outcome. */
export const refresh = (): Promise<boolean> => {
  if (refreshing === undefined) {
    refreshing = doRefresh().catch(() => false).finally(() => {
      refreshing = undefined
    })
  }
  return refreshing
}

/** A request with the session's token (or an API key); the whole envelope, or an ApiError. */
const request = async (method: string, path: string, body: unknown, apiKey: string | undefined): Promise<unknown> => {
  const attempt = () => {
    const headers: Record<string, string> = {}
    if (apiKey !== undefined) headers["x-api-key"] = apiKey
    else if (accessToken !== undefined) headers["authorization"] = `Bearer ${accessToken}`
    return send(method, path, body, headers)
  }
  let { response, parsed } = await attempt()
  if (response.status === 401 && apiKey === undefined && accessToken !== undefined) {
    if (await refresh()) ({ response, parsed } = await attempt())
    else onSignedOut()
  }
  if (!response.ok) throw toError(response.status, parsed, response.headers.get("retry-after"))
  return parsed
}

/** A console request: `data` of the envelope, or an ApiError. */
export const call = async <T>(method: string, path: string, body?: unknown, options: { readonly apiKey?: string } = {}): Promise<T> =>
  ((await request(method, path, body, options.apiKey)) as { data: T }).data

/** A cursor list's page: `{ items, nextCursor }`. */
export const list = async <T>(path: string): Promise<{ items: Array<T>; nextCursor: string | null }> => {
  const page = (await request("GET", path, undefined, undefined)) as { data: Array<T>; meta?: { nextCursor?: string | null } }
  return { items: page.data, nextCursor: page.meta?.nextCursor ?? null }
}

/** "Too many attempts, try again in N seconds" (and in minutes when that is long). */
export const waitInWords = (seconds: number) => {
  const whole = Math.max(1, Math.ceil(seconds))
  const minutes = Math.ceil(whole / 60)
  return whole >= 120 ? `${whole} seconds (about ${minutes} minutes)` : `${whole} second${whole === 1 ? "" : "s"}`
}

/** What a person reads for a refusal. */
export const describe = (error: unknown): string => {
  if (!(error instanceof ApiError)) return "Something went wrong: try again"
  if (error.status === 429) {
    const wait = error.retryAfterSeconds
    return wait === undefined ? "Too many attempts, try again later." : `Too many attempts, try again in ${waitInWords(wait)}.`
  }
  return error.message
}
