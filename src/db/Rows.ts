import { Cause, Effect, ParseResult } from "effect"

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
