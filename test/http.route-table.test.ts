import { HttpApi } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { Api } from "../src/Api.js"
import { routeTable } from "../src/http/Middleware.js"

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
