import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { DeliveryStatus } from "./Api.js"

export interface ConfigRow {
  readonly partnerId: string
  readonly url: string
  readonly secretCiphertext: Uint8Array
  readonly updatedAt: Date
}

export interface DeliveryRow {
  readonly eventId: string
  readonly seq: string
  readonly partnerId: string
  readonly type: string
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly nextAttemptAt: Date | null
  readonly lastAttemptAt: Date | null
  readonly lastResponseStatus: number | null
  readonly lastError: string | null
  readonly createdAt: Date
  readonly deliveredAt: Date | null
}

export interface DeliveryDetailRow extends DeliveryRow {
  readonly data: Record<string, unknown>
  readonly eventCreatedAt: Date
}

/** A delivery leased to one attempt: everything needed to send it without another query. */
export interface ClaimedDelivery {
  readonly eventId: string
  readonly partnerId: string
  readonly type: string
  readonly data: Record<string, unknown>
  readonly eventCreatedAt: Date
  /** Attempts made before this one, and the count at the last replay (the schedule restarts there). */
  readonly attempts: number
  readonly scheduleBase: number
  readonly url: string
  readonly secretCiphertext: Uint8Array
  readonly leaseToken: string
}

export interface AttemptRecord {
  readonly eventId: string
  readonly leaseToken: string
  readonly status: DeliveryStatus
  readonly attemptedAt: Date
  readonly nextAttemptAt: Date | null
  readonly responseStatus: number | null
  readonly error: string | null
  readonly deliveredAt: Date | null
}

const deliveryColumns = `event_id, seq, partner_id, type, status, attempts, next_attempt_at, last_attempt_at,
  last_response_status, last_error, created_at, delivered_at`

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const claimedColumns = sql.unsafe(`d.event_id, d.partner_id, d.type, e.data, e.created_at AS event_created_at,
    d.attempts, d.schedule_base, c.url, c.secret_ciphertext, d.lease_token`)
  return {
    findConfig: (partnerId: string) =>
      sql<ConfigRow>`SELECT * FROM webhook_configs WHERE partner_id = ${partnerId}`.pipe(Effect.map((rows) => rows[0])),

    upsertConfig: (row: ConfigRow) =>
      sql`
        INSERT INTO webhook_configs (partner_id, url, secret_ciphertext, updated_at)
        VALUES (${row.partnerId}, ${row.url}, ${Buffer.from(row.secretCiphertext)}, ${row.updatedAt})
        ON CONFLICT (partner_id) DO UPDATE
        SET url = excluded.url, secret_ciphertext = excluded.secret_ciphertext, updated_at = excluded.updated_at`,

    /** Locks the partner's configuration row: PUT and rotate of one partner run one at a time. */
    lockConfig: (partnerId: string) =>
      sql<ConfigRow>`SELECT * FROM webhook_configs WHERE partner_id = ${partnerId} FOR UPDATE`.pipe(
        Effect.map((rows) => rows[0])
      ),

    /** Leases one delivery (the synchronous `webhook.test`, inside the transaction that created it). */
    leaseOne: (eventId: string, leaseToken: string, leaseSeconds: number) =>
      sql<ClaimedDelivery>`
        UPDATE webhook_deliveries d
        SET lease_until = now() + make_interval(secs => ${leaseSeconds}), lease_token = ${leaseToken}
        FROM events e, webhook_configs c
        WHERE d.event_id = ${eventId} AND e.id = d.event_id AND c.partner_id = d.partner_id
        RETURNING ${claimedColumns}`.pipe(Effect.map((rows) => rows[0])),

    /**
     * Claims due deliveries, oldest due first: at most `limit`, at most `perPartnerMax` of one partner, none of the
     * `excludedPartners` (those already at their limit in this process). Only the first `scanMax` due rows are
     * looked at, through the due index, so a claim costs the same however long the backlog; a partner whose
     * backlog fills that window is excluded once its slots are full, which lets the next claim reach the others.
     * Rows locked by another claimer are skipped, and a claimed row is leased (in database time, which measures
     * real elapsed time) until its attempt has surely ended.
     */
    claimDue: (args: {
      readonly now: Date
      readonly limit: number
      readonly perPartnerMax: number
      readonly excludedPartners: ReadonlyArray<string>
      readonly leaseToken: string
      readonly leaseSeconds: number
    }) =>
      sql<ClaimedDelivery>`
        WITH candidates AS (
          SELECT event_id, partner_id, next_attempt_at, seq FROM webhook_deliveries
          WHERE status = 'PENDING' AND next_attempt_at <= ${args.now}
            AND (lease_until IS NULL OR lease_until <= now())
            ${args.excludedPartners.length === 0 ? sql`` : sql`AND partner_id NOT IN ${sql.in(args.excludedPartners)}`}
          ORDER BY next_attempt_at, seq LIMIT ${Math.max(args.limit * 4, 64)}
        ), picked AS (
          SELECT event_id FROM (
            SELECT event_id, next_attempt_at, seq,
                   row_number() OVER (PARTITION BY partner_id ORDER BY next_attempt_at, seq) AS rank
            FROM candidates
          ) ranked
          WHERE rank <= ${args.perPartnerMax} ORDER BY next_attempt_at, seq LIMIT ${args.limit}
        ), locked AS (
          SELECT event_id FROM webhook_deliveries
          WHERE event_id IN (SELECT event_id FROM picked)
            AND status = 'PENDING' AND next_attempt_at <= ${args.now}
            AND (lease_until IS NULL OR lease_until <= now())
          FOR UPDATE SKIP LOCKED
        )
        UPDATE webhook_deliveries d
        SET lease_until = now() + make_interval(secs => ${args.leaseSeconds}), lease_token = ${args.leaseToken}
        FROM locked, events e, webhook_configs c
        WHERE d.event_id = locked.event_id AND e.id = d.event_id AND c.partner_id = d.partner_id
        RETURNING ${claimedColumns}`,

    /** Gives claimed deliveries back untouched (more than a partner's free slots were claimed). */
    release: (eventIds: ReadonlyArray<string>, leaseToken: string) =>
      eventIds.length === 0 ? Effect.void : sql`
        UPDATE webhook_deliveries SET lease_until = NULL, lease_token = NULL
        WHERE event_id IN ${sql.in(eventIds)} AND lease_token = ${leaseToken}`.pipe(Effect.asVoid),

    /** Records an attempt, only while the lease is still this claimer's (a replay or a re-claim voids it). */
    recordAttempt: (record: AttemptRecord) =>
      sql<DeliveryRow>`
        UPDATE webhook_deliveries
        SET status = ${record.status}, attempts = attempts + 1, last_attempt_at = ${record.attemptedAt},
            next_attempt_at = ${record.nextAttemptAt}, last_response_status = ${record.responseStatus},
            last_error = ${record.error}, delivered_at = ${record.deliveredAt},
            lease_until = NULL, lease_token = NULL
        WHERE event_id = ${record.eventId} AND lease_token = ${record.leaseToken}
        RETURNING ${sql.unsafe(deliveryColumns)}`.pipe(Effect.map((rows) => rows[0])),

    /** The earliest due time of a pending delivery not in flight (rows of a crashed process come back via the poll). */
    nextDueAt: sql<{ nextAt: Date | null }>`
      SELECT min(next_attempt_at) AS next_at FROM webhook_deliveries
      WHERE status = 'PENDING' AND (lease_until IS NULL OR lease_until <= now())`.pipe(
      Effect.map((rows) => rows[0]?.nextAt ?? null)
    ),

    page: (partnerId: string, status: DeliveryStatus | undefined, beforeSeq: string | undefined, limit: number) =>
      sql<DeliveryRow>`
        SELECT ${sql.unsafe(deliveryColumns)} FROM webhook_deliveries
        WHERE partner_id = ${partnerId}
          ${status === undefined ? sql`` : sql`AND status = ${status}`}
          ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`,

    findOwned: (partnerId: string, eventId: string) =>
      sql<DeliveryDetailRow>`
        SELECT ${sql.unsafe(deliveryColumns.split(",").map((c) => `d.${c.trim()}`).join(", "))},
               e.data, e.created_at AS event_created_at
        FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.event_id = ${eventId} AND d.partner_id = ${partnerId}`.pipe(Effect.map((rows) => rows[0])),

    /** Back to PENDING, due now, with a fresh schedule; an attempt in flight loses its lease (its result is dropped). */
    replay: (partnerId: string, eventId: string, now: Date) =>
      sql<DeliveryRow>`
        UPDATE webhook_deliveries
        SET status = 'PENDING', next_attempt_at = ${now}, schedule_base = attempts, delivered_at = NULL,
            lease_until = NULL, lease_token = NULL
        WHERE event_id = ${eventId} AND partner_id = ${partnerId}
        RETURNING ${sql.unsafe(deliveryColumns)}`.pipe(Effect.map((rows) => rows[0]))
  }
})

export type WebhooksRepo = Effect.Effect.Success<typeof make>
