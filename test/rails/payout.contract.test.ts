import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import type { Customers } from "../../src/customers/Customers.js"
import type { Partners } from "../../src/partners/Partners.js"
import { PayoutRailUnavailable } from "../../src/rails/Errors.js"
import { PayoutPartners } from "../../src/rails/PayoutPartners.js"
import * as Unavailable from "../../src/rails/Unavailable.js"
import { corridors } from "../../src/reference/Corridors.js"
import * as PayoutSimulator from "../../simulators/payout/PayoutSimulator.js"
import { RailPolicies } from "../../simulators/RailPolicies.js"
import { payoutPartnersContract, type PayoutPartnersFixtures } from "./PayoutPartnersContract.js"
import { jobsOf, newSubject, simulatedServicesLayer } from "./SimulatedRails.js"

/**
 * The PayoutPartners contract run against the payout simulator (simulators/payout), then what only the simulator
 * promises: the reference corridors as they are, for every partner, whatever the `payout` rail policy; and
 * production's no-adapter layer.
 */
const simulator: PayoutPartnersFixtures<Partners | Customers> = {
  partner: Effect.map(newSubject(), (subject) => subject.partnerId)
}

payoutPartnersContract(simulatedServicesLayer, simulator, "PayoutPartners contract: simulator")

layer(simulatedServicesLayer, { excludeTestServices: true })("payout simulator specifics", (it) => {
  it.effect("is the wired adapter, and answers the reference corridors as they are, the same object for every partner", () =>
    Effect.gen(function*() {
      const payout = yield* PayoutPartners
      const a = yield* newSubject()
      const b = yield* newSubject("KE")
      expect(yield* payout.corridors(a.partnerId)).toBe(corridors)
      expect(yield* payout.corridors(b.partnerId)).toBe(corridors)
    }))

  it.effect("the payout rail policy does not apply to the list (manual, failure: the same corridors), and nothing is scheduled", () =>
    Effect.gen(function*() {
      const payout = yield* PayoutPartners
      const policies = yield* RailPolicies
      const subject = yield* newSubject()
      yield* policies.set(subject.partnerId, "payout", { mode: "manual" })
      expect(yield* payout.corridors(subject.partnerId)).toBe(corridors)
      yield* policies.set(subject.partnerId, "payout", { mode: "auto", outcome: "failure" })
      expect(yield* payout.corridors(subject.partnerId)).toBe(corridors)
      expect(yield* jobsOf(subject.partnerId)).toEqual([])
    }))

  it("the standalone layer serves the same list", async () => {
    const list = await Effect.runPromise(Effect.flatMap(PayoutPartners, (payout) => payout.corridors(Crypto.randomUUID())).pipe(
      Effect.provide(PayoutSimulator.layer)
    ))
    expect(list).toBe(corridors)
  })
})

describe("production's payout adapter without a live one (src/rails/Unavailable.ts)", () => {
  layer(Unavailable.payoutLayer)((it) => {
    it.effect("corridors answer PAYOUT_RAIL_UNAVAILABLE", () =>
      Effect.gen(function*() {
        const payout = yield* PayoutPartners
        const error = yield* Effect.flip(payout.corridors(Crypto.randomUUID()))
        expect(error).toBeInstanceOf(PayoutRailUnavailable)
        expect(error).toMatchObject({ statusCode: 503, code: "PAYOUT_RAIL_UNAVAILABLE" })
      }))
  })
})
