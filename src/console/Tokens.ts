import { Effect } from "effect"
import { decodeJwt, jwtVerify, SignJWT } from "jose"
import { isUuid } from "../ids/Ids.js"

/**
 * Console access tokens: HS256 JWTs (jose) signed with a key derived from the service's master key
 * (ENCRYPTION_KEY, `Keys.consoleToken`), valid `accessTokenSeconds` on the service clock. The claims name the user
 * (`sub`), the partner (`pid`) and the session (`sid`); a token is accepted only while its session is not signed out
 * (checked by the console's auth against `console_sessions`).
 */
export const issuer = "partner-money-movement/console"
export const audience = "partner-console"
export const accessTokenSeconds = 15 * 60
export const refreshTokenSeconds = 30 * 24 * 60 * 60

export interface AccessClaims {
  readonly userId: string
  readonly partnerId: string
  readonly sessionId: string
}

export const sign = (key: Uint8Array, claims: AccessClaims, now: Date) =>
  Effect.promise(() =>
    new SignJWT({ pid: claims.partnerId, sid: claims.sessionId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(claims.userId)
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(now.getTime() / 1000) + accessTokenSeconds)
      .sign(key)
  )

/** The claims of a valid token at `now`, or undefined (bad signature, expired, wrong issuer or audience, malformed). */
export const verify = (key: Uint8Array, token: string, now: Date) =>
  Effect.promise(() =>
    jwtVerify(token, key, { issuer, audience, algorithms: ["HS256"], currentDate: now }).then(
      ({ payload }): AccessClaims | undefined =>
        typeof payload.sub === "string" && typeof payload.pid === "string" && typeof payload.sid === "string"
          ? { userId: payload.sub, partnerId: payload.pid, sessionId: payload.sid }
          : undefined,
      () => undefined
    )
  )

/**
 * The partner a token names, read without verifying it: only to choose whose clock to verify it on (a session's
 * times are on its partner's clock); `verify` then checks the signature and the claims.
 */
export const unverifiedPartnerId = (token: string): string | undefined => {
  try {
    const pid = decodeJwt(token).pid
    return typeof pid === "string" && isUuid(pid) ? pid : undefined
  } catch {
    return undefined
  }
}
