import { Schema } from "effect"

/**
 * A partner's idempotency `reference` (docs/contract.md "Idempotency and references"): unique per partner per endpoint, see Idempotency.ts. Schemas
 * only: the contract imports this module.
 */
export const referencePattern = /^[A-Za-z0-9._-]{1,120}$/

export const Reference = Schema.String.pipe(
  Schema.pattern(referencePattern, {
    message: () => "must be 1 to 120 characters of letters, digits, dot, underscore or hyphen"
  })
)
