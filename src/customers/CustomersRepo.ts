import { SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { type Customer, DuplicateCustomerEmail } from "./Customer.js"
import { CustomerId, PartnerId } from "../api/Ids.js"
import { CountryCode, FiatCurrency } from "../reference/Countries.js"
import { isSqlError, repository } from "../db/Rows.js"

/** A row of `customers` as stored; `seq` orders the partner's list (keyset cursor). */
export const CustomerRow = Schema.Struct({
  id: CustomerId,
  seq: Schema.BigInt,
  partnerId: PartnerId,
  firstName: Schema.String,
  lastName: Schema.String,
  middleName: Schema.NullOr(Schema.String),
  email: Schema.String,
  phoneNumber: Schema.String,
  country: CountryCode,
  currency: FiatCurrency,
  verifiedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export interface CustomerRow extends Schema.Schema.Type<typeof CustomerRow> {}

export const NewCustomerRow = CustomerRow.omit("seq")
export type NewCustomerRow = typeof NewCustomerRow.Type

/** The domain's customer of a row: the row without its storage cursor. */
export const toCustomer = ({ seq: _seq, ...customer }: CustomerRow): Customer => customer

const isUniqueViolation = (error: SqlError.SqlError) =>
  typeof error.cause === "object" && error.cause !== null && (error.cause as { code?: unknown }).code === "23505"

const Owned = Schema.Struct({ partnerId: PartnerId, id: CustomerId })

/**
 * Statements that may have changed a customer row, so far in this process: every `UPDATE customers` here counts
 * (a statement, whether or not it matched a row or its transaction commits). The customer actor reads the row again
 * between two commands of a batch only when this moved (src/ledger/CustomerActors.ts). A new write of the customers
 * table must count too.
 */
let rowWrites = 0
export const rowWritesSoFar = (): number => rowWrites

/**
 * A row that does not decode (or a RETURNING without its row), like any SQL error, is a broken invariant: a defect,
 * not a typed error (`repository`). The one typed error: an insert whose email the partner already has.
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.single({
    Request: NewCustomerRow,
    Result: CustomerRow,
    execute: (row) => sql`INSERT INTO customers ${sql.insert({ ...row })} RETURNING *`
  })
  const findOwned = SqlSchema.findOne({
    Request: Owned,
    Result: CustomerRow,
    execute: ({ id, partnerId }) => sql`SELECT * FROM customers WHERE id = ${id} AND partner_id = ${partnerId}`
  })
  const lockOwned = SqlSchema.findOne({
    Request: Owned,
    Result: CustomerRow,
    execute: ({ id, partnerId }) => sql`SELECT * FROM customers WHERE id = ${id} AND partner_id = ${partnerId} FOR UPDATE`
  })
  const page = SqlSchema.findAll({
    Request: Schema.Struct({ partnerId: Schema.String, beforeSeq: Schema.UndefinedOr(Schema.String), limit: Schema.Number }),
    Result: CustomerRow,
    execute: ({ beforeSeq, limit, partnerId }) =>
      sql`
        SELECT * FROM customers
        WHERE partner_id = ${partnerId} ${beforeSeq === undefined ? sql`` : sql`AND seq < ${beforeSeq}`}
        ORDER BY seq DESC LIMIT ${limit}`
  })
  return repository({
    /** The new customer; `DuplicateCustomerEmail` when the partner already has one with this email (a unique violation). */
    insert: (row: NewCustomerRow) =>
      insert(row).pipe(
        Effect.map(toCustomer),
        Effect.catchIf(
          (error): error is SqlError.SqlError => isSqlError(error) && isUniqueViolation(error),
          () => Effect.fail(new DuplicateCustomerEmail())
        )
      ),
    findOwned: (partnerId: PartnerId, id: CustomerId) => findOwned({ partnerId, id }).pipe(Effect.map(Option.map(toCustomer))),
    /** Locks the customer row for the rest of the transaction: the per-customer serialisation point. */
    lockOwned: (partnerId: PartnerId, id: CustomerId) => lockOwned({ partnerId, id }).pipe(Effect.map(Option.map(toCustomer))),
    emailTaken: (partnerId: string, email: string) =>
      sql`SELECT 1 FROM customers WHERE partner_id = ${partnerId} AND lower(email) = lower(${email}) LIMIT 1`
        .pipe(Effect.map((rows) => rows.length > 0)),
    /** The partner's customers, newest first: rows, whose `seq` is the list's cursor. */
    page: (partnerId: string, beforeSeq: string | undefined, limit: number) => page({ partnerId, beforeSeq, limit }),
    /** Sets `verified_at` the first time only (docs/kyc.md): the customer's first approved Tier 1. */
    markVerified: (customerId: string, at: Date) =>
      Effect.suspend(() => {
        rowWrites++
        return sql`UPDATE customers SET verified_at = ${at}, updated_at = ${at} WHERE id = ${customerId} AND verified_at IS NULL`
      })
  })
})

/** The repository as a service, built once per application; `make` builds a private one (tests, one-off commands). */
export class CustomersRepo extends Effect.Service<CustomersRepo>()("CustomersRepo", { effect: make }) {}
