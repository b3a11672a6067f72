import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import type { Customers } from "../../src/customers/Customers.js"
import type { Partners } from "../../src/partners/Partners.js"
import { transaction } from "../../src/events/Events.js"
import { PayoutRailUnavailable } from "../../src/rails/Errors.js"
import { type EnrolmentRequest, PayoutEnrolments, PayoutPartners } from "../../src/rails/PayoutPartners.js"
import type { RailMode, RailOutcome } from "../../src/rails/RailPolicy.js"
import * as Unavailable from "../../src/rails/Unavailable.js"
import { corridors } from "../../src/reference/Corridors.js"
import type { DestinationGroupKey } from "../../src/reference/Groups.js"
import { decisionFor, decisionJobKind, reasons, toDecision } from "../../simulators/payout/Enrolments.js"
import * as PayoutSimulator from "../../simulators/payout/PayoutSimulator.js"
import { RailPolicies } from "../../simulators/RailPolicies.js"
import { payoutPartnersContract, type PayoutPartnersFixtures } from "./PayoutPartnersContract.js"
import { jobsOf, newSubject, serviceNow, simulatedServicesLayer, type Subject } from "./SimulatedRails.js"

/**
 * The PayoutPartners contract run against the payout simulator (simulators/payout), then what only the simulator
 * promises: the reference corridors as they are, for every partner, whatever the `payout` rail policy; the
 * `PayoutEnrolments` port's simulator (simulators/payout/Enrolments.ts: one `payout.enrolment_decision` job per send
 * under the auto policy, the decision forced by a magic postal code or the policy's outcome, nothing under manual);
 * and production's no-adapter layer for both ports.
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

// ---------------------------------------------------------------------------------------------------------------
// PayoutEnrolments: the simulated partners' enrolment desk

const ordinaryPostalCode = "101241"

const individualProfile = (postalCode: string) => ({
  kycId: Crypto.randomUUID(),
  firstName: "Ada",
  lastName: "Obi",
  email: "ada@example.com",
  country: "NG",
  customerType: "INDIVIDUAL",
  dateOfBirth: "1990-04-12",
  address: { line1: "12 Marina Road", city: "Lagos", postalCode, country: "NG" }
})

/** A business's profile: the postal code that counts is the business's registered address. */
const businessProfile = (postalCode: string, ownerPostalCode = ordinaryPostalCode) => ({
  kycId: Crypto.randomUUID(),
  firstName: "Ada",
  lastName: "Obi",
  email: "ada@example.com",
  country: "NG",
  customerType: "BUSINESS",
  // An individual's address on a business body never decides: the business's registered address does.
  address: { line1: "1 Elsewhere", city: "Abuja", postalCode: ownerPostalCode, country: "NG" },
  business: {
    businessType: "LLC",
    profile: {
      registeredName: "Obi Kitchens Ltd",
      registrationNumber: "RC 1234567",
      address: { line1: "12 Marina Road", city: "Lagos", postalCode, country: "NG" }
    }
  }
})

const requestOf = (
  subject: Subject,
  options: { readonly postalCode?: string; readonly group?: DestinationGroupKey; readonly attempt?: number; readonly business?: boolean; readonly resend?: boolean } = {}
): EnrolmentRequest => {
  const postalCode = options.postalCode ?? ordinaryPostalCode
  return {
    partnerId: subject.partnerId,
    customerId: subject.customerId,
    enrolmentId: Crypto.randomUUID(),
    attempt: options.attempt ?? 1,
    group: options.group ?? "americas_europe",
    customerType: options.business === true ? "BUSINESS" : "INDIVIDUAL",
    destinationCountry: options.group === "china" ? "CN" : "US",
    profile: options.business === true ? businessProfile(postalCode) : individualProfile(postalCode),
    resend: options.resend ?? false
  }
}

const setPayoutPolicy = (subject: Subject, mode: RailMode, outcome: RailOutcome = "success", delaySeconds?: number) =>
  Effect.flatMap(RailPolicies, (policies) => policies.set(subject.partnerId, "payout", { mode, outcome, delaySeconds }))

/** Sends an enrolment inside a transaction, as the Tier 3 submission and the re-send do. */
const enrol = (request: EnrolmentRequest) => Effect.flatMap(PayoutEnrolments, (enrolments) => transaction(enrolments.enrol(request)))

/** The magic postal codes of docs/international.md "Sandbox: the payout partners", literally. */
const magicCases = [
  { postalCode: "00001", decision: "refuse", reason: reasons.refuse },
  { postalCode: "00002", decision: "review", reason: null },
  { postalCode: "00003", decision: "reject", reason: reasons.reject }
] as const

layer(simulatedServicesLayer, { excludeTestServices: true })("PayoutEnrolments: the simulator's enrol", (it) => {
  describe("auto policy: exactly one payout.enrolment_decision job per send", () => {
    it.effect("default policy (auto, success, 900 s): one job naming the enrolment, the attempt, the group, approve", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const now = yield* serviceNow
        const request = requestOf(subject)
        yield* enrol(request)
        expect(decisionJobKind).toBe("payout.enrolment_decision")
        expect(yield* jobsOf(subject.partnerId)).toEqual([{
          kind: "payout.enrolment_decision",
          partnerId: subject.partnerId,
          customerId: subject.customerId,
          runAt: new Date(now.getTime() + 900_000),
          status: "PENDING",
          payload: { enrolmentId: request.enrolmentId, attempt: 1, group: "americas_europe", decision: "approve", reason: null }
        }])
      }))

    it.effect("a magic postal code forces its decision, for an individual and a business, in either group", () =>
      Effect.gen(function*() {
        for (const { decision, postalCode, reason } of magicCases) {
          for (const [business, group] of [[false, "americas_europe"], [true, "china"]] as const) {
            const subject = yield* newSubject()
            const request = requestOf(subject, { postalCode, business, group })
            yield* enrol(request)
            const jobs = yield* jobsOf(subject.partnerId)
            expect(jobs.map((job) => [job.kind, job.payload]), `${postalCode} business=${business}`).toEqual([[
              "payout.enrolment_decision",
              { enrolmentId: request.enrolmentId, attempt: 1, group, decision, reason }
            ]])
          }
        }
      }))

    it.effect("policy failure (30 s): an ordinary postal code is rejected with the policy's reason; magic codes still win", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        yield* setPayoutPolicy(subject, "auto", "failure", 30)
        const now = yield* serviceNow
        const ordinary = requestOf(subject)
        const magic = magicCases.map(({ postalCode }) => requestOf(subject, { postalCode }))
        for (const request of [ordinary, ...magic]) yield* enrol(request)
        expect((yield* jobsOf(subject.partnerId)).map((job) => [job.kind, job.runAt, job.payload])).toEqual([
          ["payout.enrolment_decision", new Date(now.getTime() + 30_000), {
            enrolmentId: ordinary.enrolmentId,
            attempt: 1,
            group: "americas_europe",
            decision: "reject",
            reason: reasons.policy
          }],
          ...magicCases.map(({ decision, reason }, i) => ["payout.enrolment_decision", new Date(now.getTime() + 30_000), {
            enrolmentId: magic[i]!.enrolmentId,
            attempt: 1,
            group: "americas_europe",
            decision,
            reason
          }])
        ])
      }))

    it.effect("a re-send carries its attempt: one more job, nothing else", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const first = requestOf(subject)
        yield* enrol(first)
        yield* enrol({ ...first, attempt: 2, resend: true })
        expect((yield* jobsOf(subject.partnerId)).map((job) => [job.payload.enrolmentId, job.payload.attempt, job.payload.decision])).toEqual([
          [first.enrolmentId, 1, "approve"],
          [first.enrolmentId, 2, "approve"]
        ])
      }))

    it.effect("a rolled-back send leaves no job behind", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const enrolments = yield* PayoutEnrolments
        const outcome = yield* transaction(Effect.zipRight(enrolments.enrol(requestOf(subject)), Effect.fail("abort" as const))).pipe(Effect.flip)
        expect(outcome).toBe("abort")
        expect(yield* jobsOf(subject.partnerId)).toEqual([])
      }))
  })

  it.effect("manual policy schedules nothing, magic postal codes included (the sandbox controls decide)", () =>
    Effect.gen(function*() {
      const subject = yield* newSubject()
      yield* setPayoutPolicy(subject, "manual")
      for (const postalCode of [ordinaryPostalCode, ...magicCases.map((c) => c.postalCode)]) {
        yield* enrol(requestOf(subject, { postalCode }))
        yield* enrol(requestOf(subject, { postalCode, business: true, group: "china" }))
      }
      expect(yield* jobsOf(subject.partnerId)).toEqual([])
    }))

  it.effect("the policy is the request's partner's: another partner's manual policy does not stop this one's job", () =>
    Effect.gen(function*() {
      const manual = yield* newSubject()
      const auto = yield* newSubject()
      yield* setPayoutPolicy(manual, "manual")
      yield* enrol(requestOf(auto))
      yield* enrol(requestOf(manual))
      expect((yield* jobsOf(auto.partnerId)).length).toBe(1)
      expect(yield* jobsOf(manual.partnerId)).toEqual([])
    }))
})

describe("PayoutEnrolments: the simulator's decisions (pure)", () => {
  const subject: Subject = { partnerId: Crypto.randomUUID(), customerId: Crypto.randomUUID() }

  it("decisionFor: a magic postal code wins over either outcome; another code follows the outcome", () => {
    for (const outcome of ["success", "failure"] as const) {
      for (const business of [false, true]) {
        for (const { decision, postalCode, reason } of magicCases) {
          expect(decisionFor(requestOf(subject, { postalCode, business }), outcome), `${postalCode} ${outcome} business=${business}`)
            .toEqual({ decision, reason })
        }
        expect(decisionFor(requestOf(subject, { business }), outcome)).toEqual(
          outcome === "success" ? { decision: "approve", reason: null } : { decision: "reject", reason: reasons.policy }
        )
      }
    }
  })

  it("decisionFor: a business is decided by its registered address, not an individual address on the body", () => {
    const request = requestOf(subject, { business: true })
    expect(decisionFor({ ...request, profile: businessProfile(ordinaryPostalCode, "00001") }, "success")).toEqual({ decision: "approve", reason: null })
    expect(decisionFor({ ...request, profile: businessProfile("00003", ordinaryPostalCode) }, "success")).toEqual({ decision: "reject", reason: reasons.reject })
  })

  it("decisionFor: a near-miss, a number or a missing postal code is not magic", () => {
    const base = requestOf(subject)
    for (const address of [
      { postalCode: "0001" },
      { postalCode: " 00001" },
      { postalCode: "000010" },
      { postalCode: 1 },
      {},
      undefined
    ]) {
      const profile = { ...base.profile, address }
      expect(decisionFor({ ...base, profile }, "success"), JSON.stringify(address)).toEqual({ decision: "approve", reason: null })
      expect(decisionFor({ ...base, profile }, "failure"), JSON.stringify(address)).toEqual({ decision: "reject", reason: reasons.policy })
    }
  })

  it("toDecision: each job decision to the port's EnrolmentDecision, the reason kept or defaulted", () => {
    expect(toDecision("approve", null)).toEqual({ _tag: "Approved" })
    expect(toDecision("review", null)).toEqual({ _tag: "Review" })
    expect(toDecision("reject", reasons.policy)).toEqual({ _tag: "Rejected", reason: reasons.policy })
    expect(toDecision("reject", null)).toEqual({ _tag: "Rejected", reason: reasons.reject })
    expect(toDecision("refuse", "not matched")).toEqual({ _tag: "Refused", reason: "not matched" })
    expect(toDecision("refuse", null)).toEqual({ _tag: "Refused", reason: reasons.refuse })
  })

  it("decisionFor then toDecision: 00001 Refused, 00002 Review, 00003 Rejected, else Approved (success) or Rejected (failure)", () => {
    const decided = (postalCode: string, outcome: RailOutcome) => {
      const { decision, reason } = decisionFor(requestOf(subject, { postalCode }), outcome)
      return toDecision(decision, reason)
    }
    expect(decided("00001", "success")).toEqual({ _tag: "Refused", reason: reasons.refuse })
    expect(decided("00002", "failure")).toEqual({ _tag: "Review" })
    expect(decided("00003", "success")).toEqual({ _tag: "Rejected", reason: reasons.reject })
    expect(decided(ordinaryPostalCode, "success")).toEqual({ _tag: "Approved" })
    expect(decided(ordinaryPostalCode, "failure")).toEqual({ _tag: "Rejected", reason: reasons.policy })
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

    it.effect("enrol answers PAYOUT_RAIL_UNAVAILABLE, for a first send and a re-send, an individual and a business", () =>
      Effect.gen(function*() {
        const enrolments = yield* PayoutEnrolments
        const subject: Subject = { partnerId: Crypto.randomUUID(), customerId: Crypto.randomUUID() }
        for (const request of [
          requestOf(subject),
          requestOf(subject, { group: "china", business: true }),
          requestOf(subject, { attempt: 2, resend: true, postalCode: "00002" })
        ]) {
          const error = yield* Effect.flip(enrolments.enrol(request))
          expect(error).toBeInstanceOf(PayoutRailUnavailable)
          expect(error).toMatchObject({ _tag: "PayoutRailUnavailable", statusCode: 503, code: "PAYOUT_RAIL_UNAVAILABLE", message: expect.stringMatching(/payout rail/) })
        }
      }))
  })

  it("the production rails layer (Unavailable.layer) wires the same refusing PayoutEnrolments", async () => {
    const error = await Effect.runPromise(
      Effect.flatMap(PayoutEnrolments, (enrolments) =>
        Effect.flip(enrolments.enrol(requestOf({ partnerId: Crypto.randomUUID(), customerId: Crypto.randomUUID() })))).pipe(
          Effect.provide(Unavailable.layer)
        )
    )
    expect(error).toBeInstanceOf(PayoutRailUnavailable)
    expect(error.code).toBe("PAYOUT_RAIL_UNAVAILABLE")
  })
})
