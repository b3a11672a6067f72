import { Duration, Effect } from "effect"
import * as NodeDns from "node:dns"
import * as NodeHttp from "node:http"
import * as NodeHttps from "node:https"
import type { AppConfigShape } from "../config/AppConfig.js"
import { checkWebhookUrl, hostOf, publicOnlyLookup, refuseNonPublic } from "./UrlRules.js"

/** What one HTTP attempt came to. */
export type Answer =
  | { readonly _tag: "Answered"; readonly status: number }
  | { readonly _tag: "Failed"; readonly error: string }

/** One POST of a delivery body: the answer's status, or why there is none (never fails). */
export type Post = (url: string, body: string, headers: Record<string, string>) => Effect.Effect<Answer>

/** Connections per receiving host (as many as the dispatcher's attempts in flight), and in all. */
const socketsPerHostMax = 32
const socketsMax = 256

/** How much of an answer body is read (and thrown away) so that the connection can be reused. */
const answerBodyBytesMax = 64 * 1024

const describeTransportError = (cause: unknown): string => {
  const error = cause as { code?: unknown; message?: unknown; cause?: unknown } | undefined
  if (error?.code === "ENONPUBLIC" && typeof error.message === "string") return error.message
  if (typeof error?.code === "string") return `connection failed: ${error.code}`
  if (error?.cause !== undefined && error.cause !== cause) return describeTransportError(error.cause)
  return `connection failed: ${typeof error?.message === "string" && error.message !== "" ? error.message : "unknown error"}`
}

interface Agents {
  readonly http: NodeHttp.Agent
  readonly https: NodeHttps.Agent
}

/**
 * One POST on the keep-alive pool: the answer's status once its body has been read (at most
 * `answerBodyBytesMax`, the rest is cut), or why there is none. The time-out covers the connection, the request
 * and the answer; interrupting the effect destroys the request. `configuredMs` is the time-out the message names.
 */
const request = (
  agents: Agents,
  configuredMs: number,
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number
): Effect.Effect<Answer> =>
  Effect.async<Answer>((resume) => {
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const settle = (answer: Answer) => {
      if (settled) return
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      resume(Effect.succeed(answer))
    }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      settle({ _tag: "Failed", error: "connection failed: invalid URL" })
      return
    }
    const https = target.protocol === "https:"
    const req = (https ? NodeHttps : NodeHttp).request(target, {
      method: "POST",
      agent: https ? agents.https : agents.http,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }
    }, (res) => {
      const answered: Answer = { _tag: "Answered", status: res.statusCode ?? 0 }
      let read = 0
      res.on("data", (chunk: Buffer) => {
        read += chunk.length
        if (read >= answerBodyBytesMax) {
          settle(answered)
          res.destroy()
        }
      })
      res.on("end", () => settle(answered))
      // The status arrived; a body cut short does not change it.
      res.on("close", () => settle(answered))
      res.on("error", () => settle(answered))
    })
    req.on("error", (error) => settle({ _tag: "Failed", error: describeTransportError(error) }))
    timer = setTimeout(() => {
      settle({ _tag: "Failed", error: `timed out after ${configuredMs} ms` })
      req.destroy()
    }, timeoutMs)
    req.end(body)
    return Effect.sync(() => {
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      req.destroy()
    })
  })

/**
 * In production every attempt re-checks the stored URL against today's rules (a URL saved before a rule
 * existed is refused, not sent), then resolves the name and refuses it if any address is not public. The
 * connection's own lookup (`publicOnlyLookup`) checks the address actually connected to once more.
 */
const checkResolved = (url: string) =>
  Effect.gen(function*() {
    const verdict = checkWebhookUrl(url, "production")
    if (!verdict.ok) return `refused: url ${verdict.rule}`
    const host = hostOf(new URL(url))
    const addresses = yield* Effect.tryPromise(() => NodeDns.promises.lookup(host, { all: true, verbatim: true })).pipe(
      Effect.map((found) => found.map((a) => a.address)),
      Effect.catchAll((error) => Effect.succeed(describeTransportError(error.error)))
    )
    return typeof addresses === "string" ? addresses : refuseNonPublic(host, addresses)
  })

/** A bounded keep-alive pool per scheme, destroyed with the scope; production connections resolve through `publicOnlyLookup`. */
const makeAgents = (production: boolean) =>
  Effect.gen(function*() {
    const agentOptions = {
      keepAlive: true,
      maxSockets: socketsPerHostMax,
      maxFreeSockets: socketsPerHostMax,
      maxTotalSockets: socketsMax,
      scheduling: "lifo" as const,
      ...(production ? { lookup: publicOnlyLookup } : {})
    }
    const agents: Agents = { http: new NodeHttp.Agent(agentOptions), https: new NodeHttps.Agent(agentOptions) }
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        agents.http.destroy()
        agents.https.destroy()
      })
    )
    return agents
  })

/**
 * The webhook sender's HTTP (`WebhookSender`): `post` on its own keep-alive pool, with the configured answer
 * time-out. In production the URL is checked (`checkResolved`) within the same time limit, before the request.
 */
export const makePost = (config: AppConfigShape) =>
  Effect.gen(function*() {
    const production = config.mode === "production"
    const agents = yield* makeAgents(production)
    const timeout = Duration.millis(config.webhookTimeoutMs)
    const post: Post = (url, body, headers) => {
      if (!production) return request(agents, config.webhookTimeoutMs, url, body, headers, config.webhookTimeoutMs)
      // The attempt's time limit is real elapsed time (not the service clock): a monotonic reading.
      const started = performance.now()
      return checkResolved(url).pipe(
        Effect.timeoutTo({
          duration: timeout,
          onSuccess: (refusal): Answer | undefined => refusal === undefined ? undefined : { _tag: "Failed", error: refusal },
          onTimeout: (): Answer => ({ _tag: "Failed", error: `timed out after ${config.webhookTimeoutMs} ms` })
        }),
        Effect.flatMap((refused) =>
          refused !== undefined
            ? Effect.succeed(refused)
            : request(agents, config.webhookTimeoutMs, url, body, headers, Math.max(1, config.webhookTimeoutMs - (performance.now() - started)))
        )
      )
    }
    return post
  })
