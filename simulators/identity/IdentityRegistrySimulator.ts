import { Effect, Layer } from "effect"
import {
  type DocumentCheck,
  type DocumentCheckVerdict,
  IdentityRegistry,
  type IdentityNumberKind,
  type PersonName,
  type RegistryLookup,
  RegistryUnavailable
} from "../../src/rails/IdentityRegistry.js"

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
 * other number follows the partner's identity rail policy.
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

const forcedDocumentVerdict = (check: DocumentCheck): DocumentCheckVerdict | undefined => {
  switch (check.idNumber) {
    case magicDocumentNumbers.rejected:
      return { _tag: "Fail", reason: "The identity document could not be verified: the document number is not valid" }
    case magicDocumentNumbers.review:
      return { _tag: "Review", reason: "The selfie could not be matched to the document photo with confidence" }
    default:
      return undefined
  }
}

export const layer = Layer.succeed(IdentityRegistry, IdentityRegistry.of({ lookup, forcedDocumentVerdict }))
