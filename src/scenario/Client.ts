/** The runner's HTTP client: JSON (or multipart/form-data) in, JSON out, with a time limit on every call. */
export type FormPart =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly data: Uint8Array; readonly filename: string; readonly contentType: string }

export interface HttpRequest {
  readonly method: string
  readonly path: string
  readonly query?: Readonly<Record<string, unknown>> | undefined
  readonly body?: unknown
  /** Sent as multipart/form-data (fetch writes the boundary); never together with `body`. */
  readonly multipart?: ReadonlyArray<FormPart> | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** How a multipart request is shown in a failure report: fields and file sizes, not the bytes. */
export const describeParts = (parts: ReadonlyArray<FormPart>): string =>
  parts.map((part) => "data" in part
    ? `${part.name}=<file ${JSON.stringify(part.filename)} ${part.contentType} ${part.data.byteLength} bytes>`
    : `${part.name}=${JSON.stringify(part.value)}`).join(" ")

export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

const requestTimeoutMs = 60_000

/**
 * What the client sends a request with: `fetch`'s shape, narrowed to the one way the client calls it (the URL as a
 * string, an init). A caller that wants to see or record its requests passes its own (a wrapper around `fetch`).
 */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>

export interface ClientOptions {
  /** Sends the request; the global `fetch` (as it is at the time of the call) when not given. */
  readonly fetch?: Fetch | undefined
}

export const urlOf = (baseUrl: string, request: Pick<HttpRequest, "path" | "query">): string => {
  const url = new URL(baseUrl + request.path)
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value === undefined || value === null) continue
    for (const item of Array.isArray(value) ? value : [value]) {
      url.searchParams.append(key, typeof item === "string" ? item : JSON.stringify(item))
    }
  }
  return url.toString()
}

export const send = async (baseUrl: string, request: HttpRequest, options: ClientOptions = {}): Promise<HttpResponse> => {
  const headers: Record<string, string> = { ...request.headers }
  const init: RequestInit = { method: request.method, headers, signal: AbortSignal.timeout(requestTimeoutMs) }
  if (request.multipart !== undefined) {
    const form = new FormData()
    for (const part of request.multipart) {
      if ("data" in part) form.append(part.name, new Blob([part.data], { type: part.contentType }), part.filename)
      else form.append(part.name, part.value)
    }
    init.body = form
    delete headers["content-type"]
  } else if (request.body !== undefined) {
    init.body = typeof request.body === "string" && headers["content-type"] !== undefined ? request.body : JSON.stringify(request.body)
    headers["content-type"] ??= "application/json"
  }
  const response = await (options.fetch ?? fetch)(urlOf(baseUrl, request), init)
  const text = await response.text()
  let body: unknown = text === "" ? undefined : text
  try {
    if (text !== "") body = JSON.parse(text)
  } catch {
    // not JSON: matched as text
  }
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body }
}
