import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkLedger } from "../src/ledger/LedgerCheck.js"
import { reasons } from "../simulators/payout/Enrolments.js"
import { samples } from "./support/KycHelpers.js"
import { internationalClient } from "./support/InternationalClient.js"
import { KycDocumentNotFound, KycPreviousTierNotApproved, KycTierAwaitingDecision } from "../src/kyc/Api.js"
import { internationalSteps, servicesOf, valueOf, type ServiceHarness } from "./support/ServiceHarness.js"
import { startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Tier 3 and international enrolment over real HTTP (docs/contract.md "International status", "International group status",
 * "Registration fee rules", `global_send.enabled`; docs/international.md "Enrolment"): eligibility, the submission
 * per group, the registration fee (USDT, local currency at the live rate, neither, refused-then-free, partner pays),
 * the payout partners' decisions (auto with magic postal codes, by hand), re-send, reject, tier 3 in the
 * verification summary, re-verification items, pending operations. The service clock is frozen: decisions under the
 * auto rail arrive when a test advances it (the payout rail's default delay is 900 s).
 *
 * Moving to the service level (test/support/ServiceHarness.ts: `Enrolments`, `Kyc` called directly on the services of the file's one test app, no HTTP):
 * eligibility, the international status, a second submission of a group awaiting its partner, a foreign document.
 * The rest still runs over HTTP on the file's one server (the payout partners' sandbox controls, rates and
 * operations are simulator routes the harness does not drive yet).
 */
let app: TestApp
let services: ServiceHarness

beforeAll(async () => {
  app = await startTestApp()
  services = servicesOf(app)
})
// The ledger checker once, over everything the file's tests moved (each invariant is over the whole ledger; a
// violation names its transactions): after each test it read the whole, growing ledger again, a tenth of the file's CPU.
afterAll(async () => {
  if (app !== undefined) expect((await app.run(checkLedger)).violations).toEqual([])
  await app?.close()
})

/** A partner on the services (no HTTP), with its steps. */
const servicePartner = async () => {
  const { partnerId } = await services.newPartner()
  return {
    partnerId,
    ...internationalSteps(services, partnerId),
    events: (customerId: string, type?: string) => services.events(partnerId, customerId, type),
    money: (customerId: string) => services.money(customerId, "USDT")
  }
}

const { base, newPartner, upload, verifiedCustomer, address, tier3, group, control, advance, events, money, summary } = internationalClient(() => app)

const individual = (overrides: Record<string, unknown> = {}) => ({
  dateOfBirth: "1990-04-12",
  address: address(),
  ...overrides
})

describe("eligibility and the international status", () => {
  it("needs Tier 2 approved: KycPreviousTierNotApproved and nothing is written", async () => {
    const p = await servicePartner()
    const id = await p.verifiedCustomer({ USDT: 10 }, false)
    const before = await p.events(id)
    const outcome = await p.tier3(id, individual({ destinationCountry: "US" }))
    expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(KycPreviousTierNotApproved)
    expect(outcome.ok ? undefined : outcome.code).toBe("KYC_PREVIOUS_TIER_NOT_APPROVED")
    expect(await p.events(id)).toEqual(before)
    expect(await p.money(id)).toEqual({ available: 10, held: 0 })
    const view = await p.status(id)
    expect(view.eligible).toBe(false)
    expect(view.customerType).toBe("INDIVIDUAL")
    expect(view.groups.map((g) => [g.key, g.status, g.action])).toEqual([
      ["americas_europe", "NOT_STARTED", "COMPLETE_TIER2"],
      ["china", "NOT_STARTED", "COMPLETE_TIER2"]
    ])
  })

  it("lists both groups with countries, partner, fee and the deprecated top-level registrationFee", async () => {
    const p = await servicePartner()
    const id = await p.verifiedCustomer()
    const view = await p.status(id)
    expect(view.eligible).toBe(true)
    const [americas, china] = view.groups
    expect(americas).toEqual({
      key: "americas_europe",
      payoutPartner: "Meridian Payouts",
      status: "NOT_STARTED",
      countries: expect.arrayContaining(["US", "GB", "BR"]),
      optedInCountries: [],
      action: "SUBMIT_TIER3",
      registrationFee: { amount: "3", currency: "USDT", paidBy: "CUSTOMER", paid: false, charged: null }
    })
    expect(china!.countries).toEqual(["CN"])
    expect(view.registrationFee).toEqual(americas!.registrationFee)
    expect((await p.summary(id)).nextRequired).toEqual(["DATE_OF_BIRTH", "ADDRESS"])
  })

  it("the status over HTTP: the same view in the envelope", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p)
    const reply = await app.request("GET", `${base(id)}/global-send/international-status`, { apiKey: p.apiKey })
    expect(reply.status).toBe(200)
    expect(Object.keys(reply.body).sort()).toEqual(["data", "success"])
    expect(reply.body.data).toMatchObject({ eligible: true, customerType: "INDIVIDUAL" })
    expect(reply.body.data.groups.map((g: any) => [g.key, g.status, g.action])).toEqual([
      ["americas_europe", "NOT_STARTED", "SUBMIT_TIER3"],
      ["china", "NOT_STARTED", "SUBMIT_TIER3"]
    ])
  })

  it("a foreign customer is 403 on every route", async () => {
    const p = await newPartner()
    const other = await newPartner()
    const id = await verifiedCustomer(p)
    for (const [method, path, body] of [
      ["GET", `${base(id)}/global-send/international-status`, undefined],
      ["POST", `${base(id)}/kyc/tier3`, individual()],
      ["POST", `${base(id)}/global-send/international-resend?group=china`, undefined],
      ["POST", `${base(id)}/global-send/international-reject?group=china`, { reason: "x" }]
    ] as const) {
      const reply = await app.request(method, path, { apiKey: other.apiKey, ...(body === undefined ? {} : { body }) })
      expect(reply.status, path).toBe(403)
      expect(reply.body.code).toBe("CUSTOMER_FORBIDDEN")
    }
  })
})

describe("an individual enrolment and its fee", () => {
  it("reserves 3 USDT, takes it when the partner creates the customer, approves and emits global_send.enabled once", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 10 })
    const reply = await tier3(p, id, individual({ destinationCountry: "US" }))
    expect(reply.status).toBe(201)
    expect(reply.body.data.status).toBe("PENDING")
    expect(reply.body.data.record).toMatchObject({ customerId: id, level: 3, status: "PENDING", idType: null, rejectionReason: null })
    const groups = reply.body.data.international.groups
    expect(groups[0]).toMatchObject({ key: "americas_europe", status: "PENDING", optedInCountries: ["US"], action: null })
    expect(groups[1]).toMatchObject({ key: "china", status: "NOT_STARTED" })
    expect(await money(p, id, "USDT")).toEqual({ available: 7, held: 3 })
    expect((await summary(p, id)).tiers["3"].status).toBe("PENDING")
    expect((await summary(p, id)).nextRequired).toEqual([])
    const due = await app.request("GET", "/sandbox/clock/due?seconds=900", { apiKey: p.apiKey })
    expect(due.body.data.filter((job: any) => job.name === "payout.enrolment_decision").map((job: any) => job.customerId)).toEqual([id])

    expect((await advance(p)).status).toBe(200)
    const after = await group(p, id, "americas_europe")
    expect(after).toMatchObject({
      status: "APPROVED",
      action: null,
      registrationFee: { amount: "3", currency: "USDT", paidBy: "CUSTOMER", paid: true, charged: { amount: "3", currency: "USDT" } }
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 7, held: 0 })
    const enabled = await events(p, id, "global_send.enabled")
    expect(enabled.map((e) => e.data)).toEqual([{ customerId: id, groups: ["americas_europe"], newGroups: ["americas_europe"] }])
    const kycEvents = (await events(p, id, "kyc.status_updated")).filter((e) => e.data.level === 3)
    expect(kycEvents.map((e) => e.data.status)).toEqual(["APPROVED"])
    const verification = await summary(p, id)
    expect(verification.currentTier).toBe(3)
    expect(verification.tiers["3"].status).toBe("APPROVED")
    expect(verification.nextRequired).toEqual([])
  })

  it("takes the local-currency equivalent at the live buy rate when USDT is short", async () => {
    const p = await newPartner()
    const rate = await app.request("PUT", "/sandbox/rates/NGN", { apiKey: p.apiKey, body: { buyRate: 1601.37, sellRate: 1500 } })
    expect(rate.status).toBe(200)
    const id = await verifiedCustomer(p, { USDT: 2, NGN: 10_000 })
    const reply = await tier3(p, id, individual({ destinationCountry: "GB" }))
    expect(reply.status).toBe(201)
    // 3 x 1601.37 = 4804.11 NGN
    expect(await money(p, id, "NGN")).toEqual({ available: 5195.89, held: 4804.11 })
    expect(await money(p, id, "USDT")).toEqual({ available: 2, held: 0 })
    await advance(p)
    expect((await group(p, id, "americas_europe")).registrationFee).toEqual({
      amount: "3",
      currency: "USDT",
      paidBy: "CUSTOMER",
      paid: true,
      charged: { amount: "4804.11", currency: "NGN" }
    })
    expect(await money(p, id, "NGN")).toEqual({ available: 5195.89, held: 0 })
  })

  it("refuses with INTERNATIONAL_FEE_INSUFFICIENT_BALANCE when neither covers it, and sends nothing", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 2.999999, NGN: 100 })
    const before = await events(p, id)
    const reply = await tier3(p, id, individual({ destinationCountry: "US" }))
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe("INTERNATIONAL_FEE_INSUFFICIENT_BALANCE")
    expect(reply.body.details).toEqual({ feeUsdt: 3, feeLocal: 4650, localCurrency: "NGN" })
    expect(await events(p, id)).toEqual(before)
    expect(await money(p, id, "USDT")).toEqual({ available: 2.999999, held: 0 })
    expect((await group(p, id, "americas_europe")).status).toBe("NOT_STARTED")
    expect((await summary(p, id)).tiers["3"].status).toBe("NOT_STARTED")
    const due = await app.request("GET", "/sandbox/clock/due?seconds=86400", { apiKey: p.apiKey })
    expect(due.body.data.filter((job: any) => job.name === "payout.enrolment_decision")).toEqual([])
  })

  it("a first submission the partner refuses costs nothing, and the re-submission is free", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 3 })
    expect((await tier3(p, id, individual({ destinationCountry: "US", address: address("00001") }))).status).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 3 })
    await advance(p)
    expect(await group(p, id, "americas_europe")).toMatchObject({
      status: "REJECTED",
      reason: reasons.refuse,
      action: "RESUBMIT_TIER3",
      registrationFee: { paid: false, charged: null }
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 3, held: 0 })
    const verification = await summary(p, id)
    expect(verification.tiers["3"]).toMatchObject({ status: "REJECTED", rejectionReason: reasons.refuse })
    expect(verification.nextRequired).toEqual(["DATE_OF_BIRTH", "ADDRESS"])

    // Free: nothing is reserved now, and nothing is taken when the partner creates and approves.
    const again = await tier3(p, id, individual({ destinationCountry: "US" }))
    expect(again.status).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 3, held: 0 })
    await advance(p)
    expect(await group(p, id, "americas_europe")).toMatchObject({ status: "APPROVED", registrationFee: { paid: false } })
    expect(await money(p, id, "USDT")).toEqual({ available: 3, held: 0 })
  })

  it("in an approved group another destinationCountry is only recorded: no review, no fee", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 3 })
    await tier3(p, id, individual({ destinationCountry: "US" }))
    await advance(p)
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
    const reply = await tier3(p, id, individual({ destinationCountry: "GB" }))
    expect(reply.status).toBe(201)
    expect(reply.body.data.status).toBe("APPROVED")
    expect(reply.body.data.international.groups[0]).toMatchObject({ status: "APPROVED", optedInCountries: ["US", "GB"] })
    const due = await app.request("GET", "/sandbox/clock/due?seconds=86400", { apiKey: p.apiKey })
    expect(due.body.data.filter((job: any) => job.name === "payout.enrolment_decision")).toEqual([])
    expect((await events(p, id, "global_send.enabled")).length).toBe(1)
    // The same country again changes nothing and is refused as already approved.
    const same = await tier3(p, id, individual({ destinationCountry: "GB" }))
    expect(same.status).toBe(400)
    expect(same.body.code).toBe("KYC_TIER_ALREADY_APPROVED")
  })

  it("without destinationCountry goes to every group, one fee each", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 6 })
    const reply = await tier3(p, id, individual())
    expect(reply.status).toBe(201)
    expect(reply.body.data.international.groups.map((g: any) => g.status)).toEqual(["PENDING", "PENDING"])
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 6 })
    await advance(p)
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
    const enabled = (await events(p, id, "global_send.enabled")).map((e) => e.data).sort((a, b) => a.groups.length - b.groups.length)
    expect(enabled.length).toBe(2)
    expect(enabled[1].groups.sort()).toEqual(["americas_europe", "china"])
  })

  it("a group awaiting the partner cannot be submitted again", async () => {
    const p = await servicePartner()
    const id = await p.verifiedCustomer({ USDT: 10 })
    valueOf(await p.tier3(id, individual({ destinationCountry: "US" })))
    const again = await p.tier3(id, individual({ destinationCountry: "MX" }))
    expect(again.ok ? undefined : again.error).toBeInstanceOf(KycTierAwaitingDecision)
    expect(again.ok ? undefined : again.code).toBe("KYC_TIER_AWAITING_DECISION")
    expect(await p.money(id)).toEqual({ available: 7, held: 3 })
  })

  it("the partner pays: nothing is reserved from the customer, and the fee is recorded as the partner's", async () => {
    const p = await newPartner()
    expect((await app.request("PUT", "/partner/v1/fees/international-verification", { apiKey: p.apiKey, body: { paysForCustomers: true } })).status).toBe(200)
    const id = await verifiedCustomer(p)
    const reply = await tier3(p, id, individual({ destinationCountry: "CN" }))
    expect(reply.status).toBe(201)
    expect(reply.body.data.international.groups[1].registrationFee).toEqual({ amount: "3", currency: "USDT", paidBy: "PARTNER", paid: false, charged: null })
    await advance(p)
    expect((await group(p, id, "china")).registrationFee).toEqual({
      amount: "3",
      currency: "USDT",
      paidBy: "PARTNER",
      paid: true,
      charged: { amount: "3", currency: "USDT" }
    })
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
    // The partner's setting changing later does not change a fee already taken.
    await app.request("PUT", "/partner/v1/fees/international-verification", { apiKey: p.apiKey, body: { paysForCustomers: false } })
    expect((await group(p, id, "china")).registrationFee.paidBy).toBe("PARTNER")
    expect((await group(p, id, "americas_europe")).registrationFee.paidBy).toBe("CUSTOMER")
  })
})

describe("the payout partners' decisions", () => {
  it("global_send.enabled exactly once per group under concurrent approvals", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 6 })
    expect((await tier3(p, id, individual())).status).toBe(201)
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => control(p, id, i % 2 === 0 ? "americas_europe" : "china", "approve"))
    )
    const ok = replies.filter((r) => r.status === 200)
    expect(ok.length).toBe(2)
    for (const r of replies.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(400)
      expect(r.body.code).toBe("INTERNATIONAL_GROUP_STATE_CONFLICT")
    }
    const enabled = (await events(p, id, "global_send.enabled")).map((e) => e.data)
    expect(enabled.length).toBe(2)
    expect(enabled.map((e) => e.newGroups[0]).sort()).toEqual(["americas_europe", "china"])
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
  })

  it("review, then reject with a reason; refuse is only for a customer not yet created", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 3 })
    await tier3(p, id, individual({ destinationCountry: "CN" }))
    const reviewed = await control(p, id, "china", "review")
    expect(reviewed.status).toBe(200)
    expect(reviewed.body.data.groups[1]).toMatchObject({ status: "REVIEW", registrationFee: { paid: true } })
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
    expect((await summary(p, id)).tiers["3"].status).toBe("REVIEW")
    const refused = await control(p, id, "china", "refuse")
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe("INTERNATIONAL_GROUP_STATE_CONFLICT")
    const missingReason = await control(p, id, "china", "reject", {})
    expect(missingReason.status).toBe(400)
    expect(missingReason.body.message).toContain("reason")
    const rejected = await control(p, id, "china", "reject", { reason: "Proof of address is older than three months" })
    expect(rejected.status).toBe(200)
    expect(rejected.body.data.groups[1]).toMatchObject({ status: "REJECTED", reason: "Proof of address is older than three months" })
    const statuses = (await events(p, id, "kyc.status_updated")).filter((e) => e.data.level === 3).map((e) => e.data.status)
    expect(statuses.sort()).toEqual(["REJECTED", "REVIEW"])
    // Resubmission after a rejection of a created customer: free (the fee was taken once).
    expect((await tier3(p, id, individual({ destinationCountry: "CN" }))).status).toBe(201)
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
    expect((await control(p, id, "americas_europe", "approve")).status).toBe(400)
  })

  it("magic postal codes: 00002 stays in REVIEW (fee taken), 00003 is rejected", async () => {
    const p = await newPartner()
    const a = await verifiedCustomer(p, { USDT: 3 })
    await tier3(p, a, individual({ destinationCountry: "US", address: address("00002") }))
    const b = await verifiedCustomer(p, { USDT: 3 })
    await tier3(p, b, individual({ destinationCountry: "US", address: address("00003") }))
    await advance(p)
    expect(await group(p, a, "americas_europe")).toMatchObject({ status: "REVIEW", registrationFee: { paid: true } })
    expect(await group(p, b, "americas_europe")).toMatchObject({ status: "REJECTED", reason: reasons.reject, registrationFee: { paid: true } })
    expect(await money(p, b, "USDT")).toEqual({ available: 0, held: 0 })
  })

  it("the payout rail policy failure rejects", async () => {
    const p = await newPartner({ mode: "auto", outcome: "failure", delaySeconds: 5 })
    const id = await verifiedCustomer(p, { USDT: 3 })
    await tier3(p, id, individual({ destinationCountry: "US" }))
    await advance(p, 5)
    expect(await group(p, id, "americas_europe")).toMatchObject({ status: "REJECTED", reason: reasons.policy })
  })

  it("pending enrolments are listed as payout operations with their controls", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 3 })
    await tier3(p, id, individual({ destinationCountry: "US" }))
    const reply = await app.request("GET", "/sandbox/operations?rail=payout", { apiKey: p.apiKey })
    expect(reply.status).toBe(200)
    const [operation] = reply.body.data
    expect(operation).toMatchObject({ kind: "international_enrolment", rail: "payout", customerId: id, status: "PENDING", dueAt: null })
    expect(operation.actions.map((a: any) => a.name)).toEqual(["approve", "review", "reject", "refuse"])
    expect(operation.actions[0].path).toBe(`/api/v1/sandbox/customers/${id}/international/americas_europe/approve`)
  })

  it("Tier 3 cannot be decided through the KYC reviewer control", async () => {
    const p = await newPartner({ mode: "manual" })
    const id = await verifiedCustomer(p, { USDT: 3 })
    await tier3(p, id, individual({ destinationCountry: "US" }))
    const reply = await app.request("POST", `/sandbox/customers/${id}/kyc/3/decision`, { apiKey: p.apiKey, body: { status: "APPROVED" } })
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe("KYC_NOT_AWAITING_DECISION")
  })
})

describe("reject and re-send", () => {
  it("reject: NEEDS_ATTENTION with the reason and no action; a pending first send is withdrawn and its fee released", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 3 })
    await tier3(p, id, individual({ destinationCountry: "US" }))
    const reply = await app.request("POST", `${base(id)}/global-send/international-reject?group=americas_europe`, {
      apiKey: p.apiKey,
      body: { reason: "Please upload a clearer proof of address" }
    })
    expect(reply.status).toBe(200)
    expect(reply.body.data.groups[0]).toMatchObject({ status: "NEEDS_ATTENTION", reason: "Please upload a clearer proof of address", action: null })
    expect(await money(p, id, "USDT")).toEqual({ available: 3, held: 0 })
    // The partner's answer to the withdrawn send changes nothing.
    await advance(p)
    expect((await group(p, id, "americas_europe")).status).toBe("NEEDS_ATTENTION")
    // A withdrawn first send cannot be re-sent for free: the customer re-submits.
    const resend = await app.request("POST", `${base(id)}/global-send/international-resend?group=americas_europe`, { apiKey: p.apiKey })
    expect(resend.status).toBe(400)
    expect(resend.body.message).toContain("withdrawn before the payout partner answered")
    // A re-submission clears it; it is a first submission again (the customer was never created): the fee applies.
    const again = await tier3(p, id, individual({ destinationCountry: "US" }))
    expect(again.status).toBe(201)
    expect(again.body.data.international.groups[0]).toMatchObject({ status: "PENDING", action: null })
    expect(again.body.data.international.groups[0].reason).toBeUndefined()
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 3 })
    await advance(p)
    expect((await group(p, id, "americas_europe")).status).toBe("APPROVED")
    const approved = await app.request("POST", `${base(id)}/global-send/international-reject?group=americas_europe`, {
      apiKey: p.apiKey,
      body: { reason: "x" }
    })
    expect(approved.status).toBe(400)
    expect(approved.body.code).toBe("INTERNATIONAL_GROUP_STATE_CONFLICT")
  })

  it("reject validates the group and the reason", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p)
    for (const [query, body, text] of [
      ["", { reason: "x" }, "group"],
      ["?group=asia", { reason: "x" }, "group"],
      ["?group=china", {}, "reason"],
      ["?group=china", { reason: "" }, "reason"]
    ] as const) {
      const reply = await app.request("POST", `${base(id)}/global-send/international-reject${query}`, { apiKey: p.apiKey, body })
      expect(reply.status, `${query} ${JSON.stringify(body)}`).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message).toContain(text)
    }
    expect((await group(p, id, "china")).status).toBe("NOT_STARTED")
  })

  it("re-send: a REJECTED group goes back PENDING for free; other groups answer 400", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 3 })
    const notStarted = await app.request("POST", `${base(id)}/global-send/international-resend?group=china`, { apiKey: p.apiKey })
    expect(notStarted.status).toBe(400)
    expect(notStarted.body.code).toBe("BAD_REQUEST")
    await tier3(p, id, individual({ destinationCountry: "US", address: address("00003") }))
    const pending = await app.request("POST", `${base(id)}/global-send/international-resend?group=americas_europe`, { apiKey: p.apiKey })
    expect(pending.status).toBe(400)
    await advance(p)
    expect((await group(p, id, "americas_europe")).status).toBe("REJECTED")
    const resent = await app.request("POST", `${base(id)}/global-send/international-resend?group=americas_europe`, { apiKey: p.apiKey })
    expect(resent.status).toBe(200)
    expect(resent.body.data.groups[0]).toMatchObject({ status: "PENDING" })
    expect(await money(p, id, "USDT")).toEqual({ available: 0, held: 0 })
    // The held details still carry the magic postal code: rejected again, still no second fee.
    await advance(p)
    expect((await group(p, id, "americas_europe")).status).toBe("REJECTED")
  })
})

describe("tier 3 in the verification summary and re-verification", () => {
  it("ADDRESS_PROOF and COUNTRY requested by compliance must be sent, and the submission closes them", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 3 })
    const requested = await app.request("POST", `/sandbox/customers/${id}/kyc/reverification`, {
      apiKey: p.apiKey,
      body: { items: ["ADDRESS", "ADDRESS_PROOF", "COUNTRY"], message: "Please confirm where you live" }
    })
    expect(requested.status).toBe(201)
    expect((await summary(p, id)).nextRequired.slice(0, 3)).toEqual(["ADDRESS", "ADDRESS_PROOF", "COUNTRY"])
    const noProof = await tier3(p, id, individual({ destinationCountry: "US" }))
    expect(noProof.status).toBe(400)
    expect(noProof.body.message).toMatch(/^addressProofUrl: /)
    const proof = await upload(p, id, samples.pdf(), "bill.pdf")
    const noCountry = await tier3(p, id, individual({ addressProofUrl: proof }))
    expect(noCountry.status).toBe(400)
    expect(noCountry.body.message).toMatch(/^destinationCountry: /)
    const ok = await tier3(p, id, individual({ addressProofUrl: proof, destinationCountry: "US" }))
    expect(ok.status).toBe(201)
    const verification = await summary(p, id)
    expect(verification.reverification).toBeNull()
    expect(verification.nextRequired).toEqual([])
  })

  it("a document url of another customer is KycDocumentNotFound naming addressProofUrl, and nothing moves", async () => {
    const p = await servicePartner()
    const id = await p.verifiedCustomer({ USDT: 3 })
    const other = await p.verifiedCustomer({}, false)
    const foreign = await p.upload(other, samples.png())
    const outcome = await p.tier3(id, individual({ destinationCountry: "US", addressProofUrl: foreign }))
    if (outcome.ok) throw new Error("accepted another customer's document")
    expect(outcome.error).toBeInstanceOf(KycDocumentNotFound)
    expect(outcome.code).toBe("KYC_DOCUMENT_NOT_FOUND")
    expect((outcome.error as KycDocumentNotFound).message).toMatch(/^addressProofUrl: /)
    expect(await p.money(id)).toEqual({ available: 3, held: 0 })
  })

  it("individual schema and rule failures name the field", async () => {
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 3 })
    for (const [body, field] of [
      [{ address: address() }, "dateOfBirth"],
      [{ dateOfBirth: "1990-04-12" }, "address"],
      [individual({ dateOfBirth: "1990-02-30" }), "dateOfBirth"],
      [individual({ dateOfBirth: "2099-01-01" }), "dateOfBirth"],
      [individual({ dateOfBirth: "2015-01-01" }), "dateOfBirth"],
      [individual({ address: { ...address(), country: "UK" } }), "address.country"],
      [individual({ destinationCountry: "KE" }), "destinationCountry"],
      [individual({ customerType: "PERSON" }), "customerType"]
    ] as const) {
      const reply = await tier3(p, id, body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.code).toBe("BAD_REQUEST")
      expect(reply.body.message.startsWith(`${field}: `), reply.body.message).toBe(true)
    }
    expect(await money(p, id, "USDT")).toEqual({ available: 3, held: 0 })
    expect((await summary(p, id)).tiers["3"].status).toBe("NOT_STARTED")
  })
})
