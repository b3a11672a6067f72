import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted, Schedule } from "effect"
import Pg from "pg"
import { AppConfig } from "../config/AppConfig.js"
import { afterCommit } from "../events/Events.js"

/**
 * Read-through caches of rows that nearly never change but are read on every request (a partner by API key, a
 * partner's rail policies), with invalidation that reaches every process at commit.
 *
 * A write that changes cached data calls `announce(topic, scope)` inside its transaction. In this process the
 * entries of that scope are dropped after the commit (never before: a request between the drop and the commit
 * would cache the old row again). Other processes sharing the PostgreSQL database hear it through
 * `LISTEN/NOTIFY`: the `pg_notify` is part of the writing transaction, so PostgreSQL delivers it exactly when the
 * change commits, and each listener drops the scope on arrival (a rotated key stops working everywhere within
 * the notification's delivery time: milliseconds on one network).
 *
 * Fail-safe: on PostgreSQL a cache serves entries only while this process's listener connection is up and
 * listening; before it is, after it breaks and until it is back, every read goes to the database and the caches
 * are emptied. A lookup that raced an invalidation (started before it, ended after) is not stored. The embedded
 * PGlite has one process by construction: there the local drop is the whole story. Negative answers (an unknown
 * key) are never cached.
 */
export const channel = "pmm_cache_invalidation"

export interface Cache<V> {
  /**
   * The value of `key`: from the cache, else from `lookup` (stored when found and nothing was invalidated meanwhile);
   * `scope` names what invalidates the entry (e.g. its partner id), or derives it from the value found.
   */
  readonly get: <E, R>(key: string, scope: string | ((value: V) => string), lookup: Effect.Effect<Option.Option<V>, E, R>) => Effect.Effect<Option.Option<V>, E, R>
}

interface Store {
  readonly entries: Map<string, { readonly value: unknown; readonly scope: string }>
  /** Bumped by every invalidation of the topic: a lookup that saw another generation is not stored. */
  generation: number
  readonly capacity: number
}

/** Payload of a notification: `topic` and `scope` joined by a character neither contains. */
const separator = "\u001f"

/**
 * This process's entries of every topic, and whether they may be served (`live`): on PostgreSQL only while the
 * listener is up and listening; PGlite has no other process.
 */
const makeStores = (live: boolean) => {
  const stores = new Map<string, Store>()
  const state = { live }

  const dropScope = (topic: string, scope: string) => {
    const store = stores.get(topic)
    if (store === undefined) return
    store.generation++
    for (const [key, entry] of store.entries) if (entry.scope === scope) store.entries.delete(key)
  }
  const dropAll = () => {
    for (const store of stores.values()) {
      store.generation++
      store.entries.clear()
    }
  }

  const make = <V>(topic: string, options: { readonly capacity: number }): Cache<V> => {
    const store: Store = { entries: new Map(), generation: 0, capacity: options.capacity }
    stores.set(topic, store)
    return {
      get: (key, scope, lookup) =>
        Effect.suspend(() => {
          const hit = state.live ? store.entries.get(key) : undefined
          if (hit !== undefined) return Effect.succeed(Option.some(hit.value as V))
          const generation = store.generation
          return Effect.tap(lookup, (found) =>
            Effect.sync(() => {
              if (Option.isNone(found) || !state.live || store.generation !== generation) return
              if (store.entries.size >= store.capacity) {
                const oldest = store.entries.keys().next()
                if (oldest.done !== true) store.entries.delete(oldest.value)
              }
              store.entries.set(key, { value: found.value, scope: typeof scope === "string" ? scope : scope(found.value) })
            }))
        })
    }
  }

  return { state, dropScope, dropAll, make }
}

type Stores = ReturnType<typeof makeStores>

/**
 * What a LISTEN connection does (`listen`): `up` once `LISTEN` is in place (after every connect), `down` when the
 * connection breaks, closes or its scope ends, `message` for each notification's payload on `channel`.
 */
export interface Listening {
  readonly channel: string
  /** The connection's application_name (pg_stat_activity). */
  readonly name: string
  readonly up: () => void
  readonly down: () => void
  readonly message: (payload: string) => void
}

/** One listening session: resolves when it ends (error or close), after `down` ran. */
const listenOnce = (url: string, listening: Listening) =>
  Effect.async<void, Error>((resume) => {
    const client = new Pg.Client({ connectionString: url, application_name: listening.name })
    let ended = false
    const close = () => {
      listening.down()
      client.removeAllListeners("notification")
      client.end().catch(() => undefined)
    }
    const end = (error: Error) => {
      if (ended) return
      ended = true
      close()
      resume(Effect.fail(error))
    }
    client.on("error", end)
    client.on("end", () => end(new Error(`${listening.name} connection closed`)))
    client.on("notification", (message) => {
      if (message.channel === listening.channel && message.payload !== undefined) listening.message(message.payload)
    })
    client.connect()
      .then(() => client.query(`LISTEN ${listening.channel}`))
      .then(() => {
        if (!ended) listening.up()
      })
      .catch((error: unknown) => end(error instanceof Error ? error : new Error(String(error))))
    return Effect.sync(() => {
      ended = true
      close()
    })
  })

/**
 * Listens on a dedicated connection (not one of the pool's) for the scope's lifetime, reconnecting after every
 * break: 100 ms, then doubling, at most 5 s apart. Shared by the caches (below) and the event relay
 * (src/events/Relay.ts).
 */
export const listen = (url: string, listening: Listening) =>
  Effect.forkScoped(
    listenOnce(url, listening).pipe(
      Effect.retry(Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))),
      Effect.ignore
    )
  )

/** The caches' side of the listener: served only while it is up, emptied whenever it goes up or down. */
const cacheListening = (stores: Stores): Listening => ({
  channel,
  name: "pmm-cache-listener",
  up: () => {
    // Anything cached before this moment may have missed a notification.
    stores.dropAll()
    stores.state.live = true
  },
  down: () => {
    stores.state.live = false
    stores.dropAll()
  },
  message: (payload) => {
    const at = payload.indexOf(separator)
    if (at > 0) stores.dropScope(payload.slice(0, at), payload.slice(at + 1))
  }
})

export class Caches extends Effect.Service<Caches>()("Caches", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const shared = Option.isSome(config.databaseUrl)
    // On PostgreSQL the caches are off until the listener is up (see above); PGlite has no other process.
    const stores = makeStores(!shared)

    /** A cache of at most `capacity` entries (the oldest inserted leaves first). */
    const make = <V>(topic: string, options: { readonly capacity: number }): Cache<V> => stores.make<V>(topic, options)

    /** Drops `topic`'s entries of `scope` in every process when the current transaction commits. */
    const announce = Effect.fnUntraced(function* announce(topic: string, scope: string) {
      if (shared) {
        yield* sql`SELECT pg_notify(${channel}, ${topic + separator + scope})`.pipe(Effect.orDie)
      }
      yield* afterCommit(Effect.sync(() => stores.dropScope(topic, scope)))
    })

    if (Option.isSome(config.databaseUrl)) yield* listen(Redacted.value(config.databaseUrl.value), cacheListening(stores))

    return { make, announce } as const
  })
}) {}

export const layer = Caches.Default
