import type { SqlClient } from "@effect/sql"
import { Cause, Effect, ParseResult, Schema } from "effect"

/**
 * Repositories decode rows at the edge (`SqlSchema` with a row Schema). A row that does not decode, or a
 * `RETURNING` / `single` without its row, is a broken invariant: a defect, not a typed error. SQL errors stay typed.
 */
export const orDieOnRow = <A, E, R>(
  effect: Effect.Effect<A, E | ParseResult.ParseError | Cause.NoSuchElementException, R>
): Effect.Effect<A, Exclude<E, ParseResult.ParseError | Cause.NoSuchElementException>, R> =>
  Effect.catchIf(
    effect,
    (error): error is ParseResult.ParseError | Cause.NoSuchElementException =>
      ParseResult.isParseError(error) || Cause.isNoSuchElementException(error),
    Effect.die
  )

/**
 * One page of a partner's rows newest first by `(created_at, id)`, optionally of one customer: the rows strictly
 * before `before` in that order, at most `limit`. How a list merged from several tables (the sandbox's pending
 * operations) reads each table with one keyset.
 */
export interface CreatedPageQuery {
  readonly partnerId: string
  readonly customerId?: string | undefined
  readonly before?: { readonly at: Date; readonly id: string } | undefined
  readonly limit: number
}

/** A `CreatedPageQuery` as a repository's SqlSchema request decodes it (nulls for what is absent). */
export const CreatedPage = Schema.Struct({
  partnerId: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  beforeAt: Schema.NullOr(Schema.DateFromSelf),
  beforeId: Schema.NullOr(Schema.String),
  limit: Schema.Number
})
export type CreatedPage = typeof CreatedPage.Type

export const createdPage = (query: CreatedPageQuery): CreatedPage => ({
  partnerId: query.partnerId,
  customerId: query.customerId ?? null,
  beforeAt: query.before?.at ?? null,
  beforeId: query.before?.id ?? null,
  limit: query.limit
})

/** The conditions of a created page after the table's own (`AND ...`): its customer, and the keyset. */
export const createdPageWhere = (sql: SqlClient.SqlClient, page: CreatedPage, alias = "") => {
  const column = (name: string) => sql.unsafe(`${alias}${name}`)
  return sql`
    ${page.customerId === null ? sql`` : sql`AND ${column("customer_id")} = ${page.customerId}`}
    ${page.beforeAt === null || page.beforeId === null
      ? sql``
      : sql`AND (${column("created_at")}, ${column("id")}) < (${page.beforeAt}, ${page.beforeId}::uuid)`}`
}

/** The order and the limit of a created page: newest first by (created_at, id). */
export const createdPageOrder = (sql: SqlClient.SqlClient, page: CreatedPage, alias = "") =>
  sql`ORDER BY ${sql.unsafe(`${alias}created_at`)} DESC, ${sql.unsafe(`${alias}id`)} DESC LIMIT ${page.limit}`
