import * as Sse from "@effect/experimental/Sse"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Data, Duration, Effect, Predicate, Stream } from "effect"

/**
 * Follows the partner's live event stream, `GET /api/v1/sandbox/events/stream` (src/sandbox/Http.ts): server-sent
 * events `id: <sequence>`, `event: <type>`, `data: { id, type, createdAt, customerId, data }`, a `: heartbeat`
 * comment every 15 s. After a drop it reconnects with the last `id` seen as `Last-Event-ID`, and the service replays
 * what came after it (at most 1000 events), so nothing is lost or repeated.
 */

export interface StreamEvent {
  /** The stream's `id:` (the event's sequence number in the service); what `Last-Event-ID` resumes after. */
  readonly seq: string | undefined
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly customerId: string | null
  readonly data: Readonly<Record<string, unknown>>
}

export type Notice =
  /** The stream answered 200: the service is subscribed, every event from now on comes through. */
  | { readonly _tag: "Connected"; readonly resumedAfter: string | undefined; readonly reconnect: boolean }
  /** The stream ended or failed; it is opened again (with `Last-Event-ID`) after a short wait. */
  | { readonly _tag: "Dropped"; readonly reason: string }

/** The stream cannot be followed: unreachable before it ever connected, or refused (401, 403, 404, 400). */
export class StreamRefused extends Data.TaggedError("StreamRefused")<{
  readonly reason: "unreachable" | "unauthorized" | "not_found" | "refused"
  readonly detail: string
}> {}

export interface FollowOptions {
  /** The service's origin, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string
  readonly apiKey: string
  /** The stream's own filters. */
  readonly customerId?: string | undefined
  readonly type?: string | undefined
  /** Called in arrival order; must not block for long (the stream is not read meanwhile). */
  readonly onEvent: (event: StreamEvent) => Effect.Effect<void>
  readonly onNotice: (notice: Notice) => Effect.Effect<void>
}

/** Wait before reconnect number `attempt` (0, 1, ...): 0.5 s doubling to 5 s. */
const retryDelay = (attempt: number) => Duration.millis(Math.min(5_000, 500 * 2 ** attempt))

/** No byte for this long (three heartbeats missed) means a dead connection: it is dropped and opened again. */
const idleLimit = Duration.seconds(45)

const isStreamEvent = (value: unknown): value is Omit<StreamEvent, "seq"> =>
  Predicate.isRecord(value) && typeof value.id === "string" && typeof value.type === "string" &&
  typeof value.createdAt === "string" && (value.customerId === null || typeof value.customerId === "string") &&
  Predicate.isRecord(value.data)

class Dropped extends Data.TaggedError("Dropped")<{ readonly reason: string }> {}

/** The innermost `code` (ECONNREFUSED, ...) of a transport failure, when there is one. */
export const transportCode = (cause: unknown, depth = 0): string | undefined => {
  if (!Predicate.isRecord(cause) || depth > 5) return undefined
  if (typeof cause.code === "string") return cause.code
  return transportCode(cause.cause, depth + 1)
}

/** The error envelope's `code` (`UNAUTHORIZED`, ...) and `message`, if the answer is one. */
const errorBody = (text: string): { readonly code?: string; readonly message?: string } => {
  try {
    const body: unknown = JSON.parse(text)
    if (!Predicate.isRecord(body)) return {}
    return {
      ...(typeof body.code === "string" ? { code: body.code } : {}),
      ...(typeof body.message === "string" ? { message: body.message } : {})
    }
  } catch {
    return {}
  }
}

/** Follows the stream until interrupted; fails only with `StreamRefused`. */
export const follow = (options: FollowOptions): Effect.Effect<never, StreamRefused, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false))
    const url = new URL("/api/v1/sandbox/events/stream", options.baseUrl)
    let lastEventId: string | undefined
    let connectedBefore = false
    let connectedThisSession = false

    /** One connection: ends with why it dropped, or fails when following is hopeless. */
    const session = Effect.gen(function*() {
      const headers: Record<string, string> = { "x-api-key": options.apiKey, accept: "text/event-stream" }
      if (lastEventId !== undefined) headers["last-event-id"] = lastEventId
      const request = HttpClientRequest.get(url).pipe(
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.setUrlParams({
          ...(options.customerId === undefined ? {} : { customerId: options.customerId }),
          ...(options.type === undefined ? {} : { type: options.type })
        })
      )
      const response = yield* client.execute(request).pipe(
        Effect.catchTag("RequestError", (error): Effect.Effect<never, Dropped | StreamRefused> => {
          const detail = transportCode(error.cause) ?? error.message
          return connectedBefore
            ? Effect.fail(new Dropped({ reason: `cannot reach the service (${detail})` }))
            : Effect.fail(new StreamRefused({ reason: "unreachable", detail }))
        })
      )
      if (response.status !== 200) {
        const text = yield* Effect.orElseSucceed(response.text, () => "")
        const body = errorBody(text)
        const detail = `${response.status}${body.code === undefined ? "" : ` ${body.code}`}`
        if (response.status === 401 || response.status === 403) {
          return yield* new StreamRefused({ reason: "unauthorized", detail })
        }
        if (response.status === 404) return yield* new StreamRefused({ reason: "not_found", detail })
        if (response.status === 400) return yield* new StreamRefused({ reason: "refused", detail: `${detail}: ${body.message ?? text}` })
        // 5xx, a proxy's 502 while the service restarts, ...: try again.
        return yield* new Dropped({ reason: `HTTP ${detail}` })
      }
      yield* options.onNotice({ _tag: "Connected", resumedAfter: lastEventId, reconnect: connectedBefore })
      connectedBefore = true
      connectedThisSession = true
      yield* response.stream.pipe(
        Stream.timeoutFail(() => new Dropped({ reason: `no data for ${Duration.format(idleLimit)}` }), idleLimit),
        Stream.decodeText(),
        Stream.pipeThroughChannel(Sse.makeChannel()),
        Stream.runForEach((event) =>
          Effect.gen(function*() {
            let data: unknown
            try {
              data = JSON.parse(event.data)
            } catch {
              data = undefined
            }
            if (isStreamEvent(data)) {
              yield* options.onEvent({
                seq: event.id,
                id: data.id,
                type: data.type,
                createdAt: data.createdAt,
                customerId: data.customerId,
                data: data.data
              })
            }
            if (event.id !== undefined) lastEventId = event.id
          })
        ),
        Effect.catchTag("ResponseError", (error) => Effect.fail(new Dropped({ reason: `connection lost (${transportCode(error.cause) ?? error.message})` })))
      )
      return yield* new Dropped({ reason: "the service ended the stream" })
    }).pipe(Effect.scoped)

    // Waits grow while reconnecting fails; a connection that got through starts them again from the first.
    let attempt = 0
    for (;;) {
      connectedThisSession = false
      const dropped = yield* Effect.flip(session)
      if (dropped._tag === "StreamRefused") return yield* dropped
      if (connectedThisSession) {
        // One notice per drop of a live stream: failed attempts to reconnect are retried quietly.
        yield* options.onNotice({ _tag: "Dropped", reason: dropped.reason })
        attempt = 0
      }
      yield* Effect.sleep(retryDelay(attempt++))
    }
  })
