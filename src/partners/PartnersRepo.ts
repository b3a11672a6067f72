import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { PartnerId } from "../api/Ids.js"
import { repository } from "../db/Rows.js"

/** A row of `partners`; its type is the `Partner` the auth middleware provides. */
export const PartnerRow = Schema.Struct({
  id: PartnerId,
  name: Schema.String,
  kybStatus: Schema.Literal("PENDING", "APPROVED", "REJECTED"),
  kybReason: Schema.NullOr(Schema.String),
  isDemo: Schema.Boolean,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type PartnerRow = typeof PartnerRow.Type

export const PartnerWithKeyRow = Schema.Struct({ ...PartnerRow.fields, keyHash: Schema.Uint8ArrayFromSelf, keyId: Schema.String })

/** An API key as the console lists it (never its secret or hash). */
export const KeyListRow = Schema.Struct({
  id: Schema.String,
  keyPrefix: Schema.String,
  createdAt: Schema.DateFromSelf,
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf),
  revokedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type KeyListRow = typeof KeyListRow.Type

export const ApiKeyRow = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  keyHash: Schema.Uint8ArrayFromSelf,
  keyPrefix: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type ApiKeyRow = typeof ApiKeyRow.Type

const columns = "p.id, p.name, p.kyb_status, p.kyb_reason, p.is_demo, p.created_at, p.updated_at"

/** A row that does not decode (or a RETURNING without its row) is a broken invariant: a defect, not a typed error. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.void({
    Request: PartnerRow,
    execute: (partner) => sql`INSERT INTO partners ${sql.insert({ ...partner })}`
  })
  const insertKey = SqlSchema.void({
    Request: ApiKeyRow,
    execute: (key) => sql`INSERT INTO api_keys ${sql.insert({ ...key, keyHash: Buffer.from(key.keyHash) })}`
  })
  const findByKeyHash = SqlSchema.findOne({
    Request: Schema.Uint8ArrayFromSelf,
    Result: PartnerWithKeyRow,
    execute: (keyHash) =>
      sql`
        SELECT ${sql.unsafe(columns)}, k.key_hash, k.id AS key_id FROM api_keys k JOIN partners p ON p.id = k.partner_id
        WHERE k.key_hash = ${Buffer.from(keyHash)} AND k.revoked_at IS NULL`
  })
  const find = SqlSchema.findOne({
    Request: Schema.String,
    Result: PartnerRow,
    execute: (id) => sql`SELECT ${sql.unsafe(columns)} FROM partners p WHERE p.id = ${id}`
  })
  const findDemo = SqlSchema.findOne({
    Request: Schema.Void,
    Result: PartnerRow,
    execute: () => sql`SELECT ${sql.unsafe(columns)} FROM partners p WHERE p.is_demo`
  })
  const updateKyb = SqlSchema.single({
    Request: Schema.Struct({
      id: Schema.String,
      status: PartnerRow.fields.kybStatus,
      reason: Schema.NullOr(Schema.String),
      at: Schema.DateFromSelf
    }),
    Result: PartnerRow,
    execute: ({ at, id, reason, status }) =>
      sql`
        UPDATE partners p SET kyb_status = ${status}, kyb_reason = ${reason}, updated_at = ${at}
        WHERE p.id = ${id} RETURNING ${sql.unsafe(columns)}`
  })
  const listKeys = SqlSchema.findAll({
    Request: Schema.String,
    Result: KeyListRow,
    execute: (partnerId) =>
      sql`
        SELECT id, key_prefix, created_at, last_used_at, revoked_at FROM api_keys
        WHERE partner_id = ${partnerId}
        -- Newest first; the active key leads even when it was made in the same instant as the keys it revoked.
        ORDER BY (revoked_at IS NULL) DESC, created_at DESC, revoked_at DESC NULLS FIRST, id DESC`
  })
  return repository({
    /** Every key of the partner, the active one first, then newest first; revoked ones included. */
    listKeys: (partnerId: string) => listKeys(partnerId),
    /** Revokes every active key of the partner (a rotation's first step). */
    revokeKeys: (partnerId: string, at: Date) =>
      sql`UPDATE api_keys SET revoked_at = ${at} WHERE partner_id = ${partnerId} AND revoked_at IS NULL`,
    /** Records a key's use, at most once a minute (a throttled write, never on every request). */
    touchKey: (keyId: string, at: Date) =>
      sql`
        UPDATE api_keys SET last_used_at = ${at}
        WHERE id = ${keyId} AND (last_used_at IS NULL OR last_used_at < ${new Date(at.getTime() - 60_000)})`,
    insert: (partner: PartnerRow) => insert(partner),
    insertKey: (key: ApiKeyRow) => insertKey(key),
    findByKeyHash: (keyHash: Uint8Array) => findByKeyHash(keyHash),
    find: (id: string) => find(id),
    findDemo: findDemo(undefined),
    updateKyb: (id: string, status: PartnerRow["kybStatus"], reason: string | null, at: Date) =>
      updateKyb({ id, status, reason, at })
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class PartnersRepo extends Effect.Service<PartnersRepo>()("PartnersRepo", { effect: make }) {}
