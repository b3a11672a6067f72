import { type SqlClient, SqlError, type Statement } from "@effect/sql"
import { Cause, Effect, Option, ParseResult, Schema } from "effect"

/**
 * Repositories decode rows at the edge (`SqlSchema` with a row Schema). A row that does not decode, a `RETURNING` /
 * `single` without its row, and any SQL error are broken invariants: defects, not typed errors. `repository` turns
 * them into defects for every function a repository returns, so its callers never see them in an error channel.
 * These are what it turns into defects.
 */
export type RepositoryDefect = SqlError.SqlError | ParseResult.ParseError | Cause.NoSuchElementException

export const isSqlError = (error: unknown): error is SqlError.SqlError => error instanceof SqlError.SqlError

const isRepositoryDefect = (error: unknown): error is RepositoryDefect =>
  isSqlError(error) || ParseResult.isParseError(error) || Cause.isNoSuchElementException(error)

/** `effect` with its database errors (and undecodable or missing rows) turned into defects; other errors stay typed. */
export const orDieOnSql = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, RepositoryDefect>, R> =>
  Effect.catchIf(effect, (error): error is E & RepositoryDefect => isRepositoryDefect(error), Effect.die) as Effect.Effect<
    A,
    Exclude<E, RepositoryDefect>,
    R
  >

type OrDieOnSql<T> = T extends (...args: infer P) => Effect.Effect<infer A, infer E, infer R>
  ? (...args: P) => Effect.Effect<A, Exclude<E, RepositoryDefect>, R>
  : T extends Effect.Effect<infer A, infer E, infer R> ? Effect.Effect<A, Exclude<E, RepositoryDefect>, R>
  : T

/** A repository's functions as its callers see them: no `SqlError` (nor row decoding error) in any error channel. */
export type Repository<T> = { readonly [K in keyof T]: OrDieOnSql<T[K]> }

/**
 * The functions a repository returns, each turning a database error into a defect (`orDieOnSql`), so a repository
 * function's error channel is `never` unless it deliberately returns a domain error. A property that is an effect
 * (not a function) is wrapped too.
 */
export const repository = <T extends object>(functions: T): Repository<T> =>
  Object.fromEntries(Object.entries(functions).map(([name, value]) => [
    name,
    typeof value === "function"
      ? (...args: Array<unknown>) => {
        const result: unknown = value(...args)
        return Effect.isEffect(result) ? orDieOnSql(result) : result
      }
      : Effect.isEffect(value)
      ? orDieOnSql(value)
      : value
  ])) as Repository<T>

/**
 * A repository's insert of one row carried by the journal statement (src/ledger/Ledger.ts `Carried`): the CTE
 * `carried_<table>`, `INSERT INTO table (columns) SELECT values FROM tx`, made only when the journal's `tx` has its
 * row. The row is encoded by its row Schema and its fields named as the client names columns (camelCase to
 * snake_case); PostgreSQL types each value by its column; a bigint goes as decimal text, a plain object (a jsonb
 * column) as JSON. Nothing is returned: the caller has the row.
 */
export const carriedInsert = <A, I extends Readonly<Record<string, unknown>>>(
  sql: SqlClient.SqlClient,
  table: string,
  schema: Schema.Schema<A, I>
) => {
  const encode = Schema.encodeSync(schema)
  const value = (field: unknown) =>
    typeof field === "bigint"
      ? field.toString()
      : field !== null && typeof field === "object" && !(field instanceof Date) && !Buffer.isBuffer(field) && !Array.isArray(field)
      ? JSON.stringify(field)
      : field
  return (row: A) => {
    const fields = Object.entries(encode(row))
    return {
      ctes: [sql`${sql(`carried_${table}`)} AS (
        INSERT INTO ${sql(table)} (${sql.csv(fields.map(([name]) => sql`${sql(name)}`))})
        SELECT ${sql.csv(fields.map(([, field]) => sql`${value(field) as never}`))}
        FROM tx
        RETURNING 1
      )`],
      columns: []
    }
  }
}

/**
 * Recovers from a database error a repository turned into a defect (`orDieOnSql`): how a background loop that logs a
 * database error and goes on stays alive. Any other defect stays a defect.
 */
export const catchSqlDefect = <A2, E2, R2>(onSqlError: (error: SqlError.SqlError) => Effect.Effect<A2, E2, R2>) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | A2, E | E2, R | R2> =>
  Effect.catchSomeDefect(effect, (defect) => isSqlError(defect) ? Option.some(onSqlError(defect)) : Option.none())

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

/**
 * A read that travels in another module's statement, one round trip fewer: a scalar SQL expression (a parenthesised
 * subquery; a JSON object for a row) and the Schema its value decodes by. The withdrawal's default bank account goes
 * in the idempotency claim's statement this way (src/ledger/Idempotency.ts `answerAlong`), read in the command's
 * transaction after the customer's lock, where its own statement ran before.
 */
export interface Along<B> {
  readonly expression: Statement.Fragment
  readonly schema: Schema.Schema<B, any>
}
