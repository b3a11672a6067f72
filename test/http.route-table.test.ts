import { HttpApi } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { Api } from "../src/Api.js"
import { routableSegment, routableUrl, routeTable } from "../src/http/RouteTable.js"

/** Every route of the API as method and path pattern, as the route table reads them. */
const routes: Array<{ method: string; path: string }> = []
HttpApi.reflect(Api as unknown as HttpApi.HttpApi.AnyWithProps, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, path: endpoint.path })
})
const extra = [{ method: "GET", path: "/api/v1/docs" }]

/** The answer of testing every pattern (what the table answered before it grouped patterns by length). */
const naiveAllowed = (path: string) =>
  [...new Set([...routes, ...extra].filter((route) =>
    new RegExp("^" + route.path.replace(/:[A-Za-z0-9_]+/g, "[^/]+") + "/?$").test(path)).map((route) => route.method))]

describe("route table", () => {
  const table = routeTable(Api, extra)

  it("answers every route's allowed methods as testing every pattern does", () => {
    expect(routes.length).toBeGreaterThan(50)
    const paths = new Set<string>()
    for (const route of routes) {
      const concrete = route.path.replace(/:[A-Za-z0-9_]+/g, "3f1c2a9e-0000-4000-8000-000000000001")
      for (const path of [concrete, `${concrete}/`, `${concrete}/extra`, concrete.split("/").slice(0, -1).join("/"), concrete.replace(/\/[^/]+$/, "//x")]) {
        paths.add(path)
      }
    }
    for (const path of [...paths, "/", "", "/api/v1/docs", "/api/v1/docs/", "/nope", "//"]) {
      expect([...table.allowedMethods(path)].sort(), path).toEqual(naiveAllowed(path).sort())
    }
  })

  it("names path parameters and multipart routes by position", () => {
    const id = "3f1c2a9e-0000-4000-8000-000000000001"
    expect(table.parameterAt(`/api/v1/partner/v1/customers/${id}/balance`, 6)).toBe("customerId")
    expect(table.parameterAt(`/api/v1/partner/v1/customers/${id}/balance/`, 6)).toBe("customerId")
    expect(table.parameterAt(`/api/v1/partner/v1/customers/${id}/balance`, 5)).toBeUndefined()
    const documents = routes.find((route) => route.method === "POST" && /kyc\/documents$/.test(route.path))
    expect(documents).toBeDefined()
    expect(table.takesMultipart("POST", documents!.path.replace(/:[A-Za-z0-9_]+/g, id))).toBe(true)
    expect(table.takesMultipart("POST", `/api/v1/partner/v1/customers/${id}/withdraw`)).toBe(false)
  })
})

describe("routable URLs (what the router's config cannot route: test/hardening.paths.test.ts has the answers)", () => {
  it("leaves a segment the router routes as it is, however long or encoded", () => {
    for (const segment of ["customers", "3f1c2a9e-0000-4000-8000-000000000001", "a".repeat(4000), "%C3%A9".repeat(500), "%2D", "a%2Fb", "%3B"]) {
      expect(routableSegment(segment), segment.slice(0, 40)).toBeUndefined()
    }
    const url = `/api/v1/partner/v1/customers/${"a".repeat(300)}/kyc?limit=1;x`
    expect(routableUrl(url)).toBe(url)
  })

  it("encodes undecodable percent-encoding as written, and a `;` or `#` as characters", () => {
    expect(routableSegment("%zz")).toBe("%25zz")
    expect(routableSegment("%FF")).toBe("%25FF")
    expect(routableSegment("%E2%82")).toBe("%25E2%2582")
    expect(routableSegment("x;y=1")).toBe("x%3By%3D1")
    expect(routableSegment("%41#b")).toBe("A%23b")
    expect(routableUrl("/api/v1/customers/x;y=1/kyc?limit=2")).toBe("/api/v1/customers/x%3By%3D1/kyc?limit=2")
  })
})
