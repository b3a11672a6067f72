import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Partner } from "../http/Auth.js"

type PartnerRow = Partner

const columns = "p.id, p.name, p.kyb_status, p.kyb_reason, p.is_demo, p.created_at, p.updated_at"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    insert: (partner: Partner) =>
      sql`INSERT INTO partners ${sql.insert({
        id: partner.id,
        name: partner.name,
        kybStatus: partner.kybStatus,
        kybReason: partner.kybReason,
        isDemo: partner.isDemo,
        createdAt: partner.createdAt,
        updatedAt: partner.updatedAt
      })}`,
    insertKey: (key: { id: string; partnerId: string; keyHash: Buffer; keyPrefix: string; createdAt: Date }) =>
      sql`INSERT INTO api_keys ${sql.insert(key)}`,
    findByKeyHash: (keyHash: Buffer) =>
      sql<PartnerRow & { keyHash: Buffer }>`
        SELECT ${sql.unsafe(columns)}, k.key_hash FROM api_keys k JOIN partners p ON p.id = k.partner_id
        WHERE k.key_hash = ${keyHash} AND k.revoked_at IS NULL`.pipe(Effect.map((rows) => rows[0])),
    findDemo: sql<PartnerRow>`SELECT ${sql.unsafe(columns)} FROM partners p WHERE p.is_demo`.pipe(
      Effect.map((rows) => rows[0])
    ),
    updateKyb: (id: string, status: Partner["kybStatus"], reason: string | null, at: Date) =>
      sql<PartnerRow>`
        UPDATE partners p SET kyb_status = ${status}, kyb_reason = ${reason}, updated_at = ${at}
        WHERE p.id = ${id} RETURNING ${sql.unsafe(columns)}`.pipe(Effect.map((rows) => rows[0]!))
  }
})
