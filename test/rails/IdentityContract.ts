import { describe, expect, layer } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import type { SqlClient } from "@effect/sql"
import { Duration, Effect, type Layer } from "effect"
import { type EventBus, transaction } from "../../src/events/Events.js"
import {
  type DocumentCheck,
  Identity,
  type IdentityNumberKind,
  lookupTimeoutMs,
  type PersonName,
  type RegistryLookup,
  RegistryUnavailable
} from "../../src/rails/Identity.js"

/**
 * The contract of the `Identity` port (src/rails/Identity.ts): what ANY adapter must do, simulator or live. A live
 * adapter's test calls `identityContract(layer, fixtures)` with numbers whose registry answers are known (test
 * numbers the provider documents); docs/rails.md.
 */
export interface KnownLookup {
  /** What the number is, for the test's name. */
  readonly label: string
  readonly kind: IdentityNumberKind
  readonly number: string
  /** The profile being verified (a live registry ignores it). */
  readonly subject: PersonName
  /** The registry's answer, or `"RegistryUnavailable"` when it does not answer. */
  readonly expected: RegistryLookup | "RegistryUnavailable"
}

export interface IdentityFixtures<R = never> {
  /** Numbers with known answers; at least one must be `Found`. */
  readonly lookups: ReadonlyArray<KnownLookup>
  /** A document check the adapter may be asked to start (its customer exists in the app's database). */
  readonly documentCheck: Effect.Effect<DocumentCheck, never, R>
}

type ContractServices = Identity | SqlClient.SqlClient | EventBus

export const identityContractTests = <R = never>(it: Vitest.MethodsNonLive<ContractServices | R, true>, fixtures: IdentityFixtures<R>) => {
  describe("lookup", () => {
    it("has at least one number that resolves (Found)", () => {
      expect(fixtures.lookups.some((known) => known.expected !== "RegistryUnavailable" && known.expected._tag === "Found")).toBe(true)
    })

    for (const known of fixtures.lookups) {
      const answer = known.expected === "RegistryUnavailable" ? "RegistryUnavailable" : known.expected._tag
      it.effect(`${known.kind} ${known.number} (${known.label}): ${answer}, within lookupTimeoutMs, the same when asked again`, () =>
        Effect.gen(function*() {
          const identity = yield* Identity
          const ask = identity.lookup(known.kind, known.number, known.subject).pipe(
            Effect.timeoutFail({ duration: Duration.millis(lookupTimeoutMs), onTimeout: () => "slower than lookupTimeoutMs" as const }),
            Effect.either
          )
          const first = yield* ask
          const second = yield* ask
          if (known.expected === "RegistryUnavailable") {
            if (first._tag !== "Left") throw new Error(`expected RegistryUnavailable, got ${JSON.stringify(first.right)}`)
            expect(first.left).toBeInstanceOf(RegistryUnavailable)
            const error = first.left as RegistryUnavailable
            expect(error.kind).toBe(known.kind)
            expect(error.reason.trim()).not.toBe("")
          } else {
            if (first._tag !== "Right") throw new Error(`expected an answer, got ${String(first.left)}`)
            expect(first.right).toEqual(known.expected)
          }
          expect(second).toEqual(first)
        }))
    }
  })

  describe("submitDocumentCheck", () => {
    it.effect("succeeds inside the submission's transaction", () =>
      Effect.gen(function*() {
        const identity = yield* Identity
        const check = yield* fixtures.documentCheck
        yield* transaction(identity.submitDocumentCheck(check))
      }))
  })
}

/** Runs the Identity contract against an adapter that provides `Identity`, SqlClient and EventBus. */
export const identityContract = <R = never, E = never>(
  adapter: Layer.Layer<ContractServices | R, E>,
  fixtures: IdentityFixtures<R>,
  name = "Identity contract"
) => layer(adapter, { excludeTestServices: true })(name, (it) => identityContractTests(it, fixtures))
