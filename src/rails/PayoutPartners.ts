import { Context, type Effect } from "effect"
import type { Corridor } from "../reference/Corridors.js"
import type { DestinationGroupKey } from "../reference/Groups.js"
import type { PayoutRailUnavailable } from "./Errors.js"

/**
 * The payout-partner rail: the cross-border partners that enrol a verified customer per destination group
 * (SPEC.md "International verification": `americas_europe`, `china`; src/reference/Groups.ts) and pay out by
 * corridor (SPEC.md "Global send"; src/reference/Corridors.ts). Requests go out through these ports; enrolment
 * decisions and payout outcomes come back later through the domain's settlement entry points (international
 * enrolment and global send), from a simulator's job, a sandbox control or a live adapter's callback.
 *
 * The rail is split by operation, so that each part is implemented (by the simulator and production's no-adapter
 * layer) when the flow that calls it is built, and nothing is wired half-built:
 *
 * - `PayoutPartners`: the corridors the partners serve. Implemented: `simulators/payout/PayoutSimulator.ts`,
 *   `src/rails/Unavailable.ts`; called by `GET .../global-send/corridors`.
 * - `PayoutEnrolments` (`enrol`) and `PayoutSubmissions` (`submitPayout`): **declared only**. No adapter implements
 *   them and nothing requires them yet; the Tier 3 enrolment and global-send issues implement and wire them
 *   (docs/rails.md "PayoutPartners").
 *
 * Every operation may fail with the rail's unavailable error (503 `PAYOUT_RAIL_UNAVAILABLE`), which is also what a
 * live adapter answers when it is switched off.
 */
export type { Corridor } from "../reference/Corridors.js"
export type { DestinationGroupKey } from "../reference/Groups.js"

export interface PayoutPartnersShape {
  /**
   * The corridors the payout partners serve for a partner's customers, in a stable order, each as
   * src/reference/Corridors.ts describes it (the simulator answers that list as it is). No network inside a
   * transaction: it is read outside any command.
   */
  readonly corridors: (partnerId: string) => Effect.Effect<ReadonlyArray<Corridor>, PayoutRailUnavailable>
}

export class PayoutPartners extends Context.Tag("rails/PayoutPartners")<PayoutPartners, PayoutPartnersShape>() {}

// ---------------------------------------------------------------------------------------------------------------
// Declared only: implemented by the Tier 3 enrolment and global-send issues
// ---------------------------------------------------------------------------------------------------------------

export interface EnrolmentRequest {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the enrolment: the decision names it. */
  readonly enrolmentId: string
  readonly group: DestinationGroupKey
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

export interface PayoutEnrolmentsShape {
  /** Sends (or re-sends) a customer's enrolment for a group; the decision comes back later. In tx: schedule a job. */
  readonly enrol: (request: EnrolmentRequest) => Effect.Effect<void, PayoutRailUnavailable>
}

/** Declared only: no adapter implements it yet (docs/rails.md). */
export class PayoutEnrolments extends Context.Tag("rails/PayoutEnrolments")<PayoutEnrolments, PayoutEnrolmentsShape>() {}

export interface PayoutRequest {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the global send: the outcome names it. */
  readonly payoutId: string
  readonly reference: string
  /** The corridor's key (`KE-KES-mobile`). */
  readonly corridor: string
  readonly purpose: string
  /** `beneficiary[key]` for each key of the corridor's `recipientSchema` (and its `recipientFields`). */
  readonly beneficiary: Readonly<Record<string, unknown>>
  /** What the recipient receives, in minor units of `currency`. */
  readonly currency: string
  readonly amount: bigint
}

export type PayoutOutcome =
  | { readonly _tag: "Completed" }
  | { readonly _tag: "Failed"; readonly reason: string }

export interface PayoutSubmissionsShape {
  /** Hands a payout to the corridor's partner; the outcome comes back later. In tx: schedule a job. */
  readonly submitPayout: (payout: PayoutRequest) => Effect.Effect<void, PayoutRailUnavailable>
}

/** Declared only: no adapter implements it yet (docs/rails.md). */
export class PayoutSubmissions extends Context.Tag("rails/PayoutSubmissions")<PayoutSubmissions, PayoutSubmissionsShape>() {}
