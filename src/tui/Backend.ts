import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Sse from "@effect/experimental/Sse"
import { Cause, Effect, Option, Predicate } from "effect"
import * as Client from "../Client.js"
import type { RailPolicyView } from "../rails/Api.js"
import type { RailMode, RailName, RailOutcome } from "../rails/RailPolicy.js"
import type { DueItem, EventChain, OperationAction, PendingOperation } from "../sandbox/InspectApi.js"
import type { WebhookDelivery } from "../webhooks/Api.js"

/**
 * Everything the terminal UI reads and does, as plain promises over the public HTTP API (the typed client derived
 * from the contract) and the sandbox event stream (SSE). The UI's components see only this interface, so that
 * component tests drive them with a fake and the real one works against any running sandbox, local or remote.
 */

export interface FeedEvent {
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly customerId: string | null
  readonly data: Readonly<Record<string, unknown>>
}

export interface CustomerBalances {
  readonly customerId: string
  readonly name: string
  readonly email: string
  readonly currency: string
  readonly balances: ReadonlyArray<{ readonly currency: string; readonly available: number; readonly held: number }>
}

export interface Clock {
  readonly now: Date
  readonly offsetSeconds: number
}

export type StreamState = "connecting" | "live" | "reconnecting"

export interface RailPolicyChange {
  readonly mode: RailMode
  readonly outcome: RailOutcome
  readonly delaySeconds: number
}

export interface Backend {
  readonly baseUrl: string
  readonly partner: () => Promise<{ readonly partnerId: string; readonly name: string }>
  /** The newest events, newest first. */
  readonly events: (limit: number) => Promise<ReadonlyArray<FeedEvent>>
  /** Follows the live feed (reconnecting with `Last-Event-ID`) until the returned function is called. */
  readonly follow: (handlers: {
    readonly onEvent: (event: FeedEvent) => void
    readonly onState: (state: StreamState) => void
  }) => () => void
  readonly eventChain: (eventId: string) => Promise<EventChain>
  readonly balances: () => Promise<ReadonlyArray<CustomerBalances>>
  readonly deliveries: () => Promise<ReadonlyArray<WebhookDelivery>>
  readonly replay: (eventId: string) => Promise<void>
  readonly operations: () => Promise<ReadonlyArray<PendingOperation>>
  readonly act: (action: OperationAction, reason?: string) => Promise<void>
  readonly rails: () => Promise<ReadonlyArray<RailPolicyView>>
  readonly setRail: (rail: RailName, policy: RailPolicyChange) => Promise<void>
  readonly clock: () => Promise<Clock>
  readonly advance: (seconds: number) => Promise<Clock>
  readonly due: (seconds: number) => Promise<ReadonlyArray<DueItem>>
}

/** A refusal or a transport failure, with the API's `code` when there is one. */
export class BackendError extends Error {
  constructor(message: string, readonly code: string | undefined, readonly status: number | undefined) {
    super(message)
  }
}

/** Most rows a list pane loads (pages of 100 until this many). */
export const listMax = 500

const describe = (error: unknown): BackendError => {
  if (error instanceof BackendError) return error
  if (Predicate.isRecord(error)) {
    const tag = typeof error._tag === "string" ? error._tag : undefined
    const message = typeof error.message === "string" ? error.message : String(error)
    if (tag === "RequestError") {
      const cause = Predicate.isRecord(error.cause) && Predicate.isRecord(error.cause.cause) ? error.cause.cause : error.cause
      const code = Predicate.isRecord(cause) && typeof cause.code === "string" ? cause.code : undefined
      return new BackendError(`cannot reach the service${code === undefined ? "" : ` (${code})`}`, "UNREACHABLE", undefined)
    }
    if (tag === "ResponseError") {
      const response = Predicate.isRecord(error.response) ? error.response : undefined
      const status = typeof response?.status === "number" ? response.status : undefined
      return new BackendError(`unexpected response${status === undefined ? "" : ` (HTTP ${status})`}`, undefined, status)
    }
    const code = typeof error.code === "string" ? error.code : undefined
    const status = typeof error.statusCode === "number" ? error.statusCode : undefined
    return new BackendError(code === undefined ? message : `${code}: ${message}`, code, status)
  }
  return new BackendError(String(error), undefined, undefined)
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => {
    if (exit._tag === "Success") return exit.value
    const failure = Cause.failureOption(exit.cause)
    throw describe(Option.isSome(failure) ? failure.value : Cause.squash(exit.cause))
  })

/** Reads a cursor list page by page until it ends or `max` items are loaded. */
const collect = async <A>(
  page: (cursor: string | undefined) => Promise<{ readonly items: ReadonlyArray<A>; readonly nextCursor: string | null }>,
  max = listMax
): Promise<ReadonlyArray<A>> => {
  const items: Array<A> = []
  let cursor: string | undefined
  do {
    const result = await page(cursor)
    items.push(...result.items)
    cursor = result.nextCursor ?? undefined
  } while (cursor !== undefined && items.length < max)
  return items.slice(0, max)
}

const toFeedEvent = (event: { id: string; type: string; createdAt: string; customerId: string | null; data: Readonly<Record<string, unknown>> }): FeedEvent => ({
  id: event.id,
  type: event.type,
  createdAt: event.createdAt,
  customerId: event.customerId,
  data: event.data
})

const isFeedEvent = (value: unknown): value is FeedEvent =>
  Predicate.isRecord(value) && typeof value.id === "string" && typeof value.type === "string" &&
  typeof value.createdAt === "string" && (value.customerId === null || typeof value.customerId === "string") &&
  Predicate.isRecord(value.data)

export interface StreamOptions {
  readonly baseUrl: string
  readonly apiKey: string
  readonly onEvent: (event: FeedEvent) => void
  readonly onState: (state: StreamState) => void
  /** Real-time wait before reconnecting, growing from 0.5 s to 5 s. */
  readonly retryMs?: (attempt: number) => number
}

/**
 * Follows `GET /sandbox/events/stream`: parses the server-sent events, reconnects after a drop with the last seen
 * `id` as `Last-Event-ID` (the service replays what was missed), and stops when the returned function is called.
 */
export const followEvents = (options: StreamOptions): () => void => {
  const controller = new AbortController()
  const url = new URL("/api/v1/sandbox/events/stream", options.baseUrl)
  const retryMs = options.retryMs ?? ((attempt: number) => Math.min(5_000, 500 * 2 ** attempt))
  let lastEventId: string | undefined
  const loop = async () => {
    for (let attempt = 0; !controller.signal.aborted; attempt++) {
      options.onState(attempt === 0 ? "connecting" : "reconnecting")
      try {
        const headers: Record<string, string> = { "x-api-key": options.apiKey, accept: "text/event-stream" }
        if (lastEventId !== undefined) headers["last-event-id"] = lastEventId
        const response = await fetch(url, { headers, signal: controller.signal })
        if (response.ok && response.body !== null) {
          options.onState("live")
          attempt = -1
          const parser = Sse.makeParser((event) => {
            if (event._tag !== "Event") return
            if (event.id !== undefined) lastEventId = event.id
            let data: unknown
            try {
              data = JSON.parse(event.data)
            } catch {
              return
            }
            if (isFeedEvent(data)) options.onEvent(toFeedEvent(data))
          })
          const decoder = new TextDecoder()
          for await (const chunk of response.body) {
            parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
          }
        } else {
          await response.body?.cancel()
        }
      } catch {
        // dropped or refused: try again below
      }
      if (controller.signal.aborted) return
      await new Promise((resolve) => setTimeout(resolve, retryMs(Math.max(0, attempt))))
    }
  }
  void loop()
  return () => controller.abort()
}

export interface HttpBackendOptions {
  /** The service's origin, e.g. `http://127.0.0.1:8080` (a trailing `/api/v1` is accepted and dropped). */
  readonly baseUrl: string
  readonly apiKey: string
}

/** The service's origin from what a user typed: `http://host:port`, with or without `/api/v1`. */
export const normaliseBaseUrl = (input: string): string => {
  const url = new URL(input)
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new BackendError("--url: must be an http or https URL", undefined, undefined)
  return url.origin + url.pathname.replace(/\/+$/, "").replace(/\/api\/v1$/, "")
}

/** The Backend over HTTP: the typed client for requests, `fetch` for the event stream and the rails' actions. */
export const httpBackend = async (options: HttpBackendOptions): Promise<Backend> => {
  const baseUrl = normaliseBaseUrl(options.baseUrl)
  const client = await Effect.runPromise(
    Client.make({ baseUrl, apiKey: options.apiKey }).pipe(Effect.provide(FetchHttpClient.layer))
  )
  const clockOf = (reading: { readonly now: Date; readonly offsetSeconds: number }): Clock => ({
    now: reading.now,
    offsetSeconds: reading.offsetSeconds
  })
  return {
    baseUrl,
    partner: () => run(Effect.map(client.sandbox.partner(), (partner) => ({ partnerId: partner.partnerId, name: partner.name }))),
    events: (limit) =>
      run(Effect.map(client.sandbox.events({ urlParams: { limit } }), (page) => page.items.map(toFeedEvent))),
    follow: ({ onEvent, onState }) => followEvents({ baseUrl, apiKey: options.apiKey, onEvent, onState }),
    eventChain: (eventId) => run(client.sandboxInspect.event({ path: { eventId } })),
    balances: () =>
      collect((cursor) =>
        run(client.sandboxLedger.balances({ urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } }))
      ).then((items) =>
        items.map((item) => ({
          customerId: item.customerId,
          name: `${item.firstName} ${item.lastName}`,
          email: item.email,
          currency: item.currency,
          balances: item.balances
        }))
      ),
    deliveries: () =>
      collect((cursor) =>
        run(client.webhooks.deliveries({ urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } }))
      ),
    replay: (eventId) => run(Effect.asVoid(client.webhooks.replay({ path: { id: eventId } }))),
    operations: () =>
      collect((cursor) =>
        run(client.sandboxInspect.operations({ urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } }))
      ),
    act: async (action, reason) => {
      const body = action.reason === "required" ? { ...action.body, reason } : action.body
      const response = await fetch(new URL(action.path, baseUrl), {
        method: action.method,
        // A control that needs no input takes no body (and then no content type).
        ...(body === null
          ? { headers: { "x-api-key": options.apiKey } }
          : { headers: { "x-api-key": options.apiKey, "content-type": "application/json" }, body: JSON.stringify(body) })
      }).catch((error: unknown) => {
        throw new BackendError(`cannot reach the service (${String(error)})`, "UNREACHABLE", undefined)
      })
      const text = await response.text()
      if (response.ok) return
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        parsed = undefined
      }
      throw Predicate.isRecord(parsed) && typeof parsed.code === "string"
        ? new BackendError(`${parsed.code}: ${String(parsed.message)}`, parsed.code, response.status)
        : new BackendError(`HTTP ${response.status}`, undefined, response.status)
    },
    rails: () => run(client.sandboxRails.list()),
    setRail: (rail, policy) => run(Effect.asVoid(client.sandboxRails.set({ path: { rail }, payload: policy }))),
    clock: () => run(Effect.map(client.sandbox.clock(), clockOf)),
    advance: (seconds) => run(Effect.map(client.sandbox.advanceClock({ payload: { seconds } }), clockOf)),
    due: (seconds) =>
      collect((cursor) =>
        run(client.sandboxInspect.due({ urlParams: { seconds, limit: 100, ...(cursor === undefined ? {} : { cursor }) } }))
      )
  }
}
