import { Arbitrary, Either, FastCheck, Option, Schema } from "effect"
import {
  deepValues,
  hostileContentTypes,
  hostileNumbers,
  hostilePathSegments,
  hostileQueryValues,
  hostileStrings,
  hostileTypes,
  invalidAnyAmounts,
  invalidFiatAmounts,
  invalidNumberLiterals,
  MAX_BODY,
  multipartBody,
  numberLikeStrings,
  pngBytes,
  type Hostile
} from "./catalogue.js"
import { fits, type Field, type OpenApiDoc, type Operation, type Param } from "./operations.js"
import { consoleScratchPlaceholder, consoleTokenPlaceholder, freshEmail, GTB, sendBody, type World } from "./seed.js"

/** One request as sent: the path and query exactly as they go on the wire. */
export interface FuzzRequest {
  /** The operation the request was made from (its route template may no longer match: see check.ts). */
  readonly opId: string
  readonly method: string
  readonly path: string
  /** "" or "?..." */
  readonly query: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string>>>
  readonly body: Uint8Array | undefined
  readonly phase: "valid" | "hostile"
  /** The input class: family, target and catalogue label, e.g. `body.amount=number:1e308`. */
  readonly klass: string
  /** The only statuses the documentation allows for this input, when it says. */
  readonly expectStatus?: ReadonlyArray<number> | undefined
  /** The `code` the documentation gives for that status (checked when the status is the expected one). */
  readonly expectCode?: string | undefined
  /** The input must be refused (any non-2xx). */
  readonly mustReject: boolean
  /** An invalid incoming x-request-id that must not be echoed back. */
  readonly badRequestId?: string | undefined
}

/** Deterministic PRNG (mulberry32). */
export class Rng {
  private state: number
  constructor(seed: number) {
    this.state = seed >>> 0
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(n: number): number {
    return Math.floor(this.next() * n)
  }
  pick<A>(items: ReadonlyArray<A>): A {
    return items[this.int(items.length)]!
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  u32(): number {
    return Math.floor(this.next() * 4294967296) >>> 0
  }
}

type BodySpec =
  | { readonly kind: "none" }
  | { readonly kind: "json"; readonly value: unknown; readonly rawAt?: { readonly path: ReadonlyArray<string>; readonly raw: string } }
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }

interface Draft {
  op: Operation
  method: string
  path: Record<string, string>
  query: Array<[string, string | undefined]>
  key: string | undefined
  /** The console token sent as `Authorization: Bearer` (console routes). */
  bearer?: string | undefined
  headers: Record<string, string | Array<string>>
  body: BodySpec
  contentType: string | undefined
}

interface Mutation {
  readonly draft: Draft
  readonly klass: string
  readonly expectStatus?: ReadonlyArray<number> | undefined
  readonly expectCode?: string | undefined
  readonly mustReject: boolean
  readonly badRequestId?: string
}

const SENTINEL = "\u0001__fuzz_raw__\u0001"
const enc = new TextEncoder()

const setAt = (value: unknown, path: ReadonlyArray<string>, field: unknown): unknown => {
  const root = structuredClone(value ?? {}) as Record<string, any>
  let node = root
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== "object" || node[key] === null) node[key] = {}
    node = node[key]
  }
  node[path[path.length - 1]!] = field
  return root
}

const deleteAt = (value: unknown, path: ReadonlyArray<string>): unknown => {
  const root = structuredClone(value ?? {}) as Record<string, any>
  let node = root
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== "object" || node[key] === null) return root
    node = node[key]
  }
  delete node[path[path.length - 1]!]
  return root
}

export const render = (draft: Draft, meta: Omit<Mutation, "draft"> & { phase: FuzzRequest["phase"] }): FuzzRequest => {
  const path = draft.op.template.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => draft.path[name] ?? "")
  const query = draft.query.length === 0 ? "" : "?" + draft.query.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join("&")
  const headers: Record<string, string | ReadonlyArray<string>> = { ...draft.headers }
  if (draft.key !== undefined) headers["x-api-key"] = draft.key
  if (draft.bearer !== undefined) headers.authorization = `Bearer ${draft.bearer}`
  if (draft.contentType !== undefined) headers["content-type"] = draft.contentType
  let body: Uint8Array | undefined
  if (draft.body.kind === "json") {
    if (draft.body.rawAt !== undefined) {
      const text = JSON.stringify(setAt(draft.body.value, draft.body.rawAt.path, SENTINEL))
      body = enc.encode(text.replace(JSON.stringify(SENTINEL), () => draft.body.kind === "json" ? draft.body.rawAt!.raw : ""))
    } else {
      body = enc.encode(JSON.stringify(draft.body.value))
    }
  } else if (draft.body.kind === "bytes") {
    body = draft.body.bytes
  }
  return {
    opId: draft.op.id,
    method: draft.method,
    path,
    query,
    headers,
    body,
    phase: meta.phase,
    klass: meta.klass,
    expectStatus: meta.expectStatus,
    expectCode: meta.expectCode ?? (meta.expectStatus?.length === 1 ? defaultCodes[meta.expectStatus[0]!] : undefined),
    mustReject: meta.mustReject || (meta.expectStatus !== undefined && meta.expectStatus.every((s) => s >= 300)),
    badRequestId: meta.badRequestId
  }
}

/** docs/reference.md "Error codes": the one code a status has whatever the route. */
const defaultCodes: Record<number, string> = {
  401: "UNAUTHORIZED",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  431: "REQUEST_HEADER_FIELDS_TOO_LARGE"
}

/** Fiat amounts (the customer's currency, 2 decimals for the seeded NG customer) vs. stablecoin amounts. */
const fiatAmountOps = new Set([
  "funding.createCharge", "funding.createChargeWallet", "withdrawals.withdraw", "withdrawals.withdrawWallet",
  "sandboxFunding.creditVirtualAccount", "sandboxFunding.payCharge", "trading.buyQuote"
])
const cryptoAmountOps = new Set(["sandboxFunding.deposit", "trading.sellQuote", "sends.quote", "sends.send"])
/** Controls that would lock partner A out or change its rails: sent with the scratch partner's key. */
const scratchOps = new Set(["sandbox.setKyb", "sandboxRails.set", "sandboxWebhookChaos.setChaos"])

const isUuid = (s: string) => /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s)

/** A valid decimal for a 2-decimal fiat: at most 15 significant digits, positive, no exponent. */
const validFiatText = (text: string) => {
  if (!/^\d{1,15}(\.\d{1,2})?$/.test(text)) return false
  const digits = text.replace(".", "").replace(/^0+/, "")
  return digits.length <= 15 && Number(text) > 0
}

/** encodeURIComponent that also takes lone surrogates (encoded as the UTF-8 of U+FFFD, as a browser would). */
export const pctEncode = (value: string) =>
  [...Buffer.from(value, "utf8")].map((byte) =>
    /[A-Za-z0-9\-_.!~*'()]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : "%" + byte.toString(16).toUpperCase().padStart(2, "0")
  ).join("")

const safeDecode = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined
  }
}

export interface GeneratorOptions {
  readonly long: boolean
}

export const makeGenerator = (doc: OpenApiDoc, operations: ReadonlyArray<Operation>, world: World, options: GeneratorOptions) => {
  const a = world.a
  const b = world.b
  // Read at each request: `refreshWorld` (seed.ts) appends fresh charges, withdrawals, sends and tokens as the run
  // goes (clock advances expire and settle the first ones), and the newest is the one a control acts on.
  const ownIds = (): Record<string, string> => ({
    customerId: a.rich,
    chargeId: a.chargeIds[0]!,
    documentId: a.documentIds[0]!,
    accountId: a.accountIds[0]!,
    withdrawalId: a.withdrawalIds[a.withdrawalIds.length - 1]!,
    reference: a.sendReferences[a.sendReferences.length - 1]!,
    id: a.deliveryIds[0] ?? "00000000-0000-4000-8000-000000000000",
    token: a.tokens[a.tokens.length - 1] ?? "none",
    rail: "bank",
    level: "1",
    group: "china"
  })
  const foreignIds: Record<string, string> = {
    customerId: b.rich,
    chargeId: b.chargeIds[0]!,
    documentId: b.documentIds[0]!,
    accountId: b.accountIds[0]!,
    withdrawalId: b.withdrawalIds[0]!,
    reference: b.sendReferences[0]!,
    id: b.deliveryIds[0] ?? "00000000-0000-4000-8000-000000000001",
    token: b.tokens[0] ?? "none"
  }
  const documentUrl = `/api/v1/partner/v1/customers/${a.rich}/kyc/documents/${a.documentIds[0]}`
  const baseBodies: Record<string, () => unknown> = {
    "customers.create": () => ({ firstName: "Ada", lastName: "Obi", email: freshEmail("fz"), phoneNumber: "+2348012345678", country: "NG" }),
    "funding.createCharge": () => ({ amount: 1000 }),
    "funding.createChargeWallet": () => ({ amount: 1000 }),
    "kyc.tier1": () => ({ bvn: "12345678901", nin: "12345678902" }),
    "kyc.tier2": () => ({ idDocument: { type: "PASSPORT", number: "A12345678", frontUrl: documentUrl }, selfieUrl: documentUrl }),
    "webhooks.set": () => ({ url: world.webhookUrl }),
    "bankAccounts.verifyAccount": () => ({ ...GTB }),
    "bankAccounts.save": () => ({ ...GTB }),
    "withdrawals.withdraw": () => ({ amount: 150 }),
    "withdrawals.withdrawWallet": () => ({ amount: 150 }),
    "sandboxPartners.create": () => ({ name: "Fuzz partner", kybStatus: "APPROVED" }),
    "sandbox.setKyb": () => ({ status: "APPROVED" }),
    "sandbox.advanceClock": () => ({ seconds: 1 }),
    "sandboxRails.set": () => ({ mode: "auto" }),
    "sandboxFunding.creditVirtualAccount": () => ({ amount: 1000 }),
    "sandboxFunding.payCharge": () => ({}),
    "sandboxFunding.deposit": () => ({ asset: "USDT", network: "TRON", amount: 10 }),
    "sandboxKyc.decide": () => ({ status: "APPROVED" }),
    "sandboxKyc.requestReverification": () => ({ items: ["BVN"], message: "Please resubmit" }),
    "sandboxWithdrawals.fail": () => ({ reason: "fuzz" }),
    "trading.buyQuote": () => ({ amount: 5000, sourceCurrency: "NGN", destinationCurrency: "USDT", type: "buy" }),
    "trading.sellQuote": () => ({ amount: 5, sourceCurrency: "USDT", destinationCurrency: "NGN", type: "sell", network: "TRON" }),
    // An unknown quote (404 QUOTE_NOT_FOUND) once the customer is checked: the route's refusals are what is fuzzed.
    "trading.buyExecute": () => ({ quoteId: "00000000-0000-4000-8000-000000000000" }),
    "trading.sellExecute": () => ({ quoteId: "00000000-0000-4000-8000-000000000000" }),
    "sandboxRates.set": () => ({ buyRate: 1550 }),
    "sends.quote": () => ({ asset: "USDT", amount: 10, network: "TRON" }),
    // No reference: every accepted send is a new one (10 USDT; refreshWorld tops USDT up).
    "sends.send": () => sendBody(),
    "sandboxSends.fail": () => ({ reason: "dropped" }),
    "international.setFeeSetting": () => ({ paysForCustomers: true }),
    "international.tier3": () => ({
      dateOfBirth: "1990-04-12",
      address: { line1: "12 Marina Road", city: "Lagos", country: "NG" },
      destinationCountry: "CN"
    }),
    "international.internationalReject": () => ({ reason: "Please upload a clearer proof of address" }),
    "sandboxInternational.reject": () => ({ reason: "fuzz" }),
    "globalSend.initiate": () => ({
      corridor: "KE-KES-mobile",
      amount: 10,
      purpose: "FAMILY_SUPPORT",
      beneficiary: { phone: "+254712345678", network: "M-PESA", accountName: "Wanjiru Kamau" }
    }),
    "globalSend.initiateAlias": () => ({
      corridor: "KE-KES-mobile",
      amount: 10,
      purpose: "FAMILY_SUPPORT",
      beneficiary: { phone: "+254712345678", network: "M-PESA", accountName: "Wanjiru Kamau" }
    }),
    "sandboxGlobalSends.fail": () => ({ reason: "fuzz" }),
    "consolePublic.signUp": () => ({ email: freshEmail("console"), password: "correct horse battery staple", companyName: "Fuzz Ltd" }),
    "consolePublic.signIn": () => ({ email: "nobody@example.com", password: "correct horse battery staple" }),
    "consolePublic.refresh": () => ({ refreshToken: "rt_unknown" }),
    "console.setCompany": () => ({
      legalName: "Fuzz Ltd",
      registrationNumber: "RC 1",
      country: "NG",
      address: "1 Road, Lagos",
      contactEmail: "fuzz@example.com"
    }),
    "console.updateWebhook": () => ({ url: world.webhookUrl }),
    "sandboxConsole.decideKyb": () => ({ decision: "APPROVED" })
  }
  const baseQuery: Record<string, Array<[string, string]>> = {
    "bankAccounts.banks": [["country", "NG"]],
    "withdrawals.quote": [["amount", "1000"]],
    "international.internationalResend": [["group", "china"]],
    "international.internationalReject": [["group", "china"]]
  }
  const boundary = "fuzzboundary7MA4YWxkTrZu0gW"
  const uploadBody = (type = "ID_FRONT") =>
    multipartBody(boundary, [
      { name: "file", filename: "id.png", contentType: "image/png", data: pngBytes() },
      { name: "type", data: type }
    ])

  const keyFor = (op: Operation) => (!op.needsKey ? undefined : scratchOps.has(op.operationId) ? world.scratchKey : a.apiKey)

  const base = (op: Operation): Draft => {
    const path: Record<string, string> = {}
    const own = ownIds()
    for (const p of op.pathParams) path[p.name] = own[p.name] ?? "x"
    // The sandbox pays A's newest charge (the first is read by the partner routes).
    if (op.operationId === "sandboxFunding.payCharge") path.chargeId = a.chargeIds[a.chargeIds.length - 1]!
    let body: BodySpec = { kind: "none" }
    let contentType: string | undefined
    if (op.bodyTypes[0] === "multipart/form-data") {
      body = { kind: "bytes", bytes: uploadBody() }
      contentType = `multipart/form-data; boundary=${boundary}`
    } else if (op.bodyTypes[0] === "application/json") {
      body = { kind: "json", value: (baseBodies[op.operationId] ?? (() => ({})))() }
      contentType = "application/json"
    }
    return {
      op,
      method: op.method,
      path,
      query: [...(baseQuery[op.operationId] ?? [])],
      key: keyFor(op),
      bearer: op.bearer ? (op.operationId === "console.signOut" ? consoleScratchPlaceholder : consoleTokenPlaceholder) : undefined,
      headers: {},
      body,
      contentType
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // (a) valid-ish requests from the contract's Schemas (Arbitrary.make + fast-check)
  // ---------------------------------------------------------------------------------------------------------------

  const arbitraries = new Map<string, FastCheck.Arbitrary<unknown> | null>()
  const sampleOf = (rng: Rng, cacheKey: string, schema: Option.Option<Schema.Schema.Any>): { ok: true; value: unknown } | { ok: false } => {
    if (Option.isNone(schema)) return { ok: false }
    let arb = arbitraries.get(cacheKey)
    if (arb === undefined) {
      try {
        arb = Arbitrary.make(schema.value) as FastCheck.Arbitrary<unknown>
      } catch {
        arb = null
      }
      arbitraries.set(cacheKey, arb)
    }
    if (arb === null) return { ok: false }
    const [value] = FastCheck.sample(arb, { seed: rng.u32() | 0, numRuns: 1 })
    const encoded = Schema.encodeUnknownEither(schema.value as Schema.Schema<unknown, unknown, never>)(value)
    return Either.isRight(encoded) ? { ok: true, value: encoded.right } : { ok: false }
  }

  const validish = (op: Operation, rng: Rng): FuzzRequest => {
    const draft = base(op)
    const parts: Array<string> = []
    // Path: mostly the seeded ids (deep paths), sometimes another partner's, sometimes generated.
    const generatedPath = sampleOf(rng, `${op.id} path`, op.schemas.path)
    for (const p of op.pathParams) {
      const roll = rng.next()
      if (roll < 0.1 && foreignIds[p.name] !== undefined) {
        draft.path[p.name] = foreignIds[p.name]!
        parts.push(`path.${p.name}=foreign`)
      } else if (roll < 0.25 && generatedPath.ok) {
        draft.path[p.name] = pctEncode(String((generatedPath.value as Record<string, unknown>)[p.name] ?? ""))
        parts.push(`path.${p.name}=arbitrary`)
      }
    }
    const generatedQuery = sampleOf(rng, `${op.id} query`, op.schemas.urlParams)
    if (generatedQuery.ok && typeof generatedQuery.value === "object" && generatedQuery.value !== null) {
      draft.query = Object.entries(generatedQuery.value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, pctEncode(String(v))])
      const list = a.cursors.find((c) => c.list === op.id)
      if (list !== undefined && rng.chance(0.4)) {
        draft.query = draft.query.filter(([k]) => k !== "cursor")
        draft.query.push(["cursor", pctEncode(list.cursor)])
        parts.push("query.cursor=real")
      }
      parts.push("query=arbitrary")
    }
    if (op.bodyTypes[0] === "multipart/form-data") {
      draft.body = { kind: "bytes", bytes: uploadBody(rng.pick(["ID_FRONT", "ID_BACK", "SELFIE", "PROOF_OF_ADDRESS", "BUSINESS_DOCUMENT", "OTHER"])) }
      parts.push("body=multipart-png")
    } else if (op.bodyTypes[0] === "application/json") {
      const generated = sampleOf(rng, `${op.id} payload`, op.schemas.payload)
      if (generated.ok) {
        if (rng.chance(0.5) && typeof generated.value === "object" && generated.value !== null && draft.body.kind === "json") {
          // One generated field on the valid base: deeper than a fully random body.
          const entries = Object.entries(generated.value as Record<string, unknown>)
          if (entries.length > 0) {
            const [k, v] = rng.pick(entries)
            draft.body = { kind: "json", value: setAt(draft.body.value, [k], v) }
            parts.push(`body.${k}=arbitrary`)
          }
        } else {
          draft.body = { kind: "json", value: generated.value }
          parts.push("body=arbitrary")
        }
      }
    }
    return render(draft, { phase: "valid", klass: `valid:${parts.join(",") || "base"}`, mustReject: false })
  }

  // ---------------------------------------------------------------------------------------------------------------
  // (b) hostile mutations of a valid base request
  // ---------------------------------------------------------------------------------------------------------------

  /** `force`: the label of one case to make (the sweep's essential cases), else a random one. */
  type Family = (op: Operation, rng: Rng, force?: string) => Mutation | undefined

  const withLong = <A extends { big?: boolean }>(items: ReadonlyArray<A>) => (options.long ? items : items.filter((i) => i.big !== true))

  /** Console routes: only a valid console token gets in; an API key (as a header or as the bearer) never does. */
  const consoleAuth: Family = (op, rng, force) => {
    const draft = base(op)
    const cases: Array<() => Mutation> = [
      () => ({ draft: { ...draft, bearer: undefined }, klass: "auth:missing", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, bearer: undefined, key: a.apiKey }, klass: "auth:api-key-on-console", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, bearer: a.apiKey }, klass: "auth:api-key-as-bearer", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, bearer: `${draft.bearer ?? ""}x` }, klass: "auth:token-tampered", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, bearer: "x".repeat(8000) }, klass: "auth:8KB", expectStatus: [401], mustReject: true })
    ]
    if (force !== undefined) {
      const forced = cases.map((make) => make()).find((m) => m.klass === force)
      if (forced !== undefined) return forced
    }
    return rng.pick(cases)()
  }

  const auth: Family = (op, rng, force) => {
    if (op.bearer) return consoleAuth(op, rng, force)
    if (!op.needsKey) return undefined
    const draft = base(op)
    const own = draft.key!
    const customerBound = op.customerScoped || op.pathParams.some((p) => foreignIds[p.name] !== undefined && p.name !== "token")
    const cases: Array<() => Mutation> = [
      () => ({ draft: { ...draft, key: undefined }, klass: "auth:missing", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: "" }, klass: "auth:empty", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: "sk_sandbox_" + "Z".repeat(43) }, klass: "auth:unknown", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: "x" }, klass: "auth:junk", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: own.toLowerCase() === own ? own.toUpperCase() : own.toLowerCase() }, klass: "auth:case-changed", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: own.slice(0, -1) }, klass: "auth:truncated", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: own + "x" }, klass: "auth:extended", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: "sk_sandbox_\u00e9\u00e8" }, klass: "auth:latin1", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: "sk_sandbox_" + "a".repeat(8000) }, klass: "auth:8KB", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: `' OR 1=1 --` }, klass: "auth:sql", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: undefined, headers: { ...draft.headers, authorization: `Bearer ${own}` } }, klass: "auth:bearer-instead", expectStatus: [401], mustReject: true }),
      () => ({ draft: { ...draft, key: undefined, headers: { ...draft.headers, "x-api-key": ["sk_sandbox_" + "Q".repeat(43), own] } }, klass: "auth:duplicate-header", mustReject: false }),
      () => ({ draft: { ...draft, key: ` ${own} ` }, klass: "auth:padded", mustReject: false }),
      // Not on the KYB control itself: a pending partner may approve itself there (sandbox), which would end the case.
      () => op.operationId === "sandbox.setKyb"
        ? { draft: { ...draft, key: world.pendingKey, body: { kind: "json", value: { status: "PENDING", reason: "fuzz" } } }, klass: "auth:kyb-pending-partner", mustReject: false }
        : {
          draft: { ...draft, key: world.pendingKey },
          klass: "auth:kyb-pending-partner",
          expectStatus: op.partnerRoute ? [403] : undefined,
          expectCode: op.partnerRoute ? "PARTNER_NOT_APPROVED" : undefined,
          mustReject: op.partnerRoute
        },
      () => ({
        draft: { ...draft, key: b.apiKey },
        klass: "auth:foreign-partner",
        expectStatus: op.partnerRoute && op.customerScoped ? [403] : undefined,
        expectCode: op.partnerRoute && op.customerScoped ? "CUSTOMER_FORBIDDEN" : undefined,
        mustReject: customerBound
      })
    ]
    if (force !== undefined) {
      const forced = cases.map((make) => make()).find((m) => m.klass === force)
      if (forced !== undefined) return forced
    }
    return rng.pick(cases)()
  }

  const pathIds: Family = (op, rng) => {
    if (op.pathParams.length === 0) return undefined
    const draft = base(op)
    const param = rng.pick(op.pathParams)
    const customerForbidden = op.partnerRoute && param.name === "customerId"
    const roll = rng.int(10)
    if (roll < 6) {
      const seg = rng.pick(hostilePathSegments)
      draft.path[param.name] = seg.raw
      const decoded = safeDecode(seg.raw)
      // A value the parameter's own schema accepts (a known rail, an integer level) is not hostile there.
      const acceptable = decoded !== undefined && fits(doc, param.schema, decoded) && (param.name === "rail" || param.name === "level")
      return {
        draft,
        klass: `path.${param.name}=${seg.label}`,
        expectStatus: seg.changesRoute === true ? undefined : customerForbidden ? [403] : undefined,
        expectCode: seg.changesRoute !== true && customerForbidden ? "CUSTOMER_FORBIDDEN" : undefined,
        mustReject: seg.changesRoute !== true && !acceptable
      }
    }
    if (roll < 8 && foreignIds[param.name] !== undefined) {
      draft.path[param.name] = foreignIds[param.name]!
      // EFT tokens are not partner-scoped (the EFT page has no key): another partner's token is a real token.
      return {
        draft,
        klass: `path.${param.name}=other-partner's-id`,
        expectStatus: customerForbidden ? [403] : undefined,
        expectCode: customerForbidden ? "CUSTOMER_FORBIDDEN" : undefined,
        mustReject: param.name !== "token"
      }
    }
    if (roll < 9 && param.name === "chargeId" && op.customerScoped) {
      draft.path[param.name] = world.aOther.chargeId
      return { draft, klass: `path.${param.name}=other-customer's-id`, mustReject: true }
    }
    const own = draft.path[param.name]!
    if (isUuid(own)) {
      draft.path[param.name] = own.toUpperCase()
      return { draft, klass: `path.${param.name}=uppercase-uuid`, mustReject: false }
    }
    draft.path[param.name] = "6f1c1a9e-9d7b-4c1e-8e7a-2b3c4d5e6f70"
    return { draft, klass: `path.${param.name}=unknown-uuid`, expectStatus: customerForbidden ? [403] : undefined, expectCode: customerForbidden ? "CUSTOMER_FORBIDDEN" : undefined, mustReject: true }
  }

  /** Is this decoded query value valid for the parameter (docs/reference.md rules on top of the document's schema)? */
  const queryValueValid = (op: Operation, param: Param, value: string | undefined): boolean | "unknown" => {
    if (value === undefined) return false
    if (value === "") return "unknown"
    switch (param.name) {
      case "limit":
        return /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 100
      case "cursor":
        return "unknown"
      case "amount":
        return op.operationId === "withdrawals.quote" ? validFiatText(value) : "unknown"
      default:
        return fits(doc, param.schema, value)
    }
  }

  const query: Family = (op, rng) => {
    const draft = base(op)
    const params = op.queryParams
    const roll = rng.int(10)
    if (params.length > 0 && roll < 6) {
      const param = rng.pick(params)
      const source = rng.int(3)
      let label: string
      let raw: string
      if (source === 0) {
        const v = rng.pick(hostileQueryValues)
        label = v.label
        raw = v.raw
      } else if (source === 1) {
        const v = rng.pick(numberLikeStrings)
        label = v.label
        raw = pctEncode(String(v.value))
      } else {
        const v = rng.pick(withLong(hostileStrings).filter((s) => String(s.value).length < 8000))
        label = v.label
        raw = pctEncode(String(v.value))
      }
      draft.query = draft.query.filter(([k]) => k !== param.name)
      draft.query.push([param.name, raw])
      // A value carrying `&` adds parameters instead: nothing to expect of this one.
      const valid = raw.includes("&") ? "unknown" : queryValueValid(op, param, safeDecode(raw))
      const cursorJunk = param.name === "cursor" && raw !== ""
      return {
        draft,
        klass: `query.${param.name}=${label}`,
        expectStatus: valid === false || cursorJunk ? [400] : undefined,
        expectCode: cursorJunk ? "INVALID_CURSOR" : valid === false ? "BAD_REQUEST" : undefined,
        mustReject: valid === false || cursorJunk
      }
    }
    const cursorParam = params.find((p) => p.name === "cursor")
    if (cursorParam !== undefined && roll < 8) {
      const own = a.cursors.find((c) => c.list === op.id)?.cursor
      const otherList = a.cursors.find((c) => c.list !== op.id)?.cursor
      const foreign = b.cursors.find((c) => c.list === op.id)?.cursor
      const cases: Array<[string, string | undefined, boolean]> = [
        ["cursor:random", "q8Zt0LmP3x", true],
        ["cursor:base64-junk", Buffer.from(rng.u32().toString(16) + "junk\u0000\u00ff").toString("base64"), true],
        ["cursor:forged-unsigned", Buffer.from(JSON.stringify({ l: "customers", s: "1" })).toString("base64url"), true],
        ["cursor:truncated", own?.slice(0, Math.max(1, Math.floor(own.length / 2))), true],
        ["cursor:tampered", own === undefined ? undefined : own.slice(0, 10) + (own[10] === "A" ? "B" : "A") + own.slice(11), true],
        ["cursor:padded", own === undefined ? undefined : own + "==", true],
        ["cursor:other-list", otherList, true],
        // Another partner's cursor of the same list: positions only; customer-scoped lists name their customer.
        ["cursor:other-partner-same-list", foreign, op.customerScoped]
      ]
      const [label, value, reject] = rng.pick(cases.filter(([, v]) => v !== undefined))
      draft.query = draft.query.filter(([k]) => k !== "cursor")
      draft.query.push(["cursor", pctEncode(value!)])
      return { draft, klass: `query.${label}`, expectStatus: reject ? [400] : undefined, expectCode: reject ? "INVALID_CURSOR" : undefined, mustReject: reject }
    }
    const required = params.filter((p) => p.required)
    if (required.length > 0 && roll === 8) {
      const param = rng.pick(required)
      draft.query = draft.query.filter(([k]) => k !== param.name)
      return { draft, klass: `query.${param.name}=missing`, expectStatus: [400], expectCode: "BAD_REQUEST", mustReject: true }
    }
    // A query parameter no route lists: refused, named (src/api/Messages.ts, or the middleware for a route without any).
    const unknownParam = (): Mutation => ({
      draft: { ...draft, query: [...draft.query, ["zzz", "1"]] },
      klass: "query:unknown-param",
      expectStatus: [400],
      expectCode: "BAD_REQUEST",
      mustReject: true
    })
    const cases: Array<() => Mutation> = [
      () => {
        const p = params[0]
        if (p === undefined) return unknownParam()
        const first = draft.query.find(([k]) => k === p.name)?.[1] ?? "1"
        return { draft: { ...draft, query: [...draft.query, [p.name, first], [p.name, "2"]] }, klass: `query.${p.name}:repeated`, mustReject: false }
      },
      unknownParam,
      () => ({ draft: { ...draft, query: [...draft.query, ["", ""], ["&", undefined], ["=", undefined]] }, klass: "query:empty-pairs", mustReject: false }),
      () => ({ draft: { ...draft, query: [...draft.query, ["a", "%zz%"]] }, klass: "query:bad-percent-extra", mustReject: false }),
      () => ({ draft: { ...draft, query: [...draft.query, ["__proto__[x]", "1"], ["constructor", "1"]] }, klass: "query:proto-keys", mustReject: false }),
      () => ({ draft: { ...draft, query: [...draft.query, ["pad", "a".repeat(6000)]] }, klass: "query:6KB", mustReject: false })
    ]
    return rng.pick(cases)()
  }

  const hostileForField = (field: Field, rng: Rng): Hostile => {
    const type = field.schema.type
    const pools: Array<ReadonlyArray<Hostile>> = [hostileTypes, withLong(hostileStrings), hostileNumbers, numberLikeStrings, invalidNumberLiterals, deepValues(options.long).filter((d) => options.long || !d.big)]
    // Numbers at every boundary matter most where the field is a number; strings where it is a string.
    if (type === "number" || type === "integer") pools.push(hostileNumbers, hostileNumbers, numberLikeStrings)
    if (type === "string" || type === undefined) pools.push(withLong(hostileStrings), withLong(hostileStrings))
    return rng.pick(rng.pick(pools))
  }

  const bodyField: Family = (op, rng) => {
    if (op.fields.length === 0) return undefined
    const draft = base(op)
    if (draft.body.kind !== "json") return undefined
    const field = rng.pick(op.fields)
    const name = field.path.join(".")
    const roll = rng.int(12)
    if (roll === 0) {
      draft.body = { kind: "json", value: deleteAt(draft.body.value, field.path) }
      return { draft, klass: `body.${name}=missing`, expectStatus: field.required ? [400] : undefined, mustReject: field.required }
    }
    if (roll === 1) {
      const parent = field.path.slice(0, -1)
      draft.body = { kind: "json", value: setAt(draft.body.value, [...parent, "unexpectedField"], "x") }
      // Refused at the top, whatever the route (every JSON body is an object of named fields; Messages.ts). Below
      // it, a map (the beneficiary form) takes keys by design, so only "no 5xx" is expected there.
      const top = parent.length === 0
      return {
        draft,
        klass: `body.${parent.join(".") || "(root)"}+unknown-field`,
        expectStatus: top ? [400] : undefined,
        expectCode: top ? "BAD_REQUEST" : undefined,
        mustReject: top
      }
    }
    const hostile = hostileForField(field, rng)
    let parsed: { ok: true; value: unknown } | { ok: false }
    if (hostile.raw !== undefined) {
      try {
        parsed = { ok: true, value: JSON.parse(hostile.raw) }
      } catch {
        parsed = { ok: false }
      }
      draft.body = { kind: "json", value: draft.body.value, rawAt: { path: field.path, raw: hostile.raw } }
    } else {
      parsed = { ok: true, value: hostile.value }
      draft.body = { kind: "json", value: setAt(draft.body.value, field.path, hostile.value) }
    }
    const bodyBytes = render(draft, { phase: "hostile", klass: "", mustReject: false }).body?.length ?? 0
    let expectStatus: Array<number> | undefined
    if (bodyBytes > MAX_BODY) expectStatus = [413]
    else if (!parsed.ok) expectStatus = [400]
    else if (!fits(doc, field.schema, parsed.value)) expectStatus = [400]
    else if (field.path[field.path.length - 1] === "amount" && fiatAmountOps.has(op.operationId) && invalidFiatAmounts.has(hostile.label)) expectStatus = [400]
    else if (field.path[field.path.length - 1] === "amount" && cryptoAmountOps.has(op.operationId) && invalidAnyAmounts.has(hostile.label)) expectStatus = [400]
    // BAD_REQUEST for a value outside the field's schema (refused when decoding); a schema-valid amount that the
    // money rules refuse may meet a state check first (e.g. FUNDING_CHARGE_NOT_PENDING): any 400 code then.
    const expectCode = expectStatus?.[0] === 400 ? (!parsed.ok ? "MALFORMED_JSON" : !fits(doc, field.schema, parsed.value) ? "BAD_REQUEST" : undefined) : undefined
    return { draft, klass: `body.${name}=${hostile.label}`, expectStatus, expectCode, mustReject: expectStatus !== undefined }
  }

  const malformedBodies = (valid: string): Array<[string, string | Uint8Array, boolean]> => [
    // [label, body, malformed JSON (must be 400)]
    ["json:trailing-garbage", valid + "xyz", true],
    ["json:trailing-object", valid + "{}", true],
    ["json:trailing-comma", valid.replace(/}$/, ",}"), true],
    ["json:truncated", valid.slice(0, Math.max(1, valid.length - 3)), true],
    // A body without strings or keys (`{}`, a control with no input) is left as it is, valid: no expectation then.
    ["json:single-quotes", valid.replace(/"/g, "'"), valid.includes("\"")],
    ["json:comment", "/* c */" + valid, true],
    ["json:unquoted-keys", valid.replace(/"([A-Za-z]+)":/g, "$1:"), /"[A-Za-z]+":/.test(valid)],
    ["json:raw-control-char-in-string", valid.replace(/":"/, "\":\"\u0001\u0000"), valid.includes("\":\"")],
    ["json:invalid-escape", valid.replace(/":"/, "\":\"\\x41"), valid.includes("\":\"")],
    // A number value (right after a key), not a port inside a URL string.
    ["json:NaN-literal", valid.replace(/":(\d+)/, "\":NaN"), /":\d/.test(valid)],
    ["json:only-whitespace-then-garbage", "   \n\t x", true],
    ["json:bare-word", "hello", true],
    ["json:BOM", "\ufeff" + valid, false],
    ["json:utf8-invalid-bytes", Uint8Array.from([...Buffer.from(valid.slice(0, -1)), ...Buffer.from(`,"zz":"`), 0xff, 0xfe, 0xc0, 0xaf, ...Buffer.from(`"}`)]), false],
    ["json:utf16le", Uint8Array.from(Buffer.from(valid, "utf16le")), true],
    ["json:null-bytes-around", "\u0000" + valid + "\u0000", true]
  ]

  const bodyWhole: Family = (op, rng) => {
    if (op.bodyTypes[0] !== "application/json") return undefined
    const draft = base(op)
    const valid = render(draft, { phase: "hostile", klass: "", mustReject: false }).body
    const validText = valid === undefined ? "{}" : Buffer.from(valid).toString("utf8")
    const roll = rng.int(5)
    if (roll === 0) {
      const [label, body, malformed] = rng.pick(malformedBodies(validText))
      draft.body = { kind: "bytes", bytes: typeof body === "string" ? enc.encode(body) : body }
      return { draft, klass: `body=${label}`, expectStatus: malformed ? [400] : undefined, expectCode: malformed ? "MALFORMED_JSON" : undefined, mustReject: malformed }
    }
    if (roll === 1) {
      const shapes: Array<[string, unknown]> = [["null", null], ["array", []], ["string", "str"], ["number", 123], ["true", true], ["empty-object", {}], ["array-of-base", [JSON.parse(validText)]]]
      const [label, value] = rng.pick(shapes)
      draft.body = { kind: "json", value }
      const ok = fits(doc, op.bodySchema, value)
      return { draft, klass: `body=${label}`, expectStatus: ok ? undefined : [400], mustReject: !ok }
    }
    if (roll === 2) {
      const cases: Array<() => Mutation> = [
        () => ({ draft: { ...draft, body: { kind: "bytes", bytes: new Uint8Array() } }, klass: "body=empty", expectStatus: op.bodyRequired ? [400] : undefined, mustReject: op.bodyRequired }),
        () => ({ draft: { ...draft, body: { kind: "bytes", bytes: enc.encode("   \n  ") } }, klass: "body=whitespace", expectStatus: op.bodyRequired ? [400] : undefined, mustReject: op.bodyRequired }),
        () => {
          // Duplicate keys: a valid value first, an invalid one last (what JSON.parse keeps): refused either way.
          const field = op.fields.find((f) => f.path.length === 1)
          if (field === undefined) return { draft, klass: "body=base", mustReject: false }
          const text = validText.replace(/}$/, `${validText === "{}" ? "" : ","}"${field.path[0]}":[[]]}`)
          return { draft: { ...draft, body: { kind: "bytes", bytes: enc.encode(text) } }, klass: `body=duplicate-key-invalid-last(${field.path[0]})`, expectStatus: [400], mustReject: true }
        },
        () => {
          const field = op.fields.find((f) => f.path.length === 1)
          if (field === undefined) return { draft, klass: "body=base", mustReject: false }
          const text = `{"${field.path[0]}":[[]],` + validText.slice(1)
          return { draft: { ...draft, body: { kind: "bytes", bytes: enc.encode(text) } }, klass: `body=duplicate-key-invalid-first(${field.path[0]})`, mustReject: false }
        },
        () => {
          const text = `{"__proto__":{"isAdmin":true},` + validText.slice(1)
          return { draft: { ...draft, body: { kind: "bytes", bytes: enc.encode(validText === "{}" ? `{"__proto__":{"isAdmin":true}}` : text) } }, klass: "body=__proto__-key", mustReject: false }
        },
        () => {
          const text = `{"customerId":"${world.b.rich}","partnerId":"${world.b.partnerId}",` + validText.slice(1)
          return { draft: { ...draft, body: { kind: "bytes", bytes: enc.encode(validText === "{}" ? `{"customerId":"${world.b.rich}"}` : text) } }, klass: "body=foreign-customerId-field", mustReject: false }
        }
      ]
      return rng.pick(cases)()
    }
    if (roll === 3) {
      const deep = rng.pick(deepValues(options.long).filter((d) => options.long || !d.big))
      draft.body = { kind: "bytes", bytes: enc.encode(deep.raw!) }
      // A wide object of unknown keys is an object: refused only when the body has required fields.
      const refused = deep.raw!.length > MAX_BODY || !deep.label.startsWith("deep:wide-object") || !fits(doc, op.bodySchema, {})
      return { draft, klass: `body=${deep.label}`, expectStatus: deep.raw!.length > MAX_BODY ? [413] : refused ? [400] : undefined, mustReject: refused }
    }
    const sizes: Array<[string, number, boolean]> = [
      ["size:just-over-limit", MAX_BODY + 1 - validText.length, true],
      ["size:just-under-limit(whitespace)", MAX_BODY - validText.length - 10, false],
      ...(options.long ? [["size:4MB", 4 * MAX_BODY, true] as [string, number, boolean]] : [])
    ]
    const [label, padding, over] = rng.pick(sizes)
    const chunked = rng.chance(0.3)
    draft.body = { kind: "bytes", bytes: enc.encode(validText + " ".repeat(Math.max(0, padding))) }
    if (chunked) draft.headers["x-fuzz-chunked"] = "1"
    return { draft, klass: `body=${label}${chunked ? "(chunked)" : ""}`, expectStatus: over ? [413] : undefined, mustReject: over }
  }

  const contentType: Family = (op, rng) => {
    const draft = base(op)
    if (op.bodyTypes.length === 0) {
      // A body where none is expected (GET, or POST without a payload).
      const ct = rng.pick(["application/json", "text/plain", "multipart/form-data", undefined])
      return {
        draft: { ...draft, body: { kind: "bytes", bytes: enc.encode(ct === "application/json" ? `{"x":[[[[1]]]]}` : "\u0000junk\u00ff") }, contentType: ct },
        klass: `unexpected-body(${ct ?? "no content type"})`,
        mustReject: false
      }
    }
    if (op.bodyTypes[0] === "multipart/form-data") {
      const cases: Array<[string, string | undefined, Uint8Array]> = [
        ["ct:json-to-upload", "application/json", enc.encode(`{"file":"x"}`)],
        ["ct:text/plain-to-upload", "text/plain", enc.encode("hello")],
        ["ct:none-to-upload", undefined, uploadBody()],
        ["ct:form-urlencoded-to-upload", "application/x-www-form-urlencoded", enc.encode("file=x&type=OTHER")]
      ]
      const [label, ct, bytes] = rng.pick(cases)
      return { draft: { ...draft, contentType: ct, body: { kind: "bytes", bytes } }, klass: label, mustReject: true }
    }
    const ct = rng.pick(hostileContentTypes)
    if (ct.label === "ct:json-charset-utf16" && draft.body.kind === "json") {
      draft.body = { kind: "bytes", bytes: Uint8Array.from(Buffer.from(JSON.stringify(draft.body.value), "utf16le")) }
    }
    if (ct.label === "ct:multipart-with-boundary" && rng.chance(0.5) && draft.body.kind === "json") {
      // A real multipart body carrying the JSON fields as parts.
      const fields = Object.entries(draft.body.value as Record<string, unknown>)
      draft.body = { kind: "bytes", bytes: multipartBody("fuzzboundary", fields.map(([name, v]) => ({ name, data: typeof v === "string" ? v : JSON.stringify(v) }))) }
      return { draft: { ...draft, contentType: ct.value }, klass: "ct:multipart-with-fields", expectStatus: [415], mustReject: true }
    }
    return {
      draft: { ...draft, contentType: ct.value },
      klass: ct.label,
      expectStatus: ct.expect415 ? [415] : undefined,
      mustReject: ct.expect415
    }
  }

  const multipart: Family = (op, rng) => {
    if (op.bodyTypes[0] !== "multipart/form-data") return undefined
    const draft = base(op)
    const elf = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0])
    const cases: Array<[string, string | undefined, Uint8Array, boolean]> = [
      // [label, content type, body, must reject]
      ["mp:no-boundary-param", "multipart/form-data", uploadBody(), true],
      ["mp:empty-boundary", "multipart/form-data; boundary=", uploadBody(), true],
      ["mp:wrong-boundary", "multipart/form-data; boundary=other", uploadBody(), true],
      ["mp:no-closing-delimiter", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", data: pngBytes() }], false), true],
      ["mp:empty-body", `multipart/form-data; boundary=${boundary}`, new Uint8Array(), true],
      ["mp:garbage-body", `multipart/form-data; boundary=${boundary}`, enc.encode("\u0000\u00ffnot multipart at all"), true],
      ["mp:no-file-part", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "type", data: "OTHER" }]), true],
      ["mp:file-as-text-field", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", data: "not a file" }]), true],
      ["mp:two-files", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", data: pngBytes() }, { name: "file", filename: "b.png", data: pngBytes() }]), true],
      ["mp:empty-file", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", data: new Uint8Array() }]), true],
      ["mp:executable-as-png", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", contentType: "image/png", data: elf }]), true],
      ["mp:file-in-other-field", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "other", filename: "a.png", data: pngBytes() }]), true],
      ["mp:bad-type-field", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", data: pngBytes() }, { name: "type", data: "\u0000ROOT" }]), true],
      ["mp:type-repeated", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", data: pngBytes() }, { name: "type", data: "OTHER" }, { name: "type", data: "SELFIE" }]), false],
      ["mp:NUL-filename", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a\u0000.png", data: pngBytes() }]), false],
      ["mp:unicode-filename", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "身份证😀.png", data: pngBytes() }]), false],
      ["mp:2KB-filename", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a".repeat(2000) + ".png", data: pngBytes() }]), false],
      ["mp:traversal-filename", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "../../../etc/passwd", data: pngBytes() }]), false],
      ["mp:100-extra-fields", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", data: pngBytes() }, ...Array.from({ length: 100 }, (_, i) => ({ name: `f${i}`, data: "x" }))]), false],
      ["mp:long-boundary", `multipart/form-data; boundary=${"b".repeat(200)}`, multipartBody("b".repeat(200), [{ name: "file", filename: "a.png", data: pngBytes() }]), false],
      ["mp:1MB-junk-file", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", data: new Uint8Array(MAX_BODY).fill(0x41) }]), true],
      ...(options.long
        ? [["mp:5MB+1-file", `multipart/form-data; boundary=${boundary}`, multipartBody(boundary, [{ name: "file", filename: "a.png", data: Uint8Array.from([...pngBytes(), ...new Uint8Array(5 * 1024 * 1024)]) }]), true] as [string, string, Uint8Array, boolean]]
        : [])
    ]
    const [label, ct, bytes, reject] = rng.pick(cases)
    return { draft: { ...draft, contentType: ct, body: { kind: "bytes", bytes } }, klass: label, mustReject: reject }
  }

  const allMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
  const methodsByTemplate = new Map<string, Array<string>>()
  for (const op of operations) methodsByTemplate.set(op.template, [...(methodsByTemplate.get(op.template) ?? []), op.method])

  const method: Family = (op, rng) => {
    const draft = base(op)
    const defined = methodsByTemplate.get(op.template) ?? []
    const others = allMethods.filter((m) => !defined.includes(m))
    if (rng.chance(0.15)) {
      const m = rng.pick(["HEAD", "OPTIONS"])
      return { draft: { ...draft, method: m, body: { kind: "none" }, contentType: undefined }, klass: `method:${m}`, mustReject: false }
    }
    const m = rng.pick(others)
    return { draft: { ...draft, method: m }, klass: `method:wrong(${m})`, expectStatus: [405], mustReject: true }
  }

  const headers: Family = (op, rng) => {
    const draft = base(op)
    const cases: Array<() => Mutation> = [
      () => ({ draft: { ...draft, headers: { ...draft.headers, "x-request-id": "short" } }, klass: "header:x-request-id-too-short", mustReject: false, badRequestId: "short" }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, "x-request-id": "r".repeat(65) } }, klass: "header:x-request-id-too-long", mustReject: false, badRequestId: "r".repeat(65) }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, "x-request-id": "../../etc/passwd" } }, klass: "header:x-request-id-traversal", mustReject: false, badRequestId: "../../etc/passwd" }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, "x-request-id": "abc\u00e9defgh" } }, klass: "header:x-request-id-latin1", mustReject: false, badRequestId: "abc\u00e9defgh" }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, "x-fuzz": "a".repeat(10_000) } }, klass: "header:10KB", mustReject: false }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, accept: "text/html" } }, klass: "header:accept-html", mustReject: false }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, accept: "application/xml;q=1, */*;q=0" } }, klass: "header:accept-xml-only", mustReject: false }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, "content-encoding": "gzip" } }, klass: "header:content-encoding-gzip-lie", mustReject: false }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, "x-forwarded-for": "127.0.0.1, ::1", "x-forwarded-host": "evil.example", forwarded: "host=evil.example;proto=https" } }, klass: "header:forwarded-spoof", mustReject: false }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, "content-type": [draft.contentType ?? "application/json", "text/plain"] }, contentType: undefined }, klass: "header:duplicate-content-type", mustReject: false }),
      () => ({ draft: { ...draft, headers: { ...draft.headers, "x-fuzz-chunked": "1" } }, klass: "header:chunked-body", mustReject: false }),
      // docs/reference.md "Error codes": over Node's 16 KB limit is 431 in the envelope (answered before any route).
      ...(options.long ? [() => ({ draft: { ...draft, headers: { ...draft.headers, "x-fuzz": "a".repeat(20_000) } }, klass: "header:20KB(over node limit)", expectStatus: [431], mustReject: true })] : [])
    ]
    return rng.pick(cases)()
  }

  const families: Array<[string, Family, number]> = [
    ["auth", auth, 2],
    ["path", pathIds, 3],
    ["query", query, 2],
    ["body-field", bodyField, 6],
    ["body-whole", bodyWhole, 3],
    ["content-type", contentType, 2],
    ["multipart", multipart, 3],
    ["method", method, 1],
    ["headers", headers, 1]
  ]

  const hostile = (op: Operation, rng: Rng, family?: string, force?: string): FuzzRequest | undefined => {
    const applicable = families.filter(([name]) => family === undefined || name === family)
    for (let attempt = 0; attempt < 8; attempt++) {
      const weighted = applicable.flatMap(([name, f, w]) => Array<[string, Family]>(w).fill([name, f]))
      const [, f] = rng.pick(weighted)
      const m = f(op, rng, force)
      if (m !== undefined) return render(m.draft, { ...m, phase: "hostile" })
    }
    return undefined
  }

  return { validish, hostile, familyNames: families.map(([name]) => name), base: (op: Operation) => render(base(op), { phase: "valid", klass: "base", mustReject: false }) }
}

export type Generator = ReturnType<typeof makeGenerator>
