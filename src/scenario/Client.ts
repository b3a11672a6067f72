/** The runner's HTTP client: JSON in, JSON out, with a time limit on every call. */
export interface HttpRequest {
  readonly method: string
  readonly path: string
  readonly query?: Readonly<Record<string, unknown>> | undefined
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>> | undefined
}

export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

const requestTimeoutMs = 60_000

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

export const send = async (baseUrl: string, request: HttpRequest): Promise<HttpResponse> => {
  const headers: Record<string, string> = { ...request.headers }
  const init: RequestInit = { method: request.method, headers, signal: AbortSignal.timeout(requestTimeoutMs) }
  if (request.body !== undefined) {
    init.body = typeof request.body === "string" && headers["content-type"] !== undefined ? request.body : JSON.stringify(request.body)
    headers["content-type"] ??= "application/json"
  }
  const response = await fetch(urlOf(baseUrl, request), init)
  const text = await response.text()
  let body: unknown = text === "" ? undefined : text
  try {
    if (text !== "") body = JSON.parse(text)
  } catch {
    // not JSON: matched as text
  }
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body }
}
