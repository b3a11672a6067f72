import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { CreatedPage, createdPage, createdPageOrder, createdPageWhere, type CreatedPageQuery, repository } from "../db/Rows.js"
import { DestinationGroupKey } from "../reference/Groups.js"

export const EnrolmentStatus = Schema.Literal("PENDING", "REVIEW", "NEEDS_ATTENTION", "APPROVED", "REJECTED")
export type EnrolmentStatus = typeof EnrolmentStatus.Type

export const FeeStatus = Schema.Literal("NONE", "HELD", "PAID", "WAIVED")
export type FeeStatus = typeof FeeStatus.Type

/** A row of `international_enrolments` (migration 0013): one customer's enrolment in one destination group. */
export const EnrolmentRow = Schema.Struct({
  id: Schema.String,
  seq: Schema.BigInt,
  partnerId: Schema.String,
  customerId: Schema.String,
  groupKey: DestinationGroupKey,
  status: EnrolmentStatus,
  reason: Schema.NullOr(Schema.String),
  customerType: Schema.Literal("INDIVIDUAL", "BUSINESS"),
  optedInCountries: Schema.Array(Schema.String),
  kycId: Schema.NullOr(Schema.String),
  created: Schema.Boolean,
  attempt: Schema.Number,
  feeStatus: FeeStatus,
  feePaidBy: Schema.NullOr(Schema.Literal("CUSTOMER", "PARTNER")),
  feeUsdt: Schema.BigInt,
  feeAmount: Schema.NullOr(Schema.BigInt),
  feeCurrency: Schema.NullOr(Schema.String),
  feeReservationId: Schema.NullOr(Schema.String),
  enabledAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export interface EnrolmentRow extends Schema.Schema.Type<typeof EnrolmentRow> {}

export const NewEnrolmentRow = EnrolmentRow.omit("seq")
export type NewEnrolmentRow = typeof NewEnrolmentRow.Type

const columns = "id, seq, partner_id, customer_id, group_key, status, reason, customer_type, opted_in_countries, kyc_id, " +
  "created, attempt, fee_status, fee_paid_by, fee_usdt, fee_amount, fee_currency, fee_reservation_id, enabled_at, " +
  "created_at, updated_at"

/**
 * `international_enrolments` is read and written here only, always under the customer's actor (the customer row
 * locked): a row is written whole. A row that does not decode is a broken invariant (defect).
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = sql.unsafe(columns)
  const ofCustomer = SqlSchema.findAll({
    Request: Schema.String,
    Result: EnrolmentRow,
    execute: (customerId) => sql`SELECT ${all} FROM international_enrolments WHERE customer_id = ${customerId} ORDER BY seq`
  })
  const forPartner = SqlSchema.findOne({
    Request: Schema.Struct({ partnerId: Schema.String, id: Schema.String }),
    Result: EnrolmentRow,
    execute: ({ id, partnerId }) => sql`SELECT ${all} FROM international_enrolments WHERE id = ${id} AND partner_id = ${partnerId}`
  })
  const insert = SqlSchema.single({
    Request: NewEnrolmentRow,
    Result: EnrolmentRow,
    execute: (row) =>
      sql`
        INSERT INTO international_enrolments (id, partner_id, customer_id, group_key, status, reason, customer_type,
          opted_in_countries, kyc_id, created, attempt, fee_status, fee_paid_by, fee_usdt, fee_amount, fee_currency,
          fee_reservation_id, enabled_at, created_at, updated_at)
        VALUES (${row.id}, ${row.partnerId}, ${row.customerId}, ${row.groupKey}, ${row.status}, ${row.reason},
          ${row.customerType}, ${JSON.stringify(row.optedInCountries)}::jsonb, ${row.kycId}, ${row.created},
          ${row.attempt}, ${row.feeStatus}, ${row.feePaidBy}, ${row.feeUsdt}, ${row.feeAmount}, ${row.feeCurrency},
          ${row.feeReservationId}, ${row.enabledAt}, ${row.createdAt}, ${row.updatedAt})
        RETURNING ${all}`
  })
  const update = SqlSchema.single({
    Request: NewEnrolmentRow,
    Result: EnrolmentRow,
    execute: (row) =>
      sql`
        UPDATE international_enrolments SET status = ${row.status}, reason = ${row.reason},
          customer_type = ${row.customerType}, opted_in_countries = ${JSON.stringify(row.optedInCountries)}::jsonb,
          kyc_id = ${row.kycId}, created = ${row.created}, attempt = ${row.attempt}, fee_status = ${row.feeStatus},
          fee_paid_by = ${row.feePaidBy}, fee_usdt = ${row.feeUsdt}, fee_amount = ${row.feeAmount},
          fee_currency = ${row.feeCurrency}, fee_reservation_id = ${row.feeReservationId},
          enabled_at = ${row.enabledAt}, updated_at = ${row.updatedAt}
        WHERE id = ${row.id}
        RETURNING ${all}`
  })
  const awaiting = SqlSchema.findAll({
    Request: CreatedPage,
    Result: EnrolmentRow,
    execute: (page) =>
      sql`
        SELECT ${all} FROM international_enrolments
        WHERE partner_id = ${page.partnerId} AND status IN ('PENDING', 'REVIEW') ${createdPageWhere(sql, page)}
        ${createdPageOrder(sql, page)}`
  })
  return repository({
    /** The customer's enrolments, in the order they were first written. */
    ofCustomer: (customerId: string) => ofCustomer(customerId),
    forPartner: (partnerId: string, id: string) => forPartner({ partnerId, id }),
    insert: (row: NewEnrolmentRow) => insert(row),
    update: (row: NewEnrolmentRow) => update(row),
    /** The partner's enrolments awaiting the payout partner (PENDING or REVIEW), newest first by (created_at, id). */
    awaiting: (query: CreatedPageQuery) => awaiting(createdPage(query))
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class EnrolmentsRepo extends Effect.Service<EnrolmentsRepo>()("EnrolmentsRepo", { effect: make }) {}
