import { SqlClient, SqlError, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, PubSub, Ref, Schema } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { Ids } from "../ids/Ids.js"

/** The envelope of SPEC.md "Events": what a webhook body and the event log carry. */
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

/** In-process fan-out of committed events to live feeds (SSE streams, the TUI). */
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
  readonly events: Ref.Ref<Array<StoredEvent>>
  readonly afterCommit: Ref.Ref<Array<Effect.Effect<void>>>
}
class PendingWork extends Context.Tag("PendingWork")<PendingWork, Pending>() {}

/** True inside `transaction(...)`: a command called there joins the caller's transaction. */
export const isInTransaction: Effect.Effect<boolean> = Effect.map(Effect.serviceOption(PendingWork), Option.isSome)

/** Runs `effect` after the current transaction commits (now, outside one); never when it rolls back. */
export const afterCommit = (effect: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(PendingWork), (pending) =>
    Option.isSome(pending) ? Ref.update(pending.value.afterCommit, (all) => [...all, effect]) : effect)

export const transaction = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError.SqlError, R | SqlClient.SqlClient | EventBus> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outer = yield* Effect.serviceOption(PendingWork)
    const pending: Pending = {
      events: yield* Ref.make<Array<StoredEvent>>([]),
      afterCommit: yield* Ref.make<Array<Effect.Effect<void>>>([])
    }
    const result = yield* sql.withTransaction(Effect.provideService(effect, PendingWork, pending))
    const events = yield* Ref.get(pending.events)
    const hooks = yield* Ref.get(pending.afterCommit)
    if (Option.isSome(outer)) {
      // A nested transaction is a savepoint: what it kept joins the outer transaction's only now that it succeeded,
      // so an inner failure the caller recovers from never publishes events whose rows were rolled back.
      yield* Ref.update(outer.value.events, (all) => [...all, ...events])
      yield* Ref.update(outer.value.afterCommit, (all) => [...all, ...hooks])
      return result
    }
    yield* Effect.all(hooks, { discard: true })
    yield* PubSub.publishAll(yield* EventBus, events)
    return result
  })

const EventRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  type: Schema.String,
  data: EventEnvelope.fields.data,
  createdAt: Schema.DateFromSelf
})
type EventRow = typeof EventRow.Type

const eventColumns = "id, seq, partner_id, customer_id, type, data, created_at"

/** `seq` leaves as decimal text: it is an SSE id and a cursor, and JSON has no bigint. */
export const fromRow = (row: EventRow): StoredEvent => ({
  seq: String(row.seq),
  partnerId: row.partnerId,
  customerId: row.customerId,
  envelope: { id: row.id, type: row.type, createdAt: row.createdAt.toISOString(), data: row.data }
})

export interface EventQuery {
  readonly partnerId: string
  readonly customerId?: string | undefined
  readonly type?: string | undefined
  readonly beforeSeq?: string | undefined
  readonly afterSeq?: string | undefined
  readonly limit: number
}

/** Events whose `data` names a resource: `type` (or, when `prefix`, types starting with it) and `data[key] = value`. */
export interface DataMatch {
  readonly type: string
  readonly prefix: boolean
  readonly key: string
  readonly value: string
}

export interface RelatedQuery {
  readonly partnerId: string
  /** The customer whose events to look at; null for events of the partner without a customer. */
  readonly customerId: string | null
  /** Events named by id (e.g. those of the resource's ledger transactions). */
  readonly eventIds: ReadonlyArray<string>
  readonly dataMatches: ReadonlyArray<DataMatch>
  readonly excludeId: string
  readonly limit: number
}

/**
 * The outbox: `record` writes an event in the caller's transaction. Everything that changes state records its
 * event through here, in the same transaction as the change.
 */
export class Outbox extends Context.Tag("Outbox")<Outbox, {
  readonly record: (event: NewEvent) => Effect.Effect<StoredEvent, SqlError.SqlError>
  /** Newest first (or oldest first after `afterSeq`). */
  readonly list: (query: EventQuery) => Effect.Effect<ReadonlyArray<StoredEvent>, SqlError.SqlError>
  /** One event of the partner (`id` a uuid). */
  readonly find: (partnerId: string, id: string) => Effect.Effect<Option.Option<StoredEvent>, SqlError.SqlError>
  /** The events of one resource (named by id or by their data), oldest first, at most `limit`. */
  readonly related: (query: RelatedQuery) => Effect.Effect<ReadonlyArray<StoredEvent>, SqlError.SqlError>
}>() {}

export const OutboxLayer = Layer.effect(
  Outbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const bus = yield* EventBus
    /**
     * The event and, when the partner has a webhook URL, its delivery: one statement (a data-modifying CTE), so
     * recording an event costs one round trip whether or not a delivery is queued. The delivery row is the one
     * `WebhooksRepo` describes (docs/webhooks.md); `webhook_queued` says whether it was written.
     */
    const insertEvent = SqlSchema.single({
      Request: EventRow.omit("seq"),
      Result: Schema.Struct({ ...EventRow.fields, webhookQueued: Schema.Boolean }),
      execute: (row) =>
        sql`
          WITH event AS (
            INSERT INTO events (id, partner_id, customer_id, type, data, created_at)
            VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${row.type}, ${JSON.stringify(row.data)}::jsonb,
                    ${row.createdAt})
            RETURNING ${sql.literal(eventColumns)}
          ), delivery AS (
            INSERT INTO webhook_deliveries (event_id, partner_id, type, status, next_attempt_at, created_at)
            SELECT event.id, c.partner_id, event.type, 'PENDING',
                   -- Sandbox webhook chaos: a late and a reordered first attempt (0 s unless the partner set it).
                   event.created_at + make_interval(secs => c.chaos_extra_delay_seconds + random() * c.chaos_reorder_window_seconds),
                   event.created_at
            FROM event JOIN webhook_configs c ON c.partner_id = event.partner_id
            RETURNING event_id
          )
          SELECT event.*, EXISTS (SELECT 1 FROM delivery) AS webhook_queued FROM event`
    })
    const listEvents = SqlSchema.findAll({
      Request: Schema.Struct({
        partnerId: Schema.String,
        customerId: Schema.optional(Schema.String),
        type: Schema.optional(Schema.String),
        beforeSeq: Schema.optional(Schema.String),
        afterSeq: Schema.optional(Schema.String),
        limit: Schema.Int
      }),
      Result: EventRow,
      execute: (query) => {
        const conditions = [sql`partner_id = ${query.partnerId}`]
        if (query.customerId !== undefined) conditions.push(sql`customer_id = ${query.customerId}`)
        if (query.type !== undefined) conditions.push(sql`type = ${query.type}`)
        if (query.beforeSeq !== undefined) conditions.push(sql`seq < ${query.beforeSeq}`)
        if (query.afterSeq !== undefined) conditions.push(sql`seq > ${query.afterSeq}`)
        const order = query.afterSeq !== undefined ? sql`ORDER BY seq ASC` : sql`ORDER BY seq DESC`
        return sql`SELECT ${sql.literal(eventColumns)} FROM events WHERE ${sql.and(conditions)} ${order} LIMIT ${query.limit}`
      }
    })
    const findEvent = SqlSchema.findOne({
      Request: Schema.Struct({ partnerId: Schema.String, id: Schema.String }),
      Result: EventRow,
      execute: ({ id, partnerId }) =>
        sql`SELECT ${sql.literal(eventColumns)} FROM events WHERE id = ${id} AND partner_id = ${partnerId}`
    })
    const relatedEvents = (query: RelatedQuery) => {
      const named = query.eventIds.length === 0 ? [] : [sql`id IN ${sql.in(query.eventIds)}`]
      const byData = query.dataMatches.map((match) =>
        sql`(${match.prefix ? sql`starts_with(type, ${match.type})` : sql`type = ${match.type}`} AND data ->> ${match.key} = ${match.value})`)
      const any = [...named, ...byData]
      if (any.length === 0) return Effect.succeed<ReadonlyArray<EventRow>>([])
      return sql`
        SELECT ${sql.literal(eventColumns)} FROM events
        WHERE partner_id = ${query.partnerId}
          AND ${query.customerId === null ? sql`customer_id IS NULL` : sql`customer_id = ${query.customerId}`}
          AND id <> ${query.excludeId} AND ${sql.or(any)}
        ORDER BY seq ASC LIMIT ${query.limit}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(EventRow))),
        Effect.catchTag("ParseError", Effect.die)
      )
    }
    const record = (event: NewEvent) =>
      Effect.gen(function*() {
        const row = yield* insertEvent({
          id: yield* ids.uuid,
          partnerId: event.partnerId,
          customerId: event.customerId ?? null,
          type: event.type,
          data: event.data,
          createdAt: yield* clock.now
        }).pipe(Effect.catchTags({ ParseError: Effect.die, NoSuchElementException: Effect.die }))
        const stored: StoredEvent = { ...fromRow(row), webhookQueued: row.webhookQueued }
        const pending = yield* Effect.serviceOption(PendingWork)
        yield* Option.match(pending, {
          onSome: (work) => Ref.update(work.events, (all) => [...all, stored]),
          onNone: () => PubSub.publish(bus, stored)
        })
        return stored
      })
    const list = (query: EventQuery) =>
      listEvents(query).pipe(
        Effect.map((rows) => rows.map(fromRow)),
        Effect.catchTag("ParseError", Effect.die)
      )
    const find = (partnerId: string, id: string) =>
      findEvent({ partnerId, id }).pipe(Effect.map(Option.map(fromRow)), Effect.catchTag("ParseError", Effect.die))
    const related = (query: RelatedQuery) => Effect.map(relatedEvents(query), (rows) => rows.map(fromRow))
    return Outbox.of({ record, list, find, related })
  })
)
