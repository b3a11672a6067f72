import { Context, Deferred, Effect, Layer } from "effect"

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
