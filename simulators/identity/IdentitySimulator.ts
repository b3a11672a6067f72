import { Effect, Layer, Schema } from "effect"
import { Jobs } from "../../src/jobs/Jobs.js"
import { Kyc } from "../../src/kyc/Kyc.js"
import {
  type DocumentCheckVerdict,
  Identity,
  type IdentityNumberKind,
  type PersonName,
  type RegistryLookup,
  RegistryUnavailable
} from "../../src/rails/Identity.js"
import { RailOutcome } from "../../src/rails/RailPolicy.js"
import { RailPolicies } from "../RailPolicies.js"

/**
 * The sandbox's BVN/NIN registries and document checker. Every ordinary number resolves to the customer being
 * verified, so the happy path needs no setup; these magic values reach every other branch (docs/kyc.md):
 *
 * | BVN or NIN      | Registry answer                                   | Tier 1 result |
 * |-----------------|---------------------------------------------------|---------------|
 * | `00000000000`   | times out                                          | REVIEW        |
 * | `11111111111`   | same last name, another first name (partial match) | REVIEW        |
 * | `22222222222`   | a different person (no name matches)               | REVIEW        |
 * | `99999999999`   | no record                                          | REVIEW        |
 *
 * Tier 2 document numbers: `00000000` fails the check (REJECTED), `11111111` is inconclusive (REVIEW); any
 * other number follows the partner's identity rail policy: `auto` answers after `delaySeconds` on the service
 * clock with the policy's outcome, `manual` leaves the submission PENDING for the reviewer's sandbox decision.
 */
export const magicNumbers = {
  timeout: "00000000000",
  partialMatch: "11111111111",
  otherPerson: "22222222222",
  noRecord: "99999999999"
} as const

export const magicDocumentNumbers = {
  rejected: "00000000",
  review: "11111111"
} as const

const otherPerson: PersonName = { firstName: "Musa", lastName: "Abubakar", middleName: null }

const lookup = (kind: IdentityNumberKind, number: string, subject: PersonName): Effect.Effect<RegistryLookup, RegistryUnavailable> => {
  switch (number) {
    case magicNumbers.timeout:
      return Effect.fail(new RegistryUnavailable({ kind, reason: `${kind} registry timed out` }))
    case magicNumbers.partialMatch:
      return Effect.succeed({
        _tag: "Found",
        person: { firstName: subject.firstName === "Chinedu" ? "Emeka" : "Chinedu", lastName: subject.lastName, middleName: null }
      })
    case magicNumbers.otherPerson:
      return Effect.succeed({ _tag: "Found", person: otherPerson })
    case magicNumbers.noRecord:
      return Effect.succeed({ _tag: "NotFound" })
    default:
      return Effect.succeed({ _tag: "Found", person: subject })
  }
}

/** The checker's verdict: magic document numbers first, else the policy's outcome. */
export const documentVerdict = (idNumber: string, outcome: RailOutcome): DocumentCheckVerdict => {
  switch (idNumber) {
    case magicDocumentNumbers.rejected:
      return { _tag: "Fail", reason: "The identity document could not be verified: the document number is not valid" }
    case magicDocumentNumbers.review:
      return { _tag: "Review", reason: "The selfie could not be matched to the document photo with confidence" }
    default:
      return outcome === "success" ? { _tag: "Pass" } : { _tag: "Fail", reason: policyFailureReason }
  }
}

/** Failure reason of a document check when the identity rail's policy outcome is `failure`. */
export const policyFailureReason = "The identity document could not be verified"

/** The job that answers a document check (kind kept from before the identity port, for persisted jobs). */
export const documentCheckJobKind = "kyc.tier2_check"
const DocumentCheckJob = Schema.Struct({
  recordId: Schema.UUID,
  outcome: RailOutcome,
  /** Absent in jobs written before the port existed: no magic number then. */
  idNumber: Schema.optional(Schema.String)
})

export const layer = Layer.effect(
  Identity,
  Effect.gen(function*() {
    const jobs = yield* Jobs
    const policies = yield* RailPolicies
    return Identity.of({
      lookup,
      submitDocumentCheck: (check) =>
        Effect.gen(function*() {
          const policy = yield* policies.policyFor(check.partnerId, "identity")
          if (policy.mode === "manual") return
          yield* jobs.schedule({
            kind: documentCheckJobKind,
            partnerId: check.partnerId,
            customerId: check.customerId,
            delaySeconds: policy.delaySeconds,
            payload: { recordId: check.checkId, outcome: policy.outcome, idNumber: check.idNumber }
          })
        }).pipe(Effect.orDie)
    })
  })
)

/** The simulated checker's verdicts, delivered by jobs to `Kyc.settleDocumentCheck`. Built after the domain. */
export const outcomesLayer = Layer.effectDiscard(Effect.gen(function*() {
  const jobs = yield* Jobs
  const kyc = yield* Kyc
  yield* jobs.register(documentCheckJobKind, DocumentCheckJob, ({ recordId, outcome, idNumber }, job) =>
    kyc.settleDocumentCheck(job.partnerId, recordId, documentVerdict(idNumber ?? "", outcome)), {
    describe: ({ idNumber, outcome, recordId }) => {
      const verdict = documentVerdict(idNumber ?? "", outcome)
      const result = verdict._tag === "Pass" ? "approves it" : verdict._tag === "Review" ? "sends it to review" : "rejects it"
      return { description: `the identity document check of KYC record ${recordId} ${result}`, resourceId: recordId }
    }
  })
}))
