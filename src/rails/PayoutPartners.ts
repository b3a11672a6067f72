import { Context, Data, type Effect } from "effect"

/**
 * The payout-partner rail: the cross-border partners that enrol a verified customer per destination group
 * (SPEC.md "International verification": `americas_europe`, `china`) and pay out by corridor (SPEC.md "Global
 * send"). Declared here so that the Tier 3 / international and global-send issues only implement it. Requests go
 * out through this port; enrolment decisions and payout outcomes come back later through the domain's settlement
 * entry points (international enrolment and global send), from a simulator's job, a sandbox control or a live
 * adapter's callback.
 */
export type DestinationGroup = "americas_europe" | "china"

export interface EnrolmentRequest {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the enrolment: the decision names it. */
  readonly enrolmentId: string
  readonly group: DestinationGroup
  readonly customerType: "INDIVIDUAL" | "BUSINESS"
  readonly destinationCountry: string
  /** The verified profile and documents the partner needs (Tier 1-3 details), as the domain holds them. */
  readonly profile: Readonly<Record<string, unknown>>
  /** True when the same enrolment is sent again (re-send of held details): free, never a second customer. */
  readonly resend: boolean
}

/** The partner's answer to an enrolment. `Refused`: it will not create the customer (no fee is taken). */
export type EnrolmentDecision =
  | { readonly _tag: "Approved" }
  | { readonly _tag: "Rejected"; readonly reason: string }
  | { readonly _tag: "Refused"; readonly reason: string }

export interface RecipientField {
  readonly key: string
  readonly label: string
  readonly required: boolean
  readonly pattern?: string | undefined
  readonly patternHint?: string | undefined
  readonly options?: ReadonlyArray<string> | undefined
  readonly keyboard?: string | undefined
  readonly placeholder?: string | undefined
}

export interface Corridor {
  readonly country: string
  readonly currency: string
  readonly region: "africa" | "asia" | "europe" | "middle_east" | "north_america" | "south_america" | "oceania"
  readonly group: DestinationGroup | null
  readonly recipientSchema: ReadonlyArray<RecipientField>
  /** Smallest payout after fees, in USDT minor units, where the partner sets one (China: 26 USDT). */
  readonly minAssetAmount: bigint | null
}

export interface PayoutRequest {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the global send: the outcome names it. */
  readonly payoutId: string
  readonly reference: string
  readonly country: string
  readonly purpose: string
  readonly beneficiary: Readonly<Record<string, unknown>>
  /** What the recipient receives, in minor units of `currency`. */
  readonly currency: string
  readonly amount: bigint
}

export type PayoutOutcome =
  | { readonly _tag: "Completed" }
  | { readonly _tag: "Failed"; readonly reason: string }

/** The partner did not answer; nothing is known to have moved. */
export class PayoutPartnerUnavailable extends Data.TaggedError("PayoutPartnerUnavailable")<{ readonly reason: string }> {}

export interface PayoutPartnersShape {
  /** Corridors the partners serve for a customer's partner. */
  readonly corridors: (partnerId: string) => Effect.Effect<ReadonlyArray<Corridor>, PayoutPartnerUnavailable>
  /** Sends (or re-sends) a customer's enrolment for a group; the decision comes back later. */
  readonly enrol: (request: EnrolmentRequest) => Effect.Effect<void, PayoutPartnerUnavailable>
  /** Hands a payout to the corridor's partner; the outcome comes back later. */
  readonly submitPayout: (payout: PayoutRequest) => Effect.Effect<void, PayoutPartnerUnavailable>
}

export class PayoutPartners extends Context.Tag("rails/PayoutPartners")<PayoutPartners, PayoutPartnersShape>() {}
