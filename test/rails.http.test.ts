import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RailPolicies } from "../simulators/RailPolicies.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())

describe("sandbox rail policies", () => {
  it("lists the five rails with their documented defaults", async () => {
    const { apiKey } = await app.newPartner()
    const reply = await app.request("GET", "/sandbox/rails", { apiKey })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual([
      { rail: "bank", mode: "auto", outcome: "success", delaySeconds: 60, isDefault: true, updatedAt: null },
      { rail: "chain", mode: "auto", outcome: "success", delaySeconds: 180, isDefault: true, updatedAt: null },
      { rail: "payout", mode: "auto", outcome: "success", delaySeconds: 900, isDefault: true, updatedAt: null },
      { rail: "identity", mode: "auto", outcome: "success", delaySeconds: 120, isDefault: true, updatedAt: null },
      { rail: "exchange", mode: "auto", outcome: "success", delaySeconds: 0, isDefault: true, updatedAt: null }
    ])
  })

  it("sets a policy per partner and rail; omitted fields fall back to success and the default delay", async () => {
    const first = await app.newPartner()
    const second = await app.newPartner()
    const set = await app.request("PUT", "/sandbox/rails/bank", {
      apiKey: first.apiKey,
      body: { mode: "manual", outcome: "failure", delaySeconds: 5 }
    })
    expect(set.status).toBe(200)
    expect(set.body.data).toMatchObject({ rail: "bank", mode: "manual", outcome: "failure", delaySeconds: 5, isDefault: false })
    expect(typeof set.body.data.updatedAt).toBe("string")

    const replaced = await app.request("PUT", "/sandbox/rails/bank", { apiKey: first.apiKey, body: { mode: "auto" } })
    expect(replaced.body.data).toMatchObject({ mode: "auto", outcome: "success", delaySeconds: 60, isDefault: false })

    const mine = await app.run(Effect.flatMap(RailPolicies, (p) => p.policyFor(first.partnerId, "bank")))
    expect(mine).toMatchObject({ mode: "auto", outcome: "success", delaySeconds: 60 })
    const theirs = await app.request("GET", "/sandbox/rails", { apiKey: second.apiKey })
    expect(theirs.body.data[0]).toMatchObject({ rail: "bank", isDefault: true })
  })

  it("answers 400 naming the field for a bad rail, mode, outcome or delay, and stores nothing", async () => {
    const { apiKey, partnerId } = await app.newPartner()
    const cases: Array<[string, unknown, string]> = [
      ["/sandbox/rails/ledger", { mode: "auto" }, "rail"],
      ["/sandbox/rails/chain", { mode: "sometimes" }, "mode"],
      ["/sandbox/rails/chain", { mode: "auto", outcome: "maybe" }, "outcome"],
      ["/sandbox/rails/chain", { mode: "auto", delaySeconds: -1 }, "delaySeconds"],
      ["/sandbox/rails/chain", { mode: "auto", delaySeconds: 1.5 }, "delaySeconds"],
      ["/sandbox/rails/chain", {}, "mode"]
    ]
    for (const [path, body, field] of cases) {
      const reply = await app.request("PUT", path, { apiKey, body })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
      expect(reply.body.message).toContain(field)
    }
    expect(await app.query("SELECT * FROM rail_policies WHERE partner_id = $1", [partnerId])).toHaveLength(0)
  })

  it("requires a known API key", async () => {
    const reply = await app.request("GET", "/sandbox/rails")
    expect(reply.status).toBe(401)
  })
})
