import type { PGlite } from "@electric-sql/pglite"
import * as NodeFs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inject } from "vitest"
import { openPgliteCopy, pgliteLayerOn } from "../src/db/Database.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Liveness and readiness: the app runs over a PGlite of the test's own, which the test closes to make the database
 * unreachable (a PostgreSQL-free way to lose it). Liveness never asks the database; readiness answers 503
 * DATABASE_UNAVAILABLE in the error envelope while `SELECT 1` fails.
 */
let db: PGlite
let app: TestApp

beforeAll(async () => {
  db = await openPgliteCopy(new Blob([NodeFs.readFileSync(inject("pgliteTemplate"))]))
  app = await startTestApp({ database: { layer: pgliteLayerOn(db) } })
})

afterAll(async () => {
  await app?.close()
  if (db !== undefined && !db.closed) await db.close()
})

describe("health probes", () => {
  it("answers liveness and readiness while the database is reachable, and /health as before", async () => {
    const live = await app.request("GET", "/health/live")
    expect(live.status).toBe(200)
    expect(live.body).toEqual({ success: true, data: { status: "ok" } })
    const ready = await app.request("GET", "/health/ready")
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ success: true, data: { status: "ok", database: "ok" } })
    const health = await app.request("GET", "/health")
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ success: true, data: { status: "ok", mode: "sandbox" } })
  })

  it("answers readiness 503 DATABASE_UNAVAILABLE once the database is gone, liveness still 200", async () => {
    await db.close()
    const started = Date.now()
    const ready = await app.request("GET", "/health/ready")
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(ready.status).toBe(503)
    expect(ready.body).toMatchObject({
      success: false,
      statusCode: 503,
      code: "DATABASE_UNAVAILABLE",
      error: "DatabaseUnavailable",
      path: "/api/v1/health/ready"
    })
    const live = await app.request("GET", "/health/live")
    expect(live.status).toBe(200)
    expect((await app.request("GET", "/health")).status).toBe(200)
  })
})
