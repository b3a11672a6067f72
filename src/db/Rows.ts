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
