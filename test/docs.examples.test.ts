import { HttpApi, OpenApi } from "@effect/platform"
import { Either, Schema, type SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { Api, ProductionApi } from "../src/Api.js"
import { scalarConfiguration, tagGroupNames, tags } from "../src/api/Docs.js"

/**
 * What the docs page (/api/v1/docs) shows, checked on the document itself, built from the code as the server builds
 * it (`OpenApi.fromApi`, what src/http/OpenApiDocument.ts and `HttpApiScalar` serve): every partner operation
 * has a success example, every one with a JSON body a request example that its own request schema decodes; the tags
 * are plain words, each in one of the page's sections (`x-tagGroups`). docs/docs-page.md says how to add examples.
 */

type Json = Record<string, any>
const document = OpenApi.fromApi(Api as unknown as HttpApi.HttpApi.AnyWithProps) as unknown as Json

/** The schemas of each operation (by operationId), as the server decodes them. */
interface Contract {
  readonly payload: ReadonlyMap<string, SchemaAST.AST>
  readonly successes: ReadonlyArray<SchemaAST.AST>
}
const contracts = new Map<string, Contract>()
HttpApi.reflect(Api as unknown as HttpApi.HttpApi.AnyWithProps, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, group, payloads, successes }) => {
    const payload = new Map<string, SchemaAST.AST>()
    payloads.forEach(({ ast }, contentType) => payload.set(contentType, ast))
    const asts: Array<SchemaAST.AST> = []
    successes.forEach(({ ast }) => { if (ast._tag === "Some") asts.push(ast.value) })
    contracts.set(`${group.identifier}.${endpoint.name}`, { payload, successes: asts })
  }
})

const resolve = (schema: Json | undefined): Json | undefined => {
  let node = schema
  while (node?.$ref !== undefined) node = document.components.schemas[String(node.$ref).split("/").pop()!]
  return node
}

interface Operation {
  readonly method: string
  readonly path: string
  readonly op: Json
}
const operations: Array<Operation> = Object.entries(document.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as Json })))

/** The partner API: what a partner's integration calls with its API key (and the health check). */
const isPartnerOperation = ({ path }: Operation) =>
  path.startsWith("/api/v1/partner/v1/") || path === "/api/v1/health" || path.startsWith("/api/v1/health/")
const partnerOperations = operations.filter(isPartnerOperation)
const name = ({ method, path, op }: Operation) => `${method} ${path} (${op.operationId})`

const decodes = (ast: SchemaAST.AST, value: unknown) => Either.isRight(Schema.decodeUnknownEither(Schema.make(ast))(value))

describe("the docs page's document", () => {
  it("has the partner API", () => {
    expect(partnerOperations.length).toBeGreaterThan(50)
  })

  it("gives every partner operation with a JSON body a request example that its request schema decodes", () => {
    const missing: Array<string> = []
    const refused: Array<string> = []
    for (const operation of partnerOperations) {
      const json = operation.op.requestBody?.content?.["application/json"]
      if (json === undefined) continue
      const examples = resolve(json.schema)?.examples
      if (!Array.isArray(examples) || examples.length === 0) {
        missing.push(name(operation))
        continue
      }
      const ast = contracts.get(operation.op.operationId)!.payload.get("application/json")!
      for (const value of examples) if (!decodes(ast, value)) refused.push(`${name(operation)}: ${JSON.stringify(value)}`)
    }
    expect(missing, "operations without a request example").toEqual([])
    expect(refused, "request examples the request schema refuses").toEqual([])
  })

  it("gives every partner operation a success example, one its success schema decodes", () => {
    const missing: Array<string> = []
    const refused: Array<string> = []
    for (const operation of partnerOperations) {
      const successes = Object.entries(operation.op.responses as Json).filter(([status]) => Number(status) < 300)
      const contents = successes.flatMap(([, response]) => Object.entries((response as Json).content ?? {}))
      // A file download (a KYC document's bytes) has no example a page could show.
      const shown = contents.filter(([, media]) => resolve((media as Json).schema)?.format !== "binary")
      if (contents.length > 0 && shown.length === 0) continue
      const examples = shown.flatMap(([, media]) => resolve((media as Json).schema)?.examples ?? [])
      if (examples.length === 0) {
        missing.push(name(operation))
        continue
      }
      const asts = contracts.get(operation.op.operationId)!.successes
      for (const value of examples) {
        if (!asts.some((ast) => decodes(ast, value))) refused.push(`${name(operation)}: ${JSON.stringify(value).slice(0, 200)}`)
      }
    }
    expect(missing, "operations without a success example").toEqual([])
    expect(refused, "success examples the success schema refuses").toEqual([])
  })

  it("names its tags in plain words and puts each in one of the page's sections", () => {
    const names = (document.tags as Array<Json>).map((tag) => tag.name as string)
    expect(names.length).toBe(Object.keys(tags).length)
    for (const tag of document.tags as Array<Json>) {
      // Words a partner reads: no code names (camelCase, dots, underscores), a capital first, a description.
      expect(tag.name, tag.name).toMatch(/^[A-Z][A-Za-z]*(,? [A-Za-z-]+|: [A-Za-z-]+)*$/)
      expect(tag.name, tag.name).not.toMatch(/[a-z][A-Z]/)
      expect(tag.description, tag.name).toEqual(expect.any(String))
    }
    const groups = document["x-tagGroups"] as Array<{ name: string; tags: Array<string> }>
    expect(groups.map((group) => group.name)).toEqual([...tagGroupNames])
    const grouped = groups.flatMap((group) => group.tags)
    expect([...grouped].sort()).toEqual([...names].sort())
    expect(new Set(grouped).size).toBe(grouped.length)
    const sectionOf = (tag: string) => groups.find((group) => group.tags.includes(tag))!.name
    for (const operation of operations) {
      const expected = operation.path.startsWith("/api/v1/sandbox/") ? "Sandbox" : isPartnerOperation(operation) ? "Partner API" : "Console"
      expect(sectionOf(operation.op.tags[0]), name(operation)).toBe(expected)
    }
    expect(sectionOf("Customers")).toBe("Partner API")
    expect(sectionOf("Sandbox: rails")).toBe("Sandbox")
  })

  it("has no sandbox section in production, where the sandbox routes do not exist", () => {
    const production = OpenApi.fromApi(ProductionApi as unknown as HttpApi.HttpApi.AnyWithProps) as unknown as Json
    const groups = production["x-tagGroups"] as Array<{ name: string; tags: Array<string> }>
    expect(groups.map((group) => group.name)).toEqual(["Partner API", "Console"])
    expect(groups.flatMap((group) => group.tags).sort()).toEqual((production.tags as Array<Json>).map((tag) => tag.name).sort())
  })

  it("configures the page: no vendor toolbar or client button, the demo key preselected in sandbox mode only", () => {
    // src/App.ts passes the demo partner's key in sandbox mode and nothing in production.
    expect(scalarConfiguration("sk_sandbox_demo_abc")).toMatchObject({
      showToolbar: "never",
      hideClientButton: true,
      authentication: { preferredSecurityScheme: "apiKey", securitySchemes: { apiKey: { value: "sk_sandbox_demo_abc" } } }
    })
    expect(scalarConfiguration(undefined)).toMatchObject({ showToolbar: "never", hideClientButton: true })
    expect(scalarConfiguration(undefined)).not.toHaveProperty("authentication")
    // The scheme the preselection names is the document's `x-api-key` scheme.
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" })
  })

  it("writes field help for partners, not Schema's generic text", () => {
    const generic: Array<string> = []
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item) => walk(item, where))
      if (typeof node !== "object" || node === null) return
      const description = (node as Json).description
      if (typeof description === "string" && /^(a string|a Universally Unique Identifier|an integer|a number between|an array of)\b/.test(description)) {
        generic.push(`${where}: ${description}`)
      }
      for (const value of Object.values(node)) walk(value, where)
    }
    walk(document.components.schemas, "components")
    for (const operation of operations) walk(operation.op, name(operation))
    expect(generic).toEqual([])
    const create = document.paths["/api/v1/partner/v1/customers"].post
    const body = resolve(create.requestBody.content["application/json"].schema)!
    expect(body.properties.firstName.description).toMatch(/first name/)
    expect(body.examples[0]).toMatchObject({ firstName: "Ada", lastName: "Obi", phoneNumber: "+2348012345678", country: "NG" })
  })
})
