import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { kycClient, samples } from "./support/KycHelpers.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app?.close())

/** Each test gets its own partner: rail policies are per partner. */
const fresh = async () => {
  const { apiKey } = await app.newPartner()
  return { apiKey, kyc: kycClient(app, apiKey) }
}

const verifiedCustomer = async (kyc: ReturnType<typeof kycClient>) => {
  const customerId = await kyc.newCustomer()
  const reply = await kyc.tier1(customerId)
  expect(reply.body.data.status).toBe("APPROVED")
  return customerId
}

const tier2Records = async (customerId: string) =>
  (await app.query("SELECT id FROM kyc_records WHERE customer_id = $1 AND level = 2", [customerId])).length

describe("Tier 2", () => {
  it("requires Tier 1 approved: 400 KYC_PREVIOUS_TIER_NOT_APPROVED, nothing written", async () => {
    const { kyc } = await fresh()
    const none = await kyc.newCustomer()
    const refused = await kyc.tier2(none)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ success: false, code: "KYC_PREVIOUS_TIER_NOT_APPROVED" })
    const inReview = await kyc.newCustomer()
    await kyc.tier1(inReview, "00000000000")
    expect((await kyc.tier2(inReview)).body.code).toBe("KYC_PREVIOUS_TIER_NOT_APPROVED")
    expect(await tier2Records(none)).toBe(0)
    expect(await tier2Records(inReview)).toBe(0)
  })

  it("validates the payload and the document urls", async () => {
    const { apiKey, kyc } = await fresh()
    const customerId = await verifiedCustomer(kyc)
    const neighbour = await kyc.newCustomer()
    const good = await kyc.tier2Body(customerId)
    const foreign = await kyc.upload(neighbour, samples.png(), "n.png")
    const pdf = await kyc.upload(customerId, samples.pdf(), "selfie.pdf")
    const path = `/partner/v1/customers/${customerId}/kyc/tier2`
    const cases: Array<[unknown, string, string]> = [
      [{ selfieUrl: good.selfieUrl }, "idDocument", "BAD_REQUEST"],
      [{ idDocument: good.idDocument }, "selfieUrl", "BAD_REQUEST"],
      [{ ...good, idDocument: { ...good.idDocument, type: "LIBRARY_CARD" } }, "idDocument.type", "BAD_REQUEST"],
      [{ ...good, idDocument: { ...good.idDocument, number: "12" } }, "idDocument.number", "BAD_REQUEST"],
      [{ ...good, selfieUrl: "https://example.com/me.png" }, "selfieUrl", "BAD_REQUEST"],
      [{ ...good, selfieUrl: foreign.body.data.url }, "selfieUrl", "KYC_DOCUMENT_NOT_FOUND"],
      [{ ...good, idDocument: { ...good.idDocument, frontUrl: good.selfieUrl.replace(/[0-9a-f]{4}$/, "0000") } }, "idDocument.frontUrl", "KYC_DOCUMENT_NOT_FOUND"],
      [{ ...good, idDocument: { ...good.idDocument, backUrl: foreign.body.data.url } }, "idDocument.backUrl", "KYC_DOCUMENT_NOT_FOUND"],
      [{ ...good, selfieUrl: pdf.body.data.url }, "selfieUrl", "KYC_DOCUMENT_NOT_FOUND"]
    ]
    for (const [body, field, code] of cases) {
      const reply = await app.request("POST", path, { apiKey, body })
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe(code)
      expect(reply.body.message).toContain(field)
    }
    expect(await tier2Records(customerId)).toBe(0)
    expect(await app.query("SELECT id FROM jobs WHERE customer_id = $1", [customerId])).toHaveLength(0)
  })

  it("is approved automatically after the identity rail's delay, with a back side accepted", async () => {
    const { apiKey, kyc } = await fresh()
    const customerId = await verifiedCustomer(kyc)
    expect((await kyc.setIdentity({ mode: "auto", delaySeconds: 30 })).status).toBe(200)
    const body = await kyc.tier2Body(customerId)
    const back = await kyc.upload(customerId, samples.pdf(), "back.pdf", "ID_BACK")
    const submitted = await app.request("POST", `${kyc.base(customerId)}/kyc/tier2`, {
      apiKey,
      body: { ...body, idDocument: { ...body.idDocument, backUrl: back.body.data.url } }
    })
    expect(submitted.status).toBe(201)
    expect(submitted.body.data.record).toMatchObject({ level: 2, status: "PENDING", idType: "PASSPORT", rejectionReason: null })
    await kyc.advance(29)
    expect((await kyc.summary(customerId)).tiers["2"].status).toBe("PENDING")
    await kyc.advance(1)
    const summary = await kyc.summary(customerId)
    expect(summary.tiers["2"].status).toBe("APPROVED")
    expect(summary.currentTier).toBe(2)
  })

  it("waits for the reviewer in manual mode, and the reviewer's decision wins over a later automatic one", async () => {
    const { kyc } = await fresh()
    const customerId = await verifiedCustomer(kyc)
    await kyc.setIdentity({ mode: "manual" })
    const submitted = await kyc.tier2(customerId)
    expect(submitted.body.data.status).toBe("PENDING")
    await kyc.advance(7 * 86_400)
    expect((await kyc.summary(customerId)).tiers["2"].status).toBe("PENDING")
    expect(await kyc.events(customerId, "kyc.status_updated")).toHaveLength(1)
    const resubmit = await kyc.tier2(customerId)
    expect(resubmit.body.code).toBe("KYC_TIER_AWAITING_DECISION")

    const decided = await kyc.decide(customerId, 2, { status: "APPROVED" })
    expect(decided.status).toBe(200)
    expect(decided.body.data).toMatchObject({ level: 2, status: "APPROVED" })
    const summary = await kyc.summary(customerId)
    expect(summary.currentTier).toBe(2)
    expect(summary.nextRequired).toEqual(["DATE_OF_BIRTH", "ADDRESS"])
    const again = await kyc.tier2(customerId)
    expect(again.body.code).toBe("KYC_TIER_ALREADY_APPROVED")
  })

  it("lets a reviewer decide before the automatic check runs; the check then leaves the decision alone", async () => {
    const { kyc } = await fresh()
    const customerId = await verifiedCustomer(kyc)
    const submitted = await kyc.tier2(customerId)
    const decided = await kyc.decide(customerId, 2, { status: "REJECTED", reason: "Document is blurred" })
    expect(decided.body.data).toMatchObject({ id: submitted.body.data.record.id, status: "REJECTED" })
    await kyc.advance(3_600)
    const summary = await kyc.summary(customerId)
    expect(summary.tiers["2"]).toMatchObject({ status: "REJECTED", rejectionReason: "Document is blurred" })
    const levels = (await kyc.events(customerId, "kyc.status_updated")).map((e) => `${e.data.level}:${e.data.status}`)
    expect(levels).toEqual(["2:REJECTED", "1:APPROVED"])
    const job = await app.query<{ status: string }>("SELECT status FROM jobs WHERE customer_id = $1", [customerId])
    expect(job.map((j) => j.status)).toEqual(["DONE"])
  })

  it("is REJECTED when the identity rail's outcome is failure; re-submission creates a new record", async () => {
    const { kyc } = await fresh()
    const customerId = await verifiedCustomer(kyc)
    await kyc.setIdentity({ mode: "auto", outcome: "failure", delaySeconds: 10 })
    const first = await kyc.tier2(customerId)
    await kyc.advance(10)
    let summary = await kyc.summary(customerId)
    expect(summary.tiers["2"]).toMatchObject({ status: "REJECTED", rejectionReason: "The identity document could not be verified" })
    expect(summary.nextRequired).toEqual(["ID_DOCUMENT", "SELFIE"])
    expect(summary.currentTier).toBe(1)
    const events = await kyc.events(customerId, "kyc.status_updated")
    expect(events[0].data).toEqual({
      customerId,
      kycId: first.body.data.record.id,
      level: 2,
      status: "REJECTED",
      reason: "The identity document could not be verified"
    })

    await kyc.setIdentity({ mode: "auto" })
    const second = await kyc.tier2(customerId)
    expect(second.status).toBe(201)
    expect(second.body.data.record.id).not.toBe(first.body.data.record.id)
    await kyc.advance(120)
    summary = await kyc.summary(customerId)
    expect(summary.tiers["2"]).toMatchObject({ status: "APPROVED", rejectionReason: null })
    expect(summary.records.filter((r: any) => r.level === 2).map((r: any) => r.status)).toEqual(["APPROVED", "REJECTED"])
  })

  it.each([
    ["00000000", "REJECTED"],
    ["11111111", "REVIEW"]
  ])("follows the magic document number %s to %s whatever the policy's outcome", async (number, status) => {
    const { kyc } = await fresh()
    const customerId = await verifiedCustomer(kyc)
    const submitted = await kyc.tier2(customerId, number)
    expect(submitted.body.data.status).toBe("PENDING")
    await kyc.advance(120)
    const summary = await kyc.summary(customerId)
    expect(summary.tiers["2"].status).toBe(status)
    expect(summary.nextRequired).toEqual(status === "REJECTED" ? ["ID_DOCUMENT", "SELFIE"] : [])
    const [event] = await kyc.events(customerId, "kyc.status_updated")
    expect(event.data).toMatchObject({ kycId: submitted.body.data.record.id, level: 2, status })
    expect(typeof event.data.reason).toBe("string")
    if (status === "REVIEW") {
      const decided = await kyc.decide(customerId, 2, { status: "REJECTED", reason: "Selfie does not match" })
      expect(decided.body.data).toMatchObject({ status: "REJECTED", rejectionReason: "Selfie does not match" })
    }
  })
})

describe("re-verification", () => {
  it("opens a request, lists its items first in nextRequired, and closes once they are re-submitted", async () => {
    const { apiKey, kyc } = await fresh()
    const customerId = await verifiedCustomer(kyc)
    await kyc.tier2(customerId)
    await kyc.advance(120)
    const none = await app.request("GET", `${kyc.base(customerId)}/kyc/reverification`, { apiKey })
    expect(none.status).toBe(200)
    expect(none.body).toEqual({ success: true, data: null })

    const opened = await app.request("POST", `/sandbox/customers/${customerId}/kyc/reverification`, {
      apiKey,
      body: { items: ["SELFIE", "NIN", "SELFIE"], message: "Please retake your selfie and confirm your NIN" }
    })
    expect(opened.status).toBe(201)
    expect(opened.body.data).toMatchObject({
      items: ["SELFIE", "NIN"],
      outstanding: ["SELFIE", "NIN"],
      message: "Please retake your selfie and confirm your NIN",
      status: "OPEN"
    })
    const [event] = await kyc.events(customerId, "kyc.reverification_requested")
    expect(event.data).toEqual({ customerId, items: ["SELFIE", "NIN"], message: "Please retake your selfie and confirm your NIN" })
    const read = await app.request("GET", `${kyc.base(customerId)}/kyc/reverification`, { apiKey })
    expect(read.body.data).toEqual(opened.body.data)
    let summary = await kyc.summary(customerId)
    expect(summary.reverification).toEqual(opened.body.data)
    expect(summary.nextRequired).toEqual(["SELFIE", "NIN", "DATE_OF_BIRTH", "ADDRESS"])

    // Tier 1 is approved, but the request asks for NIN: a new Tier 1 submission is accepted.
    const verifiedAt = (await app.request("GET", kyc.base(customerId), { apiKey })).body.data.verifiedAt
    expect(verifiedAt).not.toBeNull()
    await kyc.advance(60)
    const tier1 = await kyc.tier1(customerId)
    expect(tier1.status).toBe(201)
    expect(tier1.body.data.status).toBe("APPROVED")
    // verifiedAt records the first Tier 1 approval only.
    expect((await app.request("GET", kyc.base(customerId), { apiKey })).body.data.verifiedAt).toBe(verifiedAt)
    summary = await kyc.summary(customerId)
    expect(summary.reverification.outstanding).toEqual(["SELFIE"])
    expect(summary.nextRequired).toEqual(["SELFIE", "DATE_OF_BIRTH", "ADDRESS"])

    const tier2 = await kyc.tier2(customerId)
    expect(tier2.status).toBe(201)
    summary = await kyc.summary(customerId)
    expect(summary.reverification).toBeNull()
    expect(summary.nextRequired).toEqual([])
    expect((await app.request("GET", `${kyc.base(customerId)}/kyc/reverification`, { apiKey })).body.data).toBeNull()
    await kyc.advance(120)
    expect((await kyc.summary(customerId)).nextRequired).toEqual(["DATE_OF_BIRTH", "ADDRESS"])
  })

  it("replaces an open request with a newer one and puts Tier 3 items first for a new customer", async () => {
    const { apiKey, kyc } = await fresh()
    const customerId = await kyc.newCustomer()
    const open = (items: Array<string>) =>
      app.request("POST", `/sandbox/customers/${customerId}/kyc/reverification`, { apiKey, body: { items, message: "Update needed" } })
    const first = await open(["BVN"])
    const second = await open(["ADDRESS_PROOF", "COUNTRY"])
    expect(second.body.data.id).not.toBe(first.body.data.id)
    const summary = await kyc.summary(customerId)
    expect(summary.reverification.id).toBe(second.body.data.id)
    expect(summary.nextRequired).toEqual(["ADDRESS_PROOF", "COUNTRY", "BVN", "NIN"])
    const rows = await app.query<{ status: string }>("SELECT status FROM kyc_reverifications WHERE customer_id = $1 ORDER BY seq", [customerId])
    expect(rows.map((r) => r.status)).toEqual(["SUPERSEDED", "OPEN"])
  })

  it("answers 400 naming the field for bad items or message, and writes nothing", async () => {
    const { apiKey, kyc } = await fresh()
    const customerId = await kyc.newCustomer()
    const cases: Array<[unknown, string]> = [
      [{ items: [], message: "x" }, "items"],
      [{ items: ["PASSWORD"], message: "x" }, "items"],
      [{ items: ["BVN"] }, "message"],
      [{ items: ["BVN"], message: "   " }, "message"]
    ]
    for (const [body, field] of cases) {
      const reply = await app.request("POST", `/sandbox/customers/${customerId}/kyc/reverification`, { apiKey, body })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain(field)
    }
    expect(await app.query("SELECT id FROM kyc_reverifications WHERE customer_id = $1", [customerId])).toHaveLength(0)
    expect(await kyc.events(customerId, "kyc.reverification_requested")).toHaveLength(0)
  })
})
