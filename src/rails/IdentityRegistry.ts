import { Context, Data, Effect } from "effect"

/**
 * The identity rail: national registries that resolve a BVN or NIN to the person it was issued to, and the
 * document check of Tier 2. The service depends on this port only; simulators/identity implements it for the
 * sandbox (a live adapter would call the registries' APIs with a timeout of `lookupTimeoutMs`).
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

export interface DocumentCheck {
  readonly idType: string
  readonly idNumber: string
}

export interface IdentityRegistryShape {
  /**
   * Resolves a number. `subject` is the profile being verified: a live registry ignores it; the sandbox uses it
   * so that any ordinary number resolves to the customer (only magic values resolve to someone else).
   */
  readonly lookup: (
    kind: IdentityNumberKind,
    number: string,
    subject: PersonName
  ) => Effect.Effect<RegistryLookup, RegistryUnavailable>
  /**
   * A forced verdict for a Tier 2 document check (sandbox magic values), or none when the rail policy decides.
   */
  readonly forcedDocumentVerdict: (check: DocumentCheck) => DocumentCheckVerdict | undefined
}

export class IdentityRegistry extends Context.Tag("IdentityRegistry")<IdentityRegistry, IdentityRegistryShape>() {}
