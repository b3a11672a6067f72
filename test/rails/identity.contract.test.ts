import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import type { Customers } from "../../src/customers/Customers.js"
import { transaction } from "../../src/events/Events.js"
import type { Partners } from "../../src/partners/Partners.js"
import { type DocumentCheck, Identity } from "../../src/rails/Identity.js"
import type { RailMode, RailOutcome } from "../../src/rails/RailPolicy.js"
import { documentVerdict } from "../../simulators/identity/IdentitySimulator.js"
import { RailPolicies } from "../../simulators/RailPolicies.js"
import { identityContract, type IdentityFixtures } from "./IdentityContract.js"
import { jobsOf, newSubject, serviceNow, simulatedServicesLayer, type Subject } from "./SimulatedRails.js"

/**
 * The Identity contract run against the identity simulator (simulators/identity), with its magic numbers as the
 * known answers (literals from the simulator's table and docs/kyc.md "Magic values"), then what only the simulator
 * promises: the document-check jobs it schedules per the `identity` rail policy and its verdicts.
 */
const ada = { firstName: "Ada", lastName: "Obi", middleName: null }
const chinedu = { firstName: "Chinedu", lastName: "Okafor", middleName: "Ngozi" }

const checkFor = (subject: Subject, idNumber = "A12345678"): DocumentCheck => ({
  partnerId: subject.partnerId,
  customerId: subject.customerId,
  checkId: Crypto.randomUUID(),
  idType: "PASSPORT",
  idNumber,
  frontDocumentId: Crypto.randomUUID(),
  backDocumentId: null,
  selfieDocumentId: Crypto.randomUUID()
})

const simulator: IdentityFixtures<Partners | Customers> = {
  lookups: [
    { label: "ordinary", kind: "BVN", number: "12345678901", subject: ada, expected: { _tag: "Found", person: ada } },
    { label: "ordinary, middle name kept", kind: "NIN", number: "10987654321", subject: chinedu, expected: { _tag: "Found", person: chinedu } },
    { label: "registry times out", kind: "BVN", number: "00000000000", subject: ada, expected: "RegistryUnavailable" },
    { label: "registry times out", kind: "NIN", number: "00000000000", subject: ada, expected: "RegistryUnavailable" },
    {
      label: "partial match: same last name, another first name",
      kind: "BVN",
      number: "11111111111",
      subject: ada,
      expected: { _tag: "Found", person: { firstName: "Chinedu", lastName: "Obi", middleName: null } }
    },
    {
      label: "partial match for a Chinedu: Emeka",
      kind: "NIN",
      number: "11111111111",
      subject: chinedu,
      expected: { _tag: "Found", person: { firstName: "Emeka", lastName: "Okafor", middleName: null } }
    },
    {
      label: "a different person",
      kind: "BVN",
      number: "22222222222",
      subject: ada,
      expected: { _tag: "Found", person: { firstName: "Musa", lastName: "Abubakar", middleName: null } }
    },
    { label: "no record", kind: "NIN", number: "99999999999", subject: ada, expected: { _tag: "NotFound" } }
  ],
  documentCheck: Effect.map(newSubject(), (subject) => checkFor(subject))
}

identityContract(simulatedServicesLayer, simulator, "Identity contract: simulator")

const setIdentityPolicy = (subject: Subject, mode: RailMode, outcome: RailOutcome = "success", delaySeconds?: number) =>
  Effect.flatMap(RailPolicies, (policies) => policies.set(subject.partnerId, "identity", { mode, outcome, delaySeconds }))

const submit = (check: DocumentCheck) => Effect.flatMap(Identity, (identity) => transaction(identity.submitDocumentCheck(check)))

layer(simulatedServicesLayer, { excludeTestServices: true })("identity simulator specifics", (it) => {
  describe("submitDocumentCheck schedules a kyc.tier2_check job on the auto identity rail", () => {
    it.effect("default policy (auto, success, 120 s): one job naming the check, the outcome and the document number", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const now = yield* serviceNow
        const check = checkFor(subject)
        yield* submit(check)
        expect(yield* jobsOf(subject.partnerId)).toEqual([{
          kind: "kyc.tier2_check",
          partnerId: subject.partnerId,
          customerId: subject.customerId,
          runAt: new Date(now.getTime() + 120_000),
          status: "PENDING",
          payload: { recordId: check.checkId, outcome: "success", idNumber: "A12345678" }
        }])
      }))

    it.effect("auto with outcome failure and a 30 s delay; magic document numbers are carried to the job", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        yield* setIdentityPolicy(subject, "auto", "failure", 30)
        const now = yield* serviceNow
        const checks = [checkFor(subject), checkFor(subject, "00000000"), checkFor(subject, "11111111")]
        for (const check of checks) yield* submit(check)
        expect((yield* jobsOf(subject.partnerId)).map((job) => [job.kind, job.runAt, job.payload])).toEqual(checks.map((check) => [
          "kyc.tier2_check",
          new Date(now.getTime() + 30_000),
          { recordId: check.checkId, outcome: "failure", idNumber: check.idNumber }
        ]))
      }))

    it.effect("manual mode schedules nothing, magic document numbers included (the reviewer decides)", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        yield* setIdentityPolicy(subject, "manual")
        for (const number of ["A12345678", "00000000", "11111111"]) yield* submit(checkFor(subject, number))
        expect(yield* jobsOf(subject.partnerId)).toEqual([])
      }))

    it.effect("a rolled-back submission leaves no job behind", () =>
      Effect.gen(function*() {
        const subject = yield* newSubject()
        const identity = yield* Identity
        const outcome = yield* transaction(Effect.zipRight(identity.submitDocumentCheck(checkFor(subject)), Effect.fail("abort" as const)))
          .pipe(Effect.flip)
        expect(outcome).toBe("abort")
        expect(yield* jobsOf(subject.partnerId)).toEqual([])
      }))
  })

  describe("the job's verdict (documented in docs/kyc.md)", () => {
    it("magic document numbers win over the policy's outcome; other numbers follow it", () => {
      expect(documentVerdict("00000000", "success")).toEqual({
        _tag: "Fail",
        reason: "The identity document could not be verified: the document number is not valid"
      })
      expect(documentVerdict("11111111", "failure")).toEqual({
        _tag: "Review",
        reason: "The selfie could not be matched to the document photo with confidence"
      })
      expect(documentVerdict("A12345678", "success")).toEqual({ _tag: "Pass" })
      expect(documentVerdict("A12345678", "failure")).toEqual({ _tag: "Fail", reason: "The identity document could not be verified" })
    })
  })
})
