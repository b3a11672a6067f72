import { Context, type Effect, type Option } from "effect"
import type { Corridor } from "../reference/Corridors.js"
import type { DestinationGroupKey } from "../reference/Groups.js"
import type { PayoutRailUnavailable } from "./Errors.js"
import type { RailJob } from "./RailJob.js"

/**
 * The payout-partner rail: the cross-border partners that enrol a verified customer per destination group
 * (docs/contract.md "International verification": `americas_europe`, `china`; src/reference/Groups.ts) and pay out by
 * corridor (docs/contract.md "Global send"; src/reference/Corridors.ts). Requests go out through these ports; enrolment
 * decisions and payout outcomes come back later through the domain's settlement entry points (international
 * enrolment and global send), from a simulator's job, a sandbox control or a live adapter's callback.
 *
 * The rail is split by operation, so that each part is implemented (by the simulator and production's no-adapter
 * layer) when the flow that calls it is built, and nothing is wired half-built:
 *
 * - `PayoutPartners`: the corridors the partners serve. Implemented: `simulators/payout/PayoutSimulator.ts`,
 *   `src/rails/Unavailable.ts`; called by `GET .../global-send/corridors`.
 * - `PayoutEnrolments` (`enrol`): the Tier 3 enrolment per destination group. Implemented by the simulator
 *   (`simulators/payout/Enrolments.ts`) and `src/rails/Unavailable.ts`; called by `POST .../kyc/tier3` and
 *   `POST .../global-send/international-resend`.
 * - `PayoutSubmissions` (`submitPayout`): a global send's payout through its corridor's partner. Implemented by the
 *   simulator (`simulators/payout/Payouts.ts`) and `src/rails/Unavailable.ts`; called by `POST .../global-send`.
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
// Enrolment (Tier 3): implemented by the simulator and production's no-adapter layer

export interface EnrolmentRequest {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the enrolment: the decision names it. */
  readonly enrolmentId: string
  /** Which send of the enrolment this is (1, 2, ...): the decision names it too, so a stale answer changes nothing. */
  readonly attempt: number
  readonly group: DestinationGroupKey
  readonly customerType: "INDIVIDUAL" | "BUSINESS"
  /** The country the customer chose in the group, if the submission named one. */
  readonly destinationCountry: string | null
  /** The Tier 3 details the partner needs (the submission's content, document urls as ids), as the domain holds them. */
  readonly profile: Readonly<Record<string, unknown>>
  /** True when the same enrolment is sent again (a re-submission or re-send): never a second customer, never a fee. */
  readonly resend: boolean
}

/**
 * The partner's answer to an enrolment. Every answer but `Refused` means the partner created the customer (the
 * registration fee is taken then): `Review` (created, under review), `Approved`, `Rejected` (with the partner's
 * reason). `Refused`: it will not create the customer (no fee is taken).
 */
export type EnrolmentDecision =
  | { readonly _tag: "Approved" }
  | { readonly _tag: "Review" }
  | { readonly _tag: "Rejected"; readonly reason: string }
  | { readonly _tag: "Refused"; readonly reason: string }

export interface PayoutEnrolmentsShape {
  /**
   * Sends (or re-sends) a customer's enrolment for a group. Called inside the submission's transaction (in tx): an
   * adapter schedules the request as a job. The decision comes back later through `Enrolments.decide(partnerId,
   * enrolmentId, attempt, decision)`, the enrolment settlement entry point.
   */
  readonly enrol: (request: EnrolmentRequest) => Effect.Effect<void, PayoutRailUnavailable>
}

export class PayoutEnrolments extends Context.Tag("rails/PayoutEnrolments")<PayoutEnrolments, PayoutEnrolmentsShape>() {}

// ---------------------------------------------------------------------------------------------------------------
// Payouts (global send): implemented by the simulator and production's no-adapter layer

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
  /** What the partner receives to convert and deliver: minor units of `asset` (USDT, 6 decimals). */
  readonly asset: string
  readonly assetAmount: bigint
  /** What the recipient is paid in. */
  readonly destinationCurrency: string
}

export type PayoutOutcome =
  | { readonly _tag: "Completed" }
  | { readonly _tag: "Failed"; readonly reason: string }

export interface PayoutSubmissionsShape {
  /**
   * Hands a payout to the corridor's partner: the job that carries it out (src/rails/RailJob.ts), which the send's
   * journal statement writes, or none (a manual sandbox rail). Called inside the send's creating transaction, before
   * its journal; it writes nothing itself. The outcome comes back later through `GlobalSends.settle(partnerId,
   * payoutId, outcome)`, the global-send settlement entry point.
   */
  readonly submitPayout: (payout: PayoutRequest) => Effect.Effect<Option.Option<RailJob>, PayoutRailUnavailable>
}

export class PayoutSubmissions extends Context.Tag("rails/PayoutSubmissions")<PayoutSubmissions, PayoutSubmissionsShape>() {}
