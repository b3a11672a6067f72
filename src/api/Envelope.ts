import { Schema } from "effect"

/**
 * The success envelope of SPEC.md: `{ success: true, data }`. Handlers return plain values; the transform adds
 * the envelope on the way out, so the OpenAPI document shows what partners receive.
 */
export const Envelope = <A, I, R>(data: Schema.Schema<A, I, R>) =>
  Schema.transform(
    Schema.Struct({ success: Schema.Literal(true), data }),
    // Suspended: a struct transformed into a class's declaration is how JSON Schema recognises a Schema.Class, so
    // the envelope of a class (`Customer`) would take the class's name in the OpenAPI document and `data` would
    // refer to the envelope itself.
    Schema.suspend((): Schema.Schema<A> => Schema.typeSchema(data)),
    {
      strict: true,
      decode: (envelope) => envelope.data,
      encode: (value) => ({ success: true as const, data: value })
    }
  )

/** A page of a cursor list, as handlers return it. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

/** `{ success: true, data: [...], meta: { nextCursor } }` for cursor lists (SPEC.md "Pagination"). */
export const PageEnvelope = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.transform(
    Schema.Struct({
      success: Schema.Literal(true),
      data: Schema.Array(item),
      meta: Schema.Struct({ nextCursor: Schema.NullOr(Schema.String) })
    }),
    Schema.Struct({ items: Schema.Array(Schema.typeSchema(item)), nextCursor: Schema.NullOr(Schema.String) }),
    {
      strict: true,
      decode: (envelope) => ({ items: envelope.data, nextCursor: envelope.meta.nextCursor }),
      encode: (page) => ({ success: true as const, data: page.items, meta: { nextCursor: page.nextCursor } })
    }
  )
