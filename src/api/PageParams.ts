import { Schema } from "effect"

/**
 * The query parameters of every cursor list (docs/contract.md "Pagination"). Schemas only: the contract imports this
 * module; the cursors themselves are signed and read in Pagination.ts.
 */
export const pageLimitMax = 100
export const pageLimitDefault = 20

const limitMessage = () => "limit must be an integer from 1 to 100"

/** Digits only: NumberFromString alone would also take "1e2", " 20" or "0x10". */
export const Limit = Schema.String.pipe(
  Schema.pattern(/^[0-9]{1,3}$/, { message: limitMessage }),
  Schema.compose(Schema.NumberFromString),
  Schema.int({ message: limitMessage }),
  Schema.between(1, pageLimitMax, { message: limitMessage })
).annotations({
  // The query text is decimal digits; the OpenAPI document shows the value's type.
  jsonSchema: { type: "integer", minimum: 1, maximum: pageLimitMax, default: pageLimitDefault, description: "page size" }
})

export const PageParams = {
  limit: Schema.optional(Limit),
  /** Any text: a cursor that is too long or otherwise not one of ours is refused by `decode` as INVALID_CURSOR. */
  cursor: Schema.optional(Schema.String)
}
