import { repository } from "../db/Rows.js"
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

/** A row of `events`; `data` is the envelope's (src/events/Events.ts `EventEnvelope`). */
export const EventRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  type: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.DateFromSelf
})
export type EventRow = typeof EventRow.Type

const eventColumns = "id, seq, partner_id, customer_id, type, data, created_at"

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

/** The statements of the outbox (src/events/Events.ts `Outbox`). A row that does not decode is left to the caller. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  /**
   * The event and, when the partner has a webhook URL, its delivery: one statement (a data-modifying CTE), so
   * recording an event costs one round trip whether or not a delivery is queued. The delivery row is the one
   * `WebhooksRepo` describes (docs/webhooks.md); `webhook_queued` says whether it was written.
   */
  const insert = SqlSchema.single({
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
  /**
   * `insert`'s writes carried by a journal statement (src/ledger/Ledger.ts `Carried`): the event and its delivery,
   * written only when the journal is. The result's columns: `carried_event_seq` (text) and
   * `carried_webhook_queued`.
   */
  const insertCarried = (row: Omit<EventRow, "seq">) => ({
    ctes: [
      sql`carried_event AS (
          INSERT INTO events (id, partner_id, customer_id, type, data, created_at)
          SELECT ${row.id}, ${row.partnerId}, ${row.customerId}, ${row.type}, ${JSON.stringify(row.data)}::jsonb, ${row.createdAt}
          FROM tx
          RETURNING id, seq, partner_id, type, created_at
        )`,
      sql`carried_delivery AS (
          INSERT INTO webhook_deliveries (event_id, partner_id, type, status, next_attempt_at, created_at)
          SELECT carried_event.id, c.partner_id, carried_event.type, 'PENDING',
                 carried_event.created_at + make_interval(secs => c.chaos_extra_delay_seconds + random() * c.chaos_reorder_window_seconds),
                 carried_event.created_at
          FROM carried_event JOIN webhook_configs c ON c.partner_id = carried_event.partner_id
          RETURNING event_id
        )`
    ],
    columns: [
      sql`(SELECT seq::text FROM carried_event) AS carried_event_seq`,
      sql`EXISTS (SELECT 1 FROM carried_delivery) AS carried_webhook_queued`
    ]
  })
  const list = SqlSchema.findAll({
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
  const find = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, id: Schema.String }),
    Result: EventRow,
    execute: ({ id, partnerId }) =>
      sql`SELECT ${sql.literal(eventColumns)} FROM events WHERE id = ${id} AND partner_id = ${partnerId}`
  })
  const related = (query: RelatedQuery) => {
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
      ORDER BY seq ASC LIMIT ${query.limit}`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(EventRow))))
  }
  /** Events by `seq` (any partner), oldest first: what the relay (src/events/Relay.ts) reads for a notification. */
  const bySeqs = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: EventRow,
    execute: (seqs) =>
      sql`SELECT ${sql.literal(eventColumns)} FROM events WHERE seq IN ${sql.in(seqs)} ORDER BY seq ASC`
  })
  /** Events after `seq` (any partner), oldest first, at most `limit`: the relay's catch-up after a reconnect. */
  const after = SqlSchema.findAll({
    Request: Schema.Struct({ afterSeq: Schema.String, limit: Schema.Int }),
    Result: EventRow,
    execute: ({ afterSeq, limit }) =>
      sql`SELECT ${sql.literal(eventColumns)} FROM events WHERE seq > ${afterSeq} ORDER BY seq ASC LIMIT ${limit}`
  })
  /** The highest `seq` written so far (null: no event yet). */
  const lastSeq = SqlSchema.single({
    Request: Schema.Void,
    Result: Schema.Struct({ seq: Schema.NullOr(Schema.String) }),
    execute: () => sql`SELECT max(seq)::text AS seq FROM events`
  })
  return { ...repository({ insert, list, find, related, bySeqs, after, lastSeq } as const), insertCarried }
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class EventsRepo extends Effect.Service<EventsRepo>()("EventsRepo", { effect: make }) {}
