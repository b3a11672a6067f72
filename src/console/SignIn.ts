import * as Command from "../observability/Command.js"
import { Effect, Option } from "effect"
import { ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import { Ids } from "../ids/Ids.js"
import * as ClientAddress from "../limits/ClientAddress.js"
import { Limits } from "../limits/Limits.js"
import { Partners } from "../partners/Partners.js"
import { EmailTaken, InvalidCredentials, TooManySignInAttempts } from "./Api.js"
import { viewOf } from "./Company.js"
import * as ConsoleRepo from "./ConsoleRepo.js"
import * as Passwords from "./Passwords.js"
import type * as Sessions from "./Sessions.js"

/**
 * Console accounts (docs/console.md): sign-up (a partner with KYB PENDING and its first user) and sign-in (scrypt
 * passwords, lockout per email, failed sign-ins per client address, password hashings at once: src/limits/).
 */
export const lockout = { failures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 } as const

const normalise = (email: string) => email.trim().toLowerCase()

const invalidCredentials = () => new InvalidCredentials({ message: "The email or the password is wrong" })

const emailTaken = () => new EmailTaken({ message: "email: a partner console account with this email exists; sign in instead" })

const tooMany = (lockedUntil: Date, now: Date) => {
  const retryAfterSeconds = Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000)
  return new TooManySignInAttempts({
    message: `Too many failed sign-ins for this email: try again in ${retryAfterSeconds} seconds`,
    details: { retryAfterSeconds }
  })
}

const tooManyFromAddress = (retryAfterSeconds: number) =>
  new TooManySignInAttempts({
    message: `Too many failed sign-ins from this address: try again in ${retryAfterSeconds} seconds`,
    details: { retryAfterSeconds }
  })

type OpenSession = Effect.Effect.Success<ReturnType<typeof Sessions.make>>["openSession"]

export const make = (repo: ConsoleRepo.ConsoleRepo, openSession: OpenSession) =>
  Effect.gen(function*() {
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const partners = yield* Partners
    const cost = (yield* AppConfig).consolePasswordCost ?? Passwords.parameters.cost
    const decoy = yield* Effect.cached(Passwords.decoy(cost))
    const inTransaction = yield* ConsoleRepo.makeInTransaction
    const limits = yield* Limits

    const signUp = Command.fn("Console.signUp")(function*(input: { readonly email: string; readonly password: string; readonly companyName: string }) {
      const email = normalise(input.email)
      const passwordHash = yield* limits.hashing(Passwords.hash(input.password, cost))
      return yield* inTransaction(Effect.gen(function*() {
        if (Option.isSome(yield* repo.userByEmail(email))) return yield* emailTaken()
        const partner = yield* partners.createWithoutKey(input.companyName)
        const user = { id: yield* ids.uuid, partnerId: partner.id, email, passwordHash, createdAt: yield* clock.now }
        if (!(yield* repo.insertUser(user))) return yield* emailTaken()
        const session = yield* openSession(user)
        return { session, console: yield* viewOf(repo, partner.id, user.id) }
      }))
    })

    /**
     * Records a sign-in's outcome with the email's failures row locked, and decides it there (in a transaction):
     * `locked` once the lockout is reached, `wrong` (one more failure counted), or `ok` with a new session.
     */
    const recordAttempt = (email: string, user: ConsoleRepo.UserRow | undefined, matches: boolean) =>
      inTransaction(Effect.gen(function*() {
        const now = yield* clock.now
        yield* repo.ensureFailureRow(email, now)
        const current = Option.getOrThrow(yield* repo.failure(email))
        if (current.lockedUntil !== null && current.lockedUntil > now) return { _tag: "locked" as const, until: current.lockedUntil, now }
        if (user === undefined || !matches) {
          const fresh = current.failures === 0 || now.getTime() - current.firstFailureAt.getTime() > lockout.windowSeconds * 1000
          const failures = fresh ? 1 : current.failures + 1
          const lockedUntil = failures >= lockout.failures ? new Date(now.getTime() + lockout.lockSeconds * 1000) : null
          yield* repo.recordFailure(email, lockedUntil === null ? failures : 0, fresh ? now : current.firstFailureAt, lockedUntil)
          return { _tag: "wrong" as const }
        }
        yield* repo.clearFailures(email)
        return { _tag: "ok" as const, session: yield* openSession(user) }
      }))

    /**
     * The password is checked outside any transaction (scrypt takes tens of milliseconds, and on the embedded
     * database a transaction holds the only connection); the outcome is then recorded in a transaction with the
     * email's failures row locked, and decided there: sign-ins of one email take turns at that point, so once the
     * lockout's count is reached every later answer is 429 — a right password included — and concurrent guesses
     * learn nothing past the first `lockout.failures` (at most that many 401s or one session per window).
     */
    const attempt = Command.fn("Console.signInAttempt")(function*(input: { readonly email: string; readonly password: string }) {
      const email = normalise(input.email)
      const before = Option.getOrUndefined(yield* repo.failure(email))
      const started = yield* clock.now
      if (before?.lockedUntil !== null && before?.lockedUntil !== undefined && before.lockedUntil > started) {
        return yield* tooMany(before.lockedUntil, started)
      }
      const user = Option.getOrUndefined(yield* repo.userByEmail(email))
      // The same work for an unknown email as for a wrong password: no enumeration by answer or by time.
      const matches = yield* limits.hashing(Passwords.verify(input.password, user?.passwordHash ?? (yield* decoy)))
      const outcome = yield* recordAttempt(email, user, matches)
      // A failure is committed, then refused (a failed transaction would roll the count back).
      switch (outcome._tag) {
        case "ok":
          return outcome.session
        case "locked":
          return yield* tooMany(outcome.until, outcome.now)
        case "wrong":
          return yield* invalidCredentials()
      }
    })

    /**
     * Every attempt spends one of its client address's sign-in failures first (concurrent attempts count too); a
     * success, or a refusal because the instance is busy hashing, gives it back. An address with none left is
     * refused 429 before any lookup or hashing; the per-email lockout applies within.
     */
    const signIn = Command.fn("Console.signIn")(function*(input: { readonly email: string; readonly password: string }) {
      const address = yield* ClientAddress.current
      const wait = yield* limits.signInAttempt(address)
      if (wait !== undefined) return yield* tooManyFromAddress(wait)
      return yield* attempt(input).pipe(
        Effect.tap(() => limits.signInSucceeded(address)),
        Effect.tapErrorTag("TooManySignIns", () => limits.signInSucceeded(address))
      )
    })

    return { signUp, signIn } as const
  })
