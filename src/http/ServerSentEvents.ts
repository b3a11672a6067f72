import { HttpServerResponse } from "@effect/platform"
import { Deferred, Effect, Schedule, Stream } from "effect"
import { Shutdown } from "./Shutdown.js"

/** Heartbeat interval (real time: it keeps proxies from closing an idle connection). */
export const heartbeatSeconds = 15

const endOfStream = "\u0000end"

/** One server-sent event frame. */
export const frame = (options: { readonly id: string | number; readonly event: string; readonly data: unknown }) =>
  `id: ${options.id}\nevent: ${options.event}\ndata: ${JSON.stringify(options.data)}\n\n`

/**
 * A `text/event-stream` response of `frames` with a heartbeat comment every 15 seconds. On server shutdown the
 * stream ends normally (the chunked response is terminated, not cut), so the server never waits on it.
 */
export const response = <E>(frames: Stream.Stream<string, E>) =>
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
