import { Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as EnrolmentsRepo from "../src/international/EnrolmentsRepo.js"
import * as KycRepo from "../src/kyc/KycRepo.js"
import { checkLedger } from "../src/ledger/LedgerCheck.js"
import { Partners } from "../src/partners/Partners.js"
import type { DestinationGroupKey } from "../src/reference/Groups.js"
import { fixtures } from "./support/Fixtures.js"
import { samples, multipart } from "./support/KycHelpers.js"
import { harness } from "./support/LedgerHarness.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Tier 3 and international enrolment in production mode without a payout adapter (src/rails/Unavailable.ts): the
 * submission (and a re-send) needs the payout rail, so it answers 503 PAYOUT_RAIL_UNAVAILABLE and its transaction
 * rolls back whole: no KYC record, no enrolment, no fee held, no event, no job. What needs no rail works: the
 * international status and international-reject. The payout partners' sandbox controls are not served (404).
 *
 * Production has no identity adapter either, so Tier 1 and Tier 2 cannot be reached over HTTP: the approved tiers
 * are seeded through the KYC repository with `app.run` (as a live identity adapter's verdicts would have left them),
 * and enrolment rows a live payout partner would have decided through the enrolments repository.
 */
let app: TestApp
const fx = fixtures(() => app)
let apiKey: string
let partnerId: string

const base = (customerId: string) => `/partner/v1/customers/${customerId}`

beforeAll(async () => {
  app = await startTestApp({ config: { mode: "production" } })
  const created = await app.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Partner", kybStatus: "APPROVED" })))
  apiKey = created.apiKey
  partnerId = created.partner.id
})
// The ledger checker once, over everything the file's tests moved (each invariant is over the whole ledger; a
// violation names its transactions): after each test it read the whole, growing ledger again, a tenth of the file's CPU.
afterAll(async () => {
  if (app !== undefined) expect((await app.run(checkLedger)).violations).toEqual([])
  await app?.close()
})

const newCustomer = async () => (await fx.customer({ apiKey })).id

/** Tier 1 and Tier 2 APPROVED, as the live identity rail and a reviewer would have decided them. */
const seedTier2Approved = (customerId: string) =>
  app.run(Effect.gen(function*() {
    const repo = yield* KycRepo.make
    const now = new Date()
    yield* repo.insertRecord({
      id: NodeCrypto.randomUUID(), partnerId, customerId, level: 1, status: "APPROVED", idType: "BVN",
      details: { bvn: "*******8901", nin: "*******4321" }, reviewReason: null, rejectionReason: null,
      decidedBy: "registry", createdAt: now, updatedAt: now
    })
    yield* repo.insertRecord({
      id: NodeCrypto.randomUUID(), partnerId, customerId, level: 2, status: "APPROVED", idType: "PASSPORT",
      details: { idDocument: { type: "PASSPORT", number: "A12345678" } }, reviewReason: null, rejectionReason: null,
      decidedBy: "reviewer", createdAt: now, updatedAt: now
    })
  }).pipe(Effect.orDie))

/** A Tier 2 approved customer, with USDT (minor units, 6 decimals) credited through the ledger. */
const verifiedCustomer = async (usdt = 10_000_000n) => {
  const id = await newCustomer()
  await seedTier2Approved(id)
  if (usdt > 0n) expect((await harness(app, partnerId).credit(id, "USDT", usdt)).ok).toBe(true)
  return id
}

const address = (postalCode = "101241") => ({ line1: "12 Marina Road", city: "Lagos", postalCode, country: "NG" })
const individual = (overrides: Record<string, unknown> = {}) => ({ dateOfBirth: "1990-04-12", address: address(), ...overrides })

const tier3 = (customerId: string, body: unknown) => app.request("POST", `${base(customerId)}/kyc/tier3`, { apiKey, body })

const status = async (customerId: string) => {
  const reply = await app.request("GET", `${base(customerId)}/global-send/international-status`, { apiKey })
  expect(reply.status).toBe(200)
  return reply.body.data
}

const groupStatuses = async (customerId: string) =>
  (await status(customerId)).groups.map((g: any) => [g.key, g.status])

/** Everything a Tier 3 submission or a re-send could have written, seen through the API and the tables. */
const footprint = async (customerId: string) => {
  const kyc = await app.request("GET", `${base(customerId)}/kyc`, { apiKey })
  expect(kyc.status).toBe(200)
  const balance = await app.request("GET", `${base(customerId)}/balance`, { apiKey })
  expect(balance.status).toBe(200)
  const verification = await app.request("GET", `${base(customerId)}/verification`, { apiKey })
  expect(verification.status).toBe(200)
  return {
    kyc: kyc.body.data,
    verification: verification.body.data,
    international: await status(customerId),
    balance: balance.body.data,
    accounts: await app.query(
      "SELECT kind, currency, balance::text AS balance FROM ledger_accounts WHERE customer_id = $1 ORDER BY kind, currency",
      [customerId]
    ),
    reservations: await app.query("SELECT id, status FROM ledger_reservations WHERE customer_id = $1 ORDER BY id", [customerId]),
    transactions: (await app.query("SELECT id FROM ledger_transactions WHERE customer_id = $1", [customerId])).length,
    enrolments: await app.query(
      "SELECT id, group_key, status, reason, attempt, fee_status, kyc_id, updated_at FROM international_enrolments WHERE customer_id = $1 ORDER BY seq",
      [customerId]
    ),
    jobs: (await app.query("SELECT id FROM jobs WHERE customer_id = $1", [customerId])).length,
    events: (await app.query<{ type: string }>("SELECT type FROM events WHERE customer_id = $1 ORDER BY seq", [customerId])).map((e) => e.type)
  }
}

const expectPayoutUnavailable = (reply: { status: number; body: any }, what: string) => {
  expect({ what, status: reply.status, code: reply.body.code }).toEqual({ what, status: 503, code: "PAYOUT_RAIL_UNAVAILABLE" })
  expect(reply.body).toMatchObject({
    success: false,
    statusCode: 503,
    error: "PayoutRailUnavailable",
    message: expect.stringMatching(/payout rail/)
  })
}

/** An enrolment row as a live payout partner's decision would have left it (with its Tier 3 record). */
const seedEnrolment = (customerId: string, group: DestinationGroupKey, enrolment: { status: "REJECTED" | "APPROVED"; reason?: string }) =>
  app.run(Effect.gen(function*() {
    const kycRepo = yield* KycRepo.make
    const repo = yield* EnrolmentsRepo.make
    const now = new Date()
    const kycId = NodeCrypto.randomUUID()
    yield* kycRepo.insertRecord({
      id: kycId, partnerId, customerId, level: 3, status: enrolment.status, idType: null,
      details: { customerType: "INDIVIDUAL", destinationCountry: "US", groups: [group], ...individual() },
      reviewReason: null, rejectionReason: enrolment.status === "REJECTED" ? enrolment.reason ?? "rejected" : null,
      decidedBy: "rail", createdAt: now, updatedAt: now
    })
    yield* repo.insert({
      id: NodeCrypto.randomUUID(), partnerId, customerId, groupKey: group, status: enrolment.status,
      reason: enrolment.reason ?? null, customerType: "INDIVIDUAL", optedInCountries: ["US"], kycId, created: true,
      attempt: 1, feeStatus: "PAID", feePaidBy: "CUSTOMER", feeUsdt: 3_000_000n, feeAmount: 3_000_000n, feeCurrency: "USDT",
      feeReservationId: null, enabledAt: enrolment.status === "APPROVED" ? now : null, createdAt: now, updatedAt: now
    })
  }).pipe(Effect.orDie))

describe("POST .../kyc/tier3 in production without a payout adapter", () => {
  it("the seeded customer is eligible: every group NOT_STARTED with SUBMIT_TIER3", async () => {
    const id = await verifiedCustomer()
    const view = await status(id)
    expect(view.eligible).toBe(true)
    expect(view.groups.map((g: any) => [g.key, g.status, g.action])).toEqual([
      ["americas_europe", "NOT_STARTED", "SUBMIT_TIER3"],
      ["china", "NOT_STARTED", "SUBMIT_TIER3"]
    ])
  })

  it("answers 503 PAYOUT_RAIL_UNAVAILABLE for each target group and writes nothing: no record, no enrolment, no fee held, no event", async () => {
    const id = await verifiedCustomer()
    const before = await footprint(id)
    expect(before.kyc.map((r: any) => [r.level, r.status])).toEqual(expect.arrayContaining([[1, "APPROVED"], [2, "APPROVED"]]))
    expect(before.kyc.length).toBe(2)
    expect(before.enrolments).toEqual([])
    expect(before.reservations).toEqual([])
    for (const body of [
      individual({ destinationCountry: "US" }),
      individual({ destinationCountry: "CN" }),
      individual(),
      individual({ destinationCountry: "GB", address: address("00002") })
    ]) {
      expectPayoutUnavailable(await tier3(id, body), JSON.stringify(body))
      expect(await footprint(id)).toEqual(before)
    }
    expect(await groupStatuses(id)).toEqual([["americas_europe", "NOT_STARTED"], ["china", "NOT_STARTED"]])
    expect(before.verification.tiers["3"].status).toBe("NOT_STARTED")
    expect(before.events.filter((type: string) => type.startsWith("international.") || type.startsWith("kyc.") || type.startsWith("global_send."))).toEqual([])
  })

  it("with an uploaded address proof: 503, the document stays the customer's upload and no record refers to it", async () => {
    const id = await verifiedCustomer()
    const upload = await app.request("POST", `${base(id)}/kyc/documents`, {
      apiKey,
      ...(await multipart([{ name: "file", value: samples.pdf(), filename: "bill.pdf" }]))
    })
    expect(upload.status).toBe(201)
    const before = await footprint(id)
    expectPayoutUnavailable(await tier3(id, individual({ destinationCountry: "US", addressProofUrl: upload.body.data.url })), "with addressProofUrl")
    expect(await footprint(id)).toEqual(before)
  })

  it("the partner paying the fee changes nothing: still 503 and nothing written", async () => {
    const setting = await app.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Paying Partner", kybStatus: "APPROVED" })))
    const put = await app.request("PUT", "/partner/v1/fees/international-verification", { apiKey: setting.apiKey, body: { paysForCustomers: true } })
    expect(put.status).toBe(200)
    const created = await app.request("POST", "/partner/v1/customers", { apiKey: setting.apiKey, body: customerBody() })
    expect(created.status).toBe(201)
    const id = created.body.data.id as string
    await app.run(Effect.gen(function*() {
      const repo = yield* KycRepo.make
      const now = new Date()
      for (const level of [1, 2] as const) {
        yield* repo.insertRecord({
          id: NodeCrypto.randomUUID(), partnerId: setting.partner.id, customerId: id, level, status: "APPROVED", idType: null,
          details: {}, reviewReason: null, rejectionReason: null, decidedBy: "reviewer", createdAt: now, updatedAt: now
        })
      }
    }).pipe(Effect.orDie))
    const events = async () => app.query("SELECT type FROM events WHERE customer_id = $1 ORDER BY seq", [id])
    const enrolments = async () => app.query("SELECT id FROM international_enrolments WHERE customer_id = $1", [id])
    const records = async () => app.query("SELECT id FROM kyc_records WHERE customer_id = $1", [id])
    const eventsBefore = await events()
    const reply = await app.request("POST", `${base(id)}/kyc/tier3`, { apiKey: setting.apiKey, body: individual({ destinationCountry: "CN" }) })
    expectPayoutUnavailable(reply, "partner pays")
    expect(await events()).toEqual(eventsBefore)
    expect(await enrolments()).toEqual([])
    expect((await records()).length).toBe(2)
  })

  it("after an international-reject (a NEEDS_ATTENTION row, no rail needed), the submission is 503 and the row is left as it was", async () => {
    const id = await verifiedCustomer()
    const rejected = await app.request("POST", `${base(id)}/global-send/international-reject?group=americas_europe`, {
      apiKey,
      body: { reason: "Please confirm your address" }
    })
    expect(rejected.status).toBe(200)
    expect(rejected.body.data.groups[0]).toMatchObject({ key: "americas_europe", status: "NEEDS_ATTENTION", reason: "Please confirm your address", action: null })
    const before = await footprint(id)
    expect(before.enrolments).toHaveLength(1)
    expectPayoutUnavailable(await tier3(id, individual({ destinationCountry: "US" })), "after reject")
    expect(await footprint(id)).toEqual(before)
  })
})

describe("international status and reject in production (no rail involved)", () => {
  it("international-status answers 200 for a customer without Tier 2: not eligible, COMPLETE_TIER2", async () => {
    const id = await newCustomer()
    const view = await status(id)
    expect(view.eligible).toBe(false)
    expect(view.groups.map((g: any) => [g.key, g.status, g.action])).toEqual([
      ["americas_europe", "NOT_STARTED", "COMPLETE_TIER2"],
      ["china", "NOT_STARTED", "COMPLETE_TIER2"]
    ])
  })

  it("international-reject marks a NOT_STARTED group NEEDS_ATTENTION and emits international.group_updated", async () => {
    const id = await verifiedCustomer(0n)
    const before = (await footprint(id)).events
    const reply = await app.request("POST", `${base(id)}/global-send/international-reject?group=china`, { apiKey, body: { reason: "Business documents needed" } })
    expect(reply.status).toBe(200)
    expect(reply.body.data.groups.map((g: any) => [g.key, g.status])).toEqual([["americas_europe", "NOT_STARTED"], ["china", "NEEDS_ATTENTION"]])
    expect(reply.body.data.groups[1]).toMatchObject({ reason: "Business documents needed", action: null })
    expect(await status(id)).toEqual(reply.body.data)
    expect((await footprint(id)).events).toEqual([...before, "international.group_updated"])
  })

  it("international-reject of a group a live partner rejected: NEEDS_ATTENTION; of an APPROVED group: 400 INTERNATIONAL_GROUP_STATE_CONFLICT", async () => {
    const id = await verifiedCustomer(0n)
    await seedEnrolment(id, "americas_europe", { status: "REJECTED", reason: "The address could not be verified" })
    await seedEnrolment(id, "china", { status: "APPROVED" })
    expect(await groupStatuses(id)).toEqual([["americas_europe", "REJECTED"], ["china", "APPROVED"]])
    const reply = await app.request("POST", `${base(id)}/global-send/international-reject?group=americas_europe`, {
      apiKey,
      body: { reason: "Upload a recent utility bill" }
    })
    expect(reply.status).toBe(200)
    expect(reply.body.data.groups[0]).toMatchObject({ status: "NEEDS_ATTENTION", reason: "Upload a recent utility bill", action: null })
    const before = await footprint(id)
    const approved = await app.request("POST", `${base(id)}/global-send/international-reject?group=china`, { apiKey, body: { reason: "x" } })
    expect({ status: approved.status, code: approved.body.code }).toEqual({ status: 400, code: "INTERNATIONAL_GROUP_STATE_CONFLICT" })
    expect(await footprint(id)).toEqual(before)
  })

  it("international-resend of a rejected group needs the rail: 503 and the group stays REJECTED, attempt and fee unchanged", async () => {
    const id = await verifiedCustomer(0n)
    await seedEnrolment(id, "americas_europe", { status: "REJECTED", reason: "The address could not be verified" })
    const before = await footprint(id)
    const reply = await app.request("POST", `${base(id)}/global-send/international-resend?group=americas_europe`, { apiKey })
    expectPayoutUnavailable(reply, "resend")
    expect(await footprint(id)).toEqual(before)
    expect(before.enrolments).toMatchObject([{ status: "REJECTED", attempt: 1, feeStatus: "PAID" }])
    // A group that cannot be re-sent is refused before the rail: 400, not 503.
    const notStarted = await app.request("POST", `${base(id)}/global-send/international-resend?group=china`, { apiKey })
    expect({ status: notStarted.status, code: notStarted.body.code }).toEqual({ status: 400, code: "BAD_REQUEST" })
  })
})

describe("the payout partners' sandbox controls in production", () => {
  it("are not served: approve, review, reject and refuse are 404 and change nothing", async () => {
    const id = await verifiedCustomer(0n)
    await app.request("POST", `${base(id)}/global-send/international-reject?group=americas_europe`, { apiKey, body: { reason: "x" } })
    const before = await footprint(id)
    for (const group of ["americas_europe", "china"]) {
      for (const move of ["approve", "review", "reject", "refuse"]) {
        const path = `/sandbox/customers/${id}/international/${group}/${move}`
        const reply = await app.request("POST", path, { apiKey, ...(move === "reject" ? { body: { reason: "x" } } : {}) })
        expect({ path, status: reply.status, code: reply.body.code }).toEqual({ path, status: 404, code: "NOT_FOUND" })
      }
    }
    expect(await footprint(id)).toEqual(before)
  })
})
