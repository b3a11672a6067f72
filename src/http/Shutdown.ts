import { Context, Deferred, Effect, Layer } from "effect"
import type * as NodeHttp from "node:http"

/**
 * Completes when the server begins to shut down, before it stops accepting connections and waits for open ones.
 * Long-lived responses (server-sent event streams) end on it, so that SIGTERM closes them cleanly instead of the
 * server waiting forever for clients to hang up.
 */
export class Shutdown extends Context.Tag("Shutdown")<Shutdown, Deferred.Deferred<void>>() {}

export const ShutdownLayer = Layer.effect(Shutdown, Deferred.make<void>())

/** Built after the HTTP server, so released before it: fires the signal first. */
export const ShutdownTrigger = Layer.scopedDiscard(
  Effect.flatMap(Shutdown, (signal) => Effect.addFinalizer(() => Deferred.succeed(signal, undefined)))
)

/** How long connections may stay open once the stop began (`closeLingering`). */
export const lingerMs = 2_000

/**
 * Built after the HTTP server, so its finalizer runs just before the server's release (`server.close()`): every
 * connection still open `lingerMs` later is closed. `server.close()` closes the connections idle at that moment and
 * waits for the others; a response that ends just after it (an event stream ending on `Shutdown`, a request in flight)
 * leaves a keep-alive connection idle with nothing to close it but the server's idle time-out (65 s), and the stop
 * waited that long.
 */
export const closeLingering = (server: () => NodeHttp.Server | undefined) =>
  Layer.scopedDiscard(
    Effect.addFinalizer(() =>
      Effect.sync(() => {
        const running = server()
        if (running !== undefined) setTimeout(() => running.closeAllConnections(), lingerMs).unref()
      })
    )
  )
