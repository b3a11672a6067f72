/**
 * Default values of the limits on abuse (docs/operations.md "Limits on abuse"); src/config/AppConfig.ts reads the
 * environment variables over them, and a config without a field (the test servers') gets these.
 */
export const limitDefaults = {
  /** RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST: requests per API key. Above one instance's capacity on 2 cores. */
  keyRequestsPerSecond: 5_000,
  keyRequestsBurst: 10_000,
  /** AUTH_FAILURES_PER_MINUTE / AUTH_FAILURES_BURST: unknown or malformed API keys per client address. */
  authFailuresPerMinute: 60,
  authFailuresBurst: 50,
  /** AUTH_FAILURES_DELAY_MS: how long a refusal of a blocked address waits before it is sent. */
  authFailureDelayMs: 250,
  /** SIGN_IN_FAILURES_PER_MINUTE / SIGN_IN_FAILURES_BURST: console sign-ins that did not succeed, per client address. */
  signInFailuresPerMinute: 10,
  signInFailuresBurst: 100,
  /** PASSWORD_HASHING_CONCURRENCY / PASSWORD_HASHING_QUEUE: console password hashings at once, and waiting. */
  passwordHashingConcurrency: 4,
  passwordHashingQueue: 32,
  /** LIMITS_MAX_ENTRIES: keys or addresses tracked per limit (the least recently seen leave first). */
  limitsMaxEntries: 100_000
} as const
