import { Option, Schema, SchemaAST as AST } from "effect"

/**
 * The documentation examples of a data schema (src/api/Docs.ts `example`): its own, or for an array one array of
 * its items' first example. The envelopes below carry them, so the success example of a route follows from its data.
 */
const dataExamples = (ast: AST.AST): Option.Option<ReadonlyArray<unknown>> => {
  const own = AST.getExamplesAnnotation(ast)
  if (Option.isSome(own) || ast._tag !== "TupleType" || ast.elements.length > 0 || ast.rest.length !== 1) return own
  return Option.map(AST.getExamplesAnnotation(ast.rest[0]!.type), (items) => [items.slice(0, 1)])
}

/**
 * The success envelope of docs/contract.md "Envelope": `{ success: true, data }`. Handlers return plain values; the transform adds
 * the envelope on the way out, so the OpenAPI document shows what partners receive.
 */
export const Envelope = <A, I, R>(data: Schema.Schema<A, I, R>) => {
  const envelope = Schema.transform(
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
  return Option.match(dataExamples(data.ast), {
    onNone: () => envelope,
    onSome: (examples) => envelope.annotations({ examples: examples as readonly [A, ...Array<A>] })
  })
}

/** A page of a cursor list, as handlers return it. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

/** `{ success: true, data: [...], meta: { nextCursor } }` for cursor lists (docs/contract.md "Pagination"). */
export const PageEnvelope = <A, I, R>(item: Schema.Schema<A, I, R>) => {
  const envelope = Schema.transform(
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
  return Option.match(AST.getExamplesAnnotation(item.ast), {
    onNone: () => envelope,
    onSome: (items) => envelope.annotations({ examples: [{ items: items.slice(0, 1) as ReadonlyArray<A>, nextCursor: null }] })
  })
}
