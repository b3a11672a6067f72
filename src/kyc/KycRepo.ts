import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { DocumentContentType, DocumentType, KycItem, KycStatus, Reverification } from "./Api.js"
import { CreatedPage, createdPage, createdPageOrder, createdPageWhere, type CreatedPageQuery, repository } from "../db/Rows.js"

const RecordStatus = KycStatus.pipe(Schema.pickLiteral("PENDING", "REVIEW", "APPROVED", "REJECTED"))
const DecidedBy = Schema.Literal("registry", "rail", "reviewer")

export const KycRecordRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  level: Schema.Literal(1, 2, 3),
  status: RecordStatus,
  idType: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  reviewReason: Schema.NullOr(Schema.String),
  rejectionReason: Schema.NullOr(Schema.String),
  decidedBy: Schema.NullOr(DecidedBy),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type KycRecordRow = typeof KycRecordRow.Type

export const NewKycRecordRow = KycRecordRow.omit("seq")
export type NewKycRecordRow = typeof NewKycRecordRow.Type

export const DocumentRow = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  customerId: Schema.String,
  type: DocumentType,
  contentType: DocumentContentType,
  sizeBytes: Schema.Int,
  sha256: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type DocumentRow = typeof DocumentRow.Type

const DocumentContentRow = Schema.Struct({ ...DocumentRow.fields, content: Schema.Uint8ArrayFromSelf })

export const ReverificationRow = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  customerId: Schema.String,
  items: Schema.Array(KycItem),
  outstanding: Schema.Array(KycItem),
  message: Schema.String,
  status: Reverification.fields.status,
  createdAt: Schema.DateFromSelf,
  closedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type ReverificationRow = typeof ReverificationRow.Type

const NewReverificationRow = ReverificationRow.omit("closedAt", "status")

const recordColumns = "id, seq, partner_id, customer_id, level, status, id_type, details, review_reason, rejection_reason, decided_by, created_at, updated_at"
const documentColumns = "id, partner_id, customer_id, type, content_type, size_bytes, sha256, created_at"
const reverificationColumns = "id, partner_id, customer_id, items, outstanding, message, status, created_at, closed_at"

const CustomerLock = Schema.Struct({ customerId: Schema.String, forUpdate: Schema.Boolean })
const CustomerDocument = Schema.Struct({ customerId: Schema.String, id: Schema.String })

/** The KYC records: each a submission of a tier and its decision. */
const makeRecords = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const records = sql.literal(recordColumns)
  const forUpdate = (lock: boolean) => (lock ? sql`FOR UPDATE` : sql``)

  const insertRecord = SqlSchema.single({
    Request: NewKycRecordRow,
    Result: KycRecordRow,
    execute: (row) =>
      sql`
        INSERT INTO kyc_records (id, partner_id, customer_id, level, status, id_type, details, review_reason,
                                 rejection_reason, decided_by, created_at, updated_at)
        VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${row.level}, ${row.status}, ${row.idType},
                ${JSON.stringify(row.details)}::jsonb, ${row.reviewReason}, ${row.rejectionReason}, ${row.decidedBy},
                ${row.createdAt}, ${row.updatedAt})
        RETURNING ${records}`
  })
  const listRecords = SqlSchema.findAll({
    Request: Schema.String,
    Result: KycRecordRow,
    execute: (customerId) => sql`SELECT ${records} FROM kyc_records WHERE customer_id = ${customerId} ORDER BY seq DESC`
  })
  const latestRecord = SqlSchema.findOne({
    Request: Schema.Struct({ ...CustomerLock.fields, level: Schema.Int }),
    Result: KycRecordRow,
    execute: ({ customerId, forUpdate: lock, level }) =>
      sql`
        SELECT ${records} FROM kyc_records WHERE customer_id = ${customerId} AND level = ${level}
        ORDER BY seq DESC LIMIT 1 ${forUpdate(lock)}`
  })
  const partnerRecord = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, id: Schema.String }),
    Result: KycRecordRow,
    execute: ({ id, partnerId }) => sql`SELECT ${records} FROM kyc_records WHERE id = ${id} AND partner_id = ${partnerId}`
  })
  const lockRecord = SqlSchema.findOne({
    Request: Schema.String,
    Result: KycRecordRow,
    execute: (id) => sql`SELECT ${records} FROM kyc_records WHERE id = ${id} FOR UPDATE`
  })
  const decideRecord = SqlSchema.single({
    Request: Schema.Struct({
      id: Schema.String,
      status: RecordStatus,
      reviewReason: Schema.NullOr(Schema.String),
      rejectionReason: Schema.NullOr(Schema.String),
      decidedBy: DecidedBy,
      at: Schema.DateFromSelf
    }),
    Result: KycRecordRow,
    execute: (decision) =>
      sql`
        UPDATE kyc_records SET status = ${decision.status}, review_reason = COALESCE(${decision.reviewReason}, review_reason),
               rejection_reason = ${decision.rejectionReason}, decided_by = ${decision.decidedBy}, updated_at = ${decision.at}
        WHERE id = ${decision.id}
        RETURNING ${records}`
  })
  const awaitingDecision = SqlSchema.findAll({
    Request: CreatedPage,
    Result: KycRecordRow,
    execute: (page) =>
      sql`
        SELECT ${records} FROM kyc_records r
        WHERE r.partner_id = ${page.partnerId} AND r.level < 3 AND r.status IN ('PENDING', 'REVIEW') ${createdPageWhere(sql, page, "r.")}
          AND NOT EXISTS (
            SELECT 1 FROM kyc_records n WHERE n.customer_id = r.customer_id AND n.level = r.level AND n.seq > r.seq)
        ${createdPageOrder(sql, page, "r.")}`
  })

  const findLatestRecord = (customerId: string, level: number, lock: boolean) =>
    latestRecord({ customerId, level, forUpdate: lock })
  const findPartnerRecord = (partnerId: string, id: string) => partnerRecord({ partnerId, id })
  const findLockedRecord = (id: string) => lockRecord(id)

  return {
    insertRecord: (row: NewKycRecordRow) => insertRecord(row),
    /** Every submission of the customer, newest first. */
    listRecords: (customerId: string) => listRecords(customerId),
    /** The newest submission of a tier, locked when `forUpdate`. */
    findLatestRecord,
    /** A partner's record by id (not locked): where a rail's verdict finds its customer. */
    findPartnerRecord,
    findLockedRecord,
    /** The partner's tiers awaiting a decision: each the newest record of its tier, PENDING or REVIEW; newest first. */
    awaitingDecision: (query: CreatedPageQuery) => awaitingDecision(createdPage(query)),
    decideRecord: (decision: typeof decideRecord extends (request: infer I) => unknown ? I : never) =>
      decideRecord(decision)
  }
})

/** The uploaded documents of Tier 2 submissions. */
const makeDocuments = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const documents = sql.literal(documentColumns)

  const insertDocument = SqlSchema.single({
    Request: DocumentContentRow,
    Result: DocumentRow,
    execute: (row) =>
      sql`
        INSERT INTO kyc_documents (id, partner_id, customer_id, type, content_type, size_bytes, sha256, content, created_at)
        VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${row.type}, ${row.contentType}, ${row.sizeBytes},
                ${row.sha256}, ${Buffer.from(row.content)}, ${row.createdAt})
        RETURNING ${documents}`
  })
  const findDocument = SqlSchema.findOne({
    Request: CustomerDocument,
    Result: DocumentRow,
    execute: ({ customerId, id }) => sql`SELECT ${documents} FROM kyc_documents WHERE customer_id = ${customerId} AND id = ${id}`
  })
  const documentContent = SqlSchema.findOne({
    Request: CustomerDocument,
    Result: DocumentContentRow,
    execute: ({ customerId, id }) =>
      sql`SELECT ${documents}, content FROM kyc_documents WHERE customer_id = ${customerId} AND id = ${id}`
  })

  return {
    insertDocument: (row: DocumentRow, content: Uint8Array) => insertDocument({ ...row, content }),
    findDocument: (customerId: string, id: string) => findDocument({ customerId, id }),
    documentContent: (customerId: string, id: string) => documentContent({ customerId, id })
  }
})

/** The re-verification requests of compliance. */
const makeReverifications = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const reverifications = sql.literal(reverificationColumns)
  const forUpdate = (lock: boolean) => (lock ? sql`FOR UPDATE` : sql``)

  const openReverification = SqlSchema.findOne({
    Request: CustomerLock,
    Result: ReverificationRow,
    execute: ({ customerId, forUpdate: lock }) =>
      sql`
        SELECT ${reverifications} FROM kyc_reverifications WHERE customer_id = ${customerId} AND status = 'OPEN'
        ${forUpdate(lock)}`
  })
  const insertReverification = SqlSchema.single({
    Request: NewReverificationRow,
    Result: ReverificationRow,
    execute: (row) =>
      sql`
        INSERT INTO kyc_reverifications (id, partner_id, customer_id, items, outstanding, message, status, created_at)
        VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${JSON.stringify(row.items)}::jsonb,
                ${JSON.stringify(row.outstanding)}::jsonb, ${row.message}, 'OPEN', ${row.createdAt})
        RETURNING ${reverifications}`
  })

  const findOpenReverification = (customerId: string, lock: boolean) =>
    openReverification({ customerId, forUpdate: lock })

  return {
    /** The customer's open re-verification request, locked when `forUpdate`. */
    findOpenReverification,
    supersedeReverification: (customerId: string, at: Date) =>
      sql`UPDATE kyc_reverifications SET status = 'SUPERSEDED', closed_at = ${at} WHERE customer_id = ${customerId} AND status = 'OPEN'`,
    insertReverification: (row: typeof NewReverificationRow.Type) => insertReverification(row),
    updateOutstanding: (id: string, outstanding: ReadonlyArray<KycItem>, at: Date) =>
      sql`
        UPDATE kyc_reverifications SET outstanding = ${JSON.stringify(outstanding)}::jsonb,
               status = ${outstanding.length === 0 ? "COMPLETED" : "OPEN"},
               closed_at = ${outstanding.length === 0 ? at : null}
        WHERE id = ${id}`
  }
})

/** A row that does not decode (or a RETURNING without its row) is a broken invariant: a defect, not a typed error. */
export const make = Effect.gen(function*() {
  const records = yield* makeRecords
  const documents = yield* makeDocuments
  const reverifications = yield* makeReverifications
  return repository({ ...records, ...documents, ...reverifications })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class KycRepo extends Effect.Service<KycRepo>()("KycRepo", { effect: make }) {}
