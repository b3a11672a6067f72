import { it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, TestClock, TestContext } from "effect"
import { describe, expect } from "vitest"
import { AppConfig, type AppConfigShape } from "../src/config/AppConfig.js"
import { clientAddressOf, limitKey, plainAddress } from "../src/limits/ClientAddress.js"
import { Limits } from "../src/limits/Limits.js"
import { makeExpiringSet, makeTokenBuckets } from "../src/limits/TokenBuckets.js"

/**
 * The limits on abuse as units (docs/operations.md "Limits on abuse"): the token buckets and their bound, the client
 * address and the trusted proxy rule, and the Limits service on a TestClock. The HTTP side (the 429 envelope,
 * Retry-After, a valid key while its address is blocked) is test/limits.http.test.ts.
 */
describe("token buckets", () => {
  it("allow the burst, then refuse with the whole seconds until the next token, and refill at the rate", () => {
    const buckets = makeTokenBuckets({ perSecond: 0.5, burst: 3, maxEntries: 10 })
    for (let i = 0; i < 3; i++) expect(buckets.take("a", 0)).toBeUndefined()
    expect(buckets.take("a", 0)).toBe(2)
    expect(buckets.check("a", 1_000)).toBe(1)
    expect(buckets.take("b", 0), "another key has its own bucket").toBeUndefined()
    expect(buckets.take("a", 2_000), "one token back after 2 s").toBeUndefined()
    expect(buckets.take("a", 2_000)).toBe(2)
  })
  it("check spends nothing; refund gives a token back, never above the burst", () => {
    const buckets = makeTokenBuckets({ perSecond: 1, burst: 1, maxEntries: 10 })
    expect(buckets.check("a", 0)).toBeUndefined()
    expect(buckets.take("a", 0)).toBeUndefined()
    expect(buckets.check("a", 0)).toBe(1)
    buckets.refund("a", 0)
    buckets.refund("a", 0)
    expect(buckets.take("a", 0)).toBeUndefined()
    expect(buckets.take("a", 0)).toBe(1)
  })
  it("a burst of 0 turns the limit off", () => {
    const buckets = makeTokenBuckets({ perSecond: 1, burst: 0, maxEntries: 10 })
    for (let i = 0; i < 100; i++) expect(buckets.take("a", 0)).toBeUndefined()
    expect(buckets.size()).toBe(0)
  })
  it("stay bounded: idle (full again) entries leave as new keys come, and the least recently used when full", () => {
    const buckets = makeTokenBuckets({ perSecond: 1, burst: 2, maxEntries: 3 })
    for (const key of ["a", "b", "c"]) buckets.take(key, 0)
    expect(buckets.size()).toBe(3)
    buckets.take("d", 500)
    expect(buckets.size(), "full table: the least recently used left").toBe(3)
    buckets.take("b", 500)
    buckets.take("b", 500)
    expect(buckets.take("b", 500), "b is out of tokens and was kept").toBe(1)
    buckets.take("e", 10_000)
    expect(buckets.size(), "every idle entry left at once").toBe(1)
    for (let i = 0; i < 10_000; i++) buckets.take(`k${i}`, 20_000)
    expect(buckets.size()).toBe(3)
  })
  it("an expiring set forgets after its time and holds at most its bound", () => {
    const set = makeExpiringSet({ ttlMs: 1_000, maxEntries: 2 })
    set.add("a", 0)
    expect(set.has("a", 999)).toBe(true)
    expect(set.has("a", 1_000)).toBe(false)
    for (const key of ["x", "y", "z"]) set.add(key, 0)
    expect(set.size()).toBe(2)
    expect(set.has("x", 0)).toBe(false)
  })
})

describe("client address", () => {
  const socket = (address: string) => Option.some(address)
  it("is the socket's peer by default: a forwarding header is ignored", () => {
    expect(clientAddressOf(socket("127.0.0.1"), { "x-forwarded-for": "203.0.113.9" }, {})).toBe("127.0.0.1")
    expect(clientAddressOf(socket("::ffff:10.0.0.7"), {}, {}), "IPv4-mapped IPv6 is the IPv4 address").toBe("10.0.0.7")
    expect(clientAddressOf(Option.none(), {}, {})).toBe("unknown")
  })
  it("with a trusted header: its right-most entry (the one the proxy appended), not what the client wrote", () => {
    const trusted = { header: "x-forwarded-for" }
    expect(clientAddressOf(socket("10.0.0.1"), { "x-forwarded-for": "1.2.3.4, 203.0.113.9" }, trusted)).toBe("203.0.113.9")
    expect(clientAddressOf(socket("10.0.0.1"), { "x-forwarded-for": "198.51.100.2:5123" }, trusted)).toBe("198.51.100.2")
    expect(clientAddressOf(socket("10.0.0.1"), { "x-forwarded-for": "1.2.3.4, not-an-ip" }, trusted), "junk: the peer").toBe("10.0.0.1")
    expect(clientAddressOf(socket("10.0.0.1"), {}, trusted), "no header: the peer").toBe("10.0.0.1")
  })
  it("with TRUSTED_PROXIES: the header only from those peers", () => {
    const trusted = { header: "x-forwarded-for", proxies: ["10.0.0.1"] }
    expect(clientAddressOf(socket("10.0.0.1"), { "x-forwarded-for": "203.0.113.9" }, trusted)).toBe("203.0.113.9")
    expect(clientAddressOf(socket("10.0.0.2"), { "x-forwarded-for": "203.0.113.9" }, trusted)).toBe("10.0.0.2")
  })
  it("keys IPv6 by its /64 network", () => {
    expect(limitKey("2001:db8:1:2:aaaa::1")).toBe("2001:0db8:0001:0002::/64")
    expect(limitKey(plainAddress("[2001:db8:1:2::ffff]:443")!)).toBe("2001:0db8:0001:0002::/64")
    expect(limitKey("::1")).toBe("0000:0000:0000:0000::/64")
    expect(limitKey("192.0.2.1")).toBe("192.0.2.1")
  })
})

/**
 * Limits over the overrides, with a TestClock of its own (`Layer.fresh(TestContext.TestContext)`): @effect/vitest's
 * `it.effect` provides its test services through one layer shared by every file of a worker, and after a file of the
 * rail contracts in the same worker (vitest.config.ts reuses workers) its TestClock was no longer the test's clock
 * (`TestClock.adjust` met the live clock); the test's own is.
 */
const limitsWith = (overrides: Partial<AppConfigShape>) =>
  Layer.mergeAll(
    Limits.Default.pipe(Layer.provide(Layer.succeed(AppConfig, overrides as AppConfigShape))),
    Layer.fresh(TestContext.TestContext)
  )

describe("Limits on a TestClock", () => {
  const address = Option.some("192.0.2.1")
  it.effect("per API key: RATE_LIMITED past the burst, with retryAfterSeconds; the rate refills it", () =>
    Effect.gen(function*() {
      const limits = yield* Limits
      for (let i = 0; i < 4; i++) yield* limits.keyRequest("key-1")
      const refused = yield* Effect.flip(limits.keyRequest("key-1"))
      expect(refused).toMatchObject({ statusCode: 429, code: "RATE_LIMITED", details: { retryAfterSeconds: 1 } })
      yield* limits.keyRequest("key-2")
      yield* TestClock.adjust("500 millis")
      yield* limits.keyRequest("key-1")
    }).pipe(Effect.provide(limitsWith({ keyRequestsPerSecond: 2, keyRequestsBurst: 4 }))))

  it.effect("failed authentications per address: refused once spent, not before; another address is untouched", () =>
    Effect.gen(function*() {
      const limits = yield* Limits
      for (let i = 0; i < 3; i++) {
        yield* limits.authFailuresLeft(address)
        yield* limits.authFailed(address)
      }
      // The refusal is sent after a pause (AUTH_FAILURES_DELAY_MS, 250 ms by default), not before.
      const refusing = yield* Effect.fork(Effect.flip(limits.authFailuresLeft(address)))
      yield* TestClock.adjust("249 millis")
      expect(Option.isNone(yield* Fiber.poll(refusing))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const refused = yield* Fiber.join(refusing)
      expect(refused).toMatchObject({ statusCode: 429, code: "TOO_MANY_FAILED_AUTHENTICATIONS", details: { retryAfterSeconds: 2 } })
      yield* limits.authFailuresLeft(Option.some("192.0.2.2"))
      yield* limits.authFailuresLeft(Option.none())
      yield* TestClock.adjust("1750 millis")
      yield* limits.authFailuresLeft(address)
    }).pipe(Effect.provide(limitsWith({ authFailuresPerMinute: 30, authFailuresBurst: 3 }))))

  it.effect("sign-ins per address: each attempt spends one, a success gives it back", () =>
    Effect.gen(function*() {
      const limits = yield* Limits
      expect(yield* limits.signInAttempt(address)).toBeUndefined()
      yield* limits.signInSucceeded(address)
      expect(yield* limits.signInAttempt(address)).toBeUndefined()
      expect(yield* limits.signInAttempt(address)).toBeUndefined()
      expect(yield* limits.signInAttempt(address)).toBe(60)
      expect(yield* limits.signInAttempt(Option.none()), "no address (not over HTTP): no limit").toBeUndefined()
    }).pipe(Effect.provide(limitsWith({ signInFailuresPerMinute: 1, signInFailuresBurst: 2 }))))

  it.effect("password hashings: the concurrency run, the queue waits, the next is refused at once with TOO_MANY_SIGN_INS", () =>
    Effect.gen(function*() {
      const limits = yield* Limits
      const slow = limits.hashing(Effect.sleep("1 second").pipe(Effect.as("hashed")))
      const admitted = yield* Effect.forEach([1, 2, 3], () => Effect.fork(slow))
      yield* TestClock.adjust("1 millis")
      const refused = yield* Effect.exit(limits.hashing(Effect.succeed("hashed")))
      expect(Exit.isFailure(refused) && JSON.stringify(refused.cause)).toContain("TOO_MANY_SIGN_INS")
      yield* TestClock.adjust("1 second")
      const firstTwo = yield* Effect.forEach(admitted.slice(0, 2), (fiber) => Fiber.poll(fiber))
      expect(firstTwo.every((exit) => Option.isSome(exit)), "two ran at once").toBe(true)
      expect(Option.isNone(yield* Fiber.poll(admitted[2]!)), "the third waited its turn").toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(admitted[2]!)).toBe("hashed")
      expect(yield* limits.hashing(Effect.succeed("again")), "a free slot admits again").toBe("again")
    }).pipe(Effect.provide(limitsWith({ passwordHashingConcurrency: 2, passwordHashingQueue: 1 }))))
})
