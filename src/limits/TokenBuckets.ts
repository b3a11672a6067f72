/**
 * Token buckets keyed by a string (an API key's id, a client address), in memory, bounded. Pure: the caller passes
 * the time, so the rules are tested without a clock (src/limits/Limits.ts reads Effect's `Clock`).
 *
 * A bucket holds at most `burst` tokens and gains `perSecond` a second; a take spends one. A bucket that would be
 * full again is the same as no bucket, so such (idle) entries are dropped as new keys arrive, and the table never
 * holds more than `maxEntries`: when it is full, the least recently used entry leaves (which forgets what that key
 * had spent — the price of a bounded table; docs/operations.md).
 */
export interface TokenBuckets {
  /** Spends a token of `key`: `undefined` when there was one, else the whole seconds until there is (at least 1). */
  readonly take: (key: string, nowMs: number) => number | undefined
  /** Whether `key` has a token now, spending none: `undefined` when it has, else the whole seconds to wait. */
  readonly check: (key: string, nowMs: number) => number | undefined
  /** Gives back a token `take` spent (never above the burst). */
  readonly refund: (key: string, nowMs: number) => void
  /** Entries held (for tests and the bound). */
  readonly size: () => number
}

interface Bucket {
  tokens: number
  atMs: number
}

export const makeTokenBuckets = (options: { readonly perSecond: number; readonly burst: number; readonly maxEntries: number }): TokenBuckets => {
  const { burst, maxEntries, perSecond } = options
  // Insertion order is recency order: every use moves its entry to the end.
  const entries = new Map<string, Bucket>()
  const refilled = (bucket: Bucket, nowMs: number) =>
    Math.min(burst, bucket.tokens + Math.max(0, nowMs - bucket.atMs) / 1000 * perSecond)
  const waitSeconds = (tokens: number) => Math.max(1, Math.ceil((1 - tokens) / perSecond))

  /** Drops idle entries from the least recently used end, then the oldest one if the table is still full. */
  const makeRoom = (nowMs: number) => {
    for (const [key, bucket] of entries) {
      if (refilled(bucket, nowMs) < burst) break
      entries.delete(key)
    }
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next()
      if (oldest.done !== true) entries.delete(oldest.value)
    }
  }

  const current = (key: string, nowMs: number): Bucket => {
    const found = entries.get(key)
    if (found === undefined) {
      makeRoom(nowMs)
      return { tokens: burst, atMs: nowMs }
    }
    entries.delete(key)
    return { tokens: refilled(found, nowMs), atMs: nowMs }
  }

  return {
    take: (key, nowMs) => {
      if (burst <= 0) return undefined
      const bucket = current(key, nowMs)
      entries.set(key, bucket)
      if (bucket.tokens < 1) return waitSeconds(bucket.tokens)
      bucket.tokens -= 1
      return undefined
    },
    check: (key, nowMs) => {
      if (burst <= 0) return undefined
      const found = entries.get(key)
      const tokens = found === undefined ? burst : refilled(found, nowMs)
      return tokens >= 1 ? undefined : waitSeconds(tokens)
    },
    refund: (key, nowMs) => {
      const found = entries.get(key)
      if (found === undefined) return
      found.tokens = Math.min(burst, refilled(found, nowMs) + 1)
      found.atMs = nowMs
    },
    size: () => entries.size
  }
}

/**
 * A bounded set of strings that each expire after `ttlMs` (the API-key hashes this instance found unknown): the
 * oldest leaves when it is full.
 */
export const makeExpiringSet = (options: { readonly ttlMs: number; readonly maxEntries: number }) => {
  const entries = new Map<string, number>()
  return {
    has: (key: string, nowMs: number) => {
      const until = entries.get(key)
      if (until === undefined) return false
      if (until > nowMs) return true
      entries.delete(key)
      return false
    },
    add: (key: string, nowMs: number) => {
      entries.delete(key)
      if (entries.size >= options.maxEntries) {
        const oldest = entries.keys().next()
        if (oldest.done !== true) entries.delete(oldest.value)
      }
      entries.set(key, nowMs + options.ttlMs)
    },
    size: () => entries.size
  }
}
