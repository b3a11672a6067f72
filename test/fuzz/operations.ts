import { HttpApi } from "@effect/platform"
import { Option, type Schema } from "effect"
import { Api } from "../../src/Api.js"

/**
 * Every operation of the OpenAPI document, joined with the contract's own Schemas (HttpApi.reflect) for the
 * Arbitrary-driven phase. The document decides what is fuzzed: an operation in the document without an endpoint
 * in the contract (or the reverse) is reported by `loadOperations`.
 */

export type JsonSchema = Record<string, any>

export interface Param {
  readonly name: string
  readonly in: "path" | "query"
  readonly required: boolean
  readonly schema: JsonSchema
}

export interface Field {
  /** Path of the field inside the body, e.g. ["idDocument", "type"]. */
  readonly path: ReadonlyArray<string>
  readonly required: boolean
  readonly schema: JsonSchema
}

export interface Operation {
  /** `METHOD /template`, e.g. `POST /api/v1/partner/v1/customers/{customerId}/withdraw`. */
  readonly id: string
  readonly operationId: string
  readonly method: string
  readonly template: string
  readonly pathParams: ReadonlyArray<Param>
  readonly queryParams: ReadonlyArray<Param>
  /** Request body content types the document lists (empty: no body). */
  readonly bodyTypes: ReadonlyArray<string>
  readonly bodySchema: JsonSchema | undefined
  readonly bodyRequired: boolean
  /** Body fields (nested objects flattened), for per-field mutations. */
  readonly fields: ReadonlyArray<Field>
  /** Response statuses the document describes. */
  readonly responses: ReadonlySet<string>
  readonly needsKey: boolean
  /** The console's routes authenticate with `Authorization: Bearer <console token>`, not an API key. */
  readonly bearer: boolean
  readonly partnerRoute: boolean
  readonly customerScoped: boolean
  readonly schemas: {
    readonly path: Option.Option<Schema.Schema.Any>
    readonly urlParams: Option.Option<Schema.Schema.Any>
    readonly payload: Option.Option<Schema.Schema.Any>
  }
}

export interface OpenApiDoc {
  readonly paths: Record<string, Record<string, any>>
  readonly components?: { readonly schemas?: Record<string, JsonSchema> }
}

const methods = ["get", "post", "put", "patch", "delete"]

export const resolve = (doc: OpenApiDoc, schema: JsonSchema | undefined): JsonSchema | undefined => {
  let current = schema
  for (let i = 0; i < 20 && current !== undefined && typeof current.$ref === "string"; i++) {
    current = doc.components?.schemas?.[current.$ref.split("/").pop()!]
  }
  return current
}

const objectVariant = (doc: OpenApiDoc, schema: JsonSchema | undefined): JsonSchema | undefined => {
  const s = resolve(doc, schema)
  if (s === undefined) return undefined
  if (Array.isArray(s.anyOf)) return s.anyOf.map((v: JsonSchema) => resolve(doc, v)).find((v: JsonSchema | undefined) => v?.type === "object")
  return s
}

const flattenFields = (doc: OpenApiDoc, schema: JsonSchema | undefined, prefix: ReadonlyArray<string> = []): Array<Field> => {
  const s = objectVariant(doc, schema)
  if (s === undefined || s.type !== "object" || s.properties === undefined) return []
  const required = new Set<string>(s.required ?? [])
  const fields: Array<Field> = []
  for (const [name, sub] of Object.entries<JsonSchema>(s.properties)) {
    const resolved = resolve(doc, sub) ?? {}
    fields.push({ path: [...prefix, name], required: required.has(name), schema: resolved })
    if (resolved.type === "object") fields.push(...flattenFields(doc, resolved, [...prefix, name]))
  }
  return fields
}

/** `/a/:b/c` → `/a/{b}/c` */
const toTemplate = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")

export const loadOperations = (doc: OpenApiDoc): { operations: Array<Operation>; unmatched: Array<string> } => {
  const schemas = new Map<string, Operation["schemas"]>()
  HttpApi.reflect(Api as unknown as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      schemas.set(`${endpoint.method} ${toTemplate(endpoint.path)}`, {
        path: endpoint.pathSchema as unknown as Option.Option<Schema.Schema.Any>,
        urlParams: endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.Any>,
        payload: endpoint.payloadSchema as unknown as Option.Option<Schema.Schema.Any>
      })
    }
  })
  const operations: Array<Operation> = []
  const unmatched: Array<string> = []
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of methods) {
      const op = item[method]
      if (op === undefined) continue
      const id = `${method.toUpperCase()} ${template}`
      const params: Array<Param> = (op.parameters ?? []).map((p: any) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        schema: resolve(doc, p.schema) ?? {}
      }))
      const content = op.requestBody?.content ?? {}
      const bodyTypes = Object.keys(content)
      const bodySchema = bodyTypes.length > 0 ? resolve(doc, content[bodyTypes[0]!].schema) : undefined
      const reflected = schemas.get(id)
      if (reflected === undefined) unmatched.push(`${id}: in the OpenAPI document, not in the contract`)
      schemas.delete(id)
      const partnerRoute = template.startsWith("/api/v1/partner/v1/")
      const bearer = Array.isArray(op.security) && op.security.some((requirement: Record<string, unknown>) => "bearer" in requirement)
      operations.push({
        id,
        operationId: op.operationId ?? id,
        method: method.toUpperCase(),
        template,
        pathParams: params.filter((p) => p.in === "path"),
        queryParams: params.filter((p) => p.in === "query"),
        bodyTypes,
        bodySchema,
        // A body is required when its object has required fields and null is not accepted (sandbox controls whose
        // fields are all optional work without a body).
        bodyRequired: bodySchema !== undefined && (objectVariant(doc, bodySchema)?.required ?? []).length > 0 && !fits(doc, bodySchema, null),
        fields: bodyTypes[0] === "application/json" ? flattenFields(doc, bodySchema) : [],
        responses: new Set(Object.keys(op.responses ?? {})),
        needsKey: Array.isArray(op.security) && op.security.length > 0 && !bearer,
        bearer,
        partnerRoute,
        customerScoped: template.includes("{customerId}"),
        schemas: reflected ?? { path: Option.none(), urlParams: Option.none(), payload: Option.none() }
      })
    }
  }
  for (const id of schemas.keys()) unmatched.push(`${id}: in the contract, not in the OpenAPI document`)
  return { operations, unmatched }
}

/** Matches a concrete path against the document's templates. */
export const matchTemplate = (operations: ReadonlyArray<Operation>) => {
  // Literal segments win over parameters (as in the router): fewer parameters first.
  const sorted = [...operations].sort((x, y) => x.pathParams.length - y.pathParams.length)
  const compiled = sorted.map((op) => ({
    op,
    pattern: new RegExp("^" + op.template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[A-Za-z0-9_]+\\?\}/g, "[^/]+") + "$")
  }))
  return {
    /** The operation for this method and path, if any. */
    find: (method: string, path: string) => compiled.find((c) => c.op.method === method && c.pattern.test(path))?.op,
    /** Methods the document lists for this path. */
    methodsFor: (path: string) => compiled.filter((c) => c.pattern.test(path)).map((c) => c.op.method)
  }
}

/**
 * A small JSON Schema check (the subset the document uses: type, enum, pattern, lengths, bounds, items, anyOf,
 * properties/required/additionalProperties). `true` when the value fits: the fuzz suite then has no expectation; a
 * value that does not fit must be refused.
 */
export const fits = (doc: OpenApiDoc, schemaIn: JsonSchema | undefined, value: unknown, depth = 0): boolean => {
  const schema = resolve(doc, schemaIn)
  if (schema === undefined || depth > 50) return true
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((s: JsonSchema) => fits(doc, s, value, depth + 1))
  if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => e === value)) return false
  switch (schema.type) {
    case "null":
      return value === null
    case "boolean":
      return typeof value === "boolean"
    case "string": {
      if (typeof value !== "string") return false
      const length = [...value].length
      if (schema.minLength !== undefined && length < schema.minLength) return false
      if (schema.maxLength !== undefined && length > schema.maxLength) return false
      if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) return false
      if (schema.format === "uuid" && !/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(value)) return false
      return true
    }
    case "integer":
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) return false
      if (schema.type === "integer" && !Number.isInteger(value)) return false
      if (schema.minimum !== undefined && value < schema.minimum) return false
      if (schema.maximum !== undefined && value > schema.maximum) return false
      if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return false
      if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return false
      return true
    }
    case "array": {
      if (!Array.isArray(value)) return false
      if (schema.minItems !== undefined && value.length < schema.minItems) return false
      if (schema.maxItems !== undefined && value.length > schema.maxItems) return false
      return value.every((item) => fits(doc, schema.items, item, depth + 1))
    }
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return false
      const record = value as Record<string, unknown>
      for (const name of schema.required ?? []) if (!(name in record)) return false
      for (const [name, item] of Object.entries(record)) {
        const sub = schema.properties?.[name]
        if (sub === undefined) continue // excess properties: not asserted (the platform ignores them)
        if (!fits(doc, sub, item, depth + 1)) return false
      }
      return true
    }
    default:
      return true
  }
}
