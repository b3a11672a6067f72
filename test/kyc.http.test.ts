import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { kycClient } from "./support/KycHelpers.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp
let apiKey: string
let kyc: ReturnType<typeof kycClient>

beforeAll(async () => {
  app = await startTestApp()
  apiKey = (await app.newPartner()).apiKey
  kyc = kycClient(app, apiKey)
})
afterAll(() => app?.close())

const recordCount = async (customerId: string) =>
  (await app.query("SELECT id FROM kyc_records WHERE customer_id = $1", [customerId])).length

const notStarted = { status: "NOT_STARTED", updatedAt: null, rejectionReason: null }

describe("Tier 1", () => {
  it("approves matching BVN and NIN with 201, records it, emits kyc.status_updated and sets verifiedAt", async () => {
    const customerId = await kyc.newCustomer()
    const reply = await kyc.tier1(customerId)
    expect(reply.status).toBe(201)
    expect(reply.body.success).toBe(true)
    const { status, record } = reply.body.data
    expect(status).toBe("APPROVED")
    expect(record).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      customerId,
      level: 1,
      status: "APPROVED",
      idType: "BVN",
      rejectionReason: null,
      createdAt: expect.any(String)
    })
    const events = await kyc.events(customerId, "kyc.status_updated")
    expect(events).toHaveLength(1)
    expect(events[0].data).toEqual({ customerId, kycId: record.id, level: 1, status: "APPROVED" })
    const customer = await app.request("GET", `/partner/v1/customers/${customerId}`, { apiKey })
    expect(customer.body.data.verifiedAt).toBe(record.createdAt)
    const list = await app.request("GET", `/partner/v1/customers/${customerId}/kyc`, { apiKey })
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual([record])
    expect(list.body.meta).toBeUndefined()
  })

  it("answers 400 BAD_REQUEST naming the field for a missing or malformed number, and writes nothing", async () => {
    const customerId = await kyc.newCustomer()
    const cases: Array<[unknown, string]> = [
      [{ nin: "12345678901" }, "bvn"],
      [{ bvn: "12345678901" }, "nin"],
      [{ bvn: "1234567890", nin: "12345678901" }, "bvn"],
      [{ bvn: "123456789012", nin: "12345678901" }, "bvn"],
      [{ bvn: "12345678901", nin: "1234567890a" }, "nin"],
      [{ bvn: 12345678901, nin: "12345678901" }, "bvn"]
    ]
    for (const [body, field] of cases) {
      const reply = await app.request("POST", `/partner/v1/customers/${customerId}/kyc/tier1`, { apiKey, body })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "BAD_REQUEST" })
      expect(reply.body.message).toContain(field)
    }
    expect(await recordCount(customerId)).toBe(0)
    expect(await kyc.events(customerId, "kyc.status_updated")).toHaveLength(0)
  })

  it.each([
    ["timeout", "00000000000", "12345678901", "BVN registry did not answer in time"],
    ["partial name match", "12345678901", "11111111111", "NIN name only partially matches"],
    ["another person", "22222222222", "12345678901", "BVN name does not match"],
    ["no record", "12345678901", "99999999999", "No NIN record was found"]
  ])("sends a %s to REVIEW with the reason in the event", async (_label, bvn, nin, reason) => {
    const customerId = await kyc.newCustomer()
    const reply = await kyc.tier1(customerId, bvn, nin)
    expect(reply.status).toBe(201)
    expect(reply.body.data.status).toBe("REVIEW")
    expect(reply.body.data.record).toMatchObject({ status: "REVIEW", rejectionReason: null, level: 1 })
    const events = await kyc.events(customerId, "kyc.status_updated")
    expect(events).toHaveLength(1)
    expect(events[0].data).toMatchObject({ customerId, kycId: reply.body.data.record.id, level: 1, status: "REVIEW" })
    expect(events[0].data.reason).toContain(reason)
    const summary = await kyc.summary(customerId)
    expect(summary.currentTier).toBe(0)
    expect(summary.tiers["1"].status).toBe("REVIEW")
    expect(summary.nextRequired).toEqual([])
    const customer = await app.request("GET", `/partner/v1/customers/${customerId}`, { apiKey })
    expect(customer.body.data.verifiedAt).toBeNull()
  })

  it("refuses a second submission while the tier awaits a decision or is approved", async () => {
    const reviewed = await kyc.newCustomer()
    await kyc.tier1(reviewed, "00000000000")
    const again = await kyc.tier1(reviewed)
    expect(again.status).toBe(400)
    expect(again.body.code).toBe("KYC_TIER_AWAITING_DECISION")
    const approved = await kyc.newCustomer()
    await kyc.tier1(approved)
    const twice = await kyc.tier1(approved)
    expect(twice.status).toBe(400)
    expect(twice.body.code).toBe("KYC_TIER_ALREADY_APPROVED")
    expect(await recordCount(reviewed)).toBe(1)
    expect(await recordCount(approved)).toBe(1)
  })
})

describe("reviewer decisions", () => {
  it("approves a tier in REVIEW, setting verifiedAt, and refuses deciding it again", async () => {
    const customerId = await kyc.newCustomer()
    const submitted = await kyc.tier1(customerId, "11111111111")
    const decided = await kyc.decide(customerId, 1, { status: "APPROVED" })
    expect(decided.status).toBe(200)
    expect(decided.body.data).toMatchObject({ id: submitted.body.data.record.id, status: "APPROVED", rejectionReason: null })
    const events = await kyc.events(customerId, "kyc.status_updated")
    expect(events.map((e) => e.data.status)).toEqual(["APPROVED", "REVIEW"])
    const customer = await app.request("GET", `/partner/v1/customers/${customerId}`, { apiKey })
    expect(customer.body.data.verifiedAt).not.toBeNull()
    const summary = await kyc.summary(customerId)
    expect(summary.currentTier).toBe(1)
    expect(summary.tiers["1"]).toMatchObject({ status: "APPROVED", rejectionReason: null })
    expect(summary.tiers["1"].updatedAt).toEqual(expect.any(String))

    const again = await kyc.decide(customerId, 1, { status: "REJECTED", reason: "too late" })
    expect(again.status).toBe(400)
    expect(again.body).toMatchObject({ success: false, code: "KYC_NOT_AWAITING_DECISION" })
    const never = await kyc.decide(customerId, 2, { status: "APPROVED" })
    expect(never.body.code).toBe("KYC_NOT_AWAITING_DECISION")
  })

  it("rejects with a reason; the customer may re-submit, which creates a new record", async () => {
    const customerId = await kyc.newCustomer()
    const first = await kyc.tier1(customerId, "22222222222")
    const noReason = await kyc.decide(customerId, 1, { status: "REJECTED" })
    expect(noReason.status).toBe(400)
    expect(noReason.body.message).toContain("reason")
    const rejected = await kyc.decide(customerId, 1, { status: "REJECTED", reason: "Name does not match the BVN" })
    expect(rejected.status).toBe(200)
    expect(rejected.body.data).toMatchObject({ status: "REJECTED", rejectionReason: "Name does not match the BVN" })
    const events = await kyc.events(customerId, "kyc.status_updated")
    expect(events[0].data).toEqual({
      customerId,
      kycId: first.body.data.record.id,
      level: 1,
      status: "REJECTED",
      reason: "Name does not match the BVN"
    })
    let summary = await kyc.summary(customerId)
    expect(summary.tiers["1"]).toMatchObject({ status: "REJECTED", rejectionReason: "Name does not match the BVN" })
    expect(summary.nextRequired).toEqual(["BVN", "NIN"])
    expect(summary.currentTier).toBe(0)

    const second = await kyc.tier1(customerId)
    expect(second.status).toBe(201)
    expect(second.body.data.status).toBe("APPROVED")
    expect(second.body.data.record.id).not.toBe(first.body.data.record.id)
    summary = await kyc.summary(customerId)
    expect(summary.tiers["1"]).toMatchObject({ status: "APPROVED", rejectionReason: null })
    expect(summary.records.map((r: any) => r.status)).toEqual(["APPROVED", "REJECTED"])
    const records = await app.request("GET", `/partner/v1/customers/${customerId}/kyc`, { apiKey })
    expect(records.body.data).toHaveLength(2)
  })

  it("validates the level and the body", async () => {
    const customerId = await kyc.newCustomer()
    await kyc.tier1(customerId, "00000000000")
    for (const level of ["4", "0", "x"]) {
      const reply = await kyc.decide(customerId, level, { status: "APPROVED" })
      expect(reply.status).toBe(400)
      expect(reply.body.message).toContain("level")
    }
    const badStatus = await kyc.decide(customerId, 1, { status: "MAYBE" })
    expect(badStatus.status).toBe(400)
    expect(badStatus.body.message).toContain("status")
    expect((await kyc.summary(customerId)).tiers["1"].status).toBe("REVIEW")
  })
})

describe("the verification summary", () => {
  it("walks nextRequired through Tier 1, Tier 2 and a not-started Tier 3", async () => {
    const customerId = await kyc.newCustomer()
    let summary = await kyc.summary(customerId)
    expect(summary).toEqual({
      currentTier: 0,
      tiers: { "1": notStarted, "2": notStarted, "3": notStarted },
      nextRequired: ["BVN", "NIN"],
      reverification: null,
      records: []
    })

    await kyc.tier1(customerId)
    summary = await kyc.summary(customerId)
    expect(summary.currentTier).toBe(1)
    expect(summary.nextRequired).toEqual(["ID_DOCUMENT", "SELFIE"])

    const submitted = await kyc.tier2(customerId)
    expect(submitted.status).toBe(201)
    expect(submitted.body.data).toMatchObject({ status: "PENDING", record: { level: 2, status: "PENDING", idType: "PASSPORT" } })
    summary = await kyc.summary(customerId)
    expect(summary.tiers["2"].status).toBe("PENDING")
    expect(summary.nextRequired).toEqual([])
    expect(await kyc.events(customerId, "kyc.status_updated")).toHaveLength(1)

    // Default identity policy: auto, success, after 120 s on the service clock.
    await kyc.advance(60)
    expect((await kyc.summary(customerId)).tiers["2"].status).toBe("PENDING")
    await kyc.advance(60)
    summary = await kyc.summary(customerId)
    expect(summary.currentTier).toBe(2)
    expect(summary.tiers["2"]).toMatchObject({ status: "APPROVED", rejectionReason: null })
    expect(summary.tiers["3"]).toEqual(notStarted)
    expect(summary.nextRequired).toEqual(["DATE_OF_BIRTH", "ADDRESS"])
    expect(summary.records.map((r: any) => r.level)).toEqual([2, 1])
    const events = await kyc.events(customerId, "kyc.status_updated")
    expect(events[0].data).toEqual({ customerId, kycId: submitted.body.data.record.id, level: 2, status: "APPROVED" })
  })
})

describe("forbidden customers", () => {
  it("answers 403 CUSTOMER_FORBIDDEN for another partner's, unknown or malformed ids on every KYC route", async () => {
    const customerId = await kyc.newCustomer()
    const other = await app.newPartner()
    const ids = [customerId, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]
    for (const id of ids) {
      const key = id === customerId ? other.apiKey : apiKey
      const routes: Array<[string, string, unknown]> = [
        ["POST", `/partner/v1/customers/${id}/kyc/tier1`, { bvn: "12345678901", nin: "12345678901" }],
        ["GET", `/partner/v1/customers/${id}/kyc`, undefined],
        ["GET", `/partner/v1/customers/${id}/verification`, undefined],
        ["GET", `/partner/v1/customers/${id}/kyc/reverification`, undefined],
        ["POST", `/sandbox/customers/${id}/kyc/1/decision`, { status: "APPROVED" }],
        ["POST", `/sandbox/customers/${id}/kyc/reverification`, { items: ["BVN"], message: "redo" }]
      ]
      for (const [method, path, body] of routes) {
        const reply = await app.request(method, path, { apiKey: key, body })
        expect(reply.status, `${method} ${path}`).toBe(403)
        expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
      }
    }
    expect(await recordCount(customerId)).toBe(0)
  })
})
