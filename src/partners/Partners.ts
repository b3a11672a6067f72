import * as Command from "../observability/Command.js"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { enterPartner, ServiceClock } from "../clock/ServiceClock.js"
import { AppConfig } from "../config/AppConfig.js"
import { base62, constantTimeEqual, sha256 } from "../crypto/Hashing.js"
import { demoApiKey, Keys } from "../crypto/Keys.js"
import { Caches } from "../db/Caches.js"
import { EventBus, Outbox, transaction } from "../events/Events.js"
import { PartnerNotApproved, Unauthorized } from "../api/ApiError.js"
import type { Partner } from "../api/Auth.js"
import { PartnerId } from "../api/Ids.js"
import { Ids } from "../ids/Ids.js"
import * as ClientAddress from "../limits/ClientAddress.js"
import { Limits } from "../limits/Limits.js"
import { makeExpiringSet } from "../limits/TokenBuckets.js"
import * as PartnersRepo from "./PartnersRepo.js"

export type KybStatus = Partner["kybStatus"]

/**
 * What an API key of ours looks like (`sk_sandbox_...`, `sk_live_...`, the demo key: base62 behind the prefix), with
 * room to spare; anything else is refused without a lookup.
 */
const wellFormedKey = /^sk_(sandbox|live)_[A-Za-z0-9_]{16,200}$/

/**
 * The cache topic of partners by API-key hash, invalidated per partner: a change of a partner's KYB status, and
 * any future revocation or rotation of its keys, must `announce` it in its transaction (src/db/Caches.ts).
 */
export const cacheTopic = "partners.by-key"

/** The advisory lock `ensureDemo` takes (an arbitrary constant, unique among the service's advisory locks). */
const demoLockKey = 7_410_001

export interface CreatedPartner {
  readonly partner: Partner
  /** The plaintext key: shown once, stored only as a SHA-256 hash. */
  readonly apiKey: string
}

const kybEvent = (status: KybStatus) =>
  status === "APPROVED" ? "partner.approved" : status === "REJECTED" ? "partner.rejected" : "partner.resubmission_requested"

/**
 * Partner businesses and their API keys. Keys are 32 random bytes in base62 behind a mode prefix; only their
 * SHA-256 is stored (a key has full entropy, so a slow password hash would add nothing), looked up by hash and
 * compared again in constant time.
 */
export class Partners extends Effect.Service<Partners>()("Partners", {
  effect: Effect.gen(function*() {
    const repo = yield* PartnersRepo.PartnersRepo
    const sql = yield* SqlClient.SqlClient
    const clock = yield* ServiceClock
    const ids = yield* Ids
    const outbox = yield* Outbox
    const bus = yield* EventBus
    const keys = yield* Keys
    const config = yield* AppConfig
    const caches = yield* Caches
    const limits = yield* Limits
    /** Partners by API-key hash: the lookup every partner request makes (src/db/Caches.ts for invalidation). */
    const byKey = caches.make<typeof PartnersRepo.PartnerWithKeyRow.Type>(cacheTopic, { capacity: 10_000 })
    const keyPrefix = config.mode === "production" ? "sk_live_" : "sk_sandbox_"
    const inTransaction = <A, E>(effect: Effect.Effect<A, E, never>) =>
      transaction(effect).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(EventBus, bus),
        Effect.orDie
      )

    /** Stores a key's hash; the key as the console lists it (new: never used, not revoked). */
    const storeKey = (partnerId: string, apiKey: string) =>
      Effect.gen(function*() {
        const key = { id: yield* ids.uuid, keyPrefix: apiKey.slice(0, keyPrefix.length + 4), createdAt: yield* clock.now }
        yield* repo.insertKey({ ...key, partnerId, keyHash: sha256(apiKey) })
        return { ...key, lastUsedAt: null, revokedAt: null }
      })

    const insertRow = (input: { name: string; kybStatus: KybStatus; isDemo: boolean }) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        const partner: Partner = {
          id: PartnerId.make(yield* ids.uuid),
          name: input.name,
          kybStatus: input.kybStatus,
          kybReason: null,
          isDemo: input.isDemo,
          createdAt: now,
          updatedAt: now
        }
        yield* repo.insert(partner)
        return partner
      })

    const insertPartner = (input: { name: string; kybStatus: KybStatus; isDemo: boolean }, apiKey: string) =>
      Effect.gen(function*() {
        const partner = yield* insertRow(input)
        yield* storeKey(partner.id, apiKey)
        if (input.kybStatus === "APPROVED") {
          yield* outbox.record({ partnerId: partner.id, type: "partner.approved", data: { partnerId: partner.id, status: "APPROVED" } })
        }
        return { partner, apiKey }
      })

    const create = Command.fn("Partners.create")(function*(input: { readonly name: string; readonly kybStatus: KybStatus }) {
      const apiKey = keyPrefix + base62(yield* ids.bytes(32))
      return yield* inTransaction(insertPartner({ ...input, isDemo: false }, apiKey))
    })

    const unauthorized = (message: string) => new Unauthorized({ message })

    /** When this process last recorded each key's use: `touchKey` writes at most once a minute per key. */
    const lastTouched = new Map<string, number>()
    const touch = (keyId: string) =>
      Effect.gen(function*() {
        const now = yield* clock.now
        const previous = lastTouched.get(keyId)
        if (previous !== undefined && now.getTime() - previous < 60_000) return
        lastTouched.set(keyId, now.getTime())
        // Off the request's path: the answer never waits for the bookkeeping write.
        yield* Effect.forkDaemon(repo.touchKey(keyId, now).pipe(Effect.ignore))
      })

    /** Key hashes this instance found unknown lately: the same wrong key again costs no lookup. */
    const unknownKeys = makeExpiringSet({ ttlMs: 60_000, maxEntries: 10_000 })
    const unknownKey = (address: Option.Option<string>, hex?: string) =>
      Effect.gen(function*() {
        if (hex !== undefined) unknownKeys.add(hex, yield* Clock.currentTimeMillis)
        yield* limits.authFailed(address)
        return yield* unauthorized("Unknown API key")
      })

    /**
     * The partner of a key, cheaply for a wrong one (docs/operations.md "Limits on abuse"): a key this instance
     * recently accepted is served from the cache whatever its address did; any other key of an address out of
     * failed authentications is refused 429 before any lookup; a key that cannot be one of ours (format) or was
     * found unknown within the minute is refused without a lookup; each refusal counts against the address.
     */
    const lookupKey = (apiKey: string) =>
      Effect.gen(function*() {
        const hash = sha256(apiKey)
        const hex = hash.toString("hex")
        const scope = (partner: typeof PartnersRepo.PartnerWithKeyRow.Type) => partner.id
        const cached = yield* byKey.get(hex, scope, Effect.succeedNone)
        if (Option.isSome(cached)) return { hash, found: cached.value }
        // Read only now: a key this instance accepted is served whatever its address did.
        const address = yield* ClientAddress.current
        yield* limits.authFailuresLeft(address)
        if (!wellFormedKey.test(apiKey)) return yield* unknownKey(address)
        if (unknownKeys.has(hex, yield* Clock.currentTimeMillis)) return yield* unknownKey(address)
        const found = yield* byKey.get(hex, scope, repo.findByKeyHash(hash))
        return Option.isSome(found) ? { hash, found: found.value } : yield* unknownKey(address, hex)
      })

    const authenticate = Effect.fnUntraced(function* authenticate(apiKey: string) {
      if (apiKey.length === 0) return yield* unauthorized("Missing API key: send it in the x-api-key header")
      const { found, hash } = yield* lookupKey(apiKey)
      if (!constantTimeEqual(Buffer.from(found.keyHash), hash)) return yield* unauthorized("Unknown API key")
      const { keyHash: _, keyId, ...partner } = found
      yield* limits.keyRequest(keyId)
      // The rest of the request reads this partner's clock (docs/sandbox.md "A clock per partner").
      yield* enterPartner(partner.id)
      yield* touch(keyId)
      return partner
    })

    const requireApproved = (partner: Partner): Effect.Effect<Partner, PartnerNotApproved> =>
      partner.kybStatus === "APPROVED"
        ? Effect.succeed(partner)
        : Effect.fail(
          new PartnerNotApproved({
            message: `Your partner account is not yet approved: KYB status is ${partner.kybStatus}. ` +
              `Partner routes open once compliance approves your business.`
          })
        )

    const setKyb = Command.fn("Partners.setKyb")((partnerId: string, status: KybStatus, reason: string | null) =>
      inTransaction(Effect.gen(function*() {
        const partner = yield* repo.updateKyb(partnerId, status, reason, yield* clock.now)
        yield* caches.announce(cacheTopic, partnerId)
        const data = status === "APPROVED" ? { partnerId, status } : { partnerId, status, reason }
        yield* outbox.record({ partnerId, type: kybEvent(status), data })
        return partner
      })))

    /** Creates the sandbox demo partner on first start; its key is derived from the sandbox key material. */
    const ensureDemo: Effect.Effect<CreatedPartner> = Effect.gen(function*() {
      const apiKey = demoApiKey(keys)
      return yield* inTransaction(Effect.gen(function*() {
        // Instances starting together on a new database take turns (a transaction-scoped advisory lock): the first
        // creates the demo partner, the next finds it. Without it the second insert hit `partners_one_demo` and that
        // start failed.
        yield* sql`SELECT pg_advisory_xact_lock(${demoLockKey})`
        const existing = yield* repo.findDemo
        if (Option.isNone(existing)) {
          return yield* insertPartner({ name: "Demo Partner", kybStatus: "APPROVED", isDemo: true }, apiKey)
        }
        const known = yield* repo.findByKeyHash(sha256(apiKey))
        if (Option.isNone(known)) yield* storeKey(existing.value.id, apiKey)
        return { partner: existing.value, apiKey }
      }))
    }).pipe(Effect.withSpan("Partners.ensureDemo"))

    /** The partner's business name, as a payer sees it (a charge's account name, the EFT page). */
    const name = Command.fn("Partners.name")((partnerId: string) =>
      repo.find(partnerId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.dieMessage(`partners: no partner ${partnerId}`),
          onSome: (partner) => Effect.succeed(partner.name)
        }))
      ))

    /**
     * A partner signed up in the console: KYB `PENDING`, no key and no event (nothing to announce before KYB). Runs in
     * the caller's transaction.
     */
    const createWithoutKey = Command.fn("Partners.createWithoutKey")((name: string) =>
      insertRow({ name, kybStatus: "PENDING", isDemo: false }))

    /** A new key for the partner (shown once), every earlier key revoked at once (rotation; also the first key). */
    const rotateKey = Command.fn("Partners.rotateKey")((partnerId: string) =>
      inTransaction(Effect.gen(function*() {
        // Rotations of one partner take turns (the partner row locked): each revokes every key the previous made.
        yield* sql`SELECT id FROM partners WHERE id = ${partnerId} FOR UPDATE`
        const now = yield* clock.now
        yield* repo.revokeKeys(partnerId, now)
        const apiKey = keyPrefix + base62(yield* ids.bytes(32))
        const key = yield* storeKey(partnerId, apiKey)
        // The old keys stop at once: every process drops its cached lookups of this partner's keys.
        yield* caches.announce(cacheTopic, partnerId)
        return { apiKey, key }
      })))

    /** The partner's keys, newest first, without secrets. */
    const listKeys = Command.fn("Partners.listKeys")((partnerId: string) => repo.listKeys(partnerId))

    const find = Command.fn("Partners.find")((partnerId: string) => repo.find(partnerId))

    return { create, authenticate, requireApproved, setKyb, name, ensureDemo, createWithoutKey, rotateKey, listKeys, find } as const
  }),
  dependencies: [PartnersRepo.PartnersRepo.Default, Keys.Default, Caches.Default, Outbox.Default, Limits.Default]
}) {}

export const layer = Partners.Default
