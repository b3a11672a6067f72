import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { International } from "../src/international/International.js"
import { destinationGroups } from "../src/reference/Groups.js"
import { asId, servicesOf, startServices, type ServiceHarness } from "./support/ServiceHarness.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * The partner's international verification fee setting (docs/contract.md "Partner fee setting", docs/international.md).
 * The rules (the default, the round trip, the service clock's `updatedAt`, per partner, concurrency, production)
 * at the service level: `International.feeSetting` / `setFeeSetting` called directly, no HTTP
 * (test/support/ServiceHarness.ts, over the services of the file's one test app; production's on services of
 * their own). The contract of `GET` and `PUT /partner/v1/fees/international-verification`
 * (the envelope, authentication, validation, 405) over real HTTP, on one server. Stored per partner, default
 * `paysForCustomers: false`; the groups' fees are read from the groups. The service clock is frozen, so
 * `updatedAt` is the clock's reading and moves only when a test advances it.
 */
let app: TestApp
let services: ServiceHarness

beforeAll(async () => {
  app = await startTestApp()
  services = servicesOf(app)
})
afterAll(() => app?.close())

const path = "/partner/v1/fees/international-verification"

const groups = [
  {
    key: "americas_europe",
    registrationFee: { individual: { amount: "3", currency: "USDT" }, business: { amount: "11", currency: "USDT" } }
  },
  {
    key: "china",
    registrationFee: { individual: { amount: "3", currency: "USDT" }, business: { amount: "11", currency: "USDT" } }
  }
]

/** The service's commands, on the partner's clock. */
const feeSetting = (on: ServiceHarness, partnerId: string) =>
  on.as(partnerId, Effect.flatMap(International, (international) => international.feeSetting(asId(partnerId))))
const setFeeSetting = (on: ServiceHarness, partnerId: string, paysForCustomers: boolean) =>
  on.as(partnerId, Effect.flatMap(International, (international) => international.setFeeSetting(asId(partnerId), paysForCustomers)))

const read = async (apiKey: string) => {
  const reply = await app.request("GET", path, { apiKey })
  expect(reply.status).toBe(200)
  expect(Object.keys(reply.body).sort()).toEqual(["data", "success"])
  return reply.body.data
}

const put = (apiKey: string, body: unknown) => app.request("PUT", path, { apiKey, body })

describe("the fee setting (International service)", () => {
  it("defaults to customers paying, with every group's fees and no updatedAt", async () => {
    const { partnerId } = await services.newPartner()
    expect(await feeSetting(services, partnerId)).toEqual({ paysForCustomers: false, paidBy: "CUSTOMER", groups, updatedAt: null })
  })

  it("lists the groups' fees as the reference data holds them (read from the group)", async () => {
    const { partnerId } = await services.newPartner()
    expect((await feeSetting(services, partnerId)).groups).toEqual(destinationGroups.map((g) => ({ key: g.key, registrationFee: g.registrationFee })))
  })

  it("true then false round trip: paidBy follows, updatedAt is the service clock, a read answers the same", async () => {
    const { partnerId } = await services.newPartner()
    const at = await services.now(partnerId)
    const on = await setFeeSetting(services, partnerId, true)
    expect(on).toEqual({ paysForCustomers: true, paidBy: "PARTNER", groups, updatedAt: at })
    expect(await feeSetting(services, partnerId)).toEqual(on)

    const later = await services.advance(partnerId, 90)
    expect(later.getTime() - at.getTime()).toBe(90_000)
    const off = await setFeeSetting(services, partnerId, false)
    expect(off).toEqual({ paysForCustomers: false, paidBy: "CUSTOMER", groups, updatedAt: later })
    expect(await feeSetting(services, partnerId)).toEqual(off)
  })

  it("the same value again is accepted and answers the same setting", async () => {
    const { partnerId } = await services.newPartner()
    const first = await setFeeSetting(services, partnerId, true)
    expect(await setFeeSetting(services, partnerId, true)).toEqual(first)
  })

  it("is per partner: another partner keeps its own setting (the default included)", async () => {
    const a = await services.newPartner()
    const b = await services.newPartner()
    const c = await services.newPartner()
    await setFeeSetting(services, a.partnerId, true)
    await setFeeSetting(services, c.partnerId, false)
    expect((await feeSetting(services, a.partnerId)).paysForCustomers).toBe(true)
    expect(await feeSetting(services, b.partnerId)).toEqual({ paysForCustomers: false, paidBy: "CUSTOMER", groups, updatedAt: null })
    expect((await feeSetting(services, c.partnerId)).paidBy).toBe("CUSTOMER")
    // One row per partner that set it, none for b.
    const rows = await services.query<{ partnerId: string; paysForCustomers: boolean }>(
      "SELECT partner_id, pays_for_customers FROM international_fee_settings WHERE partner_id IN ($1, $2, $3) ORDER BY pays_for_customers DESC",
      [a.partnerId, b.partnerId, c.partnerId]
    )
    expect(rows).toEqual([{ partnerId: a.partnerId, paysForCustomers: true }, { partnerId: c.partnerId, paysForCustomers: false }])
  })

  it("concurrent sets of one partner leave one row holding one of the values sent", async () => {
    const { partnerId } = await services.newPartner()
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => setFeeSetting(services, partnerId, i % 2 === 0)))
    expect(answers.map((a) => a.paidBy === (a.paysForCustomers ? "PARTNER" : "CUSTOMER"))).toEqual(Array(10).fill(true))
    const rows = await services.query<{ paysForCustomers: boolean }>("SELECT pays_for_customers FROM international_fee_settings WHERE partner_id = $1", [partnerId])
    expect(rows.length).toBe(1)
    expect((await feeSetting(services, partnerId)).paysForCustomers).toBe(rows[0]!.paysForCustomers)
  })

  it("in production (no rail involved): reads and sets the fee setting without any rail adapter", async () => {
    const production = await startServices({ config: { mode: "production" } })
    try {
      const { partnerId } = await production.newPartner()
      expect(await feeSetting(production, partnerId)).toMatchObject({ paysForCustomers: false, updatedAt: null })
      expect(await setFeeSetting(production, partnerId, true)).toMatchObject({ paysForCustomers: true, paidBy: "PARTNER", groups })
      expect(await feeSetting(production, partnerId)).toMatchObject({ paysForCustomers: true, paidBy: "PARTNER" })
    } finally {
      await production.close()
    }
  })
})

describe("GET /fees/international-verification", () => {
  it("answers the default setting in the envelope (updatedAt null)", async () => {
    const { apiKey } = await app.newPartner()
    expect(await read(apiKey)).toEqual({ paysForCustomers: false, paidBy: "CUSTOMER", groups, updatedAt: null })
  })

  it("needs an approved partner's key", async () => {
    const none = await app.request("GET", path)
    expect({ status: none.status, code: none.body.code }).toEqual({ status: 401, code: "UNAUTHORIZED" })
    const pending = await app.newPartner("PENDING")
    for (const [method, body] of [["GET", undefined], ["PUT", { paysForCustomers: true }]] as const) {
      const reply = await app.request(method, path, { apiKey: pending.apiKey, ...(body === undefined ? {} : { body }) })
      expect({ method, status: reply.status, code: reply.body.code }).toEqual({ method, status: 403, code: "PARTNER_NOT_APPROVED" })
    }
    expect(await app.query("SELECT partner_id FROM international_fee_settings WHERE partner_id = $1", [pending.partnerId])).toEqual([])
  })
})

describe("PUT /fees/international-verification", () => {
  it("answers the setting in the envelope, updatedAt the service clock's reading as ISO text, and GET answers the same", async () => {
    const { apiKey } = await app.newPartner()
    const at = (await app.request("GET", "/sandbox/clock", { apiKey })).body.data.now as string
    const on = await put(apiKey, { paysForCustomers: true })
    expect(on.status).toBe(200)
    expect(on.body).toEqual({ success: true, data: { paysForCustomers: true, paidBy: "PARTNER", groups, updatedAt: at } })
    expect(await read(apiKey)).toEqual(on.body.data)
  })

  it("refuses fields it does not list, naming each, and stores nothing; a top-level customerId is ignored", async () => {
    const { apiKey } = await app.newPartner()
    const refused = await put(apiKey, { paysForCustomers: true, paidBy: "CUSTOMER", groups: [] })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toContain("paidBy: is not a field of this request body")
    expect(refused.body.message).toContain("groups: is not a field of this request body")
    expect((await read(apiKey)).paysForCustomers).toBe(false)
    const reply = await put(apiKey, { paysForCustomers: true, customerId: "x" })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({ paysForCustomers: true, paidBy: "PARTNER", groups })
  })

  describe("validation: 400 BAD_REQUEST naming paysForCustomers, nothing stored", () => {
    const cases: ReadonlyArray<[string, unknown, RegExp]> = [
      ["missing", {}, /^paysForCustomers: is required$/],
      ["null", { paysForCustomers: null }, /^paysForCustomers: must be true or false/],
      ["a string", { paysForCustomers: "true" }, /^paysForCustomers: must be true or false \(got "true"\)$/],
      ["a number", { paysForCustomers: 1 }, /^paysForCustomers: must be true or false/],
      ["an object", { paysForCustomers: { value: true } }, /^paysForCustomers: must be true or false/],
      ["an array", { paysForCustomers: [true] }, /^paysForCustomers: must be true or false/]
    ]
    for (const [label, body, message] of cases) {
      it(label, async () => {
        const { apiKey, partnerId } = await app.newPartner()
        const reply = await put(apiKey, body)
        expect(reply.status).toBe(400)
        expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST", path: `/api/v1${path}` })
        expect(reply.body.message).toMatch(message)
        expect(await app.query("SELECT partner_id FROM international_fee_settings WHERE partner_id = $1", [partnerId])).toEqual([])
      })
    }

    it("a set value survives a refused PUT", async () => {
      const { apiKey } = await app.newPartner()
      const set = (await put(apiKey, { paysForCustomers: true })).body.data
      expect((await put(apiKey, { paysForCustomers: "no" })).status).toBe(400)
      expect(await read(apiKey)).toEqual(set)
    })

    it("no body, a body that is not an object, malformed JSON, another content type", async () => {
      const { apiKey } = await app.newPartner()
      const none = await app.request("PUT", path, { apiKey })
      expect({ status: none.status, code: none.body.code }).toEqual({ status: 400, code: "BAD_REQUEST" })
      const array = await put(apiKey, [{ paysForCustomers: true }])
      expect({ status: array.status, code: array.body.code }).toEqual({ status: 400, code: "BAD_REQUEST" })
      const malformed = await app.request("PUT", path, { apiKey, rawBody: "{\"paysForCustomers\": tru", headers: { "content-type": "application/json" } })
      expect({ status: malformed.status, code: malformed.body.code }).toEqual({ status: 400, code: "MALFORMED_JSON" })
      const text = await app.request("PUT", path, { apiKey, rawBody: "paysForCustomers=true", headers: { "content-type": "text/plain" } })
      expect({ status: text.status, code: text.body.code }).toEqual({ status: 415, code: "UNSUPPORTED_MEDIA_TYPE" })
      expect((await read(apiKey)).updatedAt).toBeNull()
    })
  })

  it("other methods are 405 with Allow: GET, PUT", async () => {
    const { apiKey } = await app.newPartner()
    const reply = await app.request("POST", path, { apiKey, body: { paysForCustomers: true } })
    expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 405, code: "METHOD_NOT_ALLOWED" })
    expect(reply.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["GET", "PUT"])
  })
})
