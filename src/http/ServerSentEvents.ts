import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Deferred, Effect, Schedule, type Scope, Stream } from "effect"
import { Shutdown } from "./Shutdown.js"

/** Heartbeat interval (real time: it keeps proxies from closing an idle connection). */
export const heartbeatSeconds = 15

const endOfStream = "\u0000end"

/** One server-sent event frame. */
export const frame = (options: { readonly id: string | number; readonly event: string; readonly data: unknown }) =>
  `id: ${options.id}\nevent: ${options.event}\ndata: ${JSON.stringify(options.data)}\n\n`

/** The comment a stream opens with when it has no event to send at once (see `responseScoped`). */
export const connectedComment = ": connected\n\n"

/** `frames` merged with a heartbeat comment every 15 seconds, ended on server shutdown. */
const withHeartbeats = <E>(frames: Stream.Stream<string, E>) =>
  Effect.map(Shutdown, (shutdown) => {
    const heartbeats = Stream.fromSchedule(Schedule.spaced(`${heartbeatSeconds} seconds`)).pipe(Stream.as(": heartbeat\n\n"))
    const body = frames.pipe(
      Stream.merge(heartbeats),
      Stream.merge(Stream.fromEffect(Deferred.await(shutdown)).pipe(Stream.as(endOfStream))),
      Stream.takeWhile((chunk) => chunk !== endOfStream),
      Stream.encodeText
    )
    return HttpServerResponse.stream(body, {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
    })
  })

/**
 * A `text/event-stream` response of `frames` with a heartbeat comment every 15 seconds. The status and headers
 * are written with the first chunk, so `frames` must start with one at once (the balance stream starts with its
 * snapshot); a stream that waits for events uses `responseScoped`. On server shutdown the stream ends normally
 * (the chunked response is terminated, not cut), so the server never waits on it.
 */
export const response = <E>(frames: Stream.Stream<string, E>) => withHeartbeats(frames)

/**
 * A stream of events that may not come for a while: `open` subscribes (in the response's scope), then a
 * `: connected` comment is written at once, so the client gets the status and headers immediately, and a client
 * that has read the comment misses no event published after it.
 */
export const responseScoped = <E1, E2>(open: Effect.Effect<Stream.Stream<string, E2>, E1, Scope.Scope>) =>
  withHeartbeats(Stream.unwrapScoped(Effect.map(open, (opened) => Stream.concat(Stream.make(connectedComment), opened))))
