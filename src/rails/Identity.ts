import { Context, Data, type Effect } from "effect"
import type { IdentityRailUnavailable } from "./Errors.js"

/**
 * The identity rail: national registries that resolve a BVN or NIN to the person it was issued to, and the
 * document check of Tier 2. The service depends on this port only; the identity simulator implements it for the
 * sandbox (a live adapter would call the registries' APIs with a timeout of `lookupTimeoutMs`). docs/rails.md.
 */
export type IdentityNumberKind = "BVN" | "NIN"

export interface PersonName {
  readonly firstName: string
  readonly lastName: string
  readonly middleName: string | null
}

export type RegistryLookup =
  | { readonly _tag: "Found"; readonly person: PersonName }
  | { readonly _tag: "NotFound" }

/** The registry did not answer in time (or answered with a server error): the submission goes to review. */
export class RegistryUnavailable extends Data.TaggedError("RegistryUnavailable")<{
  readonly kind: IdentityNumberKind
  readonly reason: string
}> {}

/** Longest a registry lookup may take before it counts as unavailable. */
export const lookupTimeoutMs = 10_000

export type DocumentCheckVerdict =
  | { readonly _tag: "Pass" }
  | { readonly _tag: "Review"; readonly reason: string }
  | { readonly _tag: "Fail"; readonly reason: string }

/** A Tier 2 document check: the identity document and the selfie, as uploaded. */
export interface DocumentCheck {
  readonly partnerId: string
  readonly customerId: string
  /** Our id of the check (the KYC record's id): the verdict names it. */
  readonly checkId: string
  readonly idType: string
  readonly idNumber: string
  readonly frontDocumentId: string
  readonly backDocumentId: string | null
  readonly selfieDocumentId: string
}

export interface IdentityShape {
  /**
   * Resolves a number. `subject` is the profile being verified: a live registry ignores it; the sandbox uses it
   * so that any ordinary number resolves to the customer (only magic values resolve to someone else).
   */
  readonly lookup: (
    kind: IdentityNumberKind,
    number: string,
    subject: PersonName
  ) => Effect.Effect<RegistryLookup, RegistryUnavailable | IdentityRailUnavailable>
  /**
   * Starts a document check. Called inside the submission's transaction; the verdict comes back later through
   * `Kyc.settleDocumentCheck(checkId, verdict)` (a provider's webhook, or the simulator's job). A check that never
   * answers leaves the submission PENDING for a reviewer.
   */
  readonly submitDocumentCheck: (check: DocumentCheck) => Effect.Effect<void, IdentityRailUnavailable>
}

export class Identity extends Context.Tag("rails/Identity")<Identity, IdentityShape>() {}
