import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import type { Reply, RequestOptions, TestApp } from "./TestApp.js"

/**
 * Checks real responses against the service's own OpenAPI document (GET /api/v1/openapi.json): the request's
 * method and path must match an operation, the status must be documented for it, the Content-Type must be one the
 * status documents, and a JSON body must validate (JSON Schema 2020-12, ajv with formats) against the documented
 * schema, `$ref`s resolved to `components.schemas`. A request that matches no operation must be answered as
 * `components.responses.RouteNotFound` (404) or, when the path exists with other methods,
 * `components.responses.MethodNotAllowed` (405). HEAD is checked as GET without a body; the documentation routes
 * themselves (`documentationRoutes`) are not checked.
 *
 *   const conformance = makeConformance(await fetchOpenApiDocument(app.baseUrl))
 *   const request = conformingRequest(app, conformance)   // app.request that throws on an undescribed response
 *   conformance.assertDescribed({ method, path, status, contentType, body })
 */

type Json = Record<string, any>

export interface OpenApiResponse {
  readonly description: string
  readonly headers?: Json
  readonly content?: Record<string, { readonly schema?: Json }>
}

export interface OpenApiOperation {
  readonly operationId: string
  readonly summary?: string
  readonly description?: string
  readonly parameters: ReadonlyArray<Json>
  readonly requestBody?: Json
  readonly responses: Record<string, OpenApiResponse | { readonly $ref: string }>
}

export interface OpenApiDocument {
  readonly openapi: string
  readonly info: Json
  readonly servers?: ReadonlyArray<{ readonly url: string; readonly description?: string }>
  readonly paths: Record<string, Record<string, OpenApiOperation>>
  readonly components: { readonly schemas: Record<string, Json>; readonly responses?: Record<string, OpenApiResponse> }
}

/** One response as a client saw it. */
export interface ObservedResponse {
  readonly method: string
  /** The request path as the server saw it (it starts with /api/v1); a query string is ignored. */
  readonly path: string
  readonly status: number
  /** The Content-Type header; when absent, a JSON body is assumed for a non-string body. */
  readonly contentType?: string | null | undefined
  /** The parsed JSON body (or the text of another content type); `undefined` for an empty body. */
  readonly body: unknown
}

export interface MatchedOperation {
  readonly method: string
  /** The path as the document writes it: `/api/v1/partner/v1/customers/{customerId}`. */
  readonly template: string
  readonly operation: OpenApiOperation
}

export interface Conformance {
  readonly document: OpenApiDocument
  readonly operations: ReadonlyArray<MatchedOperation>
  /** The operation a request reaches, literal segments winning over parameters. */
  readonly findOperation: (method: string, path: string) => MatchedOperation | undefined
  /** What the document does not describe about this response; empty when it describes it. */
  readonly problems: (response: ObservedResponse) => ReadonlyArray<string>
  /** Throws an Error listing the problems, with the response, when the document does not describe it. */
  readonly assertDescribed: (response: ObservedResponse) => void
  /** Compiles every documented response schema; the problems found (an empty array when all compile). */
  readonly compileAll: () => ReadonlyArray<string>
  /** `METHOD template status` of every response checked so far that the document described. */
  readonly covered: () => ReadonlyArray<string>
}

/** The text of the document the server serves (GET openapi.json); `baseUrl` is the API's base URL (`http://host:port/api/v1`). */
export const fetchOpenApiText = async (baseUrl: string): Promise<string> => {
  const response = await fetch(`${baseUrl.replace(/\/$/, "")}/openapi.json`)
  if (response.status !== 200) throw new Error(`GET openapi.json answered ${response.status}`)
  return await response.text()
}

/** The document the server serves, parsed. */
export const fetchOpenApiDocument = async (baseUrl: string): Promise<OpenApiDocument> =>
  JSON.parse(await fetchOpenApiText(baseUrl)) as OpenApiDocument

const componentsId = "urn:openapi:components"
const schemaRefPrefix = "#/components/schemas/"

/**
 * A copy that ajv compiles against the shared components: `#/components/schemas/X` becomes a reference into the
 * components schema; effect's `$id` markers (`/schemas/unknown`) are dropped, being identifiers of nothing.
 */
const prepare = (schema: unknown, refPrefix: string): unknown => {
  if (Array.isArray(schema)) return schema.map((item) => prepare(item, refPrefix))
  if (typeof schema !== "object" || schema === null) return schema
  const out: Json = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$id") continue
    out[key] = key === "$ref" && typeof value === "string" && value.startsWith(schemaRefPrefix)
      ? `${refPrefix}${value.slice(schemaRefPrefix.length)}`
      : prepare(value, refPrefix)
  }
  return out
}

const mediaTypeOf = (contentType: string | null | undefined) =>
  contentType === null || contentType === undefined ? undefined : contentType.split(";")[0]!.trim().toLowerCase()

const describe = (response: ObservedResponse) => {
  const body = typeof response.body === "string" ? response.body : JSON.stringify(response.body)
  return `${response.method} ${response.path} -> ${response.status} ${response.contentType ?? ""} ${(body ?? "").slice(0, 600)}`
}

/** Routes served beside the API that the document does not list: the document itself and its viewer. */
export const documentationRoutes: ReadonlyArray<{ readonly method: string; readonly path: string }> = [
  { method: "GET", path: "/api/v1/openapi.json" },
  { method: "GET", path: "/api/v1/docs" }
]

export const makeConformance = (
  document: OpenApiDocument,
  options: {
    /** Method and exact path of routes outside the document, whose responses are not checked. */
    readonly outside?: ReadonlyArray<{ readonly method: string; readonly path: string }> | undefined
  } = {}
): Conformance => {
  const outside = options.outside ?? documentationRoutes
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false })
  addFormats.default(ajv)
  ajv.addFormat("binary", true)
  ajv.addSchema({ $id: componentsId, $defs: prepare(document.components.schemas, "#/$defs/") as Json })

  const operations: Array<MatchedOperation & { readonly pattern: RegExp; readonly parameters: number }> = []
  for (const [template, pathItem] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(pathItem)) {
      const pattern = new RegExp(
        "^" + template.split("/").map((segment) =>
          /^\{[^}]+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&")
        ).join("/") + "$"
      )
      operations.push({ method: method.toUpperCase(), template, operation, pattern, parameters: (template.match(/\{/g) ?? []).length })
    }
  }
  // Literal segments first: `/kyc/reverification` before `/kyc/{level}/decision`-like templates.
  operations.sort((a, b) => a.parameters - b.parameters)

  const pathOnly = (path: string) => {
    const bare = path.split("?")[0]!.split("#")[0]!
    return bare.length > 1 ? bare.replace(/\/$/, "") : bare
  }
  const findOperation = (method: string, path: string) => {
    const bare = pathOnly(path)
    return operations.find((candidate) => candidate.method === method.toUpperCase() && candidate.pattern.test(bare))
  }

  const resolveResponse = (response: OpenApiResponse | { readonly $ref: string }): OpenApiResponse | undefined => {
    if (!("$ref" in response)) return response
    const name = response.$ref.replace("#/components/responses/", "")
    return document.components.responses?.[name]
  }

  // Keyed by the schema's text: most operations share their error schemas.
  const validators = new Map<string, ValidateFunction>()
  const validatorFor = (schema: Json): ValidateFunction => {
    const key = JSON.stringify(schema)
    let validate = validators.get(key)
    if (validate === undefined) {
      validate = ajv.compile(prepare(schema, `${componentsId}#/$defs/`) as Json)
      validators.set(key, validate)
    }
    return validate
  }

  const covered = new Set<string>()

  const checkAgainst = (key: string, documented: OpenApiResponse, response: ObservedResponse): Array<string> => {
    const content = documented.content ?? {}
    const documentedTypes = Object.keys(content)
    if (documentedTypes.length === 0) {
      return response.body === undefined || response.body === "" ? [] : [`${key}: documented without a body, got one`]
    }
    if (response.method.toUpperCase() === "HEAD") return []
    const mediaType = mediaTypeOf(response.contentType) ??
      (documentedTypes.length === 1 ? documentedTypes[0]! : typeof response.body === "string" ? undefined : "application/json")
    if (mediaType === undefined || content[mediaType] === undefined) {
      return [`${key}: Content-Type ${mediaType ?? "(none)"} is not documented (documented: ${documentedTypes.join(", ")})`]
    }
    const schema = content[mediaType]!.schema
    if (!/[/+]json$/.test(mediaType) || schema === undefined) return []
    let validate: ValidateFunction
    try {
      validate = validatorFor(schema)
    } catch (error) {
      return [`${key}: the documented schema does not compile: ${error instanceof Error ? error.message : String(error)}`]
    }
    return validate(response.body)
      ? []
      : [`${key}: the body does not match the documented schema: ${ajv.errorsText(validate.errors, { dataVar: "body", separator: "; " })}`]
  }

  const problems = (response: ObservedResponse): ReadonlyArray<string> => {
    const bare = pathOnly(response.path)
    if (outside.some((route) => route.method === response.method.toUpperCase() && route.path === bare)) return []
    // HEAD is GET without a body (the server answers it for every GET route; OpenAPI leaves it implicit).
    const head = response.method.toUpperCase() === "HEAD"
    const method = head ? "GET" : response.method.toUpperCase()
    if (head) response = { ...response, body: undefined }
    const matched = findOperation(method, bare)
    if (matched === undefined) {
      const otherMethods = operations.filter((candidate) => candidate.pattern.test(bare)).map((candidate) => candidate.method)
      const name = otherMethods.length > 0 ? "MethodNotAllowed" : "RouteNotFound"
      const expected = otherMethods.length > 0 ? 405 : 404
      const key = `${method} ${bare} (no operation)`
      if (response.status !== expected) {
        return [`${key}: no operation has this method and path, so the answer must be ${expected}, got ${response.status}`]
      }
      const documented = document.components.responses?.[name]
      if (documented === undefined) return [`${key}: components.responses.${name} is missing`]
      const found = checkAgainst(`${key} ${response.status}`, documented, response)
      if (found.length === 0) covered.add(`${method} (no operation) ${response.status}`)
      return found
    }
    const key = `${method} ${matched.template} ${response.status}`
    const entry = matched.operation.responses[String(response.status)]
    if (entry === undefined) {
      return [`${key}: status ${response.status} is not documented (documented: ${Object.keys(matched.operation.responses).join(", ")})`]
    }
    const documented = resolveResponse(entry)
    if (documented === undefined) return [`${key}: the response's $ref does not resolve`]
    const found = checkAgainst(key, documented, response)
    if (found.length === 0) covered.add(key)
    return found
  }

  const compileAll = () => {
    const found: Array<string> = []
    const all: Array<[string, OpenApiResponse | { readonly $ref: string }]> = Object.entries(document.components.responses ?? {})
      .map(([name, response]) => [`components.responses.${name}`, response])
    for (const { method, operation, template } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) all.push([`${method} ${template} ${status}`, response])
    }
    for (const [key, entry] of all) {
      const documented = resolveResponse(entry)
      if (documented === undefined) {
        found.push(`${key}: the response's $ref does not resolve`)
        continue
      }
      for (const [mediaType, { schema }] of Object.entries(documented.content ?? {})) {
        if (schema === undefined || !/[/+]json$/.test(mediaType)) continue
        try {
          validatorFor(schema)
        } catch (error) {
          found.push(`${key} ${mediaType}: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
    }
    return found
  }

  return {
    document,
    operations: operations.map(({ method, operation, template }) => ({ method, operation, template })),
    findOperation: (method, path) => {
      const found = findOperation(method, path)
      return found === undefined ? undefined : { method: found.method, template: found.template, operation: found.operation }
    },
    problems,
    assertDescribed: (response) => {
      const found = problems(response)
      if (found.length > 0) throw new Error(`The OpenAPI document does not describe ${describe(response)}\n  ${found.join("\n  ")}`)
    },
    compileAll,
    covered: () => [...covered].sort()
  }
}

/**
 * `app.request` that also asserts the document describes the reply (the path is relative to `app.baseUrl`, as for
 * `app.request`).
 */
export const conformingRequest = (app: TestApp, conformance: Conformance) => {
  const basePath = new URL(app.baseUrl).pathname.replace(/\/$/, "")
  return async <T = any>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>> => {
    const reply = await app.request<T>(method, path, options)
    conformance.assertDescribed({
      method,
      path: basePath + path,
      status: reply.status,
      contentType: reply.headers.get("content-type"),
      body: reply.body
    })
    return reply
  }
}
