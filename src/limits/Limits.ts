import { Clock, Effect, Option } from "effect"
import { RateLimited, TooManyFailedAuthentications, TooManySignIns } from "../api/LimitErrors.js"
import { AppConfig } from "../config/AppConfig.js"
import { limitDefaults } from "./Defaults.js"
import { makeTokenBuckets } from "./TokenBuckets.js"

/**
 * The limits on abuse of one instance (docs/operations.md "Limits on abuse"), in memory: requests per API key,
 * failed authentications per client address, failed console sign-ins per client address, and the password
 * hashings running and waiting at once. Times are Effect's `Clock` (the real time; a `TestClock` in tests), never
 * the service clock a sandbox tester moves.
 */
export class Limits extends Effect.Service<Limits>()("Limits", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const setting = (name: keyof typeof limitDefaults): number => config[name] ?? limitDefaults[name]
    const maxEntries = setting("limitsMaxEntries")
    const keys = makeTokenBuckets({ perSecond: setting("keyRequestsPerSecond"), burst: setting("keyRequestsBurst"), maxEntries })
    const authFailures = makeTokenBuckets({
      perSecond: setting("authFailuresPerMinute") / 60,
      burst: setting("authFailuresBurst"),
      maxEntries
    })
    const authFailureDelayMs = setting("authFailureDelayMs")
    const signInFailures = makeTokenBuckets({
      perSecond: setting("signInFailuresPerMinute") / 60,
      burst: setting("signInFailuresBurst"),
      maxEntries
    })
    const concurrency = setting("passwordHashingConcurrency")
    const admitted = concurrency + setting("passwordHashingQueue")
    const hashings = yield* Effect.makeSemaphore(concurrency)
    let pending = 0

    /** A request of the API key `keyId`: 429 RATE_LIMITED past its rate. */
    const keyRequest = Effect.fnUntraced(function* keyRequest(keyId: string) {
      const wait = keys.take(keyId, yield* Clock.currentTimeMillis)
      if (wait === undefined) return
      return yield* new RateLimited({
        message: `Too many requests for this API key: try again in ${wait} seconds`,
        details: { retryAfterSeconds: wait }
      })
    })

    /** Before an unknown key is looked up: 429 while the address has no failed authentication left. */
    const authFailuresLeft = Effect.fnUntraced(function* authFailuresLeft(address: Option.Option<string>) {
      if (Option.isNone(address)) return
      const wait = authFailures.check(address.value, yield* Clock.currentTimeMillis)
      if (wait === undefined) return
      // A pause before the refusal: a flooder waiting for its answers slows to its concurrency / the pause, and the
      // instance's CPU stays with the partners (docs/operations.md "Limits on abuse").
      if (authFailureDelayMs > 0) yield* Effect.sleep(authFailureDelayMs)
      return yield* new TooManyFailedAuthentications({
        message: `Too many unknown API keys from this address: try again in ${wait} seconds`,
        details: { retryAfterSeconds: wait }
      })
    })

    /** Counts an unknown or malformed API key against the address. */
    const authFailed = Effect.fnUntraced(function* authFailed(address: Option.Option<string>) {
      if (Option.isSome(address)) authFailures.take(address.value, yield* Clock.currentTimeMillis)
    })

    /**
     * Spends one of the address's sign-in failures before the attempt (so that concurrent attempts count too):
     * the seconds to wait when there is none left, else `undefined`. `signInSucceeded` gives it back.
     */
    const signInAttempt = Effect.fnUntraced(function* signInAttempt(address: Option.Option<string>) {
      return Option.isNone(address) ? undefined : signInFailures.take(address.value, yield* Clock.currentTimeMillis)
    })

    const signInSucceeded = Effect.fnUntraced(function* signInSucceeded(address: Option.Option<string>) {
      if (Option.isSome(address)) signInFailures.refund(address.value, yield* Clock.currentTimeMillis)
    })

    /**
     * Runs a password hashing when fewer than the concurrency run; waits when fewer than the queue wait; else fails
     * at once with 429 TOO_MANY_SIGN_INS (a flood answered quickly instead of a queue that grows without end). A
     * combinator rather than a command: the hashing it wraps is the caller's, and so is the span.
     */
    const hashing = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | TooManySignIns, R> =>
      Effect.suspend((): Effect.Effect<A, E | TooManySignIns, R> => {
        if (pending >= admitted) {
          return Effect.fail(new TooManySignIns({
            message: "Too many sign-ins are being checked at once: try again in 1 second",
            details: { retryAfterSeconds: 1 }
          }))
        }
        pending++
        return hashings.withPermits(1)(effect).pipe(Effect.ensuring(Effect.sync(() => void pending--)))
      })

    return { keyRequest, authFailuresLeft, authFailed, signInAttempt, signInSucceeded, hashing } as const
  })
}) {}
