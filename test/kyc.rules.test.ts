import { describe, expect, it } from "vitest"
import type { KycItem, KycStatus } from "../src/kyc/Api.js"
import { compareNames, eligibility, nextRequired, remainingAfter, tier1Verdict } from "../src/kyc/KycRules.js"
import { RegistryUnavailable } from "../src/rails/Identity.js"

const ada = { firstName: "Ada", lastName: "Obi", middleName: null }
const statuses = (one: KycStatus, two: KycStatus = "NOT_STARTED", three: KycStatus = "NOT_STARTED") => ({ 1: one, 2: two, 3: three })

describe("compareNames", () => {
  it("ignores case, accents and spacing", () => {
    expect(compareNames(ada, { firstName: "  ADA ", lastName: "obi", middleName: "Ngozi" })).toBe("MATCH")
    expect(compareNames({ firstName: "Chloé", lastName: "Adé", middleName: null }, { firstName: "Chloe", lastName: "ADE", middleName: null })).toBe("MATCH")
  })
  it("calls one matching name, or swapped names, partial; nothing in common none", () => {
    expect(compareNames(ada, { firstName: "Chinedu", lastName: "Obi", middleName: null })).toBe("PARTIAL")
    expect(compareNames(ada, { firstName: "Obi", lastName: "Ada", middleName: null })).toBe("PARTIAL")
    expect(compareNames(ada, { firstName: "Musa", lastName: "Abubakar", middleName: null })).toBe("NONE")
  })
})

describe("tier1Verdict", () => {
  const found = (person: typeof ada) => ({ _tag: "Right" as const, right: { _tag: "Found" as const, person } })
  it("approves only when both numbers resolve to the profile", () => {
    expect(tier1Verdict(ada, [{ kind: "BVN", outcome: found(ada) }, { kind: "NIN", outcome: found(ada) }]))
      .toEqual({ status: "APPROVED", reason: null })
  })
  it("sends every other combination to review, naming each problem", () => {
    const verdict = tier1Verdict(ada, [
      { kind: "BVN", outcome: { _tag: "Left", left: new RegistryUnavailable({ kind: "BVN", reason: "timeout" }) } },
      { kind: "NIN", outcome: { _tag: "Right", right: { _tag: "NotFound" } } }
    ])
    expect(verdict.status).toBe("REVIEW")
    expect(verdict.reason).toBe("BVN registry did not answer in time; No NIN record was found")
  })
})

describe("nextRequired", () => {
  const cases: Array<[ReturnType<typeof statuses>, Array<KycItem>, Array<KycItem>]> = [
    [statuses("NOT_STARTED"), [], ["BVN", "NIN"]],
    [statuses("PENDING"), [], []],
    [statuses("REVIEW"), [], []],
    [statuses("REJECTED"), [], ["BVN", "NIN"]],
    [statuses("APPROVED"), [], ["ID_DOCUMENT", "SELFIE"]],
    [statuses("APPROVED", "PENDING"), [], []],
    [statuses("APPROVED", "REVIEW"), [], []],
    [statuses("APPROVED", "REJECTED"), [], ["ID_DOCUMENT", "SELFIE"]],
    [statuses("APPROVED", "APPROVED"), [], ["DATE_OF_BIRTH", "ADDRESS"]],
    [statuses("APPROVED", "APPROVED", "REVIEW"), [], []],
    [statuses("APPROVED", "APPROVED", "APPROVED"), [], []],
    [statuses("APPROVED", "APPROVED", "APPROVED"), ["COUNTRY"], ["COUNTRY"]],
    [statuses("APPROVED"), ["SELFIE", "BVN"], ["SELFIE", "BVN", "ID_DOCUMENT"]],
    [statuses("REVIEW"), ["ADDRESS_PROOF"], ["ADDRESS_PROOF"]]
  ]
  it.each(cases)("%j with outstanding %j asks for %j", (tiers, outstanding, expected) => {
    expect(nextRequired(tiers, outstanding)).toEqual(expected)
  })
})

describe("eligibility", () => {
  it("follows the submission table of docs/kyc.md", () => {
    expect(eligibility(1, statuses("NOT_STARTED"), [])).toBe("OK")
    expect(eligibility(1, statuses("REJECTED"), [])).toBe("OK")
    expect(eligibility(1, statuses("REVIEW"), ["BVN"])).toBe("AWAITING_DECISION")
    expect(eligibility(1, statuses("APPROVED"), [])).toBe("ALREADY_APPROVED")
    expect(eligibility(1, statuses("APPROVED"), ["NIN"])).toBe("OK")
    expect(eligibility(1, statuses("APPROVED"), ["SELFIE"])).toBe("ALREADY_APPROVED")
    expect(eligibility(2, statuses("REVIEW"), [])).toBe("PREVIOUS_TIER_NOT_APPROVED")
    expect(eligibility(2, statuses("APPROVED", "PENDING"), [])).toBe("AWAITING_DECISION")
    expect(eligibility(2, statuses("APPROVED", "APPROVED"), ["ID_DOCUMENT"])).toBe("OK")
  })
  it("drops a tier's items from the outstanding list once it is submitted", () => {
    expect(remainingAfter(["SELFIE", "BVN", "COUNTRY"], 1)).toEqual(["SELFIE", "COUNTRY"])
    expect(remainingAfter(["SELFIE", "BVN", "COUNTRY"], 2)).toEqual(["BVN", "COUNTRY"])
  })
})
