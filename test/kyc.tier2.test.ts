import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { KycDocumentNotFound, KycPreviousTierNotApproved, KycTierAlreadyApproved, KycTierAwaitingDecision } from "../src/kyc/Api.js"
import { kycClient, samples } from "./support/KycHelpers.js"
import { kycSteps, servicesOf, valueOf, type ServiceHarness } from "./support/ServiceHarness.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Tier 2 and re-verification. The rules (eligibility, the documents' ownership, the identity rail's outcomes and
 * delays, the reviewer's decisions, magic document numbers, re-verification requests and what closes them) at the
 * service level: `Kyc` called directly, no HTTP (test/support/ServiceHarness.ts, over the services of the file's one
 * test app, so one database); the service clock is frozen and moves when a test advances it. The request
 * validation (the routes' schemas: 400 BAD_REQUEST naming the field) over real HTTP, on one server.
 */
let app: TestApp
let services: ServiceHarness

beforeAll(async () => {
  app = await startTestApp()
  services = servicesOf(app)
})
afterAll(() => app?.close())

/** Each test gets its own partner: rail policies are per partner. */
const fresh = async () => {
  const { partnerId } = await services.newPartner()
  const kyc = kycSteps(services, partnerId)
  return {
    partnerId,
    kyc,
    newCustomer: () => services.newCustomer(partnerId),
    advance: (seconds: number) => services.advance(partnerId, seconds),
    events: async (customerId: string, type: string) => [...await services.events(partnerId, customerId, type)],
    setIdentity: (policy: { mode: "auto" | "manual"; outcome?: "success" | "failure"; delaySeconds?: number }) =>
      services.railPolicy(partnerId, "identity", policy)
  }
}

const verifiedCustomer = async (p: Awaited<ReturnType<typeof fresh>>) => {
  const customerId = await p.newCustomer()
  expect(valueOf(await p.kyc.tier1(customerId)).status).toBe("APPROVED")
  return customerId
}

const tier2Records = async (customerId: string) =>
  (await services.query("SELECT id FROM kyc_records WHERE customer_id = $1 AND level = 2", [customerId])).length

/** A refusal: the error's class and its code. */
const refusedWith = (outcome: { ok: boolean; error?: unknown; code?: string | undefined }, error: abstract new (...args: any) => unknown, code: string) => {
  expect(outcome.ok).toBe(false)
  expect(outcome.error).toBeInstanceOf(error)
  expect(outcome.code).toBe(code)
  return outcome.error as { readonly message: string }
}

describe("Tier 2", () => {
  it("requires Tier 1 approved: KycPreviousTierNotApproved, nothing written", async () => {
    const p = await fresh()
    const none = await p.newCustomer()
    refusedWith(await p.kyc.tier2(none), KycPreviousTierNotApproved, "KYC_PREVIOUS_TIER_NOT_APPROVED")
    const inReview = await p.newCustomer()
    await p.kyc.tier1(inReview, "00000000000")
    refusedWith(await p.kyc.tier2(inReview), KycPreviousTierNotApproved, "KYC_PREVIOUS_TIER_NOT_APPROVED")
    expect(await tier2Records(none)).toBe(0)
    expect(await tier2Records(inReview)).toBe(0)
  })

  it("takes only documents uploaded for this customer, and images for the selfie: KycDocumentNotFound naming the field", async () => {
    const p = await fresh()
    const customerId = await verifiedCustomer(p)
    const neighbour = await p.newCustomer()
    const good = await p.kyc.tier2Body(customerId)
    const foreign = await p.kyc.upload(neighbour, samples.png())
    const pdf = await p.kyc.upload(customerId, samples.pdf())
    const cases: Array<[typeof good, string]> = [
      [{ ...good, selfieUrl: foreign }, "selfieUrl"],
      [{ ...good, idDocument: { ...good.idDocument, frontUrl: good.selfieUrl.replace(/[0-9a-f]{4}$/, "0000") } }, "idDocument.frontUrl"],
      [{ ...good, idDocument: { ...good.idDocument, backUrl: foreign } }, "idDocument.backUrl"],
      [{ ...good, selfieUrl: pdf }, "selfieUrl"]
    ]
    for (const [body, field] of cases) {
      const error = refusedWith(await p.kyc.submitTier2(customerId, body), KycDocumentNotFound, "KYC_DOCUMENT_NOT_FOUND")
      expect(error.message, JSON.stringify(body)).toContain(field)
    }
    expect(await tier2Records(customerId)).toBe(0)
    expect(await services.query("SELECT id FROM jobs WHERE customer_id = $1", [customerId])).toHaveLength(0)
  })

  it("is approved automatically after the identity rail's delay, with a back side accepted", async () => {
    const p = await fresh()
    const customerId = await verifiedCustomer(p)
    await p.setIdentity({ mode: "auto", delaySeconds: 30 })
    const body = await p.kyc.tier2Body(customerId)
    const back = await p.kyc.upload(customerId, samples.pdf(), "ID_BACK")
    const submitted = valueOf(await p.kyc.submitTier2(customerId, { ...body, idDocument: { ...body.idDocument, backUrl: back } }))
    expect(submitted.record).toMatchObject({ level: 2, status: "PENDING", idType: "PASSPORT", rejectionReason: null })
    await p.advance(29)
    expect((await p.kyc.summary(customerId)).tiers["2"].status).toBe("PENDING")
    await p.advance(1)
    const summary = await p.kyc.summary(customerId)
    expect(summary.tiers["2"].status).toBe("APPROVED")
    expect(summary.currentTier).toBe(2)
  })

  it("waits for the reviewer in manual mode, and the reviewer's decision wins over a later automatic one", async () => {
    const p = await fresh()
    const customerId = await verifiedCustomer(p)
    await p.setIdentity({ mode: "manual" })
    expect(valueOf(await p.kyc.tier2(customerId)).status).toBe("PENDING")
    await p.advance(7 * 86_400)
    expect((await p.kyc.summary(customerId)).tiers["2"].status).toBe("PENDING")
    expect(await p.events(customerId, "kyc.status_updated")).toHaveLength(1)
    refusedWith(await p.kyc.tier2(customerId), KycTierAwaitingDecision, "KYC_TIER_AWAITING_DECISION")

    expect(valueOf(await p.kyc.decide(customerId, 2, { status: "APPROVED" }))).toMatchObject({ level: 2, status: "APPROVED" })
    const summary = await p.kyc.summary(customerId)
    expect(summary.currentTier).toBe(2)
    expect(summary.nextRequired).toEqual(["DATE_OF_BIRTH", "ADDRESS"])
    refusedWith(await p.kyc.tier2(customerId), KycTierAlreadyApproved, "KYC_TIER_ALREADY_APPROVED")
  })

  it("lets a reviewer decide before the automatic check runs; the check then leaves the decision alone", async () => {
    const p = await fresh()
    const customerId = await verifiedCustomer(p)
    const submitted = valueOf(await p.kyc.tier2(customerId))
    const decided = valueOf(await p.kyc.decide(customerId, 2, { status: "REJECTED", reason: "Document is blurred" }))
    expect(decided).toMatchObject({ id: submitted.record.id, status: "REJECTED" })
    await p.advance(3_600)
    const summary = await p.kyc.summary(customerId)
    expect(summary.tiers["2"]).toMatchObject({ status: "REJECTED", rejectionReason: "Document is blurred" })
    const levels = (await p.events(customerId, "kyc.status_updated")).map((e) => `${e.data.level}:${e.data.status}`)
    expect(levels).toEqual(["2:REJECTED", "1:APPROVED"])
    const job = await services.query<{ status: string }>("SELECT status FROM jobs WHERE customer_id = $1", [customerId])
    expect(job.map((j) => j.status)).toEqual(["DONE"])
  })

  it("is REJECTED when the identity rail's outcome is failure; re-submission creates a new record", async () => {
    const p = await fresh()
    const customerId = await verifiedCustomer(p)
    await p.setIdentity({ mode: "auto", outcome: "failure", delaySeconds: 10 })
    const first = valueOf(await p.kyc.tier2(customerId))
    await p.advance(10)
    let summary = await p.kyc.summary(customerId)
    expect(summary.tiers["2"]).toMatchObject({ status: "REJECTED", rejectionReason: "The identity document could not be verified" })
    expect(summary.nextRequired).toEqual(["ID_DOCUMENT", "SELFIE"])
    expect(summary.currentTier).toBe(1)
    const events = await p.events(customerId, "kyc.status_updated")
    expect(events[0]!.data).toEqual({
      customerId,
      kycId: first.record.id,
      level: 2,
      status: "REJECTED",
      reason: "The identity document could not be verified"
    })

    await p.setIdentity({ mode: "auto" })
    const second = valueOf(await p.kyc.tier2(customerId))
    expect(second.record.id).not.toBe(first.record.id)
    await p.advance(120)
    summary = await p.kyc.summary(customerId)
    expect(summary.tiers["2"]).toMatchObject({ status: "APPROVED", rejectionReason: null })
    expect(summary.records.filter((r) => r.level === 2).map((r) => r.status)).toEqual(["APPROVED", "REJECTED"])
  })

  it.each([
    ["00000000", "REJECTED"],
    ["11111111", "REVIEW"]
  ])("follows the magic document number %s to %s whatever the policy's outcome", async (number, status) => {
    const p = await fresh()
    const customerId = await verifiedCustomer(p)
    const submitted = valueOf(await p.kyc.tier2(customerId, number))
    expect(submitted.status).toBe("PENDING")
    await p.advance(120)
    const summary = await p.kyc.summary(customerId)
    expect(summary.tiers["2"].status).toBe(status)
    expect(summary.nextRequired).toEqual(status === "REJECTED" ? ["ID_DOCUMENT", "SELFIE"] : [])
    const [event] = await p.events(customerId, "kyc.status_updated")
    expect(event!.data).toMatchObject({ kycId: submitted.record.id, level: 2, status })
    expect(typeof event!.data.reason).toBe("string")
    if (status === "REVIEW") {
      const decided = valueOf(await p.kyc.decide(customerId, 2, { status: "REJECTED", reason: "Selfie does not match" }))
      expect(decided).toMatchObject({ status: "REJECTED", rejectionReason: "Selfie does not match" })
    }
  })
})

describe("re-verification", () => {
  it("opens a request, lists its items first in nextRequired, and closes once they are re-submitted", async () => {
    const p = await fresh()
    const customerId = await verifiedCustomer(p)
    await p.kyc.tier2(customerId)
    await p.advance(120)
    expect(await p.kyc.reverification(customerId)).toBeNull()

    const opened = valueOf(await p.kyc.requestReverification(customerId, ["SELFIE", "NIN", "SELFIE"], "Please retake your selfie and confirm your NIN"))
    expect(opened).toMatchObject({
      items: ["SELFIE", "NIN"],
      outstanding: ["SELFIE", "NIN"],
      message: "Please retake your selfie and confirm your NIN",
      status: "OPEN"
    })
    const [event] = await p.events(customerId, "kyc.reverification_requested")
    expect(event!.data).toEqual({ customerId, items: ["SELFIE", "NIN"], message: "Please retake your selfie and confirm your NIN" })
    expect(await p.kyc.reverification(customerId)).toEqual(opened)
    let summary = await p.kyc.summary(customerId)
    expect(summary.reverification).toEqual(opened)
    expect(summary.nextRequired).toEqual(["SELFIE", "NIN", "DATE_OF_BIRTH", "ADDRESS"])

    // Tier 1 is approved, but the request asks for NIN: a new Tier 1 submission is accepted.
    const verifiedAt = (await p.kyc.customer(customerId)).verifiedAt
    expect(verifiedAt).not.toBeNull()
    await p.advance(60)
    expect(valueOf(await p.kyc.tier1(customerId)).status).toBe("APPROVED")
    // verifiedAt records the first Tier 1 approval only.
    expect((await p.kyc.customer(customerId)).verifiedAt).toEqual(verifiedAt)
    summary = await p.kyc.summary(customerId)
    expect(summary.reverification?.outstanding).toEqual(["SELFIE"])
    expect(summary.nextRequired).toEqual(["SELFIE", "DATE_OF_BIRTH", "ADDRESS"])

    valueOf(await p.kyc.tier2(customerId))
    summary = await p.kyc.summary(customerId)
    expect(summary.reverification).toBeNull()
    expect(summary.nextRequired).toEqual([])
    expect(await p.kyc.reverification(customerId)).toBeNull()
    await p.advance(120)
    expect((await p.kyc.summary(customerId)).nextRequired).toEqual(["DATE_OF_BIRTH", "ADDRESS"])
  })

  it("replaces an open request with a newer one and puts Tier 3 items first for a new customer", async () => {
    const p = await fresh()
    const customerId = await p.newCustomer()
    const first = valueOf(await p.kyc.requestReverification(customerId, ["BVN"], "Update needed"))
    const second = valueOf(await p.kyc.requestReverification(customerId, ["ADDRESS_PROOF", "COUNTRY"], "Update needed"))
    expect(second.id).not.toBe(first.id)
    const summary = await p.kyc.summary(customerId)
    expect(summary.reverification?.id).toBe(second.id)
    expect(summary.nextRequired).toEqual(["ADDRESS_PROOF", "COUNTRY", "BVN", "NIN"])
    const rows = await services.query<{ status: string }>("SELECT status FROM kyc_reverifications WHERE customer_id = $1 ORDER BY seq", [customerId])
    expect(rows.map((r) => r.status)).toEqual(["SUPERSEDED", "OPEN"])
  })
})

describe("over HTTP: the routes' validation (400 BAD_REQUEST naming the field, nothing written)", () => {
  it("POST .../kyc/tier2: the payload's shape and the document urls' form", async () => {
    const { apiKey } = await app.newPartner()
    const kyc = kycClient(app, apiKey)
    const customerId = await kyc.newCustomer()
    expect((await kyc.tier1(customerId)).body.data.status).toBe("APPROVED")
    const good = await kyc.tier2Body(customerId)
    const path = `/partner/v1/customers/${customerId}/kyc/tier2`
    const cases: Array<[unknown, string]> = [
      [{ selfieUrl: good.selfieUrl }, "idDocument"],
      [{ idDocument: good.idDocument }, "selfieUrl"],
      [{ ...good, idDocument: { ...good.idDocument, type: "LIBRARY_CARD" } }, "idDocument.type"],
      [{ ...good, idDocument: { ...good.idDocument, number: "12" } }, "idDocument.number"],
      [{ ...good, selfieUrl: "https://example.com/me.png" }, "selfieUrl"]
    ]
    for (const [body, field] of cases) {
      const reply = await app.request("POST", path, { apiKey, body })
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain(field)
    }
    // The service's own refusal reaches the partner as its status and code.
    const foreign = await kyc.upload(await kyc.newCustomer(), samples.png(), "n.png")
    const notFound = await app.request("POST", path, { apiKey, body: { ...good, selfieUrl: foreign.body.data.url } })
    expect({ status: notFound.status, code: notFound.body.code }).toEqual({ status: 400, code: "KYC_DOCUMENT_NOT_FOUND" })
    expect(notFound.body.message).toContain("selfieUrl")
    expect(await app.query("SELECT id FROM kyc_records WHERE customer_id = $1 AND level = 2", [customerId])).toHaveLength(0)
    expect(await app.query("SELECT id FROM jobs WHERE customer_id = $1", [customerId])).toHaveLength(0)
    // A valid submission answers 201 with the record in the envelope.
    const submitted = await app.request("POST", path, { apiKey, body: good })
    expect(submitted.status).toBe(201)
    expect(submitted.body).toMatchObject({ success: true, data: { status: "PENDING", record: { level: 2, status: "PENDING" } } })
  })

  it("POST /sandbox/customers/{id}/kyc/reverification: bad items or message, and the read of none", async () => {
    const { apiKey } = await app.newPartner()
    const kyc = kycClient(app, apiKey)
    const customerId = await kyc.newCustomer()
    const none = await app.request("GET", `${kyc.base(customerId)}/kyc/reverification`, { apiKey })
    expect(none.status).toBe(200)
    expect(none.body).toEqual({ success: true, data: null })
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
    const opened = await app.request("POST", `/sandbox/customers/${customerId}/kyc/reverification`, { apiKey, body: { items: ["BVN"], message: "Update needed" } })
    expect(opened.status).toBe(201)
    expect(opened.body.data).toMatchObject({ items: ["BVN"], outstanding: ["BVN"], status: "OPEN" })
  })
})
