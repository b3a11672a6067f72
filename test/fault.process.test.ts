import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import Pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { killServer, runLedgerCheck, seededDataDir, type ServerProcess, startServer, stopServer } from "./support/ServerProcess.js"

/**
 * Fault tests for the money core (docs/architecture.md "Money invariants": no money created, none lost, none moved twice). The real server
 * process is SIGKILLed while a burst of money requests (withdrawals with references, deposits with tx hashes,
 * completes and fails of earlier withdrawals) is in flight, restarted on the same database and checked through the
 * API; then every request is retried twice at once and the server killed again; then retried once more without a
 * crash; finally `ledger-check` (what `npm run ledger:check` runs) must report no violation.
 *
 * PGlite pass: the embedded database in DATA_DIR (it does not fsync; a killed *process* must still leave a
 * consistent data dir, since the OS keeps what was written). PostgreSQL pass (TEST_DATABASE_URL): a fresh, empty
 * database on that server, migrated by the server itself.
 */
const pgServerUrl = process.env.TEST_DATABASE_URL || undefined
const kind = pgServerUrl ? "PostgreSQL" : "embedded PGlite"

const CUSTOMERS = 3
const WITHDRAWALS_PER_CUSTOMER = 12
const DEPOSITS_PER_CUSTOMER = 6
const SETTLED_PER_CUSTOMER = 4 // withdrawals made before the burst, completed or failed during it
const FUNDING_KES = 100_000
const WITHDRAW_KES = 500
const DEPOSIT_USDT = 10
/** The server is killed when this many burst requests have been answered: the rest are in flight. */
const KILL_AFTER_ANSWERS = 15
/**
 * Before that, at this many answers, the client gives up on every fourth request (aborts it): the server may still
 * commit it, so that some requests are committed whose answer nobody saw — the case a retry must load, not redo.
 */
const ABANDON_AFTER_ANSWERS = 5

// ---------------------------------------------------------------------------------------------------------------

interface Reply {
  readonly status: number
  readonly body: any
}

const client = (baseUrl: () => string, apiKey: () => string) => {
  const request = async (method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Reply> => {
    const headers: Record<string, string> = { "x-api-key": apiKey() }
    if (body !== undefined) headers["content-type"] = "application/json"
    const response = await fetch(baseUrl() + path, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal !== undefined ? { signal } : {})
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  }
  const ok = async (method: string, path: string, body?: unknown, expected = [200, 201]): Promise<any> => {
    const reply = await request(method, path, body)
    if (!expected.includes(reply.status)) {
      throw new Error(`${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    }
    return reply.body.data
  }
  /** Every item of a cursor list. */
  const all = async (path: string): Promise<Array<any>> => {
    const items: Array<any> = []
    let cursor: string | null = null
    const separator = path.includes("?") ? "&" : "?"
    for (let page = 0; page < 1000; page++) {
      const reply = await request("GET", `${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
      if (reply.status !== 200) throw new Error(`GET ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`)
      items.push(...reply.body.data)
      cursor = reply.body.meta.nextCursor
      if (cursor === null) return items
    }
    throw new Error(`GET ${path}: more than 1000 pages`)
  }
  return { request, ok, all }
}

/** Exact minor units from an API number or decimal string (KES 2 decimals, USDT 6). */
const minor = (value: number | string, scale: number): bigint => {
  const [whole, fraction = ""] = String(value).split(".")
  if (fraction.length > scale) throw new Error(`${value} has more than ${scale} decimals`)
  const sign = whole!.startsWith("-") ? -1n : 1n
  return sign * (BigInt(whole!.replace("-", "")) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, "0") || "0"))
}
const scaleOf = (currency: string) => (currency === "USDT" || currency === "USDC" ? 6 : 2)

/** One money request of the burst, replayable with the same idempotency key. */
interface Op {
  readonly kind: "withdraw" | "deposit" | "complete" | "fail"
  readonly customerId: string
  /** the withdrawal reference, the deposit txHash, or the withdrawal id moved by complete/fail */
  readonly key: string
  readonly method: string
  readonly path: string
  readonly body: unknown
}

type Outcome =
  | { readonly kind: "answered"; readonly status: number; readonly body: any }
  | { readonly kind: "lost"; readonly error: string }

// ---------------------------------------------------------------------------------------------------------------

describe(`crash mid-load (${kind})`, () => {
  const dataDir = seededDataDir("pmm-fault-")
  const servers: Array<ServerProcess> = []
  let databaseName: string | undefined

  afterAll(async () => {
    for (const server of servers) await killServer(server)
    NodeFs.rmSync(dataDir, { recursive: true, force: true })
    if (pgServerUrl && databaseName) {
      const admin = new Pg.Client({ connectionString: pgServerUrl })
      await admin.connect()
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)
      await admin.end()
    }
  })

  const environment = async (): Promise<Record<string, string>> => {
    const env: Record<string, string> = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warning" }
    if (pgServerUrl) {
      databaseName = `pmm_t_fault_${NodeCrypto.randomBytes(6).toString("hex")}`
      const admin = new Pg.Client({ connectionString: pgServerUrl })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${databaseName}`)
      await admin.end()
      const url = new URL(pgServerUrl)
      url.pathname = `/${databaseName}`
      env.DATABASE_URL = url.toString()
    }
    return env
  }

  it("SIGKILL during a burst of withdrawals, deposits and settlements: restart recovers, no money created, lost or moved twice, retries are idempotent", async () => {
    const env = await environment()
    let server = await startServer(env)
    servers.push(server)
    let apiKey = ""
    const api = client(() => server.baseUrl, () => apiKey)

    // --- set-up: a partner, funded KES customers with a default bank account, bank rail manual -------------------
    const partner = await api.ok("POST", "/sandbox/partners", {})
    apiKey = partner.apiKey
    await api.ok("PUT", "/sandbox/rails/bank", { mode: "manual" })
    const customers: Array<string> = []
    for (let i = 0; i < CUSTOMERS; i++) {
      const customer = await api.ok("POST", "/partner/v1/customers", {
        firstName: "Wanjiru",
        lastName: `Fault${i}`,
        email: `fault.${i}.${NodeCrypto.randomBytes(3).toString("hex")}@example.com`,
        phoneNumber: "+254712345678",
        country: "KE"
      })
      customers.push(customer.id)
      await api.ok("GET", `/partner/v1/customers/${customer.id}/virtual-account`)
      await api.ok("POST", `/sandbox/customers/${customer.id}/virtual-account/credit`, { amount: FUNDING_KES })
      const code = (await api.ok("GET", `/partner/v1/customers/${customer.id}/banks?country=KE`))[0].code
      await api.ok("POST", `/partner/v1/customers/${customer.id}/accounts`, { bankCode: code, accountNumber: `1234567890${10 + i}` })
    }
    // withdrawals that exist before the crash; the burst completes half of them and fails the other half
    const settled: Array<{ customerId: string; id: string }> = []
    for (const customerId of customers) {
      for (let j = 0; j < SETTLED_PER_CUSTOMER; j++) {
        const withdrawal = await api.ok("POST", `/partner/v1/customers/${customerId}/withdraw`, {
          amount: WITHDRAW_KES,
          reference: `pre-${customerId.slice(0, 8)}-${j}`
        })
        settled.push({ customerId, id: withdrawal.id })
      }
    }

    // --- the burst -------------------------------------------------------------------------------------------
    const ops: Array<Op> = []
    for (const customerId of customers) {
      for (let j = 0; j < WITHDRAWALS_PER_CUSTOMER; j++) {
        const reference = `wd-${customerId.slice(0, 8)}-${j}`
        ops.push({
          kind: "withdraw",
          customerId,
          key: reference,
          method: "POST",
          path: `/partner/v1/customers/${customerId}/withdraw`,
          body: { amount: WITHDRAW_KES, reference }
        })
      }
      for (let j = 0; j < DEPOSITS_PER_CUSTOMER; j++) {
        const txHash = NodeCrypto.randomBytes(32).toString("hex") // TRON format: 64 hex
        ops.push({
          kind: "deposit",
          customerId,
          key: txHash,
          method: "POST",
          path: `/sandbox/customers/${customerId}/deposits`,
          body: { asset: "USDT", network: "TRON", amount: DEPOSIT_USDT, txHash }
        })
      }
    }
    settled.forEach(({ customerId, id }, index) => {
      const complete = index % 2 === 0
      ops.push({
        kind: complete ? "complete" : "fail",
        customerId,
        key: id,
        method: "POST",
        path: `/sandbox/withdrawals/${id}/${complete ? "complete" : "fail"}`,
        body: complete ? undefined : { reason: "Fault test: the bank said no" }
      })
    })
    // interleave customers and kinds so that every customer has work queued when the kill lands
    ops.sort((a, b) => (a.key < b.key ? -1 : 1))

    /**
     * Sends every request at once (each `copies` times); with `killAfter`, SIGKILLs the server at that many answers,
     * after abandoning every fourth request at ABANDON_AFTER_ANSWERS.
     */
    const burst = async (copies: number, killAfter?: number) => {
      let answers = 0
      let killed: Promise<unknown> | undefined
      const abandon = new AbortController()
      const outcomes: Array<Outcome> = await Promise.all(
        ops.flatMap((op, index) =>
          Array.from({ length: copies }, async (): Promise<Outcome> => {
            try {
              const signal = killAfter !== undefined && index % 4 === 3 ? abandon.signal : undefined
              const reply = await api.request(op.method, op.path, op.body, signal)
              answers += 1
              if (answers === ABANDON_AFTER_ANSWERS && killAfter !== undefined) abandon.abort()
              if (answers === killAfter) killed = killServer(server)
              return { kind: "answered", status: reply.status, body: reply.body }
            } catch (error) {
              return { kind: "lost", error: String(error) }
            }
          })
        )
      )
      if (killAfter !== undefined) {
        expect(killed, "the kill was never triggered").toBeDefined()
        expect(await killed).toEqual({ code: null, signal: "SIGKILL" })
        // the kill really landed mid-burst: some requests were answered, others lost with the connection
        expect(outcomes.filter((o) => o.kind === "lost").length, "no request was in flight when the server was killed")
          .toBeGreaterThan(0)
      } else {
        expect(outcomes.filter((o) => o.kind === "lost")).toEqual([])
      }
      // outcome of copy c of ops[i] is outcomes[i * copies + c]
      return ops.map((op, index) => ({ op, outcomes: outcomes.slice(index * copies, (index + 1) * copies) }))
    }

    /** Every successful answer so far, per request key: one record each, whatever the round. */
    const answeredIds = new Map<string, Set<string>>()
    const settlementMoves = new Map<string, number>()
    const record = (results: Awaited<ReturnType<typeof burst>>) => {
      for (const { op, outcomes } of results) {
        for (const outcome of outcomes) {
          if (outcome.kind !== "answered") continue
          const at = `${op.kind} ${op.key}: ${outcome.status} ${JSON.stringify(outcome.body)}`
          if (op.kind === "withdraw" || op.kind === "deposit") {
            // the set-up leaves room for every operation: anything but a success is a bug
            expect(outcome.status, at).toBe(201)
            expect(op.kind === "withdraw" ? outcome.body.data.reference : outcome.body.data.txHash, at).toBe(op.key)
            answeredIds.set(op.key, (answeredIds.get(op.key) ?? new Set()).add(outcome.body.data.id))
          } else {
            // a settlement is not idempotent by design: it happens once, and a repeat is a state conflict
            expect([200, 400], at).toContain(outcome.status)
            if (outcome.status === 400) expect(outcome.body.code, at).toBe("WITHDRAWAL_STATE_CONFLICT")
            if (outcome.status === 200) settlementMoves.set(op.key, (settlementMoves.get(op.key) ?? 0) + 1)
          }
        }
      }
    }

    interface State {
      withdrawals: Map<string, any> // by id
      byReference: Map<string, Array<any>>
      depositCredits: Map<string, number> // txHash -> number of ledger credits
    }

    /** Everything the API shows, checked for internal consistency. */
    const verify = async (label: string): Promise<State> => {
      const state: State = { withdrawals: new Map(), byReference: new Map(), depositCredits: new Map() }
      for (const customerId of customers) {
        const where = `${label}, customer ${customerId}`
        const transactions = await api.all(`/partner/v1/customers/${customerId}/transactions`)
        const balances: Array<{ currency: string; balance: number }> = await api.ok("GET", `/partner/v1/customers/${customerId}/balance`)
        // every balance equals credits minus debits
        const sums = new Map<string, bigint>()
        for (const t of transactions) {
          const amount = minor(t.amount, scaleOf(t.currency))
          expect(amount > 0n, `${where}: entry ${t.id} amount`).toBe(true)
          sums.set(t.currency, (sums.get(t.currency) ?? 0n) + (t.type === "CREDIT" ? amount : -amount))
        }
        for (const { currency, balance } of balances) {
          expect(minor(balance, scaleOf(currency)), `${where}: ${currency} balance vs transactions`).toBe(sums.get(currency) ?? 0n)
        }
        for (const currency of sums.keys()) expect(balances.map((b) => b.currency), where).toContain(currency)
        // balanceAfter chains: newest first, so each entry's balanceAfter minus its own effect is the next one's
        const byCurrency = new Map<string, Array<any>>()
        for (const t of transactions) byCurrency.set(t.currency, [...(byCurrency.get(t.currency) ?? []), t])
        for (const [currency, list] of byCurrency) {
          const scale = scaleOf(currency)
          expect(minor(list[0].balanceAfter, scale), `${where}: newest ${currency} balanceAfter`).toBe(sums.get(currency))
          for (let i = 0; i + 1 < list.length; i++) {
            const effect = (list[i].type === "CREDIT" ? 1n : -1n) * minor(list[i].amount, scale)
            expect(minor(list[i].balanceAfter, scale) - effect, `${where}: balanceAfter chain at ${list[i].id}`)
              .toBe(minor(list[i + 1].balanceAfter, scale))
          }
        }

        const withdrawals = await api.all(`/partner/v1/customers/${customerId}/withdrawals`)
        const events = await api.all(`/sandbox/events?customerId=${customerId}`)
        const eventsOf = (type: string, id: string) => events.filter((e) => e.type === type && e.data?.id === id)
        for (const w of withdrawals) {
          const at = `${where}, withdrawal ${w.id} (${w.reference}, ${w.status})`
          state.withdrawals.set(w.id, { ...w, customerId })
          state.byReference.set(w.reference, [...(state.byReference.get(w.reference) ?? []), w])
          expect(minor(w.amount, 2) + minor(w.fee, 2), `${at}: amount + fee`).toBe(minor(w.totalDebited, 2))
          // exactly one withdrawal.submitted event, and exactly one reservation of totalDebited off the balance
          expect(eventsOf("withdrawal.submitted", w.id), `${at}: withdrawal.submitted events`).toHaveLength(1)
          const entries = transactions.filter((t) => t.resourceId === w.id)
          const debits = entries.filter((t) => t.type === "DEBIT")
          expect(debits, `${at}: reservation debits`).toHaveLength(1)
          expect(debits[0].reason).toBe("withdrawal")
          expect(minor(debits[0].amount, 2), `${at}: reserved amount`).toBe(minor(w.totalDebited, 2))
          const refunds = entries.filter((t) => t.type === "CREDIT")
          const completed = eventsOf("withdrawal.completed", w.id)
          const failed = eventsOf("withdrawal.failed", w.id)
          expect(completed, `${at}: withdrawal.completed events`).toHaveLength(w.status === "COMPLETED" ? 1 : 0)
          expect(failed, `${at}: withdrawal.failed events`).toHaveLength(w.status === "FAILED" ? 1 : 0)
          expect(refunds, `${at}: refunds`).toHaveLength(w.status === "FAILED" ? 1 : 0)
          if (w.status === "FAILED") expect(minor(refunds[0].amount, 2), `${at}: refund`).toBe(minor(w.totalDebited, 2))
          expect(["PROCESSING", "COMPLETED", "FAILED"], at).toContain(w.status)
        }
        // every withdrawal debit belongs to a withdrawal the API lists (no orphan money movement)
        for (const t of transactions.filter((t) => t.resourceType === "withdrawal")) {
          expect(state.withdrawals.has(t.resourceId), `${where}: entry ${t.id} for unknown withdrawal ${t.resourceId}`).toBe(true)
        }
        // deposits: one credit per txHash, each announced once
        for (const t of transactions.filter((t) => t.reason === "deposit")) {
          expect(minor(t.amount, 6), `${where}: deposit ${t.reference}`).toBe(minor(DEPOSIT_USDT, 6))
          state.depositCredits.set(t.reference, (state.depositCredits.get(t.reference) ?? 0) + 1)
          expect(events.filter((e) => e.type === "deposit.received" && e.data?.txHash === t.reference), `${where}: deposit.received for ${t.reference}`)
            .toHaveLength(1)
        }
        // conservation: KES available = funded - every withdrawal reserved + every failed one refunded
        const kes = transactions.filter((t) => t.currency === "KES")
        expect(kes.filter((t) => t.reason === "funding").map((t) => t.amount), `${where}: funding`).toEqual([FUNDING_KES])
        const reserved = withdrawals.reduce((sum, w) => sum + minor(w.totalDebited, 2), 0n)
        const refunded = withdrawals.filter((w) => w.status === "FAILED").reduce((sum, w) => sum + minor(w.totalDebited, 2), 0n)
        expect(sums.get("KES"), `${where}: KES conservation`).toBe(minor(FUNDING_KES, 2) - reserved + refunded)
        const deposits = transactions.filter((t) => t.reason === "deposit").length
        expect(sums.get("USDT") ?? 0n, `${where}: USDT conservation`).toBe(BigInt(deposits) * minor(DEPOSIT_USDT, 6))
      }
      for (const [reference, list] of state.byReference) expect(list, `${label}: withdrawals with reference ${reference}`).toHaveLength(1)
      for (const [hash, count] of state.depositCredits) expect(count, `${label}: credits for txHash ${hash}`).toBe(1)
      return state
    }

    /** After a restart: everything answered so far survived, as answered, exactly once. */
    const survived = (state: State, label: string) => {
      for (const op of ops) {
        const ids = [...(answeredIds.get(op.key) ?? [])]
        const at = `${label}: ${op.kind} ${op.key}`
        if (op.kind === "withdraw" || op.kind === "deposit") expect(ids.length, `${at}: answered ids ${ids}`).toBeLessThanOrEqual(1)
        if (op.kind === "withdraw" && ids.length === 1) expect(state.withdrawals.get(ids[0]!)?.reference, at).toBe(op.key)
        if (op.kind === "deposit" && ids.length === 1) expect(state.depositCredits.get(op.key), at).toBe(1)
        const moves = settlementMoves.get(op.key) ?? 0
        if (op.kind === "complete" || op.kind === "fail") {
          expect(moves, `${at}: answered 200 more than once`).toBeLessThanOrEqual(1)
          if (moves === 1) expect(state.withdrawals.get(op.key)?.status, at).toBe(op.kind === "complete" ? "COMPLETED" : "FAILED")
        }
      }
      for (const { id } of settled) expect(state.withdrawals.has(id), `${label}: pre-crash withdrawal ${id}`).toBe(true)
    }
    const committedUnanswered = (state: State) =>
      ops.filter((op) => {
        if (op.kind === "withdraw") return !answeredIds.has(op.key) && state.byReference.has(op.key)
        if (op.kind === "deposit") return !answeredIds.has(op.key) && state.depositCredits.has(op.key)
        return !settlementMoves.has(op.key) && state.withdrawals.get(op.key)?.status !== "PROCESSING"
      }).length

    // --- round 1: the burst, killed mid-flight; restart on the same database ---------------------------------
    const round1 = await burst(1, KILL_AFTER_ANSWERS)
    record(round1)
    const lost1 = round1.filter((r) => r.outcomes[0]!.kind === "lost").length
    server = await startServer(env)
    servers.push(server)
    expect(await api.ok("GET", "/health")).toMatchObject({ status: "ok" })
    const afterCrash1 = await verify("after crash 1")
    survived(afterCrash1, "after crash 1")
    const committed1 = committedUnanswered(afterCrash1)

    // --- round 2: every request retried twice at once, killed mid-flight again ------------------------------
    const round2 = await burst(2, 2 * KILL_AFTER_ANSWERS)
    record(round2)
    const lost2 = round2.flatMap((r) => r.outcomes).filter((o) => o.kind === "lost").length
    server = await startServer(env)
    servers.push(server)
    const afterCrash2 = await verify("after crash 2")
    survived(afterCrash2, "after crash 2")
    const committed2 = committedUnanswered(afterCrash2)

    // --- round 3: every request retried twice at once, no crash: all done, each exactly once ----------------
    record(await burst(2))
    const final = await verify("after the retries")
    survived(final, "after the retries")
    for (const op of ops) {
      if (op.kind === "withdraw") {
        expect(answeredIds.get(op.key)?.size, `${op.key}: one record whatever the round`).toBe(1)
        expect(final.byReference.get(op.key)?.[0]?.id, op.key).toBe([...answeredIds.get(op.key)!][0])
      }
      if (op.kind === "deposit") {
        expect(answeredIds.get(op.key)?.size, `${op.key}: one deposit whatever the round`).toBe(1)
        expect(final.depositCredits.get(op.key), op.key).toBe(1)
      }
      if (op.kind === "complete" || op.kind === "fail") {
        expect(final.withdrawals.get(op.key)?.status, `${op.kind} ${op.key}`).toBe(op.kind === "complete" ? "COMPLETED" : "FAILED")
      }
    }
    const withdrawOps = ops.filter((op) => op.kind === "withdraw")
    expect(final.withdrawals.size).toBe(withdrawOps.length + settled.length)
    console.info(
      `fault test (${kind}): ${ops.length} requests; crash 1: ${lost1} lost, ${committed1} of all unanswered requests committed; ` +
        `crash 2 (retries x2): ${lost2} lost, ${committed2} committed without any answer so far`
    )

    // --- the invariant checker over the whole database (after a clean stop: PGlite has one user) --------------
    expect(await stopServer(server)).toEqual({ code: 0, signal: null })
    const check = await runLedgerCheck(env)
    expect(check.report, `ledger-check printed no report:\n${check.stdout}\n${check.stderr}`).toBeDefined()
    expect(check.report!.violations).toEqual([])
    expect(check.exit, check.stderr).toEqual({ code: 0, signal: null })
    expect(check.report!.transactions).toBeGreaterThan(0)
  }, 300_000)
})
