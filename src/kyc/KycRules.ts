import type { KycItem, KycStatus } from "./Api.js"
import type { PersonName, RegistryLookup, RegistryUnavailable } from "../rails/Identity.js"

/** Pure KYC rules: name matching, the Tier 1 verdict, submission eligibility and `nextRequired`. */

export type NameMatch = "MATCH" | "PARTIAL" | "NONE"

const normalise = (name: string) => name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").trim().toLowerCase().replace(/\s+/g, " ")

/** A name as a set of words: case, accents, punctuation, spacing and order aside (a payee name against the bank's). */
export const nameWords = (name: string) =>
  normalise(name).split(/[^a-z0-9]+/).filter((word) => word.length > 0).sort().join(" ")

/** First and last names both equal (case, accents and spacing ignored) is a match; one of them is partial. */
export const compareNames = (profile: PersonName, registry: PersonName): NameMatch => {
  const first = normalise(profile.firstName) === normalise(registry.firstName)
  const last = normalise(profile.lastName) === normalise(registry.lastName)
  if (first && last) return "MATCH"
  // A swapped first and last name is a common data-entry slip: a reviewer should look, not a refusal.
  const swapped = normalise(profile.firstName) === normalise(registry.lastName) ||
    normalise(profile.lastName) === normalise(registry.firstName)
  return first || last || swapped ? "PARTIAL" : "NONE"
}

export type LookupOutcome =
  | { readonly _tag: "Right"; readonly right: RegistryLookup }
  | { readonly _tag: "Left"; readonly left: RegistryUnavailable }

export interface Tier1Verdict {
  readonly status: "APPROVED" | "REVIEW"
  /** Why it went to review; null when approved. */
  readonly reason: string | null
}

/** Both numbers resolve and match the profile: APPROVED; anything else goes to a reviewer. */
export const tier1Verdict = (
  profile: PersonName,
  lookups: ReadonlyArray<{ readonly kind: "BVN" | "NIN"; readonly outcome: LookupOutcome }>
): Tier1Verdict => {
  const reasons: Array<string> = []
  for (const { kind, outcome } of lookups) {
    if (outcome._tag === "Left") {
      reasons.push(`${kind} registry did not answer in time`)
      continue
    }
    if (outcome.right._tag === "NotFound") {
      reasons.push(`No ${kind} record was found`)
      continue
    }
    const match = compareNames(profile, outcome.right.person)
    if (match === "PARTIAL") reasons.push(`The ${kind} name only partially matches the customer's name`)
    if (match === "NONE") reasons.push(`The ${kind} name does not match the customer's name`)
  }
  return reasons.length === 0 ? { status: "APPROVED", reason: null } : { status: "REVIEW", reason: reasons.join("; ") }
}

/** Which inputs re-submit which tier; the rest (Tier 3 inputs) are satisfied by the Tier 3 submission. */
export const itemsOfTier: Readonly<Record<1 | 2 | 3, ReadonlyArray<KycItem>>> = {
  1: ["BVN", "NIN"],
  2: ["ID_DOCUMENT", "SELFIE"],
  3: ["DATE_OF_BIRTH", "ADDRESS", "COUNTRY", "ADDRESS_PROOF"]
}

/** What the tier-by-tier part of `nextRequired` asks for, by tier. */
const tierInputs: Readonly<Record<1 | 2 | 3, ReadonlyArray<KycItem>>> = {
  1: ["BVN", "NIN"],
  2: ["ID_DOCUMENT", "SELFIE"],
  3: ["DATE_OF_BIRTH", "ADDRESS"]
}

export type Eligibility = "OK" | "PREVIOUS_TIER_NOT_APPROVED" | "ALREADY_APPROVED" | "AWAITING_DECISION"

/**
 * May this tier be submitted now? The previous tier must be approved; a tier awaiting a decision cannot be
 * submitted again; an approved tier only when an open re-verification asks for one of its inputs; a rejected
 * or never-submitted tier always.
 */
export const eligibility = (
  level: 1 | 2 | 3,
  statuses: Readonly<Record<1 | 2 | 3, KycStatus>>,
  outstanding: ReadonlyArray<KycItem>
): Eligibility => {
  if (level > 1 && statuses[(level - 1) as 1 | 2] !== "APPROVED") return "PREVIOUS_TIER_NOT_APPROVED"
  const current = statuses[level]
  if (current === "PENDING" || current === "REVIEW") return "AWAITING_DECISION"
  if (current === "APPROVED" && !itemsOfTier[level].some((item) => outstanding.includes(item))) return "ALREADY_APPROVED"
  return "OK"
}

/**
 * `nextRequired` (docs/contract.md "Verification summary"): the open re-verification's outstanding items first; then the inputs of the first tier
 * that is not approved, unless that tier awaits a decision (then nothing); nothing when every tier is approved.
 */
export const nextRequired = (
  statuses: Readonly<Record<1 | 2 | 3, KycStatus>>,
  outstanding: ReadonlyArray<KycItem>
): ReadonlyArray<KycItem> => {
  const result: Array<KycItem> = [...outstanding]
  for (const level of [1, 2, 3] as const) {
    const status = statuses[level]
    if (status === "APPROVED") continue
    if (status === "NOT_STARTED" || status === "REJECTED") {
      for (const item of tierInputs[level]) if (!result.includes(item)) result.push(item)
    }
    break
  }
  return result
}

/** Outstanding items left after a submission of `level`. */
export const remainingAfter = (outstanding: ReadonlyArray<KycItem>, level: 1 | 2 | 3): ReadonlyArray<KycItem> =>
  outstanding.filter((item) => !itemsOfTier[level].includes(item))
