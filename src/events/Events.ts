import * as Command from "../observability/Command.js"
import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Effect, Layer, Option, PubSub, Schema } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Ids } from "../ids/Ids.js"
import * as EventsRepo from "./EventsRepo.js"
import * as Relay from "./Relay.js"
import type { EventQuery, EventRow, RelatedQuery } from "./EventsRepo.js"

export type { DataMatch, EventQuery, RelatedQuery } from "./EventsRepo.js"

/** The envelope of docs/contract.md "Events and webhooks": what a webhook body and the event log carry. */
export const EventEnvelope = Schema.Struct({
  id: Schema.UUID,
  type: Schema.String,
  createdAt: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type EventEnvelope = typeof EventEnvelope.Type

/** An event as stored: the envelope plus the owner it is routed by. */
export interface StoredEvent {
  readonly seq: string
  readonly partnerId: string
  readonly customerId: string | null
  readonly envelope: EventEnvelope
  /** True when recording it queued a webhook delivery (the partner has a URL): the dispatcher wakes only then. */
  readonly webhookQueued?: boolean | undefined
}

export interface NewEvent {
  readonly partnerId: string
  readonly customerId?: string | null | undefined
  readonly type: string
  readonly data: Record<string, unknown>
}

/**
 * In-process fan-out of committed events to live feeds (SSE streams, the TUI, the webhook dispatcher's wake-ups).
 * On PostgreSQL it also carries the events other instances commit, relayed through LISTEN/NOTIFY
 * (src/events/Relay.ts), at most once each.
 * It stays a `Context.Tag` whose value is the PubSub itself: it has no commands to name, its users need the PubSub
 * (`PubSub.subscribe`, `publishAll`, `Stream.fromQueue`), and an `Effect.Service` copies only a value's own fields
 * onto its instance, so it would have to wrap the PubSub in a field and change every subscriber for nothing.
 */
export class EventBus extends Context.Tag("EventBus")<EventBus, PubSub.PubSub<StoredEvent>>() {}

/** Capacity per subscriber; a subscriber that falls further behind loses its oldest events, never blocks writers. */
const busCapacity = 4096

export const EventBusLayer = Layer.scoped(EventBus, PubSub.sliding<StoredEvent>(busCapacity))

/**
 * What a transaction keeps until its commit: the events written inside it (published after the commit, never
 * before; never for a rolled-back transaction) and the work to run after it (cache invalidation). A savepoint keeps
 * its own and hands them to the enclosing transaction only if it succeeds.
 */
interface Pending {
  /** Events written in the transaction, published after its commit; only this transaction's fiber appends. */
  readonly events: Array<StoredEvent>
  readonly afterCommit: Array<Effect.Effect<void>>
}
class PendingWork extends Context.Tag("PendingWork")<PendingWork, Pending>() {}

/** True inside `transaction(...)`: a command called there joins the caller's transaction. */
export const isInTransaction: Effect.Effect<boolean> = Effect.map(Effect.serviceOption(PendingWork), Option.isSome)

/** Runs `effect` after the current transaction commits (now, outside one); never when it rolls back. */
export const afterCommit = (effect: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(PendingWork), (pending) =>
    Option.isSome(pending) ? Effect.sync(() => void pending.value.afterCommit.push(effect)) : effect)

/**
 * Runs `effect` in a transaction (a savepoint inside one) and, once it commits, its after-commit work and the
 * publication of its events. Built for the path every money command takes: the bookkeeping is two arrays the
 * transaction's fiber appends to, and nothing runs after the commit when nothing was kept.
 */
export const transaction = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError.SqlError, R | SqlClient.SqlClient | EventBus> =>
  Effect.flatMap(Effect.context<SqlClient.SqlClient | EventBus>(), (context) => {
    const sql = Context.get(context, SqlClient.SqlClient)
    const outer = Context.getOption(context, PendingWork)
    const pending: Pending = { events: [], afterCommit: [] }
    return Effect.flatMap(sql.withTransaction(Effect.provideService(effect, PendingWork, pending)), (result) => {
      const { afterCommit: hooks, events } = pending
      if (Option.isSome(outer)) {
        // A nested transaction is a savepoint: what it kept joins the outer transaction's only now that it
        // succeeded, so an inner failure the caller recovers from never publishes events whose rows were rolled back.
        outer.value.events.push(...events)
        outer.value.afterCommit.push(...hooks)
        return Effect.succeed(result)
      }
      if (hooks.length === 0 && events.length === 0) return Effect.succeed(result)
      return Effect.as(
        Effect.zipRight(Effect.all(hooks, { discard: true }), PubSub.publishAll(Context.get(context, EventBus), events)),
        result
      )
    })
  })

/** `seq` leaves as decimal text: it is an SSE id and a cursor, and JSON has no bigint. */
export const fromRow = (row: EventRow): StoredEvent => ({
  seq: String(row.seq),
  partnerId: row.partnerId,
  customerId: row.customerId,
  envelope: { id: row.id, type: row.type, createdAt: row.createdAt.toISOString(), data: row.data }
})

/**
 * The outbox: `record` writes an event in the caller's transaction. Everything that changes state records its
 * event through here, in the same transaction as the change.
 */
export class Outbox extends Effect.Service<Outbox>()("Outbox", {
  scoped: Effect.gen(function*() {
    const repo = yield* EventsRepo.EventsRepo
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const bus = yield* EventBus
    // Other instances on the same PostgreSQL hear of this one's events, and this one of theirs.
    const relay = yield* Relay.make({ repo, publish: (rows) => PubSub.publishAll(bus, rows.map(fromRow)) })

    /**
     * Writes the event (and its webhook delivery, when the partner has a URL) in the current transaction, published
     * after its commit; outside a transaction it is published at once.
     */
    const newRow = (event: NewEvent) =>
      Effect.gen(function*() {
        return {
          id: yield* ids.uuid,
          partnerId: event.partnerId,
          customerId: event.customerId ?? null,
          type: event.type,
          data: event.data,
          createdAt: yield* clock.now
        }
      })

    /** A written event: published after the commit (at once outside a transaction), relayed to other instances. */
    const written = (stored: StoredEvent) =>
      Effect.gen(function*() {
        const pending = yield* Effect.serviceOption(PendingWork)
        yield* Option.match(pending, {
          onSome: (work) => Effect.sync(() => void work.events.push(stored)),
          onNone: () => PubSub.publish(bus, stored)
        })
        if (relay.shared) yield* afterCommit(relay.committed(stored.seq))
        return stored
      })

    const record = Effect.fnUntraced(function* record(event: NewEvent) {
      const row = yield* repo.insert(yield* newRow(event))
      return yield* written({ ...fromRow(row), webhookQueued: row.webhookQueued })
    })

    /**
     * `record` carried by the command's journal statement (src/ledger/Ledger.ts `Carried`), one round trip fewer:
     * `id` for the journal's `eventId`, `carried` for its `carry`, then `recorded` with the journal's `carried`
     * columns, which returns the event as stored (and publishes it after the commit, like `record`).
     */
    const prepare = Effect.fnUntraced(function* prepare(event: NewEvent) {
      const row = yield* newRow(event)
      return {
        id: row.id,
        carried: repo.insertCarried(row),
        recorded: (columns: Readonly<Record<string, unknown>>) => {
          const { carriedEventSeq: seq, carriedWebhookQueued: webhookQueued } = columns
          if (typeof seq !== "string" || typeof webhookQueued !== "boolean") {
            return Effect.dieMessage(`outbox: the statement carrying event ${row.id} did not return it`)
          }
          return written({ ...fromRow({ ...row, seq: BigInt(seq) }), webhookQueued })
        }
      }
    })

    /** Newest first (or oldest first after `afterSeq`). */
    const list = Command.fn("Outbox.list")((query: EventQuery) =>
      repo.list(query).pipe(Effect.map((rows) => rows.map(fromRow))))

    /** One event of the partner (`id` a uuid). */
    const find = Command.fn("Outbox.find")((partnerId: string, id: string) =>
      repo.find({ partnerId, id }).pipe(Effect.map(Option.map(fromRow))))

    /** The events of one resource (named by id or by their data), oldest first, at most `limit`. */
    const related = Command.fn("Outbox.related")((query: RelatedQuery) =>
      Effect.map(repo.related(query), (rows) => rows.map(fromRow)))

    return { record, prepare, list, find, related } as const
  }),
  dependencies: [EventsRepo.EventsRepo.Default]
}) {}

export const OutboxLayer = Outbox.Default

/** An event `Outbox.prepare` made ready for a journal statement to carry (src/ledger/Ledger.ts `Carried`). */
export type PreparedEvent = Effect.Effect.Success<ReturnType<Outbox["prepare"]>>
