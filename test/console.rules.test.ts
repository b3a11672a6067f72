import { Effect, Option, Redacted } from "effect"
import { SignJWT, UnsecuredJWT } from "jose"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import Pg from "pg"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { Console } from "../src/console/Console.js"
import * as PasswordRules from "../src/console/PasswordRules.js"
import { refreshKeyOf } from "../src/console/Sessions.js"
import { fromMaster, parseKey } from "../src/crypto/Keys.js"
import { openPgliteCopy, pgliteLayerOn, postgresLayer } from "../src/db/Database.js"
import { ClockAdvance } from "../src/clock/ClockAdvance.js"
import { Partners } from "../src/partners/Partners.js"
import { Webhooks } from "../src/webhooks/Webhooks.js"
import { openSecret } from "../src/webhooks/Signing.js"
import { verifySignature } from "../src/webhooks/verifySignature.js"
import { fixtures } from "./support/Fixtures.js"
import { startServices } from "./support/ServiceHarness.js"
import { databaseKind, startTestApp, testDatabaseLayer, type Reply, type TestApp } from "./support/TestApp.js"
import { eventually, type Receiver, startReceiver } from "./support/WebhookReceiver.js"

/**
 * The partner console's rules over real HTTP (docs/console.md): account validation, sign-in without enumeration
 * and its lockout on the service clock, tokens (expiry, rotation, sign-out, forgeries, surfaces that do not mix),
 * KYB stages and compliance's decisions with their `partner.*` events, API keys (approval gate, listing, last use,
 * rotation under concurrent load) and `POST /partner/update-webhook` (the self-serve URL rules, a supplied secret
 * sealed at rest and used for signing).
 *
 * The service clock is frozen (startTestApp) and its instance offset, which these tests advance, is shared by every
 * test of this file: a test that advances it opens the sessions it uses after any advance of its own, and never
 * reuses another test's session.
 */
let app: TestApp
const fx = fixtures(() => app)
/** A sandbox partner's API key: the clock control and the event list need one. */
let controlKey: string
let target: Receiver

/** The master key startTestApp configures (testConfig's ENCRYPTION_KEY). */
const masterKeyHex = "11".repeat(32)

beforeAll(async () => {
  app = await startTestApp()
  controlKey = (await fx.partner()).apiKey
  target = await startReceiver(() => 200)
})
afterAll(async () => {
  await app?.close()
  await target?.close()
})

const password = "correct horse battery staple"
const newEmail = () => `owner.${NodeCrypto.randomBytes(6).toString("hex")}@example.com`
const company = {
  legalName: "Obi Payments Ltd",
  registrationNumber: "RC 1234567",
  country: "NG",
  address: "12 Marina Road, Lagos",
  website: "https://obipay.example.com",
  contactEmail: "compliance@obipay.example.com"
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/**
 * Advances the instance's clock (every partner's), in process: a console partner has no API key before approval,
 * so it cannot advance its own clock over HTTP, and sign-in lockouts are on the instance's clock.
 */
const advance = (seconds: number) => app.run(Effect.flatMap(ClockAdvance, (clock) => clock.advance(seconds)))

interface Account {
  readonly email: string
  readonly token: string
  readonly refreshToken: string
  readonly partnerId: string
}

const signUp = async (email = newEmail()): Promise<Account> => {
  const reply = await app.request("POST", "/partner/sign-up", { body: { email, password, companyName: "Obi Payments" } })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return {
    email,
    token: reply.body.data.session.accessToken,
    refreshToken: reply.body.data.session.refreshToken,
    partnerId: reply.body.data.console.partner.id
  }
}

const signIn = (email: string, pass: string) => app.request("POST", "/partner/sign-in", { body: { email, password: pass } })
const me = (token: string) => app.request("GET", "/partner/me", { headers: bearer(token) })

/** Signed up, company set, KYB submitted: UNDER_REVIEW. */
const underReview = async (): Promise<Account> => {
  const account = await signUp()
  const put = await app.request("PUT", "/partner/company", { headers: bearer(account.token), body: company })
  expect(put.status, JSON.stringify(put.body)).toBe(200)
  const submitted = await app.request("POST", "/partner/kyb/submit", { headers: bearer(account.token) })
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(200)
  expect(submitted.body.data.partner.kybStage).toBe("UNDER_REVIEW")
  return account
}

const decide = (token: string, body: unknown) => app.request("POST", "/sandbox/console/kyb-decision", { headers: bearer(token), body })

/** Signed up and approved (through the sandbox decision). */
const approved = async (): Promise<Account> => {
  const account = await underReview()
  const reply = await decide(account.token, { decision: "APPROVED" })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  expect(reply.body.data.partner.kybStatus).toBe("APPROVED")
  return account
}

const issueKey = async (token: string) => {
  const reply = await app.request("POST", "/partner/api-keys", { headers: bearer(token) })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.data as { apiKey: string; key: { id: string; prefix: string; status: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null } }
}

const listKeys = (token: string) => app.request("GET", "/partner/api-keys", { headers: bearer(token) })

/** The partner's `partner.*` events from the outbox, oldest first. */
const partnerEvents = async (partnerId: string) =>
  (await app.query<{ type: string; data: unknown }>(
    "SELECT type, data FROM events WHERE partner_id = $1 AND type LIKE 'partner.%' ORDER BY seq",
    [partnerId]
  )).map((row) => ({ type: row.type, data: typeof row.data === "string" ? JSON.parse(row.data) : row.data }))

const expectError = (reply: Reply, status: number, code: string, message?: RegExp | string) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.body).toMatchObject({ success: false, statusCode: status, code })
  if (typeof message === "string") expect(reply.body.message).toBe(message)
  else if (message !== undefined) expect(reply.body.message).toMatch(message)
}

/**
 * Runs `requests`, concurrent writers of `table`, as a certain race. On PostgreSQL a second connection holds `table`
 * in SHARE ROW EXCLUSIVE mode (reads go on, writes wait) until `writers` transactions are blocked (on the table, or on
 * a lock the service takes first to serialise them), then lets them go: without such a lock, each has done its reads
 * before any of them commits. On PGlite (one transaction at a time) it just runs them.
 */
const racing = async <T>(table: string, writers: number, requests: () => Promise<T>): Promise<T> => {
  if (databaseKind() !== "postgres") return requests()
  const client = new Pg.Client({ connectionString: app.database!.url! })
  await client.connect()
  try {
    await client.query("BEGIN")
    await client.query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`)
    const running = requests()
    await eventually(async () => {
      // Waiting on the table, or on what the service serialises them with (a row lock): every writer is blocked.
      const waiting = await client.query<{ n: number }>(
        "SELECT count(DISTINCT pid)::int AS n FROM pg_locks WHERE NOT granted AND pid <> pg_backend_pid()"
      )
      return waiting.rows[0]!.n >= writers ? true : undefined
    }, `${writers} writers of ${table} waiting`)
    await client.query("COMMIT")
    return await running
  } finally {
    await client.end()
  }
}


const sessionInvalid = "The console session is not valid (expired or signed out): sign in again"

// ---------------------------------------------------------------------------------------------------------------

describe("sign-up", () => {
  it.each([
    ["an email that is not an address", { email: "not-an-email", password, companyName: "Obi" }, "email: must be a valid email address"],
    ["a password of 11 characters", { email: newEmail(), password: "a".repeat(11), companyName: "Obi" }, "password: must be 12 to 128 characters"],
    ["a password of 129 characters", { email: newEmail(), password: "a".repeat(129), companyName: "Obi" }, "password: must be 12 to 128 characters"],
    ["no companyName", { email: newEmail(), password }, "companyName: is required"],
    ["a blank companyName", { email: newEmail(), password, companyName: "   " }, "companyName: must be 1 to 200 characters"],
    ["a password of only spaces", { email: newEmail(), password: " ".repeat(16), companyName: "Obi" }, "password: must not be only spaces or other whitespace"],
    ["a password of only whitespace of several kinds", { email: newEmail(), password: " \u3000\u00a0\u2003".repeat(3), companyName: "Obi" }, "password: must not be only spaces or other whitespace"],
    ["a password of one character repeated", { email: newEmail(), password: "p".repeat(12), companyName: "Obi" }, "password: must not be one character repeated"],
    ["a common password", { email: newEmail(), password: "password1234", companyName: "Obi" }, `password: ${PasswordRules.commonMessage}`],
    ["a common password in capitals", { email: newEmail(), password: "QWERTY123456", companyName: "Obi" }, `password: ${PasswordRules.commonMessage}`]
  ])("refuses %s with 400 BAD_REQUEST naming the field, and creates nothing", async (_, body, message) => {
    const reply = await app.request("POST", "/partner/sign-up", { body })
    expectError(reply, 400, "BAD_REQUEST", message)
    if (typeof (body as { email?: unknown }).email === "string") {
      expect(await app.query("SELECT id FROM console_users WHERE email = $1", [(body as { email: string }).email])).toEqual([])
    }
  })

  it("accepts passwords of exactly 12 and 128 characters", async () => {
    for (const length of [12, 128]) {
      const email = newEmail()
      const chosen = "p".repeat(length - 1) + "q"
      const reply = await app.request("POST", "/partner/sign-up", { body: { email, password: chosen, companyName: "Obi" } })
      expect(reply.status, `${length}: ${JSON.stringify(reply.body)}`).toBe(201)
      expect((await signIn(email, chosen)).status).toBe(200)
    }
  })

  it("refuses an email already signed up, in any case, with 409 EMAIL_TAKEN and keeps the first account", async () => {
    const email = newEmail()
    const first = await signUp(email)
    for (const variant of [email, email.toUpperCase(), `  ${email.replace(/^o/, "O")} `]) {
      const again = await app.request("POST", "/partner/sign-up", { body: { email: variant, password: "another password 123", companyName: "Other" } })
      expectError(again, 409, "EMAIL_TAKEN", /^email: /)
    }
    expect(await app.query("SELECT email FROM console_users WHERE email = $1", [email])).toEqual([{ email }])
    // the first password still signs in; the second never took
    expect((await signIn(email, password)).status).toBe(200)
    expectError(await signIn(email, "another password 123"), 401, "INVALID_CREDENTIALS")
    expect((await me(first.token)).status).toBe(200)
  })

  it("answers a session that works on GET /partner/me and a console view of the new partner", async () => {
    const email = newEmail()
    const reply = await app.request("POST", "/partner/sign-up", { body: { email: email.toUpperCase(), password, companyName: "  Obi Payments  " } })
    expect(reply.status).toBe(201)
    const { session, console: view } = reply.body.data
    expect(session).toMatchObject({ tokenType: "Bearer", expiresIn: 900 })
    expect(session.refreshToken).toMatch(/^rt_[0-9A-Za-z]{40,}$/)
    expect(Date.parse(session.expiresAt) - Date.parse(view.user.createdAt)).toBe(900_000)
    expect(view.user.email).toBe(email)
    expect(view.partner).toMatchObject({ name: "Obi Payments", kybStatus: "PENDING", kybStage: "DRAFT", kybReason: null, kybSubmittedAt: null, company: null })
    const read = await me(session.accessToken)
    expect(read.status).toBe(200)
    expect(read.body.data).toEqual(view)
    // a console partner has no key until approval
    expect(await app.query("SELECT id FROM api_keys WHERE partner_id = $1", [view.partner.id])).toEqual([])
  })
})

describe("sign-up under concurrency", () => {
  it("concurrent sign-ups of one email: one 201, the others 409 EMAIL_TAKEN, never 5xx; one user", async () => {
    const email = newEmail()
    const replies = await racing("console_users", 3, () =>
      Promise.all(Array.from({ length: 3 }, (_, i) =>
        app.request("POST", "/partner/sign-up", { body: { email: i % 2 === 0 ? email : email.toUpperCase(), password, companyName: `Race ${i}` } }))))
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409, 409])
    for (const reply of replies.filter((r) => r.status === 409)) expect(reply.body.code).toBe("EMAIL_TAKEN")
    const users = await app.query<{ partnerId: string }>("SELECT partner_id FROM console_users WHERE email = $1", [email])
    expect(users).toHaveLength(1)
    const winner = replies.find((reply) => reply.status === 201)!
    expect(users[0]!.partnerId).toBe(winner.body.data.console.partner.id)
  })
})

describe("sign-in", () => {
  it("answers a wrong password and an unknown email with byte-identical 401 INVALID_CREDENTIALS", async () => {
    const { email } = await signUp()
    const wrong = await signIn(email, "not the password at all")
    const unknown = await signIn(newEmail(), "not the password at all")
    expectError(wrong, 401, "INVALID_CREDENTIALS", "The email or the password is wrong")
    expect(unknown.status).toBe(wrong.status)
    expect(JSON.stringify(unknown.body)).toBe(JSON.stringify(wrong.body))
    expect(unknown.headers.get("content-type")).toBe(wrong.headers.get("content-type"))
    // the right password, in any email case, signs in
    const ok = await signIn(`  ${email.toUpperCase()}`, password)
    expect(ok.status).toBe(200)
    expect((await me(ok.body.data.accessToken)).body.data.user.email).toBe(email)
  })

  it("locks an email after 5 failures: 429 with retryAfterSeconds, even with the right password, until 15 minutes pass", async () => {
    const { email } = await signUp()
    for (let i = 1; i <= 5; i++) expectError(await signIn(email, `wrong password ${i}`), 401, "INVALID_CREDENTIALS")
    const locked = await signIn(email, password)
    expectError(locked, 429, "TOO_MANY_SIGN_IN_ATTEMPTS", "Too many failed sign-ins for this email: try again in 900 seconds")
    expect(locked.body.details).toEqual({ retryAfterSeconds: 900 })
    expectError(await signIn(email, "wrong again"), 429, "TOO_MANY_SIGN_IN_ATTEMPTS")

    await advance(899)
    const stillLocked = await signIn(email, password)
    expectError(stillLocked, 429, "TOO_MANY_SIGN_IN_ATTEMPTS")
    expect(stillLocked.body.details).toEqual({ retryAfterSeconds: 1 })

    await advance(1)
    const open = await signIn(email, password)
    expect(open.status, JSON.stringify(open.body)).toBe(200)
    expect((await me(open.body.data.accessToken)).status).toBe(200)
  })

  it("locks an unknown email the same way: the lock says nothing about existence", async () => {
    const known = (await signUp()).email
    const unknown = newEmail()
    for (let i = 1; i <= 5; i++) {
      const a = await signIn(known, `wrong password ${i}`)
      const b = await signIn(unknown, `wrong password ${i}`)
      expect([b.status, b.body]).toEqual([a.status, a.body])
      expect(a.status).toBe(401)
    }
    const lockedKnown = await signIn(known, password)
    const lockedUnknown = await signIn(unknown, password)
    expectError(lockedUnknown, 429, "TOO_MANY_SIGN_IN_ATTEMPTS")
    expect(lockedUnknown.body.details).toEqual({ retryAfterSeconds: 900 })
    expect(JSON.stringify(lockedUnknown.body)).toBe(JSON.stringify(lockedKnown.body))
  })

  it("a success resets the failure count: 4 failures, a success, 4 more failures still sign in", async () => {
    const { email } = await signUp()
    for (let i = 1; i <= 4; i++) expectError(await signIn(email, `wrong ${i} password`), 401, "INVALID_CREDENTIALS")
    expect((await signIn(email, password)).status).toBe(200)
    expect(await app.query("SELECT email FROM console_sign_in_failures WHERE email = $1", [email])).toEqual([])
    for (let i = 1; i <= 4; i++) expectError(await signIn(email, `wrong ${i} password`), 401, "INVALID_CREDENTIALS")
    expect((await signIn(email, password)).status).toBe(200)
    // and the fifth failure in a row (without a success between) locks
    for (let i = 1; i <= 5; i++) expectError(await signIn(email, `wrong ${i} password`), 401, "INVALID_CREDENTIALS")
    expectError(await signIn(email, password), 429, "TOO_MANY_SIGN_IN_ATTEMPTS")
  })

  it("20 concurrent wrong passwords for one email: at most 5 are checked (401), the rest 429", async () => {
    const { email } = await signUp()
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(email, `wrong password ${i}`)))
    const statuses = replies.map((reply) => reply.status)
    expect(statuses.every((status) => status === 401 || status === 429), statuses.join(",")).toBe(true)
    expect(statuses.filter((status) => status === 401).length, statuses.join(",")).toBeLessThanOrEqual(5)
    expectError(await signIn(email, password), 429, "TOO_MANY_SIGN_IN_ATTEMPTS")
  })

  it("counts failures within 15 minutes only: 4 failures, 15 minutes and a second later, 4 more do not lock", async () => {
    const { email } = await signUp()
    for (let i = 1; i <= 4; i++) expectError(await signIn(email, `wrong ${i} password`), 401, "INVALID_CREDENTIALS")
    await advance(15 * 60 + 1)
    for (let i = 1; i <= 4; i++) expectError(await signIn(email, `wrong ${i} password`), 401, "INVALID_CREDENTIALS")
    expect((await signIn(email, password)).status).toBe(200)
  })
})

describe("tokens", () => {
  it("an access token expires after 15 minutes of service clock; a refresh gives a new working pair", async () => {
    const account = await signUp()
    await advance(15 * 60 - 1)
    expect((await me(account.token)).status).toBe(200)
    await advance(1)
    expectError(await me(account.token), 401, "UNAUTHORIZED", sessionInvalid)

    const refreshed = await app.request("POST", "/partner/token/refresh", { body: { refreshToken: account.refreshToken } })
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
    expect(refreshed.body.data).toMatchObject({ tokenType: "Bearer", expiresIn: 900 })
    expect(refreshed.body.data.accessToken).not.toBe(account.token)
    expect(refreshed.body.data.refreshToken).not.toBe(account.refreshToken)
    expect((await me(refreshed.body.data.accessToken)).body.data.partner.id).toBe(account.partnerId)

    // the new one works once, then it is spent too (presenting a spent one again ends the session: the next test)
    const again = await app.request("POST", "/partner/token/refresh", { body: { refreshToken: refreshed.body.data.refreshToken } })
    expect(again.status).toBe(200)
    expectError(await app.request("POST", "/partner/token/refresh", { body: { refreshToken: refreshed.body.data.refreshToken } }), 401, "UNAUTHORIZED")
    expectError(await app.request("POST", "/partner/token/refresh", { body: { refreshToken: "rt_unknown" } }), 401, "UNAUTHORIZED")
  })

  it("a session's times are on its partner's own clock: its API key's advance expires its token, not another partner's", async () => {
    const account = await approved()
    const { apiKey } = await issueKey(account.token)
    const other = await signUp()
    const own = await app.request("POST", "/sandbox/clock/advance", { apiKey, body: { seconds: 15 * 60 } })
    expect(own.status, JSON.stringify(own.body)).toBe(200)
    expectError(await me(account.token), 401, "UNAUTHORIZED", sessionInvalid)
    expect((await me(other.token)).status).toBe(200)
    const refreshed = await app.request("POST", "/partner/token/refresh", { body: { refreshToken: account.refreshToken } })
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
    expect(Date.parse(refreshed.body.data.expiresAt)).toBe(Date.parse(own.body.data.now) + 15 * 60 * 1000)
    expect((await me(refreshed.body.data.accessToken)).status).toBe(200)
  })

  it("a refresh token is spent once, also when 5 refreshes with it race: one 200, four 401, and the reuses end the session", async () => {
    const account = await signUp()
    const replies = await Promise.all(Array.from({ length: 5 }, () =>
      app.request("POST", "/partner/token/refresh", { body: { refreshToken: account.refreshToken } })))
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 401, 401, 401, 401])
    // The four losers presented a spent token: whoever holds it, the session is revoked (no grace for races).
    const winner = replies.find((reply) => reply.status === 200)!
    expectError(await app.request("POST", "/partner/token/refresh", { body: { refreshToken: winner.body.data.refreshToken } }), 401, "UNAUTHORIZED")
    expectError(await me(winner.body.data.accessToken), 401, "UNAUTHORIZED", sessionInvalid)
  })

  it("reusing a spent refresh token revokes its session: the newer refresh token and the session's access tokens stop working", async () => {
    const account = await signUp()
    const other = (await signIn(account.email, password)).body.data
    const refresh = (refreshToken: string) => app.request("POST", "/partner/token/refresh", { body: { refreshToken } })
    const second = await refresh(account.refreshToken)
    expect(second.status, JSON.stringify(second.body)).toBe(200)
    const third = await refresh(second.body.data.refreshToken)
    expect(third.status, JSON.stringify(third.body)).toBe(200)
    expect((await me(third.body.data.accessToken)).status).toBe(200)

    // the first token again (spent two rotations ago): 401, and the whole session ends
    expectError(await refresh(account.refreshToken), 401, "UNAUTHORIZED")
    expectError(await refresh(third.body.data.refreshToken), 401, "UNAUTHORIZED")
    for (const token of [account.token, second.body.data.accessToken, third.body.data.accessToken]) {
      expectError(await me(token), 401, "UNAUTHORIZED", sessionInvalid)
    }
    const sessions = await app.query<{ revoked: boolean; spent: number }>(
      `SELECT s.revoked_at IS NOT NULL AS revoked, (SELECT count(*)::int FROM console_spent_refresh_tokens t WHERE t.session_id = s.id) AS spent
       FROM console_sessions s JOIN console_users u ON u.id = s.user_id WHERE u.email = $1 ORDER BY spent DESC`, [account.email])
    expect(sessions).toEqual([{ revoked: true, spent: 2 }, { revoked: false, spent: 0 }])
    // another session of the same user is not touched, and its refresh token still rotates
    expect((await me(other.accessToken)).status).toBe(200)
    expect((await refresh(other.refreshToken)).status).toBe(200)
  })

  it("stores refresh tokens keyed by ENCRYPTION_KEY: neither the token nor its plain SHA-256 is in the database", async () => {
    const account = await signUp()
    const rows = await app.query<{ refreshHash: Uint8Array }>(
      "SELECT s.refresh_hash FROM console_sessions s JOIN console_users u ON u.id = s.user_id WHERE u.email = $1", [account.email])
    expect(rows).toHaveLength(1)
    const stored = Buffer.from(rows[0]!.refreshHash)
    expect(stored.equals(NodeCrypto.createHash("sha256").update(account.refreshToken).digest())).toBe(false)
    const keyed = NodeCrypto.createHmac("sha256", refreshKeyOf(fromMaster(parseKey(masterKeyHex)).consoleToken)).update(account.refreshToken).digest()
    expect(stored.equals(keyed)).toBe(true)
  })

  it("a refresh token lasts 30 days of service clock, and each refresh starts 30 days anew", async () => {
    const early = await signUp()
    const late = await signUp()
    await advance(30 * 24 * 60 * 60 - 1)
    const renewed = await app.request("POST", "/partner/token/refresh", { body: { refreshToken: early.refreshToken } })
    expect(renewed.status).toBe(200)
    const now = Date.parse((await app.request("GET", "/sandbox/clock", { apiKey: controlKey })).body.data.now)
    expect(Date.parse(renewed.body.data.refreshExpiresAt) - now).toBe(30 * 24 * 60 * 60 * 1000)
    await advance(1)
    expectError(await app.request("POST", "/partner/token/refresh", { body: { refreshToken: late.refreshToken } }), 401, "UNAUTHORIZED")
    expect((await app.request("POST", "/partner/token/refresh", { body: { refreshToken: renewed.body.data.refreshToken } })).status).toBe(200)
  })

  it("sign-out makes the session's access token and refresh token fail at once; another session is unaffected", async () => {
    const account = await signUp()
    const other = (await signIn(account.email, password)).body.data
    const out = await app.request("POST", "/partner/sign-out", { headers: bearer(account.token) })
    expect(out.status).toBe(200)
    expect(out.body).toEqual({ success: true, data: { signedOut: true } })
    expectError(await me(account.token), 401, "UNAUTHORIZED", sessionInvalid)
    expectError(await app.request("POST", "/partner/sign-out", { headers: bearer(account.token) }), 401, "UNAUTHORIZED")
    expectError(await app.request("POST", "/partner/token/refresh", { body: { refreshToken: account.refreshToken } }), 401, "UNAUTHORIZED")
    expect((await me(other.accessToken)).status).toBe(200)
  })

  it("a sign-in deletes the user's dead sessions with their spent tokens; a refresh deletes its spent tokens past 30 days", async () => {
    const day = 24 * 60 * 60
    const account = await signUp()
    const rows = async () => {
      const [counts] = await app.query<{ sessions: string; spent: string }>(
        `SELECT (SELECT count(*) FROM console_sessions s JOIN console_users u ON u.id = s.user_id WHERE u.email = $1)::text AS sessions,
                (SELECT count(*) FROM console_spent_refresh_tokens t JOIN console_sessions s ON s.id = t.session_id
                   JOIN console_users u ON u.id = s.user_id WHERE u.email = $1)::text AS spent`, [account.email])
      return { sessions: Number(counts!.sessions), spent: Number(counts!.spent) }
    }
    const refresh = async (refreshToken: string): Promise<string> => {
      const reply = await app.request("POST", "/partner/token/refresh", { body: { refreshToken } })
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      return reply.body.data.refreshToken
    }
    const refused = async (refreshToken: string) =>
      expectError(await app.request("POST", "/partner/token/refresh", { body: { refreshToken } }), 401, "UNAUTHORIZED")

    // A refreshed twice (two spent tokens), B signed out, C live.
    const first = await refresh(await refresh(account.refreshToken))
    const b = (await signIn(account.email, password)).body.data
    const c = (await signIn(account.email, password)).body.data
    expect((await app.request("POST", "/partner/sign-out", { headers: bearer(b.accessToken) })).status).toBe(200)
    expect(await rows()).toEqual({ sessions: 3, spent: 2 })
    // Within an access token's life of the sign-out, B stays; past it, the next sign-in deletes it, and only it.
    await app.request("POST", "/partner/sign-in", { body: { email: account.email, password } })
    expect(await rows()).toEqual({ sessions: 4, spent: 2 })
    await advance(15 * 60 + 1)
    const d = (await signIn(account.email, password)).body.data
    expect(await rows()).toEqual({ sessions: 4, spent: 2 })
    await refused(b.refreshToken)
    expectError(await me(b.accessToken), 401, "UNAUTHORIZED", sessionInvalid)
    expect((await me(c.accessToken)).status).toBe(401) // expired (15 minutes), not deleted: its refresh still works
    expect((await app.request("POST", "/partner/token/refresh", { body: { refreshToken: c.refreshToken } })).status).toBe(200)

    // A session refreshed within every 30 days lives on; its tokens spent more than 30 days ago go at its next refresh.
    await advance(20 * day)
    const second = await refresh(first)
    await advance(20 * day)
    expect((await rows()).spent).toBe(4) // A: 3 (2 older than 30 days), C: 1
    const third = await refresh(second)
    expect((await rows()).spent).toBe(3) // A: the two of day 0 gone; day 20's and this one's kept. C: 1
    // A token spent long ago is refused as an unknown one, and the session goes on; one spent recently still ends it.
    await refused(account.refreshToken)
    const fourth = await refresh(third)
    await refused(second)
    await refused(fourth)

    // Past every refresh token's expiry (plus an access token's life), the next sign-in leaves only itself.
    await advance(30 * day + 15 * 60 + 1)
    await signIn(account.email, password)
    expect(await rows()).toEqual({ sessions: 1, spent: 0 })
    await refused(d.refreshToken)
  })

  it("refuses forged tokens: tampered claims, a bad signature, another key, alg none, an API key as the bearer", async () => {
    const account = await signUp()
    const victim = await signUp()
    const [header, payload, signature] = account.token.split(".") as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
    expect(claims).toMatchObject({ pid: account.partnerId, iss: "partner-money-movement/console", aud: "partner-console" })

    // a token this test signs with the service's own key is accepted: the refusals below are the forgeries'
    const realKey = fromMaster(parseKey(masterKeyHex)).consoleToken
    const sign = (key: Uint8Array, body: Record<string, unknown>) =>
      new SignJWT(body).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(key)
    expect((await me(await sign(realKey, claims))).status).toBe(200)

    const tamperedPayload = Buffer.from(JSON.stringify({ ...claims, pid: victim.partnerId })).toString("base64url")
    const flipped = signature.slice(0, -2) + (signature.at(-2) === "A" ? "B" : "A") + signature.at(-1)
    const otherKey = fromMaster(parseKey("22".repeat(32))).consoleToken
    const forgeries: Array<[string, string]> = [
      ["tampered claims", `${header}.${tamperedPayload}.${signature}`],
      ["a flipped signature", `${header}.${payload}.${flipped}`],
      ["no signature", `${header}.${payload}.`],
      ["another master key", await sign(otherKey, claims)],
      ["a random key", await sign(NodeCrypto.randomBytes(32), claims)],
      ["alg none", new UnsecuredJWT(claims).encode()],
      ["an API key", controlKey],
      ["garbage", "not.a.token"]
    ]
    for (const [what, token] of forgeries) {
      const reply = await me(token)
      expect(reply.status, what).toBe(401)
      expect(reply.body.code, what).toBe("UNAUTHORIZED")
    }
    expectError(await app.request("GET", "/partner/me", { headers: { authorization: `Bearer ${"x".repeat(5000)}` } }), 401, "UNAUTHORIZED")
    expectError(await app.request("GET", "/partner/me"), 401, "UNAUTHORIZED", /^Missing console token/)
  })

  it("surfaces do not mix: an x-api-key alone on a console route is 401, a console token as x-api-key on /partner/v1 is 401", async () => {
    const account = await approved()
    const { apiKey } = await issueKey(account.token)
    expect((await app.request("GET", "/partner/v1/customers", { apiKey })).status).toBe(200)
    for (const [method, path] of [["GET", "/partner/me"], ["GET", "/partner/api-keys"], ["POST", "/partner/api-keys"], ["POST", "/partner/sign-out"]] as const) {
      expectError(await app.request(method, path, { apiKey }), 401, "UNAUTHORIZED")
      expectError(await app.request(method, path, { headers: bearer(apiKey) }), 401, "UNAUTHORIZED")
    }
    expectError(await app.request("GET", "/partner/v1/customers", { apiKey: account.token }), 401, "UNAUTHORIZED")
    expectError(await app.request("GET", "/partner/v1/customers", { headers: bearer(account.token) }), 401, "UNAUTHORIZED")
    // the console token still works on the console, and no key was issued by the refused POSTs
    expect((await listKeys(account.token)).body.data).toHaveLength(1)
  })
})

describe("rotating ENCRYPTION_KEY", () => {
  /** One database two service instances share in turn (src/crypto/KeyCheck.ts refuses them together with two keys). */
  const sharedDatabase = async () => {
    if (databaseKind() === "postgres") {
      const { url } = await testDatabaseLayer()
      return { layer: postgresLayer(Redacted.make(url!), 4), url: url! }
    }
    const db = await openPgliteCopy(new Blob([NodeFs.readFileSync(inject("pgliteTemplate"))]))
    return { layer: pgliteLayerOn(db), close: () => db.close() }
  }

  it("ends every console session: after a restart with another key, earlier refresh and access tokens answer 401", async () => {
    const database = await sharedDatabase()
    const start = (key: string) => startServices({ database, config: { encryptionKey: Option.some(Redacted.make(key)) } })
    const [keyA, keyB] = [NodeCrypto.randomBytes(32).toString("hex"), NodeCrypto.randomBytes(32).toString("hex")]
    const email = newEmail()
    try {
      const first = await start(keyA)
      const signedUp = await first.run(Effect.flatMap(Console, (console) => console.signUp({ email, password, companyName: "Key Co" })))
      const partnerId = signedUp.console.partner.id
      await first.close()

      // A restart with the same key: the session goes on (so the refusals below are the key's doing).
      const again = await start(keyA)
      const renewed = await again.as(partnerId, Effect.flatMap(Console, (console) => console.refresh(signedUp.session.refreshToken)))
      expect(await again.as(partnerId, Effect.flatMap(Console, (console) => console.authenticate(renewed.accessToken)))).toMatchObject({ partnerId })
      // The operator re-keys the database (docs/operations.md "Several instances"): the recorded fingerprint goes.
      await again.query("DELETE FROM key_fingerprint")
      await again.close()

      const rekeyed = await start(keyB)
      try {
        const refused = await rekeyed.attempt(partnerId, Effect.flatMap(Console, (console) => console.refresh(renewed.refreshToken)))
        expect(refused).toMatchObject({ ok: false, code: "UNAUTHORIZED" })
        const denied = await rekeyed.attempt(partnerId, Effect.flatMap(Console, (console) => console.authenticate(renewed.accessToken)))
        expect(denied).toMatchObject({ ok: false, code: "UNAUTHORIZED" })
        // The password is not sealed with the key: signing in again gives a session that works under the new key.
        const fresh = await rekeyed.as(partnerId, Effect.flatMap(Console, (console) => console.signIn({ email, password })))
        const next = await rekeyed.attempt(partnerId, Effect.flatMap(Console, (console) => console.refresh(fresh.refreshToken)))
        expect(next).toMatchObject({ ok: true })
        expect(await rekeyed.query("SELECT fingerprint FROM key_fingerprint")).toEqual([{ fingerprint: fromMaster(parseKey(keyB)).fingerprint }])
      } finally {
        await rekeyed.close()
      }
    } finally {
      await database.close?.()
    }
  })
})

describe("KYB", () => {
  it("PUT /partner/company validates each field with 400 naming it", async () => {
    const { token } = await signUp()
    const length200 = "must be 1 to 200 characters"
    const countryRule = "country: must be an ISO 3166-1 alpha-2 country code in capitals (e.g. NG, GB)"
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...company, legalName: "" }, `legalName: ${length200}`],
      [{ ...company, legalName: "x".repeat(201) }, `legalName: ${length200}`],
      [{ ...company, registrationNumber: "#bad" }, "registrationNumber: must be 1 to 50 letters, digits, spaces or . / -"],
      [{ ...company, registrationNumber: "R".repeat(51) }, "registrationNumber: must be 1 to 50 letters, digits, spaces or . / -"],
      [{ ...company, country: "Nigeria" }, countryRule],
      [{ ...company, country: "ng" }, countryRule],
      [{ ...company, address: " " }, "address: must be 1 to 300 characters"],
      [{ ...company, website: "http://obipay.example.com" }, "website: must be an https:// URL"],
      [{ ...company, contactEmail: "compliance" }, "contactEmail: must be a valid email address"],
      [(({ contactEmail: _, ...rest }) => rest)(company), "contactEmail: is required"],
      [(({ legalName: _, ...rest }) => rest)(company), "legalName: is required"]
    ]
    for (const [body, message] of cases) {
      expectError(await app.request("PUT", "/partner/company", { headers: bearer(token), body }), 400, "BAD_REQUEST", message)
    }
    expect((await me(token)).body.data.partner.company).toBeNull()
    const put = await app.request("PUT", "/partner/company", { headers: bearer(token), body: company })
    expect(put.status).toBe(200)
    expect(put.body.data.partner.company).toEqual(company)
    expect(put.body.data.partner.kybStage).toBe("DRAFT")
  })

  it("submit without company details is 400 KYB_NOT_EDITABLE; with them UNDER_REVIEW, and the details are then frozen", async () => {
    const { token } = await signUp()
    expectError(await app.request("POST", "/partner/kyb/submit", { headers: bearer(token) }), 400, "KYB_NOT_EDITABLE", /^Set the company details/)
    expect((await me(token)).body.data.partner.kybStage).toBe("DRAFT")
    await app.request("PUT", "/partner/company", { headers: bearer(token), body: company })
    const submitted = await app.request("POST", "/partner/kyb/submit", { headers: bearer(token) })
    expect(submitted.status).toBe(200)
    expect(submitted.body.data.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "UNDER_REVIEW", kybReason: null })
    expect(Number.isNaN(Date.parse(submitted.body.data.partner.kybSubmittedAt))).toBe(false)

    const edit = await app.request("PUT", "/partner/company", { headers: bearer(token), body: { ...company, legalName: "Changed Ltd" } })
    expectError(edit, 400, "KYB_NOT_EDITABLE", /^KYB is UNDER_REVIEW/)
    expectError(await app.request("POST", "/partner/kyb/submit", { headers: bearer(token) }), 400, "KYB_NOT_EDITABLE", /^KYB is UNDER_REVIEW/)
    expect((await me(token)).body.data.partner.company.legalName).toBe("Obi Payments Ltd")
  })

  it("APPROVED: stage and status APPROVED, partner.approved { partnerId, status }, no more decisions or edits", async () => {
    const account = await underReview()
    const reply = await decide(account.token, { decision: "APPROVED" })
    expect(reply.status).toBe(200)
    expect(reply.body.data.partner).toMatchObject({ kybStatus: "APPROVED", kybStage: "APPROVED", kybReason: null })
    expect(await partnerEvents(account.partnerId)).toEqual([
      { type: "partner.approved", data: { partnerId: account.partnerId, status: "APPROVED" } }
    ])
    // the event list of the partner (with its own key, once it has one) shows it too
    const { apiKey } = await issueKey(account.token)
    const listed = await app.request("GET", "/sandbox/events?type=partner.approved", { apiKey })
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((e: any) => [e.type, e.data])).toEqual([
      ["partner.approved", { partnerId: account.partnerId, status: "APPROVED" }]
    ])
    expectError(await decide(account.token, { decision: "REJECTED", reason: "late" }), 400, "KYB_NOT_UNDER_REVIEW", /^KYB is APPROVED/)
    expectError(await app.request("PUT", "/partner/company", { headers: bearer(account.token), body: company }), 400, "KYB_NOT_EDITABLE", /^KYB is APPROVED/)
    expect(await partnerEvents(account.partnerId)).toHaveLength(1)
  })

  it("REJECTED with a reason: final, partner.rejected { partnerId, status, reason }", async () => {
    const account = await underReview()
    const reason = "The registration certificate is not readable"
    const reply = await decide(account.token, { decision: "REJECTED", reason })
    expect(reply.status).toBe(200)
    expect(reply.body.data.partner).toMatchObject({ kybStatus: "REJECTED", kybStage: "REJECTED", kybReason: reason })
    expect(await partnerEvents(account.partnerId)).toEqual([
      { type: "partner.rejected", data: { partnerId: account.partnerId, status: "REJECTED", reason } }
    ])
    expectError(await app.request("PUT", "/partner/company", { headers: bearer(account.token), body: company }), 400, "KYB_NOT_EDITABLE", /^KYB is REJECTED/)
    expectError(await app.request("POST", "/partner/kyb/submit", { headers: bearer(account.token) }), 400, "KYB_NOT_EDITABLE", /^KYB is REJECTED/)
    expectError(await decide(account.token, { decision: "APPROVED" }), 400, "KYB_NOT_UNDER_REVIEW", /^KYB is REJECTED/)
    expectError(await app.request("POST", "/partner/api-keys", { headers: bearer(account.token) }), 403, "PARTNER_NOT_APPROVED", /^Your partner account is not yet approved/)
  })

  it("RESUBMISSION_REQUESTED: back to DRAFT with kybReason and partner.resubmission_requested; edit, resubmit, approve", async () => {
    const account = await underReview()
    const reason = "Please add the ownership structure"
    const reply = await decide(account.token, { decision: "RESUBMISSION_REQUESTED", reason })
    expect(reply.status).toBe(200)
    expect(reply.body.data.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "DRAFT", kybReason: reason, kybSubmittedAt: null })
    expect(await partnerEvents(account.partnerId)).toEqual([
      { type: "partner.resubmission_requested", data: { partnerId: account.partnerId, status: "PENDING", reason } }
    ])
    expectError(await decide(account.token, { decision: "APPROVED" }), 400, "KYB_NOT_UNDER_REVIEW", /^KYB is DRAFT/)

    const edited = await app.request("PUT", "/partner/company", { headers: bearer(account.token), body: { ...company, address: "14 Marina Road, Lagos" } })
    expect(edited.status).toBe(200)
    expect(edited.body.data.partner.company.address).toBe("14 Marina Road, Lagos")
    const resubmitted = await app.request("POST", "/partner/kyb/submit", { headers: bearer(account.token) })
    expect(resubmitted.body.data.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "UNDER_REVIEW" })
    const final = await decide(account.token, { decision: "APPROVED" })
    expect(final.status).toBe(200)
    expect(final.body.data.partner).toMatchObject({ kybStatus: "APPROVED", kybStage: "APPROVED", kybReason: null })
    expect(await partnerEvents(account.partnerId)).toEqual([
      { type: "partner.resubmission_requested", data: { partnerId: account.partnerId, status: "PENDING", reason } },
      { type: "partner.approved", data: { partnerId: account.partnerId, status: "APPROVED" } }
    ])
  })

  it("a decision other than APPROVED without a reason is 400 and changes nothing; an unknown decision is 400", async () => {
    const account = await underReview()
    for (const decision of ["REJECTED", "RESUBMISSION_REQUESTED"]) {
      expectError(await decide(account.token, { decision }), 400, "BAD_REQUEST", `reason: is required when decision is ${decision}`)
      expectError(await decide(account.token, { decision, reason: "  " }), 400, "BAD_REQUEST", /^reason\b/)
    }
    expectError(await decide(account.token, { decision: "MAYBE" }), 400, "BAD_REQUEST", /^decision: must be one of APPROVED, REJECTED, RESUBMISSION_REQUESTED/)
    expect((await me(account.token)).body.data.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "UNDER_REVIEW" })
    expect(await partnerEvents(account.partnerId)).toEqual([])
  })

  it("a decision on a KYB not under review (DRAFT) is 400 KYB_NOT_UNDER_REVIEW and emits nothing", async () => {
    const account = await signUp()
    expectError(await decide(account.token, { decision: "APPROVED" }), 400, "KYB_NOT_UNDER_REVIEW", /^KYB is DRAFT: compliance decides only a KYB UNDER_REVIEW$/)
    expectError(await decide(account.token, { decision: "REJECTED", reason: "no" }), 400, "KYB_NOT_UNDER_REVIEW")
    expect((await me(account.token)).body.data.partner).toMatchObject({ kybStatus: "PENDING", kybStage: "DRAFT" })
    expect(await partnerEvents(account.partnerId)).toEqual([])
  })
})

describe("API keys", () => {
  it("before approval: 403 PARTNER_NOT_APPROVED and the list is empty", async () => {
    const draft = await signUp()
    const review = await underReview()
    for (const account of [draft, review]) {
      const reply = await app.request("POST", "/partner/api-keys", { headers: bearer(account.token) })
      expectError(reply, 403, "PARTNER_NOT_APPROVED", /^Your partner account is not yet approved/)
      const list = await listKeys(account.token)
      expect(list.status).toBe(200)
      expect(list.body).toEqual({ success: true, data: [] })
      expect(await app.query("SELECT id FROM api_keys WHERE partner_id = $1", [account.partnerId])).toEqual([])
    }
  })

  it("after approval: issue 201, the list shows prefix, ACTIVE and createdAt, never the secret; lastUsedAt after a call", async () => {
    const account = await approved()
    const issued = await issueKey(account.token)
    expect(issued.apiKey).toMatch(/^sk_sandbox_[0-9A-Za-z]{40,}$/)
    expect(issued.key).toMatchObject({ prefix: issued.apiKey.slice(0, "sk_sandbox_".length + 4), status: "ACTIVE", lastUsedAt: null, revokedAt: null })
    const list = await listKeys(account.token)
    expect(list.body.data).toEqual([issued.key])
    expect(Number.isNaN(Date.parse(list.body.data[0].createdAt))).toBe(false)
    expect(JSON.stringify(list.body)).not.toContain(issued.apiKey)
    expect(JSON.stringify(list.body)).not.toContain(issued.apiKey.slice(issued.key.prefix.length))

    expect((await app.request("GET", "/partner/v1/customers", { apiKey: issued.apiKey })).status).toBe(200)
    const used = await eventually(async () => {
      const [key] = (await listKeys(account.token)).body.data
      return key.lastUsedAt === null ? undefined : key
    }, "lastUsedAt to be written")
    const clock = (await app.request("GET", "/sandbox/clock", { apiKey: controlKey })).body.data.now
    expect(used).toMatchObject({ id: issued.key.id, status: "ACTIVE", lastUsedAt: clock })
  })

  it("rotation: the old key is 401 at once, the new one works, the list shows the old key REVOKED", async () => {
    const account = await approved()
    const first = await issueKey(account.token)
    expect((await app.request("GET", "/partner/v1/customers", { apiKey: first.apiKey })).status).toBe(200)
    // warm any cache of the old key a few times more
    for (let i = 0; i < 3; i++) expect((await app.request("GET", "/partner/v1/customers", { apiKey: first.apiKey })).status).toBe(200)
    // a second later: each key has its own createdAt (a tie on the frozen clock is its own test below)
    await advance(1)
    const second = await issueKey(account.token)
    expect(second.key).toMatchObject({ prefix: second.apiKey.slice(0, first.key.prefix.length), status: "ACTIVE" })
    expect(second.apiKey).not.toBe(first.apiKey)
    expectError(await app.request("GET", "/partner/v1/customers", { apiKey: first.apiKey }), 401, "UNAUTHORIZED")
    expect((await app.request("GET", "/partner/v1/customers", { apiKey: second.apiKey })).status).toBe(200)
    const list = (await listKeys(account.token)).body.data as Array<any>
    expect(list).toHaveLength(2)
    const byId = new Map(list.map((key) => [key.id, key]))
    expect(byId.get(first.key.id)).toMatchObject({ status: "REVOKED", prefix: first.key.prefix })
    expect(byId.get(first.key.id).revokedAt).not.toBeNull()
    expect(byId.get(second.key.id)).toMatchObject({ status: "ACTIVE", revokedAt: null })
    expect(JSON.stringify(list)).not.toContain(first.apiKey)
    expect(JSON.stringify(list)).not.toContain(second.apiKey)
  })

  it("rotations within one service-clock instant: each answer's key is the key just issued, ACTIVE", async () => {
    const account = await approved()
    const issued = [await issueKey(account.token)]
    for (let i = 0; i < 8; i++) issued.push(await issueKey(account.token))
    for (const { apiKey, key } of issued) {
      expect(key.prefix).toBe(apiKey.slice(0, "sk_sandbox_".length + 4))
      expect(key).toMatchObject({ status: "ACTIVE", revokedAt: null })
    }
    const list = (await listKeys(account.token)).body.data as Array<any>
    expect(list.filter((key) => key.status === "ACTIVE").map((key) => key.id)).toEqual([issued.at(-1)!.key.id])
    expect(list[0].id).toBe(issued.at(-1)!.key.id)
  })

  it("5 concurrent rotations leave exactly one ACTIVE key that works", async () => {
    const account = await approved()
    await issueKey(account.token)
    await advance(1)
    const replies = await racing("api_keys", 5, () =>
      Promise.all(Array.from({ length: 5 }, () => app.request("POST", "/partner/api-keys", { headers: bearer(account.token) }))))
    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 201, 201])
    const working = []
    for (const reply of replies) {
      const status = (await app.request("GET", "/partner/v1/customers", { apiKey: reply.body.data.apiKey })).status
      expect([200, 401]).toContain(status)
      if (status === 200) working.push(reply.body.data.apiKey)
    }
    expect(working).toHaveLength(1)
    const list = (await listKeys(account.token)).body.data as Array<any>
    expect(list).toHaveLength(6)
    expect(list.filter((key) => key.status === "ACTIVE")).toHaveLength(1)
  })

  it("rotation under load: 20 requests with the old key in flight answer 200 or 401, never 5xx; after it, every one is 401", async () => {
    const account = await approved()
    const old = await issueKey(account.token)
    expect((await app.request("GET", "/partner/v1/customers", { apiKey: old.apiKey })).status).toBe(200)
    await advance(1)
    // the 20 requests go out 1 ms apart with the rotation among them (5 ms in): some are answered before its commit,
    // some after (all 200 if they all ran first would test nothing concurrent; typically ~6 are 200, the rest 401)
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    const inFlight = Array.from({ length: 20 }, (_, i) => sleep(i).then(() => app.request("GET", "/partner/v1/customers", { apiKey: old.apiKey })))
    const rotation = sleep(5).then(() => app.request("POST", "/partner/api-keys", { headers: bearer(account.token) }))
    const [rotated, ...answers] = await Promise.all([rotation, ...inFlight])
    expect(rotated!.status).toBe(201)
    expect(rotated!.body.data.key).toMatchObject({ prefix: rotated!.body.data.apiKey.slice(0, old.key.prefix.length), status: "ACTIVE" })
    for (const answer of answers) {
      expect([200, 401], JSON.stringify(answer.body)).toContain(answer.status)
      if (answer.status === 401) expect(answer.body.code).toBe("UNAUTHORIZED")
    }
    const after = await Promise.all(Array.from({ length: 20 }, () => app.request("GET", "/partner/v1/customers", { apiKey: old.apiKey })))
    expect(after.map((reply) => reply.status)).toEqual(Array(20).fill(401))
    expect((await app.request("GET", "/partner/v1/customers", { apiKey: rotated!.body.data.apiKey })).status).toBe(200)
    const list = (await listKeys(account.token)).body.data as Array<any>
    expect(list.find((key) => key.id === old.key.id)).toMatchObject({ status: "REVOKED" })
    expect(list.filter((key) => key.status === "ACTIVE").map((key) => key.id)).toEqual([rotated!.body.data.key.id])
  })
})

describe("POST /partner/update-webhook", () => {
  it("is refused before KYB approval (403 PARTNER_NOT_APPROVED): the service POSTs nothing for an unapproved partner", async () => {
    const account = await signUp()
    const reply = await app.request("POST", "/partner/update-webhook", { headers: bearer(account.token), body: { url: "https://hooks.example.com/in" } })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("PARTNER_NOT_APPROVED")
    expect(reply.body.message).toMatch(/^Your partner account is not yet approved/)
    expect(await app.query("SELECT partner_id FROM webhook_configs WHERE partner_id = $1", [account.partnerId])).toEqual([])
  })

  it.each([
    ["ftp://hooks.example.com/in", "url: must be an absolute http or https URL"],
    ["hooks.example.com/in", "url: must be an absolute http or https URL"],
    ["https://user:secret@hooks.example.com/in", "url: must not contain credentials"],
    ["https://hooks.example.com/in#fragment", "url: must not contain a fragment (#...)"],
    [`https://hooks.example.com/${"a".repeat(2048)}`, "url: must be at most 2048 characters"],
    ["   ", "url: must not be empty"]
  ])("refuses %j with the same 400 message as PUT /partner/v1/webhook: %s", async (url, message) => {
    const account = await approved()
    const { apiKey } = await issueKey(account.token)
    const viaConsole = await app.request("POST", "/partner/update-webhook", { headers: bearer(account.token), body: { url } })
    const selfServe = await app.request("PUT", "/partner/v1/webhook", { apiKey, body: { url } })
    expectError(viaConsole, 400, "BAD_REQUEST", message)
    expectError(selfServe, 400, "BAD_REQUEST", message)
    expect(viaConsole.body.message).toBe(selfServe.body.message)
    expect((await app.request("GET", "/partner/v1/webhook", { apiKey })).body.data).toEqual({ url: null, hasSecret: false, updatedAt: null })
  })

  it("mints a secret when none is supplied", async () => {
    const account = await approved()
    const reply = await app.request("POST", "/partner/update-webhook", { headers: bearer(account.token), body: { url: target.url } })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.data.url).toBe(target.url)
    expect(reply.body.data.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(reply.body.data.test).toEqual({ delivered: true, statusCode: 200, error: null })
  })

  it("a supplied secret is returned, sealed at rest (its plaintext nowhere in the database) and signs deliveries", async () => {
    const account = await approved()
    const { apiKey } = await issueKey(account.token)
    const secret = `my_own_secret_${NodeCrypto.randomBytes(24).toString("hex")}`
    const reply = await app.request("POST", "/partner/update-webhook", { headers: bearer(account.token), body: { url: target.url, secret } })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.data).toEqual({ url: target.url, secret, test: { delivered: true, statusCode: 200, error: null } })
    expect((await app.request("GET", "/partner/v1/webhook", { apiKey })).body.data).toMatchObject({ url: target.url, hasSecret: true })

    // at rest: the row holds AES-GCM output that opens to the secret with the service's key, and no plaintext
    const rows = await app.query<{ secretCiphertext: Uint8Array }>("SELECT secret_ciphertext FROM webhook_configs WHERE partner_id = $1", [account.partnerId])
    expect(rows).toHaveLength(1)
    const sealed = Buffer.from(rows[0]!.secretCiphertext)
    expect(sealed.includes(Buffer.from(secret))).toBe(false)
    expect(sealed.includes(Buffer.from(secret.slice(14)))).toBe(false)
    expect(openSecret(fromMaster(parseKey(masterKeyHex)).encryption, sealed, account.partnerId)).toBe(secret)
    expect(JSON.stringify(await app.query("SELECT * FROM webhook_configs"))).not.toContain(secret.slice(14))
    const everything = await app.query<{ t: string }>(
      "SELECT string_agg(t::text, ' ') AS t FROM (SELECT row_to_json(x) AS t FROM webhook_configs x UNION ALL SELECT row_to_json(y) FROM events y UNION ALL SELECT row_to_json(z) FROM webhook_deliveries z) all_rows"
    )
    expect(everything[0]!.t ?? "").not.toContain(secret.slice(14))

    // the test event was signed with it, and so is a later event's delivery
    const test = target.received.filter((d) => d.type === "webhook.test" && JSON.parse(d.rawBody).data.partnerId === account.partnerId)
    expect(test).toHaveLength(1)
    // Signed at real time, whatever this file's advances did to the sandbox clock: verified on this machine's clock.
    expect(verifySignature(test[0]!.rawBody, test[0]!.signature, secret)).toMatchObject({ ok: true })
    expect(verifySignature(test[0]!.rawBody, test[0]!.signature, secret + "x")).toEqual({ ok: false, reason: "signature_mismatch" })

    const customer = await app.request("POST", "/partner/v1/customers", {
      apiKey,
      body: { firstName: "Ada", lastName: "Obi", email: newEmail(), phoneNumber: "+2348012345678", country: "NG" }
    })
    expect(customer.status).toBe(201)
    const delivered = await eventually(
      async () => target.received.find((d) => d.type === "customer.registered" && JSON.parse(d.rawBody).data.customerId === customer.body.data.id),
      "the customer.registered delivery"
    )
    expect(verifySignature(delivered.rawBody, delivered.signature, secret)).toMatchObject({ ok: true })
    // the Webhooks service reads back the same configuration
    expect(await app.run(Effect.flatMap(Webhooks, (webhooks) => webhooks.get(account.partnerId)))).toMatchObject({ url: target.url, hasSecret: true })
  })

  it.each([
    ["31 characters", "s".repeat(31)],
    ["257 characters", "s".repeat(257)],
    ["a space", `${"s".repeat(20)} ${"s".repeat(20)}`],
    ["a non-ASCII character", `${"s".repeat(32)}é`]
  ])("refuses a secret of %s with 400 naming secret, and keeps the previous configuration", async (_, secret) => {
    const account = await signUp()
    const reply = await app.request("POST", "/partner/update-webhook", { headers: bearer(account.token), body: { url: target.url, secret } })
    expectError(reply, 400, "BAD_REQUEST", "secret: must be 32 to 256 printable ASCII characters without spaces")
    expect(await app.query("SELECT partner_id FROM webhook_configs WHERE partner_id = $1", [account.partnerId])).toEqual([])
  })

  it.each([
    ["32 × a", "a".repeat(32), "it has 1 distinct characters, at least 8 are needed"],
    ["a phrase repeated", "Tr0ub4dor&3x".repeat(3), "it is one block of characters repeated"],
    ["a run of the alphabet", "abcdefghijklmnopqrstuvwxyz012345", "it is mostly a run of consecutive characters"],
    ["32 random hex characters", NodeCrypto.randomBytes(16).toString("hex"), "its estimated entropy is"]
  ])("refuses a guessable secret (%s) with 400 naming secret and saying why, and stores nothing", async (_, secret, why) => {
    const account = await signUp()
    const reply = await app.request("POST", "/partner/update-webhook", { headers: bearer(account.token), body: { url: target.url, secret } })
    expectError(reply, 400, "BAD_REQUEST", /^secret: is too easy to guess: /)
    expect(reply.body.message).toContain(why)
    expect(reply.body.message).toContain("openssl rand -hex 32")
    expect(await app.query("SELECT partner_id FROM webhook_configs WHERE partner_id = $1", [account.partnerId])).toEqual([])
  })
})

describe("POST /partner/update-webhook in production mode", () => {
  let live: TestApp

  beforeAll(async () => {
    live = await startTestApp({ config: { mode: "production" } })
  })
  afterAll(() => live?.close())

  it.each([
    ["http://hooks.example.com/in", "url: must use https in production"],
    ["https://10.1.2.3/in", "url: must point at a public host, not a loopback, private, link-local or metadata address"],
    ["https://169.254.169.254/latest/meta-data", "url: must point at a public host, not a loopback, private, link-local or metadata address"],
    ["https://[::1]/in", "url: must point at a public host, not a loopback, private, link-local or metadata address"],
    ["https://localhost/in", "url: must point at a public host name, not a local or internal name"],
    ["https://metadata.google.internal/in", "url: must point at a public host name, not a local or internal name"]
  ])("refuses %j with the message PUT /partner/v1/webhook gives: %s", async (url, message) => {
    const signedUp = await live.request("POST", "/partner/sign-up", { body: { email: newEmail(), password, companyName: "Live Co" } })
    expect(signedUp.status).toBe(201)
    const token = signedUp.body.data.session.accessToken as string
    const { apiKey } = await live.run(Effect.flatMap(Partners, (partners) => partners.create({ name: "Live Partner", kybStatus: "APPROVED" })))
    // The console's webhook route is for an approved partner (before: 403 PARTNER_NOT_APPROVED).
    await live.run(Effect.flatMap(Partners, (partners) => partners.setKyb(signedUp.body.data.console.partner.id, "APPROVED", null)))
    const viaConsole = await live.request("POST", "/partner/update-webhook", { headers: bearer(token), body: { url, secret: NodeCrypto.randomBytes(32).toString("hex") } })
    const selfServe = await live.request("PUT", "/partner/v1/webhook", { apiKey, body: { url } })
    expectError(viaConsole, 400, "BAD_REQUEST", message)
    expectError(selfServe, 400, "BAD_REQUEST", message)
    expect(await live.query("SELECT partner_id FROM webhook_configs WHERE partner_id = $1", [signedUp.body.data.console.partner.id])).toEqual([])
  })

  it("issues an sk_live_ key once approved, and the sandbox KYB control does not exist", async () => {
    const email = newEmail()
    const signedUp = await live.request("POST", "/partner/sign-up", { body: { email, password, companyName: "Live Co" } })
    const token = signedUp.body.data.session.accessToken as string
    expect((await live.request("PUT", "/partner/company", { headers: bearer(token), body: company })).status).toBe(200)
    expect((await live.request("POST", "/partner/kyb/submit", { headers: bearer(token) })).status).toBe(200)
    expect((await live.request("POST", "/sandbox/console/kyb-decision", { headers: bearer(token), body: { decision: "APPROVED" } })).status).toBe(404)
    expectError(await live.request("POST", "/partner/api-keys", { headers: bearer(token) }), 403, "PARTNER_NOT_APPROVED", /^Your partner account is not yet approved/)
    await live.run(Effect.flatMap(Console, (console) => console.decideKyb(email, { decision: "APPROVED" })))
    const issued = await live.request("POST", "/partner/api-keys", { headers: bearer(token) })
    expect(issued.status).toBe(201)
    expect(issued.body.data.apiKey).toMatch(/^sk_live_[0-9A-Za-z]{40,}$/)
    expect((await live.request("GET", "/partner/v1/customers", { apiKey: issued.body.data.apiKey })).status).toBe(200)
  })
})
