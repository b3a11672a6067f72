import { SqlClient } from "@effect/sql"
import { Effect, Option, Queue, Redacted, type Scope } from "effect"
import * as NodeCrypto from "node:crypto"
import { AppConfig } from "../config/AppConfig.js"
import { listen } from "../db/Caches.js"
import type { EventRow, EventsRepo } from "./EventsRepo.js"

/**
 * Committed events to the live feeds of every instance sharing one PostgreSQL database (docs/operations.md "Several
 * instances"). The event bus (src/events/Events.ts `EventBus`) is in-process: on its own, a stream served by
 * instance B never sees what instance A commits. So:
 *
 * - after each commit, the instance that committed hands the events' `seq`s to its notifier, which sends them with
 *   `pg_notify` on `channel` from a pool connection, many per notification (`<instance> <seq>,<seq>,...`, each
 *   payload under PostgreSQL's 8000 bytes). Nothing is added to the money path's transactions: no statement, and
 *   no NOTIFY in them (a notifying transaction takes a database-wide lock at commit, which would serialise every
 *   commit that records an event).
 * - every instance listens on a connection of its own (src/db/Caches.ts `listen`), skips its own notifications,
 *   reads the named events (one statement per burst) and publishes them into its local bus, in `seq` order within
 *   a burst and in the order the notifications arrive, which for one origin is its commit order.
 * - a `seq` already published here (committed here, or relayed) is never published again (a bounded memory of
 *   recent ones).
 * - when the listening connection breaks, it is opened again; then the events written after the highest `seq` seen
 *   before the break are read and published (at most `catchUpMax`), so a short break loses nothing committed in
 *   `seq` order. What it may lose: an event with a lower `seq` that committed during the break, more than
 *   `catchUpMax` events, or the notification of an instance that died between its commit and its notifier's send.
 *   A stream's client that reconnects with `Last-Event-ID` reads those from the log.
 *
 * Relayed events carry no `webhookQueued`: the committing instance's dispatcher is woken for their deliveries (the
 * others find them by polling). The embedded PGlite serves one process: there the relay is off and the local
 * publication after commit is the whole story.
 */
export const channel = "pmm_events"

/** A payload stays under PostgreSQL's 8000-byte limit on a notification. */
const payloadMax = 7_900
/** Events read after a reconnect, at most. */
export const catchUpMax = 1_000
/** Recent `seq`s remembered so that none is published twice. */
const seenMax = 50_000
/** Seqs named in one `IN (...)` read, at most. */
const readChunk = 500

export interface Relay {
  /** True on PostgreSQL (`DATABASE_URL`): other instances may share the database. */
  readonly shared: boolean
  /** Hands an event committed here to the notifier (run it after the commit). */
  readonly committed: (seq: string) => Effect.Effect<void>
}

/** `seqs` as payloads `<instance> <seq>,<seq>,...`, each under `payloadMax` bytes. */
export const payloads = (instance: string, seqs: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  let current = ""
  for (const seq of seqs) {
    if (current !== "" && current.length + 1 + seq.length > payloadMax) {
      out.push(current)
      current = ""
    }
    current = current === "" ? `${instance} ${seq}` : `${current},${seq}`
  }
  if (current !== "") out.push(current)
  return out
}

/** A payload's origin and seqs; undefined when it is not one (ignored). */
export const parsePayload = (payload: string): { readonly origin: string; readonly seqs: Array<string> } | undefined => {
  const at = payload.indexOf(" ")
  if (at <= 0) return undefined
  const seqs = payload.slice(at + 1).split(",").filter((seq) => /^\d{1,19}$/.test(seq))
  return { origin: payload.slice(0, at), seqs }
}

/**
 * What the listener hands to the relay loop: seqs another instance committed; on the first connect, a baseline (the
 * highest `seq` in the database); after a reconnect, a catch-up from the highest `seq` seen before the break.
 */
type Incoming =
  | { readonly seqs: ReadonlyArray<string> }
  | { readonly baseline: true }
  | { readonly catchUpAfter: bigint | undefined }

/** The `seq`s published here lately (bounded), and the highest one. */
const makeSeen = () => {
  const seqs = new Set<string>()
  const state = { highest: undefined as bigint | undefined }
  /** The position to catch up from after a break (also raised by the baseline, before anything is published). */
  const raise = (seq: bigint) => {
    if (state.highest === undefined || seq > state.highest) state.highest = seq
  }
  const remember = (seq: string) => {
    seqs.add(seq)
    if (seqs.size > seenMax) seqs.delete(seqs.values().next().value!)
    raise(BigInt(seq))
  }
  return { has: (seq: string) => seqs.has(seq), remember, raise, state }
}

/**
 * The relay for the scope's lifetime: off (`shared: false`) without `DATABASE_URL`. `publish` puts events read from
 * the database into the local bus.
 */
export const make = (options: {
  readonly repo: EventsRepo
  readonly publish: (rows: ReadonlyArray<EventRow>) => Effect.Effect<void>
}): Effect.Effect<Relay, never, AppConfig | SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isNone(config.databaseUrl)) return { shared: false, committed: () => Effect.void }
    const sql = yield* SqlClient.SqlClient
    const instance = NodeCrypto.randomBytes(8).toString("hex")
    const seen = makeSeen()
    const outgoing = yield* Queue.unbounded<string>()
    const incoming = yield* Queue.unbounded<Incoming>()

    const notify = (seqs: ReadonlyArray<string>) =>
      Effect.forEach(payloads(instance, seqs), (payload) => sql`SELECT pg_notify(${channel}, ${payload})`, { discard: true }).pipe(
        Effect.catchAll((error) => Effect.logWarning("event relay: notifying other instances failed", error))
      )
    // On shutdown, what is still queued is sent before the database closes (boundedly).
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Queue.takeAll(outgoing), (rest) => notify(Array.from(rest))).pipe(Effect.timeout("2 seconds"), Effect.ignore))
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const first = yield* Queue.take(outgoing)
      const rest = yield* Queue.takeAll(outgoing)
      yield* notify([first, ...rest])
    })))

    yield* Effect.forkScoped(relayLoop({ ...options, incoming, seen }))
    yield* listen(Redacted.value(config.databaseUrl.value), listening(instance, incoming, seen))

    return {
      shared: true,
      committed: (seq: string) => Effect.zipRight(Effect.sync(() => seen.remember(seq)), Queue.offer(outgoing, seq))
    }
  })

/** The listener's side: others' seqs to the relay loop; after a reconnect, a catch-up from before the break. */
const listening = (instance: string, incoming: Queue.Queue<Incoming>, seen: ReturnType<typeof makeSeen>) => {
  const state = { everUp: false, dropMark: undefined as bigint | undefined, dropped: false }
  return {
    channel,
    name: "pmm-event-relay",
    up: () => {
      if (!state.everUp) incoming.unsafeOffer({ baseline: true })
      else if (state.dropped) incoming.unsafeOffer({ catchUpAfter: state.dropMark })
      state.everUp = true
      state.dropped = false
      state.dropMark = undefined
    },
    down: () => {
      if (state.dropped) return
      state.dropped = true
      state.dropMark = seen.state.highest
    },
    message: (payload: string) => {
      const parsed = parsePayload(payload)
      if (parsed !== undefined && parsed.origin !== instance && parsed.seqs.length > 0) incoming.unsafeOffer({ seqs: parsed.seqs })
    }
  }
}

/** Reads what the listener names and publishes what was not published here yet, one burst at a time. */
const relayLoop = (options: {
  readonly repo: EventsRepo
  readonly publish: (rows: ReadonlyArray<EventRow>) => Effect.Effect<void>
  readonly incoming: Queue.Queue<Incoming>
  readonly seen: ReturnType<typeof makeSeen>
}) => {
  const { incoming, publish, repo, seen } = options
  const fresh = (rows: ReadonlyArray<EventRow>) => rows.filter((row) => !seen.has(String(row.seq)))
  const publishFresh = (rows: ReadonlyArray<EventRow>) => {
    const unseen = fresh(rows)
    for (const row of unseen) seen.remember(String(row.seq))
    return unseen.length === 0 ? Effect.void : publish(unseen)
  }
  const burst = Effect.gen(function*() {
    const first = yield* Queue.take(incoming)
    const items = [first, ...(yield* Queue.takeAll(incoming))]
    const seqs = [...new Set(items.flatMap((item) => ("seqs" in item ? item.seqs : [])))].filter((seq) => !seen.has(seq))
    for (let at = 0; at < seqs.length; at += readChunk) yield* publishFresh(yield* repo.bySeqs(seqs.slice(at, at + readChunk)))
    for (const item of items) {
      if ("baseline" in item) {
        const last = (yield* repo.lastSeq(undefined)).seq
        if (last !== null) seen.raise(BigInt(last))
      }
      if (!("catchUpAfter" in item)) continue
      if (item.catchUpAfter === undefined) {
        yield* Effect.logWarning("event relay: reconnected with no known position; events committed meanwhile are not relayed")
        continue
      }
      const rows = yield* repo.after({ afterSeq: item.catchUpAfter.toString(), limit: catchUpMax })
      if (rows.length === catchUpMax) yield* Effect.logWarning(`event relay: more than ${catchUpMax} events after a reconnect; live streams may miss some`)
      yield* publishFresh(rows)
    }
  })
  // A failed read (the database unreachable, a row that does not decode) loses that burst's live delivery, never
  // the loop.
  return Effect.forever(burst.pipe(
    Effect.catchAllDefect((defect) => Effect.logWarning("event relay: reading notified events failed", defect))
  ))
}
