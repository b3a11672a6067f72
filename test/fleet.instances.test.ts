import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifySignature } from "../src/webhooks/verifySignature.js"
import { type ServerProcess, startServer, stopServer } from "./support/ServerProcess.js"
import { testDatabaseLayer } from "./support/TestApp.js"
import { eventually, type Receiver, startReceiver } from "./support/WebhookReceiver.js"

/**
 * Two processes of the compiled service on one PostgreSQL database, as a rolling deploy or a scaled-out fleet runs
 * them (docs/operations.md "Several instances"): money stays exact when requests are split over both, a reference
 * moves money once whichever instance receives it, every event reaches the webhook receiver signed, cursors and
 * live streams work across instances, and an instance with another key is refused at start. PostgreSQL pass only
 * (TEST_DATABASE_URL): the embedded PGlite serves one process.
 */
const pgServerUrl = process.env.TEST_DATABASE_URL || undefined
const keyA = "c3".repeat(32)
const keyB = "d4".repeat(32)

interface Reply {
  readonly status: number
  readonly body: any
}

const call = async (baseUrl: string, apiKey: string, method: string, path: string, body?: unknown): Promise<Reply> => {
  const headers: Record<string, string> = { "x-api-key": apiKey }
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(baseUrl + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

const ok = async (baseUrl: string, apiKey: string, method: string, path: string, body?: unknown): Promise<any> => {
  const reply = await call(baseUrl, apiKey, method, path, body)
  if (reply.status !== 200 && reply.status !== 201) throw new Error(`${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`)
  return reply.body.data
}

/** A server-sent event stream, read as it arrives; `waitFor` resolves with the first frame `match` accepts. */
const openStream = async (baseUrl: string, apiKey: string, path: string) => {
  const abort = new AbortController()
  const response = await fetch(baseUrl + path, { headers: { "x-api-key": apiKey }, signal: abort.signal })
  expect(response.status).toBe(200)
  const frames: Array<{ readonly event: string; readonly data: any; readonly at: number }> = []
  let text = ""
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
      if (done === true) return
      text += decoder.decode(value, { stream: true })
      let end = text.indexOf("\n\n")
      while (end >= 0) {
        const block = text.slice(0, end)
        text = text.slice(end + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (event !== undefined && data !== undefined) frames.push({ event, data: JSON.parse(data), at: performance.now() })
        end = text.indexOf("\n\n")
      }
    }
  })()
  const waitFor = (match: (frame: (typeof frames)[number]) => boolean, what: string) =>
    eventually(async () => frames.find(match), what, 5_000)
  const close = async () => {
    abort.abort()
    await reading
  }
  return { frames, waitFor, close }
}

describe.skipIf(pgServerUrl === undefined)("two instances on one PostgreSQL", () => {
  const dataDirs: Array<string> = []
  const servers: Array<ServerProcess> = []
  let receiver: Receiver
  let databaseUrl = ""
  let a = ""
  let b = ""
  let apiKey = ""
  let secret = ""
  let otherKeyRefusal = "it started"
  /** Events recorded before the webhook URL was set (the partner's approval): they queue no delivery. */
  const beforeWebhook = new Set<string>()

  const environment = (key: string) => {
    const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pmm-fleet-"))
    dataDirs.push(dataDir)
    return { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ENCRYPTION_KEY: key, LOG_LEVEL: "warning" }
  }

  /** A KE customer with a virtual account credited `amount` and a default bank account, made on instance A. */
  const fundedCustomer = async (amount: number) => {
    const customer = await ok(a, apiKey, "POST", "/partner/v1/customers", {
      firstName: "Achieng",
      lastName: "Fleet",
      email: `fleet.${NodeCrypto.randomBytes(4).toString("hex")}@example.com`,
      phoneNumber: "+254712345678",
      country: "KE"
    })
    await ok(a, apiKey, "GET", `/partner/v1/customers/${customer.id}/virtual-account`)
    await ok(a, apiKey, "POST", `/sandbox/customers/${customer.id}/virtual-account/credit`, { amount })
    const code = (await ok(a, apiKey, "GET", `/partner/v1/customers/${customer.id}/banks?country=KE`))[0].code
    await ok(b, apiKey, "POST", `/partner/v1/customers/${customer.id}/accounts`, { bankCode: code, accountNumber: "123456789012" })
    return customer.id as string
  }

  const kesBalance = async (baseUrl: string, customerId: string): Promise<number> =>
    (await ok(baseUrl, apiKey, "GET", `/partner/v1/customers/${customerId}/balance`)).find((row: any) => row.currency === "KES").balance

  beforeAll(async () => {
    databaseUrl = (await testDatabaseLayer()).url!
    receiver = await startReceiver()
    // Two first starts of one sandbox database at once: both record (or find) the key's fingerprint and the demo
    // partner (created once: src/partners/Partners.ts `ensureDemo` takes turns on an advisory lock).
    const [first, second] = await Promise.all([startServer(environment(keyA)), startServer(environment(keyA))])
    servers.push(first, second)
    // With the fingerprint recorded, an instance with another key must exit.
    const other = await startServer(environment(keyB)).then((server) => server, (error: Error) => error.message)
    if (typeof other === "string") otherKeyRefusal = other
    else servers.push(other)
    a = first.baseUrl
    b = second.baseUrl
    apiKey = (await ok(a, "", "POST", "/sandbox/partners", {})).apiKey
    await ok(b, apiKey, "PUT", "/sandbox/rails/bank", { mode: "manual" })
    for (const event of await ok(a, apiKey, "GET", "/sandbox/events?limit=100")) beforeWebhook.add(event.id)
    secret = (await ok(b, apiKey, "PUT", "/partner/v1/webhook", { url: receiver.url })).secret
  }, 60_000)

  afterAll(async () => {
    await Promise.all(servers.map(stopServer))
    await receiver?.close()
    for (const dir of dataDirs) NodeFs.rmSync(dir, { recursive: true, force: true })
  })

  it("a stream on one instance shows what the other commits within a second: events and balances", async () => {
    // The response's headers arrive with the `: connected` comment, sent once the stream is subscribed.
    const events = await openStream(b, apiKey, "/sandbox/events/stream")
    const customer = await ok(a, apiKey, "POST", "/partner/v1/customers", {
      firstName: "Otieno",
      lastName: "Stream",
      email: `stream.${NodeCrypto.randomBytes(4).toString("hex")}@example.com`,
      phoneNumber: "+254712345679",
      country: "KE"
    })
    // A answers after its commit: from then on, B's stream has a second.
    const committed = performance.now()
    const created = await events.waitFor((frame) => frame.data.customerId === customer.id, "the customer's event on B")
    expect(created.at - committed).toBeLessThan(1_000)
    // Exactly once on B, though B also hears of it by its own reads of the log.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(events.frames.filter((frame) => frame.data.id === created.data.id)).toHaveLength(1)
    await events.close()

    await ok(b, apiKey, "GET", `/partner/v1/customers/${customer.id}/virtual-account`)
    const balances = await openStream(b, apiKey, `/partner/v1/customers/${customer.id}/balance/stream`)
    await balances.waitFor((frame) => frame.event === "balance", "the first snapshot")
    await ok(a, apiKey, "POST", `/sandbox/customers/${customer.id}/virtual-account/credit`, { amount: 1234 })
    const credited = performance.now()
    const changed = await balances.waitFor(
      (frame) => frame.data.balances.some((row: any) => row.currency === "KES" && row.balance === 1234),
      "the credit on B's balance stream"
    )
    expect(changed.at - credited).toBeLessThan(1_000)
    await balances.close()
  })

  it("a stream keeps showing the other instance's commits after the relay's connection is cut", async () => {
    const events = await openStream(b, apiKey, "/sandbox/events/stream")
    const admin = new Pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    const cut = await admin.query(
      // This database's relay listeners only: suites beside this one run services (and their relays) on the cluster.
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pmm-event-relay' AND datname = current_database()")
    await admin.end()
    expect(cut.rowCount).toBe(2)
    // Committed while the listeners reconnect (100 ms at least): the notification or the catch-up brings it.
    const customer = await ok(a, apiKey, "POST", "/partner/v1/customers", {
      firstName: "Akinyi",
      lastName: "Reconnect",
      email: `reconnect.${NodeCrypto.randomBytes(4).toString("hex")}@example.com`,
      phoneNumber: "+254712345670",
      country: "KE"
    })
    const created = await events.waitFor((frame) => frame.data.customerId === customer.id, "the customer's event on B after the cut")
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(events.frames.filter((frame) => frame.data.id === created.data.id)).toHaveLength(1)
    await events.close()
  })

  it("withdrawals split over both instances at once never overdraw: exactly as many as the balance allows", async () => {
    const customerId = await fundedCustomer(3_700)
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      call(i % 2 === 0 ? a : b, apiKey, "POST", `/partner/v1/customers/${customerId}/withdraw`, { amount: 500, reference: `split-${i}` })))
    const accepted = replies.filter((reply) => reply.status === 201)
    expect(accepted).toHaveLength(7)
    for (const refused of replies.filter((reply) => reply.status !== 201)) expect(refused.body.code).toBe("INSUFFICIENT_BALANCE")
    expect(await kesBalance(a, customerId)).toBe(200)
    expect(await kesBalance(b, customerId)).toBe(200)
  })

  it("one reference sent to both instances at once makes one withdrawal", async () => {
    const customerId = await fundedCustomer(2_000)
    const body = { amount: 300, reference: `both-${NodeCrypto.randomBytes(3).toString("hex")}` }
    const replies = await Promise.all([a, b, a, b].map((base) => call(base, apiKey, "POST", `/partner/v1/customers/${customerId}/withdraw`, body)))
    for (const reply of replies) expect([200, 201]).toContain(reply.status)
    expect(new Set(replies.map((reply) => reply.body.data.id)).size).toBe(1)
    const withdrawals = await ok(b, apiKey, "GET", `/partner/v1/customers/${customerId}/withdrawals?limit=100`)
    expect(withdrawals).toHaveLength(1)
    expect(await kesBalance(a, customerId)).toBe(1_700)
    const submitted = await ok(a, apiKey, "GET", `/sandbox/events?customerId=${customerId}&type=withdrawal.submitted&limit=100`)
    expect(submitted).toHaveLength(1)
  })

  it("a cursor from one instance reads the next page on the other", async () => {
    const first = await call(a, apiKey, "GET", "/sandbox/events?limit=3")
    expect(first.status).toBe(200)
    const cursor: string = first.body.meta.nextCursor
    expect(cursor).toEqual(expect.any(String))
    const onB = await call(b, apiKey, "GET", `/sandbox/events?limit=3&cursor=${encodeURIComponent(cursor)}`)
    const onA = await call(a, apiKey, "GET", `/sandbox/events?limit=3&cursor=${encodeURIComponent(cursor)}`)
    expect(onB.status).toBe(200)
    expect(onB.body.data.map((event: any) => event.id)).toEqual(onA.body.data.map((event: any) => event.id))
    expect(onB.body.data).toHaveLength(3)
    const seen = new Set(first.body.data.map((event: any) => event.id))
    for (const event of onB.body.data) expect(seen.has(event.id)).toBe(false)
  })

  it("every event is delivered to the webhook receiver once, with a valid signature", async () => {
    const all: Array<any> = []
    let cursor: string | null = null
    do {
      const reply = await call(a, apiKey, "GET", `/sandbox/events?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      all.push(...reply.body.data.filter((event: any) => !beforeWebhook.has(event.id)))
      cursor = reply.body.meta.nextCursor
    } while (cursor !== null)
    expect(all.length).toBeGreaterThan(10)
    const missing = () => all.filter((event) => receiver.ofEvent(event.id).length === 0)
    await eventually(async () => missing().length === 0 ? true : undefined, "every event's delivery", 10_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(missing().map((event) => [event.type, event.createdAt]))}`)
    })
    for (const event of all) {
      const deliveries = receiver.ofEvent(event.id)
      expect(deliveries, event.type).toHaveLength(1)
      expect(verifySignature(deliveries[0]!.rawBody, deliveries[0]!.signature, secret)).toMatchObject({ ok: true })
    }
  })

  it("two first starts at once made one demo partner with one key", async () => {
    const admin = new Pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    try {
      const demo = await admin.query(`SELECT p.id, count(k.id)::int AS keys FROM partners p
        LEFT JOIN api_keys k ON k.partner_id = p.id AND k.revoked_at IS NULL WHERE p.is_demo GROUP BY p.id`)
      expect(demo.rows).toHaveLength(1)
      expect(demo.rows[0].keys).toBe(1)
    } finally {
      await admin.end()
    }
  })

  it("WORKERS=2: one instance as two processes on one port — one banner, both serving, money exact, stopped together", async () => {
    const relays = async () => {
      const admin = new Pg.Client({ connectionString: databaseUrl })
      await admin.connect()
      try {
        const rows = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'pmm-event-relay' AND datname = current_database()")
        return rows.rows[0].n as number
      } finally {
        await admin.end()
      }
    }
    const before = await relays()
    const workers = await startServer({ ...environment(keyA), WORKERS: "2" })
    try {
      expect(workers.stdout().match(/listening/g)).toHaveLength(1)
      expect(workers.stdout()).toContain("Workers:   2 processes sharing the port (WORKERS)")
      // Each worker is a whole instance: its own relay listener on the database.
      await eventually(async () => ((await relays()) === before + 2 ? true : undefined), "both workers' relay listeners", 10_000)
      // Connections are handed to the workers in turn: withdrawals split over both never overdraw.
      const customerId = await fundedCustomer(2_200)
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) =>
        call(workers.baseUrl, apiKey, "POST", `/partner/v1/customers/${customerId}/withdraw`, { amount: 500, reference: `workers-${i}` })))
      expect(replies.filter((reply) => reply.status === 201)).toHaveLength(4)
      expect(await kesBalance(workers.baseUrl, customerId)).toBe(200)
    } finally {
      expect((await stopServer(workers)).code).toBe(0)
    }
    await eventually(async () => ((await relays()) === before ? true : undefined), "the workers' listeners gone", 10_000)
  })

  it("an instance started with another key is refused at start (exit 78)", () => {
    expect(otherKeyRefusal).toContain("serve exited (code 78")
    expect(otherKeyRefusal).toMatch(/ENCRYPTION_KEY: this database's data was sealed with another key/)
  })
}, 60_000)
