import * as Command from "../observability/Command.js"
import { Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { enterPartner, forPartner, ServiceClock } from "../clock/ServiceClock.js"
import { base62, hmacSha256 } from "../crypto/Hashing.js"
import { Keys } from "../crypto/Keys.js"
import { Unauthorized } from "../api/ApiError.js"
import { Ids } from "../ids/Ids.js"
import type { ConsoleSession } from "./Api.js"
import * as ConsoleRepo from "./ConsoleRepo.js"
import * as Tokens from "./Tokens.js"

/**
 * Console sessions (docs/console.md): HS256 access tokens on the service clock naming a session row, rotating refresh
 * tokens stored as hashes, sign-out revoking the session. A session's times are on its partner's clock.
 *
 * Both kinds of token are bound to the master key (ENCRYPTION_KEY): the access token is signed with a key derived
 * from it, and a refresh token is stored (and looked up) as its HMAC under another derived key, so after a restart
 * with another key no earlier token of any session is found. A refresh token presented again after it was spent
 * revokes its session: someone else holds the session's tokens.
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

/** The key a refresh token's stored hash is keyed with: derived (HKDF) from the console's key, so from ENCRYPTION_KEY. */
export const refreshKeyOf = (consoleToken: Buffer): Buffer =>
  Buffer.from(Crypto.hkdfSync("sha256", consoleToken, Buffer.alloc(0), "console-refresh-token", 32))

export const make = (repo: ConsoleRepo.ConsoleRepo) =>
  Effect.gen(function*() {
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const keys = yield* Keys
    const inTransaction = yield* ConsoleRepo.makeInTransaction
    const refreshKey = refreshKeyOf(keys.consoleToken)
    const refreshHash = (token: string) => hmacSha256(refreshKey, token)

    /** A new session (in the caller's transaction): its row, an access token and a refresh token. */
    const openSession = (user: { readonly id: string; readonly partnerId: string }) =>
      forPartner(user.partnerId)(Effect.gen(function*() {
        const now = yield* clock.now
        const id = yield* ids.uuid
        const refreshToken = `rt_${base62(yield* ids.bytes(32))}`
        const refreshExpiresAt = new Date(now.getTime() + Tokens.refreshTokenSeconds * 1000)
        // The user's dead sessions go (signed out, or their refresh token expired, longer ago than an access token
        // lives: no token of theirs is accepted any more, and a request with one is refused as before).
        yield* repo.pruneSessions(user.id, new Date(now.getTime() - Tokens.accessTokenSeconds * 1000))
        yield* repo.insertSession({ id, userId: user.id, partnerId: user.partnerId, refreshHash: refreshHash(refreshToken), createdAt: now, refreshExpiresAt })
        const accessToken = yield* Tokens.sign(keys.consoleToken, { userId: user.id, partnerId: user.partnerId, sessionId: id }, now)
        return tokenPair(accessToken, refreshToken, refreshExpiresAt, now)
      }))

    /** Revokes the session a spent refresh token belonged to, if it was one (a reuse). */
    const revokeOnReuse = (hash: Buffer) =>
      Effect.gen(function*() {
        const spent = Option.getOrUndefined(yield* repo.spentRefresh(hash))
        if (spent === undefined) return
        yield* Effect.annotateCurrentSpan("refreshReuse", spent.sessionId)
        yield* forPartner(spent.partnerId)(Effect.flatMap(clock.now, (now) => repo.revokeSession(spent.sessionId, now)))
      })

    /**
     * Spends the refresh token for a new pair, in a transaction; a reuse revokes the session and is refused. What it
     * decided is committed before a refusal is answered (a failed transaction would roll the revocation back).
     */
    const rotate = (refreshToken: string) =>
      inTransaction(Effect.gen(function*() {
        const hash = refreshHash(refreshToken)
        const found = Option.getOrUndefined(yield* repo.sessionByRefresh(hash))
        if (found === undefined) {
          yield* revokeOnReuse(hash)
          return { _tag: "refused" as const }
        }
        // A session's times are on its partner's clock.
        const now = yield* forPartner(found.partnerId)(clock.now)
        if (found.revokedAt !== null || found.refreshExpiresAt <= now) return { _tag: "refused" as const }
        const next = `rt_${base62(yield* ids.bytes(32))}`
        const refreshExpiresAt = new Date(now.getTime() + Tokens.refreshTokenSeconds * 1000)
        yield* repo.rotateRefresh(found.id, hash, refreshHash(next), refreshExpiresAt, now)
        // A token spent longer ago than a refresh token lives had expired anyway: presented again it is refused as an
        // unknown one (the session is not revoked for it).
        yield* repo.pruneSpentRefresh(found.id, new Date(now.getTime() - Tokens.refreshTokenSeconds * 1000))
        const accessToken = yield* Tokens.sign(keys.consoleToken, { userId: found.userId, partnerId: found.partnerId, sessionId: found.id }, now)
        return { _tag: "rotated" as const, pair: tokenPair(accessToken, next, refreshExpiresAt, now) }
      }))

    const refresh = Command.fn("Console.refresh")(function*(refreshToken: string) {
      const outcome = yield* rotate(refreshToken)
      return outcome._tag === "rotated" ? outcome.pair : yield* signedOut()
    })

    /** The session of a valid access token whose session is not signed out (the console's auth). */
    const authenticate = Command.fn("Console.authenticate")(function*(accessToken: string) {
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

    const signOut = Command.fn("Console.signOut")((session: ConsoleSession) =>
      Effect.flatMap(clock.now, (now) => repo.revokeSession(session.sessionId, now)).pipe(Effect.asVoid))

    return { openSession, refresh, authenticate, signOut } as const
  })
