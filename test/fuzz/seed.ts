import type { TestApp } from "../support/TestApp.js"
import { multipartBody, pngBytes } from "./catalogue.js"

/**
 * Real seed data, so that requests reach deep paths: two approved partners (A is fuzzed, B's ids and key are the
 * "foreign" ones), a partner whose KYB is pending, and a scratch partner for the controls that would otherwise lock
 * A out (KYB decisions, rail policies). Partner A and B each get an NG customer with Tier 1 approved, a virtual
 * account credited through the sandbox, a stablecoin deposit, a saved default bank account, two withdrawals, two
 * crypto sends, two funding charges and a KYC document; A also gets a ZA customer (EFT charges: tokens) and a GH
 * one without KYC.
 * Both set a webhook URL (the fuzz run's own receiver, answering 200 at once) so that deliveries exist without
 * retries piling up for every clock advance. Lists are read with limit=1 for real cursors.
 */

export interface PartnerSeed {
  readonly partnerId: string
  readonly apiKey: string
  readonly customers: ReadonlyArray<string>
  readonly rich: string
  /** Appended to by `refreshWorld`. */
  readonly chargeIds: Array<string>
  readonly documentIds: ReadonlyArray<string>
  readonly accountIds: ReadonlyArray<string>
  readonly withdrawalIds: Array<string>
  /** Crypto sends of the rich customer, by reference (appended to by `refreshWorld`). */
  readonly sendReferences: Array<string>
  readonly deliveryIds: ReadonlyArray<string>
  readonly tokens: Array<string>
  readonly za: string
  /** Real cursors by list (operation template). */
  readonly cursors: ReadonlyArray<{ readonly list: string; readonly cursor: string }>
}

export interface World {
  readonly a: PartnerSeed
  readonly b: PartnerSeed
  /** Partner A's second customer (ZA) and its own charge: another customer's sub-resource under A's rich one. */
  readonly aOther: { readonly customerId: string; readonly chargeId: string; readonly token: string }
  readonly pendingKey: string
  readonly scratchKey: string
  readonly webhookUrl: string
  /**
   * Console sessions (docs/console.md) of two partners signed up in the console: `token` for every console route,
   * `scratchToken` for sign-out. Requests carry placeholders (`consoleTokenPlaceholder`) replaced at send time, since
   * access tokens expire on the service clock that the run advances; `refreshWorld` signs in again.
   */
  readonly console: { token: string; scratchToken: string; readonly email: string; readonly scratchEmail: string }
}

export const consoleTokenPlaceholder = "@@console-token@@"
export const consoleScratchPlaceholder = "@@console-scratch-token@@"
export const consolePassword = "correct horse battery staple"

/** Replaces the console placeholders of an Authorization header with the current tokens. */
export const withConsoleTokens = (world: World, value: string) =>
  value.replace(consoleScratchPlaceholder, world.console.scratchToken).replace(consoleTokenPlaceholder, world.console.token)

export const GTB = { bankCode: "058", accountNumber: "1234567896" }

/** An ordinary TRON address (20 account bytes of 7; not a magic one, not a deposit address of ours). */
export const SEND_TO_TRON = "TAcN9gFvXZAxsWQQzWWbydBmscBHnEi5nZ"
/** A send of 10 USDT on TRON; `reference` left out lets the service mint one. */
export const sendBody = (reference?: string) =>
  ({ asset: "USDT", amount: 10, network: "TRON", toAddress: SEND_TO_TRON, ...(reference === undefined ? {} : { reference }) })

let emailCounter = 0
/** Unique per app (each run starts from an empty database), deterministic so a seed replays the same requests. */
export const freshEmail = (tag = "seed") => `fuzz.${tag}.${emailCounter++}@example.com`

const expectStatus = (what: string, reply: { status: number; body: any }, statuses: ReadonlyArray<number>) => {
  if (!statuses.includes(reply.status)) {
    throw new Error(`fuzz seed: ${what} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 400)}`)
  }
  return reply.body
}

const cursorOf = async (app: TestApp, apiKey: string, list: string, path: string) => {
  const reply = await app.request<any>("GET", path, { apiKey })
  expectStatus(`GET ${path}`, reply, [200])
  const cursor = reply.body?.meta?.nextCursor
  return typeof cursor === "string" ? [{ list, cursor }] : []
}

const seedPartner = async (app: TestApp, tag: string, webhookUrl: string): Promise<PartnerSeed & { other?: World["aOther"] }> => {
  const { partnerId, apiKey } = await app.newPartner()
  const req = (method: string, path: string, body?: unknown) =>
    app.request<any>(method, path, { apiKey, ...(body === undefined ? {} : { body }) })
  expectStatus("PUT /webhook", await req("PUT", "/partner/v1/webhook", { url: webhookUrl }), [200])

  const customer = async (country: string) =>
    expectStatus("POST /customers", await req("POST", "/partner/v1/customers", {
      firstName: "Fuzz", lastName: tag, email: freshEmail(tag), phoneNumber: "+2348012345678", country
    }), [201]).data.id as string
  const rich = await customer("NG")
  const c = (suffix: string) => `/partner/v1/customers/${rich}${suffix}`
  expectStatus("tier1", await req("POST", c("/kyc/tier1"), { bvn: "12345678901", nin: "12345678902" }), [200, 201])
  expectStatus("virtual-account", await req("GET", c("/virtual-account")), [200])
  expectStatus("credit", await req("POST", `/sandbox/customers/${rich}/virtual-account/credit`, { amount: 50_000_000 }), [200, 201])
  expectStatus("deposit", await req("POST", `/sandbox/customers/${rich}/deposits`, { asset: "USDT", network: "TRON", amount: 500 }), [200, 201])
  expectStatus("addresses", await req("GET", c("/addresses")), [200])
  const account = expectStatus("save account", await req("POST", c("/accounts"), GTB), [200, 201]).data
  const withdrawalIds: Array<string> = []
  for (const amount of [1000, 2000]) {
    withdrawalIds.push(expectStatus("withdraw", await req("POST", c("/withdraw"), { amount }), [200, 201]).data.id)
  }
  // References unique per partner, so one partner's reference is never the other's (foreign ids must miss).
  const sendReferences: Array<string> = []
  for (const n of [1, 2]) {
    sendReferences.push(expectStatus("send", await req("POST", c("/send"), sendBody(`fuzz-${tag}-send-${n}`)), [201]).data.reference)
  }
  const chargeIds: Array<string> = []
  for (const amount of [1000, 2000]) {
    chargeIds.push(expectStatus("charge", await req("POST", c("/funding/charge"), { amount }), [200, 201]).data.id)
  }
  const boundary = "fuzzseedboundary"
  const upload = await app.request<any>("POST", c("/kyc/documents"), {
    apiKey,
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    rawBody: multipartBody(boundary, [
      { name: "file", filename: "id.png", contentType: "image/png", data: pngBytes() },
      { name: "type", data: "ID_FRONT" }
    ])
  })
  const documentId = expectStatus("upload", upload, [200, 201]).data.id as string

  // Another customer (ZA: EFT charges with tokens) and one without KYC.
  const za = await customer("ZA")
  const tokens: Array<string> = []
  let zaCharge = ""
  for (const amount of [500, 600]) {
    const charge = expectStatus("eft charge", await req("POST", `/partner/v1/customers/${za}/funding/charge`, { amount }), [200, 201]).data
    zaCharge = charge.id
    if (typeof charge.redirectUrl === "string") tokens.push(charge.redirectUrl.split("/").pop()!)
  }
  const gh = await customer("GH")

  const deliveries = await req("GET", "/partner/v1/webhook/deliveries?limit=100")
  const deliveryIds = (expectStatus("deliveries", deliveries, [200]).data as Array<{ id: string }>).map((d) => d.id)

  const cursors = [
    ...await cursorOf(app, apiKey, "GET /api/v1/partner/v1/customers", "/partner/v1/customers?limit=1"),
    ...await cursorOf(app, apiKey, "GET /api/v1/partner/v1/customers/{customerId}/transactions", c("/transactions?limit=1")),
    ...await cursorOf(app, apiKey, "GET /api/v1/partner/v1/customers/{customerId}/withdrawals", c("/withdrawals?limit=1")),
    ...await cursorOf(app, apiKey, "GET /api/v1/partner/v1/customers/{customerId}/funding/charges", c("/funding/charges?limit=1")),
    ...await cursorOf(app, apiKey, "GET /api/v1/partner/v1/customers/{customerId}/sends", c("/sends?limit=1")),
    ...await cursorOf(app, apiKey, "GET /api/v1/partner/v1/webhook/deliveries", "/partner/v1/webhook/deliveries?limit=1"),
    ...await cursorOf(app, apiKey, "GET /api/v1/sandbox/events", "/sandbox/events?limit=1")
  ]
  return {
    partnerId,
    apiKey,
    customers: [rich, za, gh],
    rich,
    chargeIds,
    documentIds: [documentId],
    accountIds: [account.id],
    withdrawalIds,
    sendReferences,
    deliveryIds,
    tokens,
    za,
    cursors,
    other: { customerId: za, chargeId: zaCharge, token: tokens[0] ?? "" }
  }
}

export const seedWorld = async (app: TestApp, webhookUrl: string): Promise<World> => {
  const a = await seedPartner(app, "A", webhookUrl)
  const b = await seedPartner(app, "B", webhookUrl)
  const pending = await app.newPartner("PENDING")
  const scratch = await app.newPartner()
  const signUp = async (email: string) =>
    expectStatus("POST /partner/sign-up", await app.request<any>("POST", "/partner/sign-up", {
      body: { email, password: consolePassword, companyName: "Fuzz Console Ltd" }
    }), [201]).data.session.accessToken as string
  const email = freshEmail("console-seed")
  const scratchEmail = freshEmail("console-seed")
  const console = { token: await signUp(email), scratchToken: await signUp(scratchEmail), email, scratchEmail }
  return { a, b, aOther: a.other!, pendingKey: pending.apiKey, scratchKey: scratch.apiKey, webhookUrl, console }
}

/**
 * Fresh resources for partner A as the run goes: clock advances expire charges and settle withdrawals, which would
 * leave the controls (pay, complete, fail, reverse, the EFT page, a send's confirm and fail) only answering "not
 * pending". Adds a charge, an EFT token, a withdrawal and a send, and tops the NGN and USDT balances up. Every call
 * is an accepted request (the engine re-baselines).
 */
/** Fresh console sessions: the run's clock advances expire access tokens (15 minutes), sign-out ends the scratch one. */
export const refreshConsole = async (app: TestApp, world: World): Promise<void> => {
  const signIn = async (email: string) =>
    (await app.request<any>("POST", "/partner/sign-in", { body: { email, password: consolePassword } })).body?.data?.accessToken as string | undefined
  world.console.token = (await signIn(world.console.email)) ?? world.console.token
  world.console.scratchToken = (await signIn(world.console.scratchEmail)) ?? world.console.scratchToken
}

export const refreshWorld = async (app: TestApp, world: World): Promise<void> => {
  const a = world.a
  await refreshConsole(app, world)
  const req = (method: string, path: string, body?: unknown) =>
    app.request<any>(method, path, { apiKey: a.apiKey, ...(body === undefined ? {} : { body }) })
  await req("POST", `/sandbox/customers/${a.rich}/virtual-account/credit`, { amount: 100_000 })
  const charge = await req("POST", `/partner/v1/customers/${a.rich}/funding/charge`, { amount: 1000 })
  if (charge.status === 201) a.chargeIds.push(charge.body.data.id)
  const eft = await req("POST", `/partner/v1/customers/${a.za}/funding/charge`, { amount: 500 })
  if (eft.status === 201 && typeof eft.body.data.redirectUrl === "string") a.tokens.push(eft.body.data.redirectUrl.split("/").pop())
  const withdrawal = await req("POST", `/partner/v1/customers/${a.rich}/withdraw`, { amount: 1000 })
  if (withdrawal.status === 201) a.withdrawalIds.push(withdrawal.body.data.id)
  // A PENDING send for the chain controls (the auto chain rail settles the older ones as the clock advances).
  await req("POST", `/sandbox/customers/${a.rich}/deposits`, { asset: "USDT", network: "TRON", amount: 100 })
  const send = await req("POST", `/partner/v1/customers/${a.rich}/send`, sendBody(`fuzz-A-send-${a.sendReferences.length + 1}`))
  if (send.status === 201) a.sendReferences.push(send.body.data.reference)
}
