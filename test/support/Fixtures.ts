import { FetchHttpClient } from "@effect/platform"
import { Cause, Effect, Exit } from "effect"
import * as Client from "../../src/Client.js"
import type { CreateCustomer, Customer } from "../../src/customers/Api.js"
import type { CreateDeposit } from "../../src/funding/Api.js"
import type { RailName } from "../../src/rails/RailPolicy.js"
import { samples } from "./KycHelpers.js"
import { customerBody, type TestApp } from "./TestApp.js"

/**
 * The set-up steps the HTTP suites share, on the typed client derived from the contract (src/Client.ts): a partner
 * with its key and client, customers, funding, KYC tiers, rail policies, bank accounts, the partner's clock, a
 * webhook URL.
 * Inputs are the contract's payload types and results its decoded types; a refusal throws naming the step and the
 * decoded error (`fixture customer failed: CustomerAlreadyExists ...`), so a fixture's status needs no assertion.
 *
 * Every request goes through the suite's `app.request` (TestApp's checked path): each response a fixture receives is
 * checked against the OpenAPI document like any other. Fixtures are for set-up; a test about a route keeps calling
 * `app.request` and asserting status, envelope and body itself.
 *
 * `fixtures(() => app)` reads the app at each call, so it can be made before `beforeAll` starts the app.
 */

/** A sandbox partner: its id, its API key, and the typed client sending that key. */
export interface Partner {
  readonly partnerId: string
  readonly apiKey: string
  readonly client: Client.Client
}

/** What the partner's key may be read from: a fixture partner, or `{ apiKey }` of `app.newPartner()`. */
export type PartnerKey = Pick<Partner, "apiKey"> & { readonly client?: Client.Client }

export type RailPolicy = Parameters<Client.Client["sandboxRails"]["set"]>[0]["payload"]

export interface PartnerOptions {
  /** Default `APPROVED`. */
  readonly kybStatus?: "APPROVED" | "PENDING" | "REJECTED"
  readonly name?: string
  /** Rail policies set right after creation (PUT /sandbox/rails/{rail}), in the order given. */
  readonly rails?: { readonly [R in RailName]?: RailPolicy }
}

/** Balances to put on a new customer: USDT arrives on TRON, USDC on POLYGON, NGN on the virtual account. */
export interface Funds {
  readonly USDT?: number
  readonly USDC?: number
  readonly NGN?: number
}

/** The identity numbers of a Tier 1 submission (the sandbox registries approve these for the default names). */
export interface Tier1Identity {
  readonly bvn: string
  readonly nin: string
}

/**
 * A `fetch` that sends through the suite's checked request path (`app.request`), so every response the typed client
 * decodes has first been checked against the OpenAPI document. The client addresses the contract's paths
 * (`<origin>/api/v1/...`); `app.request` takes them relative to its `baseUrl`.
 */
const checkedFetch = (app: () => TestApp): typeof globalThis.fetch => async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : input.toString())
  const basePath = new URL(app().baseUrl).pathname.replace(/\/$/, "")
  if (!url.pathname.startsWith(basePath)) throw new Error(`fixtures: ${url.pathname} is not under ${basePath}`)
  const headers: Record<string, string> = Object.fromEntries(new Headers(init?.headers).entries())
  let rawBody: string | Uint8Array | undefined
  const body = init?.body
  if (body instanceof FormData) {
    const encoded = new Response(body)
    rawBody = new Uint8Array(await encoded.arrayBuffer())
    headers["content-type"] = encoded.headers.get("content-type")!
  } else if (typeof body === "string" || body instanceof Uint8Array) {
    rawBody = body
  } else if (body !== undefined && body !== null) {
    throw new Error("fixtures: only string, bytes and FormData bodies are sent")
  }
  const reply = await app().request<unknown>(init?.method ?? "GET", url.pathname.slice(basePath.length) + url.search, {
    headers,
    rawBody
  })
  const text = reply.body === undefined ? null : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body)
  const responseHeaders = new Headers(reply.headers)
  responseHeaders.delete("content-length")
  responseHeaders.delete("content-encoding")
  return new Response(text, { status: reply.status, headers: responseHeaders })
}

/** Runs one step; a failure throws naming the step, with the decoded error (its class, code and message). */
const step = async <A, E>(name: string, effect: Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw new Error(`fixture ${name} failed: ${Cause.pretty(exit.cause)}`)
}

export const fixtures = (appOrGetter: TestApp | (() => TestApp)) => {
  const app = typeof appOrGetter === "function" ? appOrGetter : () => appOrGetter

  /**
   * The typed client with `apiKey` (none: the unauthenticated routes), over the checked request path. One client per
   * server, made without a key, and a keyed view of it per key (`Client.forApiKey`): building a client derives every
   * endpoint's codecs from the contract (tens of milliseconds), which a new partner's fixture would otherwise pay.
   */
  const clients = new Map<string, Client.Client>()
  const client = (apiKey?: string): Client.Client => {
    const server = app().baseUrl
    const key = `${server} ${apiKey ?? ""}`
    let made = clients.get(key)
    if (made === undefined) {
      let unkeyed = clients.get(`${server} `)
      if (unkeyed === undefined) {
        unkeyed = Client.make({ baseUrl: new URL(server).origin }).pipe(
          Effect.provide(FetchHttpClient.layer),
          Effect.provideService(FetchHttpClient.Fetch, checkedFetch(app)),
          Effect.runSync
        )
        clients.set(`${server} `, unkeyed)
      }
      made = apiKey === undefined ? unkeyed : Client.forApiKey(unkeyed, apiKey)
      clients.set(key, made)
    }
    return made
  }

  const clientOf = (p: PartnerKey): Client.Client => p.client ?? client(p.apiKey)

  /** Sets one rail policy of the partner (PUT /sandbox/rails/{rail}). */
  const setRail = (p: PartnerKey, rail: RailName, policy: RailPolicy) =>
    step(`setRail ${rail}`, clientOf(p).sandboxRails.set({ path: { rail }, payload: policy }))

  /** A sandbox partner (POST /sandbox/partners `{ kybStatus }`, KYB APPROVED unless asked), then its rail policies. */
  const partner = async (options: PartnerOptions = {}): Promise<Partner> => {
    const payload = { kybStatus: options.kybStatus ?? "APPROVED", ...(options.name === undefined ? {} : { name: options.name }) }
    const created = await step("partner", client().sandboxPartners.create({ payload }))
    const p: Partner = { partnerId: created.partnerId, apiKey: created.apiKey, client: client(created.apiKey) }
    for (const [rail, policy] of Object.entries(options.rails ?? {}) as Array<[RailName, RailPolicy]>) await setRail(p, rail, policy)
    return p
  }

  /** A customer of the partner: `customerBody()` (Ada Obi, a fresh email, NG) with `overrides`. */
  const customer = (p: PartnerKey, overrides: Partial<CreateCustomer> = {}): Promise<Customer> =>
    step("customer", clientOf(p).customers.create({ payload: { ...customerBody(), country: "NG", ...overrides } }))

  /** Plays a confirmed on-chain deposit (POST /sandbox/customers/{id}/deposits). */
  const deposit = (p: PartnerKey, customerId: string, payload: CreateDeposit) =>
    step("deposit", clientOf(p).sandboxFunding.deposit({ path: { customerId }, payload }))

  /** Reads (and so issues) the customer's virtual account. */
  const virtualAccount = (p: PartnerKey, customerId: string) =>
    step("virtualAccount", clientOf(p).funding.virtualAccount({ path: { customerId } }))

  /** Plays a bank transfer to the customer's virtual account, which must have been read once. */
  const creditVirtualAccount = (p: PartnerKey, customerId: string, amount: number) =>
    step("creditVirtualAccount", clientOf(p).sandboxFunding.creditVirtualAccount({ path: { customerId }, payload: { amount } }))

  /** Funds a customer through the sandbox rails: USDT deposit on TRON, USDC on POLYGON, NGN by virtual account. */
  const fund = async (p: PartnerKey, customerId: string, funds: Funds) => {
    if (funds.USDT !== undefined) await deposit(p, customerId, { asset: "USDT", network: "TRON", amount: funds.USDT })
    if (funds.USDC !== undefined) await deposit(p, customerId, { asset: "USDC", network: "POLYGON", amount: funds.USDC })
    if (funds.NGN !== undefined) {
      await virtualAccount(p, customerId)
      await creditVirtualAccount(p, customerId, funds.NGN)
    }
  }

  /** Moves the partner's sandbox clock forward (POST /sandbox/clock/advance); answers the new reading. */
  const advance = (p: PartnerKey, seconds: number) =>
    step("advance", clientOf(p).sandbox.advanceClock({ payload: { seconds } }))

  /** Submits Tier 1 and requires it APPROVED (the default names match these numbers in the sandbox registries). */
  const approveTier1 = async (p: PartnerKey, customerId: string, identity: Tier1Identity = { bvn: "12345678901", nin: "10987654321" }) => {
    const submitted = await step("approveTier1", clientOf(p).kyc.tier1({ path: { customerId }, payload: identity }))
    if (submitted.status !== "APPROVED") throw new Error(`fixture approveTier1: Tier 1 is ${submitted.status}, not APPROVED`)
    return submitted
  }

  /** Uploads a KYC document (multipart `file`, optional `type`); answers its `url`. */
  const uploadDocument = async (
    p: PartnerKey,
    customerId: string,
    file: { readonly bytes: Uint8Array; readonly filename: string; readonly type?: "ID_FRONT" | "ID_BACK" | "SELFIE" | "PROOF_OF_ADDRESS" }
  ) => {
    const form = new FormData()
    form.append("file", new Blob([file.bytes]), file.filename)
    if (file.type !== undefined) form.append("type", file.type)
    return (await step("uploadDocument", clientOf(p).kyc.uploadDocument({ path: { customerId }, payload: form }))).url
  }

  /**
   * Tier 2 approved by the reviewer control: uploads a front (JPEG) and a selfie (PNG), submits a PASSPORT `number`,
   * and decides APPROVED (POST /sandbox/customers/{id}/kyc/2/decision).
   */
  const approveTier2 = async (
    p: PartnerKey,
    customerId: string,
    options: { readonly number?: string; readonly documentTypes?: boolean } = {}
  ) => {
    const front = await uploadDocument(p, customerId, {
      bytes: samples.jpeg(),
      filename: "front.jpg",
      ...(options.documentTypes === true ? { type: "ID_FRONT" as const } : {})
    })
    const selfie = await uploadDocument(p, customerId, {
      bytes: samples.png(),
      filename: "selfie.png",
      ...(options.documentTypes === true ? { type: "SELFIE" as const } : {})
    })
    await step("approveTier2 submit", clientOf(p).kyc.tier2({
      path: { customerId },
      payload: { idDocument: { type: "PASSPORT", number: options.number ?? "A12345678", frontUrl: front }, selfieUrl: selfie }
    }))
    return step("approveTier2 decide", clientOf(p).sandboxKyc.decide({ path: { customerId, level: 2 }, payload: { status: "APPROVED" } }))
  }

  /** Saves a bank account for the customer; by default GTBank 058, 1234567896 (its NUBAN check digit is right). */
  const saveAccount = (p: PartnerKey, customerId: string, account: { readonly bankCode?: string; readonly accountNumber?: string } = {}) =>
    step("saveAccount", clientOf(p).bankAccounts.save({
      path: { customerId },
      payload: { bankCode: account.bankCode ?? "058", accountNumber: account.accountNumber ?? "1234567896" }
    }))

  /** Sets the partner's webhook URL (PUT /partner/v1/webhook); answers the configuration with its secret. */
  const setWebhook = (p: PartnerKey, url: string) => step("setWebhook", clientOf(p).webhooks.set({ payload: { url } }))

  return {
    client,
    partner,
    setRail,
    customer,
    deposit,
    virtualAccount,
    creditVirtualAccount,
    fund,
    advance,
    approveTier1,
    uploadDocument,
    approveTier2,
    saveAccount,
    setWebhook
  }
}

export type Fixtures = ReturnType<typeof fixtures>
