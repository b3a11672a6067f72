import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtures, type Partner, type PartnerOptions } from "./support/Fixtures.js"
import { kycClient } from "./support/KycHelpers.js"
import { harness, ledgerReport } from "./support/LedgerHarness.js"
import { type Reply, startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually, type Receiver, startReceiver } from "./support/WebhookReceiver.js"

/**
 * The sandbox's inspection routes (docs/sandbox-inspect.md): pending rail operations with the controls that settle
 * them, the work due on the service clock, and an event's chain. Real HTTP against the whole service (frozen
 * service clock: time moves only when a test advances it); every response is checked against the OpenAPI document.
 */
let app: TestApp
const fx = fixtures(() => app)
const receivers: Array<Receiver> = []

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  expect((await ledgerReport(app)).violations).toEqual([])
  for (const receiver of receivers) await receiver.close()
  await app?.close()
})

interface Operation {
  readonly id: string
  readonly kind: string
  readonly rail: string
  readonly customerId: string
  readonly status: string
  readonly reference: string | null
  readonly summary: string
  readonly createdAt: string
  readonly dueAt: string | null
  readonly actions: ReadonlyArray<{
    readonly name: string
    readonly label: string
    readonly method: string
    readonly path: string
    readonly body: Record<string, unknown> | null
    readonly reason: "none" | "required"
  }>
}

const gtbAccount = "1234567896"

const partner = (rails: PartnerOptions["rails"] = {}): Promise<Partner> => fx.partner({ rails })

const newCustomer = async (p: Partner, options: { funds?: bigint; account?: boolean } = {}) => {
  const { id } = await fx.customer(p)
  if (options.funds !== undefined) expect((await harness(app, p.partnerId).credit(id, "NGN", options.funds)).ok).toBe(true)
  if (options.account !== false) await fx.saveAccount(p, id, { bankCode: "058", accountNumber: gtbAccount })
  return id
}

const withdraw = async (p: Partner, customerId: string, amount = 5000) => {
  const reply = await app.request("POST", `/partner/v1/customers/${customerId}/withdraw`, { apiKey: p.apiKey, body: { amount } })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

const charge = async (p: Partner, customerId: string, amount = 2000) => {
  const reply = await app.request("POST", `/partner/v1/customers/${customerId}/funding/charge`, { apiKey: p.apiKey, body: { amount } })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

const get = (p: Partner, path: string) => app.request("GET", path, { apiKey: p.apiKey })

const operations = async (p: Partner, query = ""): Promise<Array<Operation>> => {
  const reply = await get(p, `/sandbox/operations?limit=100${query}`)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  expect(reply.body.meta.nextCursor).toBeNull()
  return reply.body.data
}

const operation = async (p: Partner, id: string) => (await operations(p)).find((op) => op.id === id)

/**
 * Calls an action as a client would: its method and path (under the origin), its body plus `reason` when required,
 * always with a JSON content type (as the terminal UI sends it), with no body when the body is null.
 */
const act = (p: Partner, action: Operation["actions"][number], reason?: string) => {
  expect(action.path.startsWith("/api/v1/sandbox/")).toBe(true)
  const body = action.reason === "required" ? { ...action.body, reason } : action.body
  return app.request(action.method, action.path.slice("/api/v1".length), {
    apiKey: p.apiKey,
    headers: { "content-type": "application/json" },
    ...(body === null ? {} : { body })
  })
}

const actionOf = (op: Operation | undefined, name: string) => {
  const found = op?.actions.find((action) => action.name === name)
  expect(found, `${name} of ${op?.kind}`).toBeDefined()
  return found!
}

const jobRunAt = async (kind: string, field: string, value: string) => {
  const rows = await app.query<{ at: Date }>(
    "SELECT run_at AS at FROM jobs WHERE kind = $1 AND payload ->> $2 = $3 AND status = 'PENDING'",
    [kind, field, value]
  )
  expect(rows).toHaveLength(1)
  return new Date(rows[0]!.at).toISOString()
}

const advance = (p: Partner, seconds: number) => fx.advance(p, seconds)

const expectError = (reply: Reply, status: number, code: string, message?: RegExp) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.body).toMatchObject({ success: false, statusCode: status, code })
  if (message !== undefined) expect(reply.body.message).toMatch(message)
}

describe("GET /sandbox/operations: bank withdrawals", () => {
  it("lists a PROCESSING withdrawal: dueAt null under the manual policy, the payout job's time under auto", async () => {
    const manual = await partner({ bank: { mode: "manual" } })
    const customer = await newCustomer(manual, { funds: 1_000_000n })
    const id = await withdraw(manual, customer)
    const op = await operation(manual, id)
    expect(op).toMatchObject({
      id,
      kind: "withdrawal",
      rail: "bank",
      customerId: customer,
      status: "PROCESSING",
      dueAt: null,
      reference: expect.stringMatching(/^ref_/)
    })
    expect(op!.summary).toMatch(/^NGN 4965\.00 to .+ \*\*\*\*7896 \(.+\)$/)
    expect(op!.actions).toEqual([
      { name: "complete", label: "Complete", method: "POST", path: `/api/v1/sandbox/withdrawals/${id}/complete`, body: null, reason: "none" },
      { name: "fail", label: "Fail", method: "POST", path: `/api/v1/sandbox/withdrawals/${id}/fail`, body: null, reason: "required" },
      { name: "reverse", label: "Reverse", method: "POST", path: `/api/v1/sandbox/withdrawals/${id}/reverse`, body: null, reason: "none" }
    ])

    const auto = await partner({ bank: { mode: "auto", delaySeconds: 120 } })
    const autoCustomer = await newCustomer(auto, { funds: 1_000_000n })
    const autoId = await withdraw(auto, autoCustomer)
    const autoOp = await operation(auto, autoId)
    expect(autoOp?.dueAt).toBe(await jobRunAt("withdrawal.payout", "withdrawalId", autoId))
    // Once the bank answered (the job ran), the withdrawal is finished: no longer listed.
    await advance(auto, 120)
    expect(await operation(auto, autoId)).toBeUndefined()
  })

  it("each listed action works as listed, and the withdrawal leaves the list", async () => {
    const p = await partner({ bank: { mode: "manual" } })
    const customer = await newCustomer(p, { funds: 10_000_000n })
    const ids = { complete: await withdraw(p, customer), fail: await withdraw(p, customer), reverse: await withdraw(p, customer) }
    const expected = { complete: "COMPLETED", fail: "FAILED", reverse: "REVERSED" }
    for (const [name, id] of Object.entries(ids) as Array<[keyof typeof ids, string]>) {
      const action = actionOf(await operation(p, id), name)
      if (action.reason === "required") {
        // The control says why it refuses a missing reason.
        expectError(await act(p, action), 400, "BAD_REQUEST", /^reason: /)
      }
      const reply = await act(p, action, "Beneficiary bank offline")
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      expect(reply.body.data.status).toBe(expected[name])
      expect(await operation(p, id)).toBeUndefined()
    }
    // A COMPLETED withdrawal can still be reversed, but it is finished: not listed.
    expect(await operations(p)).toEqual([])
  })
})

describe("GET /sandbox/operations: funding charges", () => {
  it("lists a PENDING charge with its auto-payment time; pay works and the charge leaves the list", async () => {
    const p = await partner({ bank: { mode: "auto", delaySeconds: 90 } })
    const customer = await newCustomer(p, { account: false })
    const id = await charge(p, customer, 2000)
    const op = await operation(p, id)
    expect(op).toMatchObject({ id, kind: "funding_charge", rail: "bank", customerId: customer, status: "PENDING" })
    expect(op!.summary).toMatch(/^Funding charge NGN 2000\.00 by bank transfer to .+ \d{10}, expires \d{4}-/)
    expect(op!.dueAt).toBe(await jobRunAt("funding.charge_autopay", "chargeId", id))
    const pay = actionOf(op, "pay")
    expect(pay).toEqual({ name: "pay", label: "Pay", method: "POST", path: `/api/v1/sandbox/funding/charges/${id}/pay`, body: {}, reason: "none" })
    const paid = await act(p, pay)
    expect(paid.status, JSON.stringify(paid.body)).toBe(200)
    expect(paid.body.data.status).toBe("PAID")
    expect(await operation(p, id)).toBeUndefined()
  })

  it("a charge under the manual policy has no dueAt; an expired charge is not listed", async () => {
    const p = await partner({ bank: { mode: "manual" } })
    const customer = await newCustomer(p, { account: false })
    const id = await charge(p, customer)
    expect((await operation(p, id))?.dueAt).toBeNull()
    await advance(p, 30 * 60)
    expect(await operation(p, id)).toBeUndefined()
  })
})

describe("GET /sandbox/operations: KYC reviews", () => {
  it("lists a tier awaiting a decision; approve and reject work and the review leaves the list", async () => {
    const p = await partner({ identity: { mode: "manual" } })
    const kyc = kycClient(app, p.apiKey)
    const approveMe = await kyc.newCustomer()
    const rejectMe = await kyc.newCustomer()
    // A registry time-out sends Tier 1 to REVIEW (docs/kyc.md magic values).
    expect((await kyc.tier1(approveMe, "00000000000")).body.data.status).toBe("REVIEW")
    expect((await kyc.tier1(rejectMe, "00000000000")).body.data.status).toBe("REVIEW")

    const listed = await operations(p, "&rail=identity")
    expect(listed.map((op) => op.customerId).sort()).toEqual([approveMe, rejectMe].sort())
    const review = listed.find((op) => op.customerId === approveMe)!
    expect(review).toMatchObject({ kind: "kyc_review", rail: "identity", status: "REVIEW", dueAt: null, reference: null })
    expect(review.summary).toMatch(/^Tier 1 awaiting review/)
    const decision = `/api/v1/sandbox/customers/${approveMe}/kyc/1/decision`
    expect(review.actions).toEqual([
      { name: "approve", label: "Approve", method: "POST", path: decision, body: { status: "APPROVED" }, reason: "none" },
      { name: "reject", label: "Reject", method: "POST", path: decision, body: { status: "REJECTED" }, reason: "required" }
    ])

    const approved = await act(p, actionOf(review, "approve"))
    expect(approved.status, JSON.stringify(approved.body)).toBe(200)
    expect(approved.body.data.status).toBe("APPROVED")
    const rejected = await act(p, actionOf(listed.find((op) => op.customerId === rejectMe), "reject"), "Documents do not match")
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200)
    expect(rejected.body.data).toMatchObject({ status: "REJECTED", rejectionReason: "Documents do not match" })
    expect(await operations(p, "&rail=identity")).toEqual([])

    // Tier 2 on the manual identity rail: PENDING with no job, so no dueAt.
    expect((await kyc.tier2(approveMe)).status).toBe(201)
    const pending = (await operations(p, "&rail=identity"))[0]
    expect(pending).toMatchObject({ kind: "kyc_review", status: "PENDING", dueAt: null, customerId: approveMe })
    expect(pending!.summary).toMatch(/^Tier 2 awaiting the identity check/)
  })

  it("a Tier 2 check on the auto identity rail is due when its job runs", async () => {
    const p = await partner({ identity: { mode: "auto", delaySeconds: 45 } })
    const kyc = kycClient(app, p.apiKey)
    const customer = await kyc.newCustomer()
    expect((await kyc.tier1(customer)).body.data.status).toBe("APPROVED")
    const submitted = await kyc.tier2(customer)
    expect(submitted.status).toBe(201)
    const recordId = submitted.body.data.record.id as string
    const op = await operation(p, recordId)
    expect(op).toMatchObject({ kind: "kyc_review", status: "PENDING" })
    expect(op!.dueAt).toBe(await jobRunAt("kyc.tier2_check", "recordId", recordId))
  })
})

describe("GET /sandbox/operations: filters, pages and partners", () => {
  it("filters by rail and customerId, pages across sources exactly once each, and shows nothing of another partner", async () => {
    const p = await partner({ bank: { mode: "manual" }, identity: { mode: "manual" } })
    const kyc = kycClient(app, p.apiKey)
    const a = await newCustomer(p, { funds: 10_000_000n })
    const b = await newCustomer(p, { funds: 10_000_000n })
    const created = new Set<string>()
    for (const customer of [a, b]) {
      created.add(await withdraw(p, customer))
      created.add(await withdraw(p, customer))
      created.add(await charge(p, customer))
      expect((await kyc.tier1(customer, "00000000000")).status).toBe(201)
    }
    const all = await operations(p)
    expect(all).toHaveLength(8)
    for (const id of created) expect(all.map((op) => op.id)).toContain(id)
    // Newest first by (createdAt, id).
    const keys = all.map((op) => `${new Date(op.createdAt).getTime().toString().padStart(15, "0")}_${op.id}`)
    expect(keys).toEqual([...keys].sort().reverse())

    expect((await operations(p, "&rail=bank")).every((op) => op.rail === "bank")).toBe(true)
    expect(await operations(p, "&rail=bank")).toHaveLength(6)
    expect((await operations(p, "&rail=identity")).map((op) => op.kind)).toEqual(["kyc_review", "kyc_review"])
    expect(await operations(p, "&rail=chain")).toEqual([])
    const ofA = await operations(p, `&customerId=${a}`)
    expect(ofA).toHaveLength(4)
    expect(ofA.every((op) => op.customerId === a)).toBe(true)
    expect(await operations(p, `&customerId=${a.toUpperCase()}&rail=identity`)).toHaveLength(1)

    // Pages of 3 across the three sources: every item exactly once, in the same order as one page.
    const seen: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const reply: Reply = await get(p, `/sandbox/operations?limit=3${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      seen.push(...reply.body.data.map((op: Operation) => op.id))
      cursor = reply.body.meta.nextCursor
      pages++
    } while (cursor !== null && pages < 10)
    expect(pages).toBe(3)
    expect(seen).toEqual(all.map((op) => op.id))

    // A cursor is bound to its filters and its list.
    const first = await get(p, "/sandbox/operations?limit=1&rail=bank")
    const bankCursor = encodeURIComponent(first.body.meta.nextCursor)
    expect((await get(p, `/sandbox/operations?limit=1&rail=bank&cursor=${bankCursor}`)).status).toBe(200)
    expectError(await get(p, `/sandbox/operations?limit=1&cursor=${bankCursor}`), 400, "INVALID_CURSOR", /^cursor: /)
    expectError(await get(p, `/sandbox/clock/due?cursor=${bankCursor}`), 400, "INVALID_CURSOR")
    const other = await partner()
    expectError(await get(other, `/sandbox/operations?limit=1&rail=bank&cursor=${bankCursor}`), 400, "INVALID_CURSOR")

    // Another partner sees none of it, even naming the customer.
    expect(await operations(other)).toEqual([])
    expect(await operations(other, `&customerId=${a}`)).toEqual([])
  })
})

describe("GET /sandbox/clock/due", () => {
  it("lists the payout job and webhook retries soonest first; advancing by that many seconds runs them", async () => {
    const receiver = await startReceiver(() => 500)
    receivers.push(receiver)
    const p = await partner({ bank: { mode: "auto", delaySeconds: 60 } })
    expect((await app.request("PUT", "/partner/v1/webhook", { apiKey: p.apiKey, body: { url: receiver.url } })).status).toBe(200)
    const customer = await newCustomer(p, { funds: 1_000_000n })
    const withdrawalId = await withdraw(p, customer)
    const submitted = (await get(p, `/sandbox/events?type=withdrawal.submitted&customerId=${customer}`)).body.data[0].id as string
    // The first attempt of every delivery has been made (and refused); their retries wait 30 s on the clock.
    const pendingIds = (await app.query<{ id: string }>(
      "SELECT event_id AS id FROM webhook_deliveries WHERE partner_id = $1 AND status = 'PENDING'",
      [p.partnerId]
    )).map((row) => row.id)
    for (const id of pendingIds) {
      await eventually(async () => {
        const reply = await get(p, `/partner/v1/webhook/deliveries/${id}`)
        return reply.body.data.attempts >= 1 ? true : undefined
      }, `first attempt of ${id}`)
    }
    expect(pendingIds).toContain(submitted)

    expect((await get(p, "/sandbox/clock/due")).body.data).toEqual([])
    const due = await get(p, "/sandbox/clock/due?seconds=60")
    expect(due.status).toBe(200)
    const items = due.body.data as Array<any>
    const payoutAt = await jobRunAt("withdrawal.payout", "withdrawalId", withdrawalId)
    expect(items.map((item) => [item.kind, item.name])).toEqual([
      ...[...pendingIds].sort().map((id) => ["webhook_delivery", items.find((item) => item.id === id)?.name]),
      ["job", "withdrawal.payout"]
    ])
    const retry = items.find((item) => item.id === submitted)
    expect(retry).toMatchObject({ kind: "webhook_delivery", name: "withdrawal.submitted", customerId: customer, resourceId: null })
    expect(retry.description).toBe(`webhook attempt 2 of withdrawal.submitted (event ${submitted})`)
    const payout = items.at(-1)
    expect(payout).toMatchObject({
      at: payoutAt,
      customerId: customer,
      resourceId: withdrawalId,
      description: `bank payout of withdrawal ${withdrawalId} completes`
    })
    expect(new Date(retry.at).getTime()).toBeLessThan(new Date(payout.at).getTime())

    // Pages of one walk the same items once each.
    const walked: Array<string> = []
    let cursor: string | null = null
    do {
      const page: Reply = await get(p, `/sandbox/clock/due?seconds=60&limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expect(page.status).toBe(200)
      walked.push(...page.body.data.map((item: any) => item.id))
      cursor = page.body.meta.nextCursor
    } while (cursor !== null && walked.length < 20)
    expect(walked).toEqual(items.map((item) => item.id))
    // Bound to `seconds`.
    const one = await get(p, "/sandbox/clock/due?seconds=60&limit=1")
    expectError(await get(p, `/sandbox/clock/due?seconds=61&limit=1&cursor=${encodeURIComponent(one.body.meta.nextCursor)}`), 400, "INVALID_CURSOR")

    // Another partner has nothing due.
    expect((await get(await partner(), "/sandbox/clock/due?seconds=34560000")).body.data).toEqual([])

    await advance(p, 60)
    // The payout's withdrawal.completed is a new event: its first attempt is due at once and the dispatcher makes
    // it moments later, so "nothing due" is awaited rather than read once.
    await eventually(async () => {
      const now = (await get(p, "/sandbox/clock/due")).body.data as Array<unknown>
      return now.length === 0 ? true : undefined
    }, "nothing due after the advance")
    const completed = await get(p, `/partner/v1/customers/${customer}/withdrawals/${withdrawalId}`)
    expect(completed.body.data.status).toBe("COMPLETED")
    for (const id of pendingIds) expect(receiver.ofEvent(id).length).toBeGreaterThanOrEqual(2)
    // What comes next: the refused deliveries' third attempts, and withdrawal.completed's second.
    const later = (await get(p, "/sandbox/clock/due?seconds=600")).body.data as Array<any>
    expect(later.map((item) => item.description)).toEqual(expect.arrayContaining([
      `webhook attempt 3 of withdrawal.submitted (event ${submitted})`,
      expect.stringMatching(/^webhook attempt 2 of withdrawal\.completed/)
    ]))
  })

  it("describes funding charge and identity jobs", async () => {
    const p = await partner({ bank: { mode: "auto", delaySeconds: 10 }, identity: { mode: "auto", delaySeconds: 20 } })
    const kyc = kycClient(app, p.apiKey)
    const customer = await kyc.newCustomer()
    const chargeId = await charge(p, customer)
    expect((await kyc.tier1(customer)).body.data.status).toBe("APPROVED")
    const recordId = (await kyc.tier2(customer)).body.data.record.id as string
    const items = (await get(p, "/sandbox/clock/due?seconds=1800")).body.data as Array<any>
    expect(items.map((item) => [item.name, item.description, item.resourceId])).toEqual([
      ["funding.charge_autopay", `the payer pays funding charge ${chargeId} (bank)`, chargeId],
      ["kyc.tier2_check", `the identity document check of KYC record ${recordId} approves it`, recordId],
      ["funding.charge_expire", `funding charge ${chargeId} expires unless paid`, chargeId]
    ])
  })
})

describe("GET /sandbox/events/{eventId}", () => {
  const completedEvent = async (p: Partner, customer: string) => {
    const id = await withdraw(p, customer)
    expect((await app.request("POST", `/sandbox/withdrawals/${id}/complete`, { apiKey: p.apiKey })).status).toBe(200)
    const events = (await get(p, `/sandbox/events?customerId=${customer}&type=withdrawal.completed`)).body.data
    return { withdrawalId: id, eventId: events[0].id as string }
  }

  it("shows a withdrawal.completed event's withdrawal, both transactions, its delivery and the related events", async () => {
    const receiver = await startReceiver(() => 200)
    receivers.push(receiver)
    const p = await partner({ bank: { mode: "manual" } })
    expect((await app.request("PUT", "/partner/v1/webhook", { apiKey: p.apiKey, body: { url: receiver.url } })).status).toBe(200)
    const customer = await newCustomer(p, { funds: 1_000_000n })
    const { eventId, withdrawalId } = await completedEvent(p, customer)
    // The delivery runs in the background: the chain and the delivery read below are compared field by field, so
    // both are read once it has settled (a read between attempt and outcome would differ in status and attempts).
    await eventually(async () => {
      const delivery = (await get(p, `/partner/v1/webhook/deliveries/${eventId}`)).body.data
      return delivery?.status === "DELIVERED" ? delivery : undefined
    }, `the delivery of ${eventId}`)

    const reply = await get(p, `/sandbox/events/${eventId}`)
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    const chain = reply.body.data
    const listed = (await get(p, `/sandbox/events?customerId=${customer}&type=withdrawal.completed`)).body.data[0]
    expect(chain.event).toEqual(listed)
    expect(chain.resource).toEqual({ type: "withdrawal", id: withdrawalId })
    expect(chain.transactions.map((t: any) => [t.reason, t.resourceType, t.resourceId])).toEqual([
      ["withdrawal", "withdrawal", withdrawalId],
      ["withdrawal", "withdrawal", withdrawalId]
    ])
    const [reserve, post] = chain.transactions
    expect(post.eventId).toBe(eventId)
    // Reserve: available -> held; post: held -> bank settlement (amount) and fee revenue (fee).
    expect(reserve.entries).toEqual(expect.arrayContaining([
      { account: "available", currency: "NGN", amount: -5000 },
      { account: "held", currency: "NGN", amount: 5000 }
    ]))
    expect(post.entries).toEqual(expect.arrayContaining([
      { account: "held", currency: "NGN", amount: -5000 },
      { account: "bank_settlement", currency: "NGN", amount: 4965 },
      { account: "fee_revenue", currency: "NGN", amount: 35 }
    ]))
    for (const transaction of chain.transactions) {
      const sums = new Map<string, number>()
      for (const entry of transaction.entries) sums.set(entry.currency, (sums.get(entry.currency) ?? 0) + Math.round(entry.amount * 100))
      expect([...sums.values()].every((sum) => sum === 0)).toBe(true)
    }
    expect(chain.delivery).toMatchObject({ id: eventId, type: "withdrawal.completed" })
    const deliveryRead = await get(p, `/partner/v1/webhook/deliveries/${eventId}`)
    const { payload: _payload, ...deliveryFields } = deliveryRead.body.data
    expect(chain.delivery).toEqual(deliveryFields)
    expect(chain.related.map((event: any) => event.type)).toEqual(["withdrawal.submitted"])
    expect(chain.related[0]).toMatchObject({ customerId: customer, data: { id: withdrawalId } })
  })

  it("has no delivery without a webhook URL; events without money name their resource by their data", async () => {
    const p = await partner({ bank: { mode: "manual" }, identity: { mode: "manual" } })
    const customer = await newCustomer(p, { funds: 1_000_000n })
    const { eventId } = await completedEvent(p, customer)
    const chain = (await get(p, `/sandbox/events/${eventId}`)).body.data
    expect(chain.delivery).toBeNull()
    expect(chain.transactions).toHaveLength(2)

    const registered = (await get(p, `/sandbox/events?customerId=${customer}&type=customer.registered`)).body.data[0]
    const customerChain = (await get(p, `/sandbox/events/${registered.id}`)).body.data
    expect(customerChain).toMatchObject({ resource: { type: "customer", id: customer }, transactions: [], delivery: null, related: [] })

    const kyc = kycClient(app, p.apiKey)
    expect((await kyc.tier1(customer, "00000000000")).body.data.status).toBe("REVIEW")
    expect((await kyc.decide(customer, 1, { status: "APPROVED" })).status).toBe(200)
    const statusEvents = (await get(p, `/sandbox/events?customerId=${customer}&type=kyc.status_updated`)).body.data
    expect(statusEvents).toHaveLength(2)
    const decided = (await get(p, `/sandbox/events/${statusEvents[0].id}`)).body.data
    expect(decided.resource).toEqual({ type: "kyc_record", id: statusEvents[0].data.kycId })
    expect(decided.transactions).toEqual([])
    expect(decided.related.map((event: any) => event.id)).toEqual([statusEvents[1].id])
  })

  it("answers 404 EVENT_NOT_FOUND for an unknown, malformed or another partner's id; /events/stream still streams", async () => {
    const p = await partner()
    const other = await partner()
    await newCustomer(other, { account: false })
    const foreign = (await get(other, "/sandbox/events?limit=1")).body.data[0].id as string
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-an-event", foreign, foreign.toUpperCase()]) {
      expectError(await get(p, `/sandbox/events/${id}`), 404, "EVENT_NOT_FOUND")
    }
    expect((await get(other, `/sandbox/events/${foreign.toUpperCase()}`)).status).toBe(200)
    expectError(await app.request("GET", `/sandbox/events/${foreign}`), 401, "UNAUTHORIZED")
    expectError(await get(p, "/sandbox/events/%01abc"), 400, "BAD_REQUEST", /^eventId: /)

    const controller = new AbortController()
    const stream = await fetch(`${app.baseUrl}/sandbox/events/stream`, { headers: { "x-api-key": p.apiKey }, signal: controller.signal })
    expect(stream.status).toBe(200)
    expect(stream.headers.get("content-type")).toContain("text/event-stream")
    controller.abort()
  })
})

describe("validation", () => {
  it.each([
    ["/sandbox/clock/due?seconds=-1", /^seconds: /],
    ["/sandbox/clock/due?seconds=abc", /^seconds: /],
    ["/sandbox/clock/due?seconds=1e3", /^seconds: /],
    ["/sandbox/clock/due?seconds=34560001", /^seconds: /],
    ["/sandbox/clock/due?limit=0", /^limit: /],
    ["/sandbox/operations?rail=moon", /^rail: must be one of bank, chain, payout, identity/],
    ["/sandbox/operations?customerId=not-a-uuid", /^customerId: must be a customer id/],
    ["/sandbox/operations?limit=101", /^limit: /]
  ])("GET %s answers 400 BAD_REQUEST naming the parameter", async (path, message) => {
    const p = await partner()
    expectError(await get(p, path), 400, "BAD_REQUEST", message)
  })

  it.each(["/sandbox/operations", "/sandbox/clock/due"])("GET %s?cursor=garbage answers 400 INVALID_CURSOR", async (path) => {
    const p = await partner()
    expectError(await get(p, `${path}?cursor=garbage`), 400, "INVALID_CURSOR", /^cursor: /)
  })

  it("needs a key", async () => {
    for (const path of ["/sandbox/operations", "/sandbox/clock/due"]) expectError(await app.request("GET", path), 401, "UNAUTHORIZED")
  })
})

describe("production mode", () => {
  let prod: TestApp
  beforeAll(async () => {
    prod = await startTestApp({ config: { mode: "production" } })
  })
  afterAll(() => prod?.close())

  it("has none of the inspection routes (404, absent from the document)", async () => {
    for (const path of ["/sandbox/operations", "/sandbox/clock/due?seconds=5", "/sandbox/events/00000000-0000-4000-8000-000000000000"]) {
      expectError(await prod.request("GET", path), 404, "NOT_FOUND")
    }
    const document = await prod.request("GET", "/openapi.json")
    expect(Object.keys(document.body.paths).filter((path) => path.includes("/sandbox/"))).toEqual([])
  })
})
