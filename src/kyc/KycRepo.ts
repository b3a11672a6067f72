import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { DocumentContentType, DocumentType, KycItem, RecordStatus } from "./Api.js"

export interface KycRecordRow {
  readonly id: string
  readonly seq: string
  readonly partnerId: string
  readonly customerId: string
  readonly level: number
  readonly status: RecordStatus
  readonly idType: string | null
  readonly details: Record<string, unknown>
  readonly reviewReason: string | null
  readonly rejectionReason: string | null
  readonly decidedBy: "registry" | "rail" | "reviewer" | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export type NewKycRecordRow = Omit<KycRecordRow, "seq">

export interface DocumentRow {
  readonly id: string
  readonly partnerId: string
  readonly customerId: string
  readonly type: DocumentType
  readonly contentType: DocumentContentType
  readonly sizeBytes: number
  readonly sha256: string
  readonly createdAt: Date
}

export interface ReverificationRow {
  readonly id: string
  readonly partnerId: string
  readonly customerId: string
  readonly items: ReadonlyArray<KycItem>
  readonly outstanding: ReadonlyArray<KycItem>
  readonly message: string
  readonly status: "OPEN" | "COMPLETED" | "SUPERSEDED"
  readonly createdAt: Date
  readonly closedAt: Date | null
}

const recordColumns = "id, seq, partner_id, customer_id, level, status, id_type, details, review_reason, rejection_reason, decided_by, created_at, updated_at"
const documentColumns = "id, partner_id, customer_id, type, content_type, size_bytes, sha256, created_at"
const reverificationColumns = "id, partner_id, customer_id, items, outstanding, message, status, created_at, closed_at"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const records = sql.literal(recordColumns)
  const documents = sql.literal(documentColumns)
  const reverifications = sql.literal(reverificationColumns)
  return {
    insertRecord: (row: NewKycRecordRow) =>
      sql<KycRecordRow>`
        INSERT INTO kyc_records (id, partner_id, customer_id, level, status, id_type, details, review_reason,
                                 rejection_reason, decided_by, created_at, updated_at)
        VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${row.level}, ${row.status}, ${row.idType},
                ${JSON.stringify(row.details)}::jsonb, ${row.reviewReason}, ${row.rejectionReason}, ${row.decidedBy},
                ${row.createdAt}, ${row.updatedAt})
        RETURNING ${records}`.pipe(Effect.map((rows) => rows[0]!)),
    /** Every submission of the customer, newest first. */
    listRecords: (customerId: string) =>
      sql<KycRecordRow>`SELECT ${records} FROM kyc_records WHERE customer_id = ${customerId} ORDER BY seq DESC`,
    /** The newest submission of a tier, locked when `forUpdate`. */
    latestRecord: (customerId: string, level: number, forUpdate: boolean) =>
      sql<KycRecordRow>`
        SELECT ${records} FROM kyc_records WHERE customer_id = ${customerId} AND level = ${level}
        ORDER BY seq DESC LIMIT 1 ${forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(Effect.map((rows) => rows[0])),
    lockRecord: (id: string) =>
      sql<KycRecordRow>`SELECT ${records} FROM kyc_records WHERE id = ${id} FOR UPDATE`.pipe(Effect.map((rows) => rows[0])),
    decideRecord: (decision: {
      readonly id: string
      readonly status: RecordStatus
      readonly reviewReason: string | null
      readonly rejectionReason: string | null
      readonly decidedBy: "registry" | "rail" | "reviewer"
      readonly at: Date
    }) =>
      sql<KycRecordRow>`
        UPDATE kyc_records SET status = ${decision.status}, review_reason = COALESCE(${decision.reviewReason}, review_reason),
               rejection_reason = ${decision.rejectionReason}, decided_by = ${decision.decidedBy}, updated_at = ${decision.at}
        WHERE id = ${decision.id}
        RETURNING ${records}`.pipe(Effect.map((rows) => rows[0]!)),

    insertDocument: (row: DocumentRow, content: Uint8Array) =>
      sql<DocumentRow>`
        INSERT INTO kyc_documents (id, partner_id, customer_id, type, content_type, size_bytes, sha256, content, created_at)
        VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${row.type}, ${row.contentType}, ${row.sizeBytes},
                ${row.sha256}, ${Buffer.from(content)}, ${row.createdAt})
        RETURNING ${documents}`.pipe(Effect.map((rows) => rows[0]!)),
    findDocument: (customerId: string, id: string) =>
      sql<DocumentRow>`SELECT ${documents} FROM kyc_documents WHERE customer_id = ${customerId} AND id = ${id}`.pipe(
        Effect.map((rows) => rows[0])
      ),
    documentContent: (customerId: string, id: string) =>
      sql<DocumentRow & { readonly content: Uint8Array }>`
        SELECT ${documents}, content FROM kyc_documents WHERE customer_id = ${customerId} AND id = ${id}`.pipe(
        Effect.map((rows) => rows[0])
      ),

    openReverification: (customerId: string, forUpdate: boolean) =>
      sql<ReverificationRow>`
        SELECT ${reverifications} FROM kyc_reverifications WHERE customer_id = ${customerId} AND status = 'OPEN'
        ${forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(Effect.map((rows) => rows[0])),
    supersedeReverification: (customerId: string, at: Date) =>
      sql`UPDATE kyc_reverifications SET status = 'SUPERSEDED', closed_at = ${at} WHERE customer_id = ${customerId} AND status = 'OPEN'`,
    insertReverification: (row: Omit<ReverificationRow, "closedAt" | "status">) =>
      sql<ReverificationRow>`
        INSERT INTO kyc_reverifications (id, partner_id, customer_id, items, outstanding, message, status, created_at)
        VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${JSON.stringify(row.items)}::jsonb,
                ${JSON.stringify(row.outstanding)}::jsonb, ${row.message}, 'OPEN', ${row.createdAt})
        RETURNING ${reverifications}`.pipe(Effect.map((rows) => rows[0]!)),
    updateOutstanding: (id: string, outstanding: ReadonlyArray<KycItem>, at: Date) =>
      sql`
        UPDATE kyc_reverifications SET outstanding = ${JSON.stringify(outstanding)}::jsonb,
               status = ${outstanding.length === 0 ? "COMPLETED" : "OPEN"},
               closed_at = ${outstanding.length === 0 ? at : null}
        WHERE id = ${id}`,
    /** Sets `verified_at` the first time only (docs/kyc.md). */
    markCustomerVerified: (customerId: string, at: Date) =>
      sql`UPDATE customers SET verified_at = ${at}, updated_at = ${at} WHERE id = ${customerId} AND verified_at IS NULL`
  }
})
