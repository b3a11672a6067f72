import { Effect, Option } from "effect"
import { enterPartner, forPartner, ServiceClock } from "../clock/ServiceClock.js"
import { base62, sha256 } from "../crypto/Hashing.js"
import { Keys } from "../crypto/Keys.js"
import { Unauthorized } from "../api/ApiError.js"
import { Ids } from "../ids/Ids.js"
import type { ConsoleSession } from "./Api.js"
import * as ConsoleRepo from "./ConsoleRepo.js"
import * as Tokens from "./Tokens.js"

/**
 * Console sessions (docs/console.md): HS256 access tokens on the service clock naming a session row, rotating refresh
 * tokens stored as hashes, sign-out revoking the session. A session's times are on its partner's clock.
 */

export const signedOut = () => new Unauthorized({ message: "The console session is not valid (expired or signed out): sign in again" })

/** The token pair a client receives: an access token of `now` and its refresh token. */
const tokenPair = (accessToken: string, refreshToken: string, refreshExpiresAt: Date, now: Date) => ({
  tokenType: "Bearer" as const,
  accessToken,
  expiresIn: Tokens.accessTokenSeconds,
  expiresAt: new Date(now.getTime() + Tokens.accessTokenSeconds * 1000),
  refreshToken,
  refreshExpiresAt
})

export const make = (repo: ConsoleRepo.ConsoleRepo) =>
  Effect.gen(function*() {
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const keys = yield* Keys
    const inTransaction = yield* ConsoleRepo.makeInTransaction

    /** A new session (in the caller's transaction): its row, an access token and a refresh token. */
    const openSession = (user: { readonly id: string; readonly partnerId: string }) =>
      forPartner(user.partnerId)(Effect.gen(function*() {
        const now = yield* clock.now
        const id = yield* ids.uuid
        const refreshToken = `rt_${base62(yield* ids.bytes(32))}`
        const refreshExpiresAt = new Date(now.getTime() + Tokens.refreshTokenSeconds * 1000)
        yield* repo.insertSession({ id, userId: user.id, partnerId: user.partnerId, refreshHash: sha256(refreshToken), createdAt: now, refreshExpiresAt })
        const accessToken = yield* Tokens.sign(keys.consoleToken, { userId: user.id, partnerId: user.partnerId, sessionId: id }, now)
        return tokenPair(accessToken, refreshToken, refreshExpiresAt, now)
      }))

    const refresh = Effect.fn("Console.refresh")((refreshToken: string) =>
      inTransaction(Effect.gen(function*() {
        const found = Option.getOrUndefined(yield* repo.sessionByRefresh(sha256(refreshToken)))
        if (found === undefined) return yield* signedOut()
        // A session's times are on its partner's clock.
        const now = yield* forPartner(found.partnerId)(clock.now)
        if (found.revokedAt !== null || found.refreshExpiresAt <= now) return yield* signedOut()
        const next = `rt_${base62(yield* ids.bytes(32))}`
        const refreshExpiresAt = new Date(now.getTime() + Tokens.refreshTokenSeconds * 1000)
        yield* repo.rotateRefresh(found.id, sha256(next), refreshExpiresAt)
        const accessToken = yield* Tokens.sign(keys.consoleToken, { userId: found.userId, partnerId: found.partnerId, sessionId: found.id }, now)
        return tokenPair(accessToken, next, refreshExpiresAt, now)
      })))

    /** The session of a valid access token whose session is not signed out (the console's auth). */
    const authenticate = Effect.fn("Console.authenticate")(function*(accessToken: string) {
      if (accessToken.length === 0) {
        return yield* new Unauthorized({ message: "Missing console token: send Authorization: Bearer <access token> (an API key is not accepted here)" })
      }
      if (accessToken.length > 4096) return yield* signedOut()
      // Verified on the clock of the partner it names (its expiry is on that clock); a forged name fails the signature.
      const named = Tokens.unverifiedPartnerId(accessToken)
      const now = yield* (named === undefined ? clock.now : forPartner(named)(clock.now))
      const claims = yield* Tokens.verify(keys.consoleToken, accessToken, now)
      if (claims === undefined) return yield* signedOut()
      const session = Option.getOrUndefined(yield* repo.session(claims.sessionId))
      if (session === undefined || session.revokedAt !== null || session.userId !== claims.userId) return yield* signedOut()
      // The rest of the request reads this partner's clock (docs/sandbox.md "A clock per partner").
      yield* enterPartner(claims.partnerId)
      return claims
    })

    const signOut = Effect.fn("Console.signOut")((session: ConsoleSession) =>
      Effect.flatMap(clock.now, (now) => repo.revokeSession(session.sessionId, now)).pipe(Effect.asVoid))

    return { openSession, refresh, authenticate, signOut } as const
  })
