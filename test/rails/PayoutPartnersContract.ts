import { describe, expect, layer } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import { Effect, type Layer, Schema } from "effect"
import { PayoutPartners } from "../../src/rails/PayoutPartners.js"
import { Corridor, sendPurposes } from "../../src/reference/Corridors.js"
import { destinationGroupOfCountry, findDestinationGroup } from "../../src/reference/Groups.js"

/**
 * The contract of the `PayoutPartners` port (src/rails/PayoutPartners.ts, the implemented part of the payout rail:
 * `corridors`): what ANY adapter must answer, simulator or live. A live adapter's test calls
 * `payoutPartnersContract(layer, fixtures)`; docs/rails.md. Enrolment and payouts are declared only: their contract
 * comes with their flows.
 */
export interface PayoutPartnersFixtures<R = never> {
  /** A partner to list corridors for (it exists in the app's database). */
  readonly partner: Effect.Effect<string, never, R>
}

export const payoutPartnersContractTests = <R = never>(it: Vitest.MethodsNonLive<PayoutPartners | R, true>, fixtures: PayoutPartnersFixtures<R>) => {
  describe("corridors", () => {
    it.effect("answers a non-empty list in the reference shape (src/reference/Corridors.ts), each key once", () =>
      Effect.gen(function*() {
        const payout = yield* PayoutPartners
        const list = yield* payout.corridors(yield* fixtures.partner)
        expect(list.length).toBeGreaterThan(0)
        expect(Schema.decodeUnknownSync(Schema.Array(Corridor))(list)).toEqual(list)
        const keys = list.map((c) => c.corridor)
        expect(new Set(keys).size).toBe(keys.length)
      }))

    it.effect("a group corridor pays out to one of its group's countries; an ungrouped one is African", () =>
      Effect.gen(function*() {
        const payout = yield* PayoutPartners
        for (const c of yield* payout.corridors(yield* fixtures.partner)) {
          if (c.group === null) {
            expect(c.region, c.corridor).toBe("africa")
          } else {
            expect(findDestinationGroup(c.group)?.countries, c.corridor).toContain(c.country)
            expect(destinationGroupOfCountry(c.country)?.key, c.corridor).toBe(c.group)
          }
        }
      }))

    it.effect("every recipient pattern compiles, is anchored, and accepts its placeholder", () =>
      Effect.gen(function*() {
        const payout = yield* PayoutPartners
        for (const c of yield* payout.corridors(yield* fixtures.partner)) {
          for (const field of c.recipientSchema.filter((f) => f.pattern !== undefined)) {
            const where = `${c.corridor} ${field.key}`
            expect(field.pattern!.startsWith("^") && field.pattern!.endsWith("$"), where).toBe(true)
            expect(field.placeholder, where).toBeDefined()
            expect(new RegExp(field.pattern!).test(field.placeholder!), where).toBe(true)
          }
        }
      }))

    it.effect("a China corridor, if served, carries recipientFields, requiredDocuments, allowedPurposes and minAssetAmount", () =>
      Effect.gen(function*() {
        const payout = yield* PayoutPartners
        for (const c of (yield* payout.corridors(yield* fixtures.partner)).filter((x) => x.group === "china")) {
          expect(c.recipientFields, c.corridor).toEqual(expect.arrayContaining(c.recipientSchema.map((f) => f.key)))
          expect(c.requiredDocuments, c.corridor).toEqual(expect.arrayContaining(["invoice", "contract"]))
          expect(c.allowedPurposes?.length, c.corridor).toBeGreaterThan(0)
          for (const purpose of c.allowedPurposes!) expect(sendPurposes).toContain(purpose)
          expect(typeof c.minAssetAmount, c.corridor).toBe("number")
          expect(c.minAssetAmount! > 0).toBe(true)
        }
      }))

    it.effect("answers the same list twice in a row (a stable order)", () =>
      Effect.gen(function*() {
        const payout = yield* PayoutPartners
        const partnerId = yield* fixtures.partner
        expect(yield* payout.corridors(partnerId)).toEqual(yield* payout.corridors(partnerId))
      }))
  })
}

/** Runs the PayoutPartners contract against an adapter that provides `PayoutPartners`. */
export const payoutPartnersContract = <R = never, E = never>(
  adapter: Layer.Layer<PayoutPartners | R, E>,
  fixtures: PayoutPartnersFixtures<R>,
  name = "PayoutPartners contract"
) => layer(adapter, { excludeTestServices: true })(name, (it) => payoutPartnersContractTests(it, fixtures))
