import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { earliestDueSql, partnerTimeSql } from "../clock/ServiceClock.js"
import { DeliveryStatus } from "./Api.js"
import { repository } from "../db/Rows.js"

export const ConfigRow = Schema.Struct({
  partnerId: Schema.String,
  url: Schema.String,
  secretCiphertext: Schema.Uint8ArrayFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type ConfigRow = typeof ConfigRow.Type

export const DeliveryRow = Schema.Struct({
  eventId: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  type: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.DateFromSelf),
  lastAttemptAt: Schema.NullOr(Schema.DateFromSelf),
  lastResponseStatus: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  deliveredAt: Schema.NullOr(Schema.DateFromSelf)
})
export type DeliveryRow = typeof DeliveryRow.Type

const EventData = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const DeliveryDetailRow = Schema.Struct({
  ...DeliveryRow.fields,
  data: EventData,
  eventCreatedAt: Schema.DateFromSelf
})
export type DeliveryDetailRow = typeof DeliveryDetailRow.Type

/** A delivery leased to one attempt: everything needed to send it without another query. */
export const ClaimedDelivery = Schema.Struct({
  eventId: Schema.String,
  partnerId: Schema.String,
  type: Schema.String,
  data: EventData,
  eventCreatedAt: Schema.DateFromSelf,
  /** Attempts made before this one, and the count at the last replay (the schedule restarts there). */
  attempts: Schema.Int,
  scheduleBase: Schema.Int,
  url: Schema.String,
  secretCiphertext: Schema.Uint8ArrayFromSelf,
  leaseToken: Schema.String,
  /** Sandbox webhook chaos of the partner (0: none). */
  chaosDuplicates: Schema.Int,
  chaosFailFirstAttempts: Schema.Int
})
export type ClaimedDelivery = typeof ClaimedDelivery.Type

/** A partner's webhook chaos settings (sandbox). */
export const ChaosSettings = Schema.Struct({
  duplicates: Schema.Int,
  reorderWindowSeconds: Schema.Int,
  extraDelaySeconds: Schema.Int,
  failFirstAttempts: Schema.Int
})
export type ChaosSettings = typeof ChaosSettings.Type

export const ChaosLogRow = Schema.Struct({
  seq: Schema.BigInt,
  eventId: Schema.String,
  type: Schema.String,
  copy: Schema.Int,
  attempt: Schema.Int,
  failedOnPurpose: Schema.Boolean,
  responseStatus: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  acknowledged: Schema.Boolean,
  at: Schema.DateFromSelf
})
export type ChaosLogRow = typeof ChaosLogRow.Type

/** A claimed delivery and how many due rows its claim looked at (`claimWindow` of them: there may be more). */
export const ClaimedRow = Schema.Struct({ ...ClaimedDelivery.fields, scanned: Schema.Int })

/** How many due rows (oldest first, through the due index) a claim of `limit` looks at. */
export const claimWindow = (limit: number) => Math.max(limit * 4, 64)

export const AttemptRecord = Schema.Struct({
  eventId: Schema.String,
  leaseToken: Schema.String,
  status: DeliveryStatus,
  attemptedAt: Schema.DateFromSelf,
  nextAttemptAt: Schema.NullOr(Schema.DateFromSelf),
  responseStatus: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  deliveredAt: Schema.NullOr(Schema.DateFromSelf)
})
export type AttemptRecord = typeof AttemptRecord.Type

/**
 * The `last_error` of an attempt whose outcome was never written: its lease ended first (the process stopped, was
 * killed, or could not write the outcome). Such an attempt is counted when its row is claimed again.
 */
export const outcomeLostError = "no outcome recorded: the instance stopped during the attempt"
/** The `last_error` of an attempt in flight when its delivery was replayed (its outcome is dropped). */
export const outcomeReplacedError = "no outcome recorded: the delivery was replayed during the attempt"

/**
 * SET items that count the attempt holding the row's lease (`d.lease_token` set) as made, with `reason` as its
 * error, its start as its time and no answer; a row without a lease keeps its log. SET reads the row as it was.
 */
const countLeasedAttempt = (sql: SqlClient.SqlClient, reason: Statement.Fragment) =>
  sql`attempts = d.attempts + CASE WHEN d.lease_token IS NULL THEN 0 ELSE 1 END,
      last_attempt_at = CASE WHEN d.lease_token IS NULL THEN d.last_attempt_at
        ELSE coalesce(d.attempt_started_at, d.next_attempt_at, d.last_attempt_at) END,
      last_response_status = CASE WHEN d.lease_token IS NULL THEN d.last_response_status ELSE NULL END,
      last_error = CASE WHEN d.lease_token IS NULL THEN d.last_error ELSE ${reason} END`

/** A row that does not decode (or a RETURNING without its row) is a broken invariant: a defect, not a typed error. */
const deliveryColumns = `event_id, seq, partner_id, type, status, attempts, next_attempt_at, last_attempt_at,
  last_response_status, last_error, created_at, delivered_at`

const asRecordJson = (record: AttemptRecord) => ({
  event_id: record.eventId,
  lease_token: record.leaseToken,
  status: record.status,
  attempted_at: record.attemptedAt.toISOString(),
  next_attempt_at: record.nextAttemptAt?.toISOString() ?? null,
  response_status: record.responseStatus,
  error: record.error,
  delivered_at: record.deliveredAt?.toISOString() ?? null
})

/** The partners' webhook configurations, their sandbox chaos settings and the chaos report. */
const makeConfigs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const chaosOf = SqlSchema.findOne({
    Request: Schema.String,
    Result: ChaosSettings,
    execute: (partnerId) =>
      sql`
        SELECT chaos_duplicates AS duplicates, chaos_reorder_window_seconds AS reorder_window_seconds,
               chaos_extra_delay_seconds AS extra_delay_seconds, chaos_fail_first_attempts AS fail_first_attempts
        FROM webhook_configs WHERE partner_id = ${partnerId}`
  })
  const chaosLog = SqlSchema.findAll({
    Request: Schema.String,
    Result: ChaosLogRow,
    execute: (partnerId) =>
      sql`
        SELECT seq, event_id, type, copy, attempt, failed_on_purpose, response_status, error, acknowledged, at
        FROM webhook_chaos_log WHERE partner_id = ${partnerId} ORDER BY seq LIMIT 10000`
  })
  const findConfig = SqlSchema.findOne({
    Request: Schema.String,
    Result: ConfigRow,
    execute: (partnerId) => sql`SELECT partner_id, url, secret_ciphertext, updated_at FROM webhook_configs WHERE partner_id = ${partnerId}`
  })
  const lockConfig = SqlSchema.findOne({
    Request: Schema.String,
    Result: ConfigRow,
    execute: (partnerId) =>
      sql`SELECT partner_id, url, secret_ciphertext, updated_at FROM webhook_configs WHERE partner_id = ${partnerId} FOR UPDATE`
  })
  const upsertConfig = SqlSchema.void({
    Request: ConfigRow,
    execute: (row) =>
      sql`
        INSERT INTO webhook_configs (partner_id, url, secret_ciphertext, updated_at)
        VALUES (${row.partnerId}, ${row.url}, ${Buffer.from(row.secretCiphertext)}, ${row.updatedAt})
        ON CONFLICT (partner_id) DO UPDATE
        SET url = excluded.url, secret_ciphertext = excluded.secret_ciphertext, updated_at = excluded.updated_at`
  })

  return {
    findConfig: (partnerId: string) => findConfig(partnerId),

    upsertConfig: (row: ConfigRow) => upsertConfig(row),

    /** Locks the partner's configuration row: PUT and rotate of one partner run one at a time. */
    lockConfig: (partnerId: string) => lockConfig(partnerId),

    /** The partner's chaos settings; none without a webhook configuration. */
    chaosOf: (partnerId: string) => chaosOf(partnerId),
    /** Sets the partner's chaos settings (it has a webhook configuration) and starts a new report. */
    setChaos: (partnerId: string, settings: ChaosSettings) =>
      Effect.zipRight(
        sql`
          UPDATE webhook_configs SET chaos_duplicates = ${settings.duplicates},
            chaos_reorder_window_seconds = ${settings.reorderWindowSeconds},
            chaos_extra_delay_seconds = ${settings.extraDelaySeconds}, chaos_fail_first_attempts = ${settings.failFirstAttempts}
          WHERE partner_id = ${partnerId}`,
        sql`DELETE FROM webhook_chaos_log WHERE partner_id = ${partnerId}`
      ),
    /** Records one chaos observation (a POST, a duplicate, or an attempt failed on purpose). */
    logChaos: (row: Omit<ChaosLogRow, "seq"> & { readonly partnerId: string }) =>
      sql`
        INSERT INTO webhook_chaos_log (partner_id, event_id, type, copy, attempt, failed_on_purpose, response_status, error, acknowledged, at)
        VALUES (${row.partnerId}, ${row.eventId}, ${row.type}, ${row.copy}, ${row.attempt}, ${row.failedOnPurpose},
                ${row.responseStatus}, ${row.error}, ${row.acknowledged}, ${row.at})`,
    chaosLog: (partnerId: string) => chaosLog(partnerId)
  }
})

/** Leasing due deliveries to attempts and recording the attempts' results. */
const makeClaims = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  /** The claim's per-partner allowance is `perPartnerMax` minus the partner's attempts already in flight here. */
  const busyOf = (busy: { readonly [partnerId: string]: number } | undefined) =>
    busy === undefined || Object.keys(busy).length === 0
      ? sql`0`
      : sql`coalesce((${JSON.stringify(busy)}::jsonb ->> partner_id::text)::integer, 0)`
  const claimedColumns = sql.unsafe(`d.event_id, d.partner_id, d.type, e.data, e.created_at AS event_created_at,
    d.attempts, d.schedule_base, c.url, c.secret_ciphertext, d.lease_token, c.chaos_duplicates, c.chaos_fail_first_attempts`)

  const leaseOne = SqlSchema.findOne({
    Request: Schema.Struct({ eventId: Schema.String, leaseToken: Schema.String, leaseSeconds: Schema.Number }),
    Result: ClaimedDelivery,
    execute: ({ eventId, leaseSeconds, leaseToken }) =>
      sql`
        UPDATE webhook_deliveries d
        SET lease_until = now() + make_interval(secs => ${leaseSeconds}), lease_token = ${leaseToken},
            attempt_started_at = e.created_at
        FROM events e, webhook_configs c
        WHERE d.event_id = ${eventId} AND e.id = d.event_id AND c.partner_id = d.partner_id
        RETURNING ${claimedColumns}`
  })
  const ClaimRequest = Schema.Struct({
    now: Schema.DateFromSelf,
    /** Some partner advanced its own clock (ServiceClock.partnersAhead): read the rows due only on such a clock too. */
    partnersAhead: Schema.optional(Schema.Boolean),
    limit: Schema.Int,
    perPartnerMax: Schema.Int,
    excludedPartners: Schema.Array(Schema.String),
    /** Attempts already in flight in this process per partner: a partner gets at most `perPartnerMax` minus these. */
    busy: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Int })),
    leaseToken: Schema.String,
    leaseSeconds: Schema.Number
  })
  const claimDue = SqlSchema.findAll({
    Request: ClaimRequest,
    Result: ClaimedRow,
    execute: (args) =>
      sql`
        WITH candidates AS (
          -- Due on the instance's clock, so on every partner's (a partner's clock is never behind it) ...
          (SELECT event_id, partner_id, next_attempt_at, seq FROM webhook_deliveries
          WHERE status = 'PENDING' AND next_attempt_at <= ${args.now}
            AND (lease_until IS NULL OR lease_until <= now())
            ${args.excludedPartners.length === 0 ? sql`` : sql`AND partner_id NOT IN ${sql.in(args.excludedPartners)}`}
          ORDER BY next_attempt_at, seq LIMIT ${claimWindow(args.limit)})
          ${args.partnersAhead !== true ? sql`` : sql`UNION ALL
          -- ... and due only on the clock of a partner that advanced its own (docs/sandbox.md "A clock per partner").
          -- Each advanced partner's earliest through its (partner, next_attempt_at) index.
          (SELECT d.event_id, d.partner_id, d.next_attempt_at, d.seq
          FROM partner_clock_offsets o CROSS JOIN LATERAL (
            SELECT event_id, partner_id, next_attempt_at, seq FROM webhook_deliveries
            WHERE partner_id = o.partner_id AND status = 'PENDING' AND next_attempt_at > ${args.now}
              AND next_attempt_at <= ${args.now}::timestamptz + o.offset_ms * interval '1 millisecond'
              AND (lease_until IS NULL OR lease_until <= now())
            ORDER BY next_attempt_at, seq LIMIT ${claimWindow(args.limit)}
          ) d
          ${args.excludedPartners.length === 0 ? sql`` : sql`WHERE o.partner_id NOT IN ${sql.in(args.excludedPartners)}`}
          ORDER BY d.next_attempt_at, d.seq LIMIT ${claimWindow(args.limit)})`}
        ), picked AS (
          SELECT event_id FROM (
            SELECT event_id, partner_id, next_attempt_at, seq,
                   row_number() OVER (PARTITION BY partner_id ORDER BY next_attempt_at, seq) AS rank
            FROM candidates
          ) ranked
          WHERE rank <= ${args.perPartnerMax} - ${busyOf(args.busy)}
          ORDER BY next_attempt_at, seq LIMIT ${args.limit}
        ), locked AS (
          SELECT event_id FROM webhook_deliveries
          WHERE event_id IN (SELECT event_id FROM picked)
            AND status = 'PENDING' AND next_attempt_at <= ${
          args.partnersAhead === true ? partnerTimeSql(sql, args.now, "webhook_deliveries.partner_id") : sql`${args.now}`
        }
            AND (lease_until IS NULL OR lease_until <= now())
          FOR UPDATE SKIP LOCKED
        )
        UPDATE webhook_deliveries d
        SET lease_until = now() + make_interval(secs => ${args.leaseSeconds}), lease_token = ${args.leaseToken},
            -- A lease that ended without an outcome written is an attempt made: counted here, in the claim.
            ${countLeasedAttempt(sql, sql`${outcomeLostError}`)},
            attempt_started_at = ${args.partnersAhead === true ? partnerTimeSql(sql, args.now, "d.partner_id") : sql`${args.now}`}
        FROM locked, events e, webhook_configs c
        WHERE d.event_id = locked.event_id AND e.id = d.event_id AND c.partner_id = d.partner_id
        RETURNING ${claimedColumns}, (SELECT count(*) FROM candidates)::integer AS scanned`
  })
  const recordAttempt = SqlSchema.findOne({
    Request: AttemptRecord,
    Result: DeliveryRow,
    execute: (record) =>
      sql`
        UPDATE webhook_deliveries
        SET status = ${record.status}, attempts = attempts + 1, last_attempt_at = ${record.attemptedAt},
            next_attempt_at = ${record.nextAttemptAt}, last_response_status = ${record.responseStatus},
            last_error = ${record.error}, delivered_at = ${record.deliveredAt},
            lease_until = NULL, lease_token = NULL
        WHERE event_id = ${record.eventId} AND lease_token = ${record.leaseToken}
        RETURNING ${sql.unsafe(deliveryColumns)}`
  })
  /**
   * Many attempts in one statement, each only while its lease is still the claimer's; answers the event ids
   * recorded (a missing one lost its lease to a replay or a re-claim, and its result is dropped).
   */
  const recordAttempts = (records: ReadonlyArray<AttemptRecord>) =>
    sql<{ eventId: string }>`
      UPDATE webhook_deliveries d
      SET status = r.status, attempts = d.attempts + 1, last_attempt_at = r.attempted_at,
          next_attempt_at = r.next_attempt_at, last_response_status = r.response_status,
          last_error = r.error, delivered_at = r.delivered_at,
          lease_until = NULL, lease_token = NULL
      FROM (
        -- The LIMIT tells the planner how many rows the batch holds (it assumes 100 for a function): a few index
        -- look-ups by event id, not a scan of the whole table.
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(records.map(asRecordJson))}::jsonb) AS r(
          event_id uuid, lease_token uuid, status text, attempted_at timestamptz, next_attempt_at timestamptz,
          response_status integer, error text, delivered_at timestamptz)
        LIMIT ${records.length}
      ) r
      WHERE d.event_id = r.event_id AND d.lease_token = r.lease_token
      RETURNING d.event_id`.pipe(Effect.map((rows) => new Set(rows.map((row) => row.eventId))))
  const nextDueAt = SqlSchema.single({
    Request: Schema.Boolean,
    Result: Schema.Struct({ nextAt: Schema.NullOr(Schema.DateFromSelf) }),
    execute: (partnersAhead) =>
      sql`SELECT ${
        earliestDueSql(sql, {
          table: "webhook_deliveries",
          column: "next_attempt_at",
          pending: sql`status = 'PENDING' AND (lease_until IS NULL OR lease_until <= now())`,
          partnersAhead
        })
      } AS next_at`
  })

  return {
    /** Leases one delivery (the synchronous `webhook.test`, inside the transaction that created it). */
    leaseOne: (eventId: string, leaseToken: string, leaseSeconds: number) =>
      leaseOne({ eventId, leaseToken, leaseSeconds }),

    /**
     * Claims due deliveries, oldest due first: at most `limit`, at most `perPartnerMax` of one partner, none of the
     * `excludedPartners` (those already at their limit in this process). Only the first `scanMax` due rows are
     * looked at, through the due index, so a claim costs the same however long the backlog; a partner whose
     * backlog fills that window is excluded once its slots are full, which lets the next claim reach the others.
     * Rows locked by another claimer are skipped, and a claimed row is leased (in database time, which measures
     * real elapsed time) until its attempt has surely ended.
     */
    claimDue: (args: typeof ClaimRequest.Type) => claimDue(args),

    /**
     * Ends the leases of attempts cut short (shutdown) at once, keeping their tokens: the next claim counts each as
     * an attempt made without an outcome (`outcomeLostError`) and sends it again without waiting for the lease.
     */
    abandon: (eventIds: ReadonlyArray<string>, leaseToken: string) =>
      eventIds.length === 0 ? Effect.void : sql`
        UPDATE webhook_deliveries SET lease_until = now()
        WHERE event_id IN ${sql.in(eventIds)} AND lease_token = ${leaseToken}`.pipe(Effect.asVoid),

    /** Gives claimed deliveries back untouched (more than a partner's free slots were claimed). */
    release: (eventIds: ReadonlyArray<string>, leaseToken: string) =>
      eventIds.length === 0 ? Effect.void : sql`
        UPDATE webhook_deliveries SET lease_until = NULL, lease_token = NULL
        WHERE event_id IN ${sql.in(eventIds)} AND lease_token = ${leaseToken}`.pipe(Effect.asVoid),

    /** `recordAttempt` for many deliveries in one statement; answers the event ids whose result was recorded. */
    recordAttempts: (records: ReadonlyArray<AttemptRecord>) =>
      records.length === 0 ? Effect.succeed(new Set<string>()) : recordAttempts(records),

    /** Records an attempt, only while the lease is still this claimer's (a replay or a re-claim voids it). */
    recordAttempt: (record: AttemptRecord) => recordAttempt(record),

    /**
     * The earliest due time of a pending delivery not in flight, on the instance's clock (see `partnersAhead`); rows
     * a crashed process left leased come back via the poll.
     */
    nextDueAt: (partnersAhead: boolean) => nextDueAt(partnersAhead).pipe(Effect.map((row) => row.nextAt))
  }
})

/** The partner's view of its deliveries: pages, the due list, one delivery and its replay. */
const makeDeliveries = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const page = SqlSchema.findAll({
    Request: Schema.Struct({
      partnerId: Schema.String,
      status: Schema.UndefinedOr(DeliveryStatus),
      beforeSeq: Schema.UndefinedOr(Schema.String),
      limit: Schema.Int
    }),
    Result: DeliveryRow,
    execute: ({ beforeSeq, limit, partnerId, status }) =>
      sql`
        SELECT ${sql.unsafe(deliveryColumns)} FROM webhook_deliveries
        WHERE partner_id = ${partnerId}
          ${status === undefined ? sql`` : sql`AND status = ${status}`}
          ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`
  })
  const DueDeliveryRow = Schema.Struct({ ...DeliveryRow.fields, customerId: Schema.NullOr(Schema.String) })
  const due = SqlSchema.findAll({
    Request: Schema.Struct({
      partnerId: Schema.String,
      until: Schema.DateFromSelf,
      afterAt: Schema.NullOr(Schema.DateFromSelf),
      afterId: Schema.NullOr(Schema.String),
      limit: Schema.Int
    }),
    Result: DueDeliveryRow,
    execute: ({ afterAt, afterId, limit, partnerId, until }) =>
      sql`
        SELECT ${sql.unsafe(deliveryColumns.split(",").map((c) => `d.${c.trim()}`).join(", "))}, e.customer_id
        FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.status = 'PENDING' AND d.partner_id = ${partnerId} AND d.next_attempt_at <= ${until}
          ${afterAt === null || afterId === null ? sql`` : sql`AND (d.next_attempt_at, d.event_id) > (${afterAt}, ${afterId}::uuid)`}
        ORDER BY d.next_attempt_at, d.event_id LIMIT ${limit}`
  })
  const Owned = Schema.Struct({ partnerId: Schema.String, eventId: Schema.String })
  const findOwned = SqlSchema.findOne({
    Request: Owned,
    Result: DeliveryDetailRow,
    execute: ({ eventId, partnerId }) =>
      sql`
        SELECT ${sql.unsafe(deliveryColumns.split(",").map((c) => `d.${c.trim()}`).join(", "))},
               e.data, e.created_at AS event_created_at
        FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.event_id = ${eventId} AND d.partner_id = ${partnerId}`
  })
  const replay = SqlSchema.findOne({
    Request: Schema.Struct({ ...Owned.fields, now: Schema.DateFromSelf }),
    Result: DeliveryRow,
    execute: ({ eventId, now, partnerId }) =>
      sql`
        UPDATE webhook_deliveries d
        SET status = 'PENDING', next_attempt_at = ${now}, delivered_at = NULL,
            -- An attempt still leased is counted now (its outcome, if it ever comes, is dropped).
            ${countLeasedAttempt(sql, sql`CASE WHEN d.lease_until <= now() THEN ${outcomeLostError} ELSE ${outcomeReplacedError} END`)},
            schedule_base = d.attempts + CASE WHEN d.lease_token IS NULL THEN 0 ELSE 1 END,
            lease_until = NULL, lease_token = NULL
        WHERE event_id = ${eventId} AND partner_id = ${partnerId}
        RETURNING ${sql.unsafe(deliveryColumns)}`
  })

  return {
    page: (partnerId: string, status: DeliveryStatus | undefined, beforeSeq: string | undefined, limit: number) =>
      page({ partnerId, status, beforeSeq, limit }),

    findOwned: (partnerId: string, eventId: string) => findOwned({ partnerId, eventId }),

    /** The partner's pending deliveries due by `until`, soonest first (next attempt, then event id), after `after`. */
    due: (query: {
      readonly partnerId: string
      readonly until: Date
      readonly after?: { readonly at: Date; readonly id: string } | undefined
      readonly limit: number
    }) =>
      due({
        partnerId: query.partnerId,
        until: query.until,
        afterAt: query.after?.at ?? null,
        afterId: query.after?.id ?? null,
        limit: query.limit
      }),

    /**
     * Back to PENDING, due now, with a fresh schedule; an attempt in flight loses its lease (its result is dropped)
     * and is counted as made, with `outcomeReplacedError` (or `outcomeLostError` when its lease had already ended).
     */
    replay: (partnerId: string, eventId: string, now: Date) => replay({ partnerId, eventId, now })
  }
})

export const make = Effect.gen(function*() {
  const configs = yield* makeConfigs
  const claims = yield* makeClaims
  const deliveries = yield* makeDeliveries
  return repository({ ...configs, ...claims, ...deliveries })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("WebhooksRepo", { effect: make }) {}
