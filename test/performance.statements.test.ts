import Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PreparingClient } from "../src/db/Database.js"
import { internationalClient } from "./support/InternationalClient.js"
import { harness, ledgerReport } from "./support/LedgerHarness.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"

/**
 * Statements per request, counted at the driver: the regression guard of the performance issue. Counts, not
 * timings: a change that adds a statement to the hot path fails here and says which statements ran. Every statement
 * the service asks a pg client to run (`PreparingClient.query`, our own class: the recorder wraps its method for this
 * file), BEGIN and COMMIT included; each is a round trip of its own.
 */
let app: TestApp
const statements: Array<string> = []
/** The client (connection) of each recorded statement, by index. */
const clients: Array<Pg.Client> = []
let recording = false
const asked = PreparingClient.prototype.query

const textOf = (first: unknown) =>
  (typeof first === "string" ? first : (first as { text?: string } | undefined)?.text ?? String(first)).replace(/\s+/g, " ").trim()

beforeAll(async () => {
  PreparingClient.prototype.query = function(this: PreparingClient, ...args: Array<any>) {
    if (recording) {
      statements.push(textOf(args[0]))
      clients.push(this)
    }
    return (asked as any).apply(this, args)
  } as any
  app = await startTestApp()
})
afterAll(async () => {
  PreparingClient.prototype.query = asked
  expect((await ledgerReport(app)).violations).toEqual([])
  await app?.close()
})

const record = async <A>(f: () => Promise<A>) => {
  statements.length = 0
  clients.length = 0
  recording = true
  try {
    return { result: await f(), statements: [...statements], clients: [...clients] }
  } finally {
    recording = false
  }
}

/**
 * The statements of one request, without those of background work: the job daemon's and the webhook dispatcher's
 * polls share the pool and may land in a request's window. The request is made three times (`attempt` 0, 1, 2) and
 * the run with the fewest statements counts; a poll cannot land in all three.
 */
const fewest = async <A>(f: (attempt: number) => Promise<A>) => {
  let best: { result: A; statements: Array<string>; clients: Array<Pg.Client> } | undefined
  for (let attempt = 0; attempt < 3; attempt++) {
    const run = await record(() => f(attempt))
    if (best === undefined || run.statements.length < best.statements.length) best = run
  }
  return best!
}

/**
 * The statements of the transaction that ran the statement matching `wrote`, BEGIN to COMMIT, on its connection (one
 * connection's statements never interleave): a request's own, whatever background polls ran beside it.
 */
const transactionOf = (ran: ReadonlyArray<string>, on: ReadonlyArray<Pg.Client>, wrote: RegExp) => {
  const index = ran.findIndex((text) => wrote.test(text))
  expect(index, `a statement matching ${wrote}`).toBeGreaterThanOrEqual(0)
  const mine = ran.map((text, i) => ({ text, i })).filter(({ i }) => on[i] === on[index])
  const at = mine.findIndex(({ i }) => i === index)
  const begin = mine.map(({ text }) => text).lastIndexOf("BEGIN", at)
  expect(begin).toBeGreaterThanOrEqual(0)
  return mine.slice(begin, mine.findIndex(({ text }, k) => k > at && text === "COMMIT") + 1).map(({ text }) => text)
}

describe("statements per request", () => {
  it("a withdrawal", async () => {
    const p = await app.newPartner()
    const h = harness(app, p.partnerId)
    expect((await app.request("PUT", "/sandbox/rails/bank", { apiKey: p.apiKey, body: { mode: "manual" } })).status).toBe(200)
    const created = await app.request<any>("POST", "/partner/v1/customers", { apiKey: p.apiKey, body: customerBody() })
    const id = created.body.data.id as string
    expect((await h.credit(id, "NGN", 1_000_000n)).ok).toBe(true)
    expect((await app.request("POST", `/partner/v1/customers/${id}/accounts`, { apiKey: p.apiKey, body: { bankCode: "058", accountNumber: "1234567896" } })).status).toBe(201)
    // A first withdrawal warms whatever is cached; the second is the one counted.
    for (const reference of ["warm-1", "count-1"]) {
      const { result, statements: ran } = await fewest((attempt) =>
        app.request<any>("POST", `/partner/v1/customers/${id}/withdraw`, { apiKey: p.apiKey, body: { amount: 200, reference: `${reference}-${attempt}` } }))
      expect(result.status).toBe(201)
      if (reference === "count-1") {
        console.log(ran.map((s, i) => `${i + 1}. ${s.slice(0, 160)}`).join("\n"))
        expect(ran[0]).toBe("BEGIN")
        // BEGIN, the customer's lock, the reference with the default bank account read along, the journal (carrying
        // the event and the withdrawal), COMMIT: 8 before the journal carried the event and the row, 6 before the
        // account was read in the reference's statement.
        expect(ran.length).toBeLessThanOrEqual(5)
        expect(ran.some((text) => /FROM bank_accounts/.test(text) && !/idempotency_keys/.test(text)), "no statement of its own for the account").toBe(false)
      }
    }
    // On the automatic bank rail (the sandbox's default) the bank's payout job is carried by the journal too: still
    // five, where it was a statement of its own (6) before.
    expect((await app.request("PUT", "/sandbox/rails/bank", { apiKey: p.apiKey, body: { mode: "auto" } })).status).toBe(200)
    for (const reference of ["auto-warm", "auto-count"]) {
      const { clients: on, result, statements: ran } = await fewest((attempt) =>
        app.request<any>("POST", `/partner/v1/customers/${id}/withdraw`, { apiKey: p.apiKey, body: { amount: 200, reference: `${reference}-${attempt}` } }))
      expect(result.status).toBe(201)
      if (reference === "auto-count") {
        const own = transactionOf(ran, on, /INSERT INTO "?withdrawals"? /)
        expect(own.length).toBeLessThanOrEqual(5)
        expect(own.some((text) => /^INSERT INTO "?jobs"? /.test(text)), "no statement of its own for the payout job").toBe(false)
        expect((await app.query("SELECT count(*)::int AS n FROM jobs WHERE kind = 'withdrawal.payout' AND payload->>'withdrawalId' = $1", [result.body.data.id]))[0]).toEqual({ n: 1 })
      }
    }
    // Reads: ownership and data in one statement; the API key from the cache.
    for (const path of [`/partner/v1/customers/${id}/balance`, `/partner/v1/customers/${id}`]) {
      const { result, statements: ran } = await fewest(() => app.request<any>("GET", path, { apiKey: p.apiKey }))
      expect(result.status).toBe(200)
      expect(ran).toHaveLength(1)
    }
    // A foreign partner's request for the customer: the same one statement, the same 403.
    const other = await app.newPartner()
    const { result: foreign, statements: ranForeign } = await fewest(() =>
      app.request<any>("GET", `/partner/v1/customers/${id}/balance`, { apiKey: other.apiKey }))
    expect(foreign.status).toBe(403)
    expect(foreign.body.code).toBe("CUSTOMER_FORBIDDEN")
    expect(ranForeign.length).toBeLessThanOrEqual(2) // the other partner's key: a cache miss, then the read
  })

  it("a USDT buy: quote and execute", async () => {
    const p = await app.newPartner()
    const h = harness(app, p.partnerId)
    const created = await app.request<any>("POST", "/partner/v1/customers", { apiKey: p.apiKey, body: customerBody() })
    const id = created.body.data.id as string
    expect((await h.credit(id, "NGN", 100_000_000n)).ok).toBe(true)
    const quote = () =>
      app.request<any>("POST", `/partner/v1/customers/${id}/buy/quote`, {
        apiKey: p.apiKey,
        body: { amount: 5000, sourceCurrency: "NGN", destinationCurrency: "USDT", type: "buy" }
      })
    // A first round warms whatever is cached (prices, the exchange rail's policy); the second is counted.
    for (const round of ["warm", "count"]) {
      const quoted = await fewest(() => quote())
      expect(quoted.result.status).toBe(201)
      const quotes = [quoted.result.body.data.id, (await quote()).body.data.id, (await quote()).body.data.id] as Array<string>
      const executed = await fewest((attempt) =>
        app.request<any>("POST", `/partner/v1/customers/${id}/buy/execute`, { apiKey: p.apiKey, body: { quoteId: quotes[attempt] } }))
      expect(executed.result.status).toBe(200)
      if (round === "count") {
        console.log(["quote:", ...quoted.statements, "execute:", ...executed.statements].map((s) => s.slice(0, 160)).join("\n"))
        expect(quoted.statements.length).toBeLessThanOrEqual(5)
        // BEGIN, the customer's lock, the quote EXECUTED (one UPDATE: the read is the refusal's path only), the
        // journal (carrying purchase.completed, the balance cap's check and the exchange's fill), COMMIT: 9 before,
        // then 6 with the fill a statement of its own.
        expect(executed.statements.length).toBeLessThanOrEqual(5)
        expect(executed.statements.some((text) => /^\s*INSERT INTO exchange_orders/.test(text)), "no statement of its own for the fill").toBe(false)
        expect(executed.statements.some((text) => /carried_exchange_orders/.test(text)), "the journal carries the fill").toBe(true)
      }
    }
  })

  it("a global send (cross-border)", async () => {
    const { base, newPartner, verifiedCustomer } = internationalClient(() => app)
    const p = await newPartner()
    const id = await verifiedCustomer(p, { USDT: 1000 })
    const beneficiary = { phone: "+254712345678", network: "M-PESA", accountName: "Wanjiru Kamau" }
    for (const reference of ["warm-1", "count-1"]) {
      const { clients: on, result, statements: ran } = await fewest((attempt) =>
        app.request<any>("POST", `${base(id)}/global-send/initiate`, {
          apiKey: p.apiKey,
          body: { corridor: "KE-KES-mobile", amount: 50, purpose: "FAMILY_SUPPORT", beneficiary, reference: `${reference}-${attempt}` }
        }))
      expect(result.status, JSON.stringify(result.body)).toBe(201)
      if (reference === "count-1") {
        // The payout job wakes the job daemon, whose polls may land in the window (see the crypto send below): the
        // send's own statements are its transaction's, on the connection that wrote the send.
        const own = transactionOf(ran, on, /INSERT INTO "?global_sends"? /)
        console.log(own.map((s, i) => `${i + 1}. ${s.slice(0, 160)}`).join("\n"))
        // BEGIN, the customer's lock, the reference, the journal (carrying global_send.initiated, the send and the
        // payout partner's job), COMMIT: 8 before the journal carried the event and the row, 6 before it carried the
        // job. (A group corridor reads the group's enrolment besides.)
        expect(own.length).toBeLessThanOrEqual(5)
        expect(own.some((text) => /^INSERT INTO "?jobs"? /.test(text)), "no statement of its own for the payout job").toBe(false)
        expect((await app.query("SELECT count(*)::int AS n FROM jobs WHERE kind = 'payout.global_send_outcome' AND payload->>'sendId' = $1", [result.body.data.id]))[0]).toEqual({ n: 1 })
      }
    }
  })

  it("a crypto send", async () => {
    const p = await app.newPartner()
    const created = await app.request<any>("POST", "/partner/v1/customers", { apiKey: p.apiKey, body: customerBody() })
    const id = created.body.data.id as string
    expect((await app.request("POST", `/sandbox/customers/${id}/deposits`, { apiKey: p.apiKey, body: { asset: "USDT", network: "TRON", amount: 1000 } })).status).toBe(201)
    const toAddress = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
    for (const reference of ["warm-1", "count-1"]) {
      const { clients: on, result, statements: ran } = await fewest((attempt) =>
        app.request<any>("POST", `/partner/v1/customers/${id}/send`, {
          apiKey: p.apiKey,
          body: { asset: "USDT", amount: 10, network: "TRON", toAddress, reference: `${reference}-${attempt}` }
        }))
      expect(result.status).toBe(201)
      if (reference === "count-1") {
        // The job each send schedules wakes the in-process job daemon at once, and its polls land in the window of
        // every attempt (on other pooled connections, or on PGlite's one connection before or after the request):
        // a send does nothing outside its transaction, so its statements are the transaction, BEGIN to COMMIT, on
        // the connection that wrote the send (one connection's statements never interleave).
        // The send's row is written by the reservation's journal statement (a carried write, src/ledger/Ledger.ts).
        const own = transactionOf(ran, on, /INSERT INTO "?sends"? /)
        console.log(own.map((s, i) => `${i + 1}. ${s.slice(0, 160)}`).join("\n"))
        // BEGIN, the customer's lock, the reference with the customer's deposit addresses read along, the journal
        // (carrying the event, the send and the chain's broadcast job), COMMIT: 9 before the journal carried the
        // event and the row, 7 before the addresses were read in the reference's statement, 6 before the journal
        // carried the job.
        expect(own.length).toBeLessThanOrEqual(5)
        expect(own.some((text) => /^INSERT INTO "?jobs"? /.test(text)), "no statement of its own for the broadcast job").toBe(false)
        expect((await app.query("SELECT count(*)::int AS n FROM jobs WHERE kind = 'chain.send_outcome' AND payload->>'sendId' = $1", [result.body.data.id]))[0]).toEqual({ n: 1 })
        expect(own.some((text) => /FROM deposit_addresses/.test(text) && !/idempotency_keys/.test(text)), "no statement of its own for the addresses").toBe(false)
      }
    }
  })
})
