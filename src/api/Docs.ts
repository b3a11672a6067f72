import * as OpenApi from "@effect/platform/OpenApi"
import { type Context, Option, Schema, SchemaAST } from "effect"

/**
 * What the docs page (`/api/v1/docs`, Scalar over the OpenAPI document) shows a partner, in one place:
 * - `example`: a schema's documentation example, written as the JSON on the wire. Contract files wrap request bodies
 *   and response data with it; the document carries it as the schema's `examples` and Scalar fills the request body
 *   ("try it", the curl snippet) and the response panel from it. `Envelope`/`PageEnvelope` pass a data example on
 *   to the `{ success, data }` answer.
 * - `resourceTag`: each group's tag, in plain words, with a description (the sidebar's sections).
 * - `forPartners`: the document transform: `x-tagGroups` (Partner API, Sandbox, Console) and no schema-internal
 *   help text ("a string at most 200 character(s) long": the schema's own keywords already say it).
 * - `scalarConfiguration`: the page's settings (no vendor toolbar, the sandbox's demo key preselected).
 * docs/docs-page.md explains how to add an example for a new route.
 */

/**
 * `schema` with `value` (the JSON a partner sends or receives: the schema's encoded side) as its example. The value
 * is decoded once, here: the annotation holds the decoded value and the OpenAPI document shows it encoded again, so
 * what the page shows is exactly what the schema accepts or produces. A value the schema refuses leaves the schema
 * without an example (test/docs.examples.test.ts names the operation); it never stops the service.
 */
export const example = <S extends Schema.Schema.AnyNoContext>(schema: S, value: Schema.Schema.Encoded<NoInfer<S>>): S =>
  Option.match(Schema.decodeUnknownOption(schema)(value), {
    onNone: () => schema,
    onSome: (decoded) => schema.annotations({ examples: [decoded] }) as S
  })

/**
 * The example `example` gave `schema`, as the JSON on the wire again: an answer that nests another schema reuses
 * that schema's example instead of writing it twice. A schema without one is a programming error (it throws at load).
 */
export const exampleOf = <S extends Schema.Schema.AnyNoContext>(schema: S): Schema.Schema.Encoded<S> => {
  const [value] = Option.getOrElse(SchemaAST.getExamplesAnnotation(schema.ast), () => [] as ReadonlyArray<unknown>)
  if (value === undefined) throw new Error(`exampleOf: the schema has no example (${String(schema.ast)})`)
  return Schema.encodeSync(schema)(value as Schema.Schema.Type<S>)
}

/** A field's help text for partners (replaces the generic text of the schema it is built from). */
export const described = <S extends Schema.Schema.AnyNoContext>(schema: S, description: string): S =>
  schema.annotations({ description }) as S

/** The example ids and values the examples share (the same values the tests and scenarios use). */
export const sample = {
  partnerId: "9b2f6c1e-4d7a-4c3b-8e21-5f0a9d3c7b14",
  customerId: "3f6c2a9e-8b1d-4e7f-a2c5-9d0e1b4f7a63",
  chargeId: "c4a1e7b2-5f3d-4a9c-8e6b-1d2f0a7c9e35",
  withdrawalId: "7e2d9c4b-1a6f-4b8e-9c3d-5f0a2b7e8d61",
  accountId: "5a8e1c3f-7b2d-4f6a-9e0c-3d1b8a7f2c94",
  quoteId: "e1b7c3a9-2d5f-4c8e-b6a0-7f3d9e1c5b28",
  sendId: "2c9f7a1d-6e3b-4d5a-8f0c-b4e2a9d7c163",
  documentId: "8d3b6f2a-9c1e-4a7d-b5f0-2e8c4a1d6b97",
  eventId: "b6e4a2c8-3f1d-4e9b-a7c5-0d2f8b6e4a19",
  kycId: "f0a3d8c6-1b7e-4c2a-9d5f-6e4b2a8c0d73",
  transactionId: "4e8a2c6f-0d9b-4b3e-a1c7-5f9d3b7e1a25",
  at: "2026-03-02T09:15:00.000Z",
  later: "2026-03-02T09:16:04.000Z",
  expires: "2026-03-02T09:45:00.000Z",
  /** Guaranty Trust Bank, the sandbox's bank code 058, and an account number its name lookup resolves. */
  bankCode: "058",
  accountNumber: "1234567896",
  tronAddress: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE",
  evmAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
  txHash: "0x9f2c5b7e1d4a8c3f6b0e2d9a7c5f1b3e8d6a4c2f0b9e7d5a3c1f8b6e4d2a0c97"
} as const

interface TagText {
  readonly title: string
  readonly description: string
}

/** Each group's tag: its title (the sidebar's section) and what it is for. */
export const tags = {
  health: { title: "Health", description: "Whether the service is up." },
  customers: { title: "Customers", description: "Register your customers and read them back." },
  ledger: { title: "Balances and transactions", description: "A customer's balances per currency and the ledger entries behind them." },
  funding: { title: "Funding", description: "Money in: the customer's virtual account, one-off funding charges and stablecoin deposit addresses." },
  kyc: { title: "KYC", description: "Verify a customer: Tier 1 (BVN and NIN), Tier 2 (an ID document and a selfie), the documents and the verification summary." },
  webhooks: { title: "Webhooks", description: "Where the service tells you what happened: your webhook URL, its signing secret and the deliveries." },
  bankAccounts: { title: "Bank accounts", description: "The banks a customer can withdraw to, account-name lookups and the customer's saved accounts." },
  withdrawals: { title: "Withdrawals", description: "Money out to the customer's default bank account: quotes, withdrawals and their status." },
  trading: { title: "Buy and sell USDT", description: "Indicative rates, then a quote and its execution, from the customer's fiat to USDT and back." },
  sends: { title: "Stablecoin sends", description: "Send USDT or USDC from the customer's balance to an address on a supported network." },
  international: { title: "International verification", description: "KYC Tier 3 and the enrolment with the payout partners that global sends need." },
  globalSend: { title: "Global sends", description: "Pay out across borders: to a bank account or a mobile-money wallet in another country." },
  consolePublic: { title: "Console: sign-up and sign-in", description: "Sign up a partner business and sign in to the partner console." },
  console: { title: "Console: account", description: "The signed-in console user's company, KYB, API keys and webhook URL (a bearer token from sign-in)." },
  sandboxPartners: { title: "Sandbox: partners", description: "Create sandbox partners, each with its own API key." },
  sandbox: { title: "Sandbox: partner, clock and events", description: "Decide your partner's KYB, move the service clock and read the events you were sent." },
  sandboxRails: { title: "Sandbox: rails", description: "How the simulated bank, chain, identity, exchange and payout rails answer." },
  sandboxFunding: { title: "Sandbox: funding", description: "Play incoming money: virtual-account credits, paid charges and stablecoin deposits." },
  sandboxEft: { title: "Sandbox: EFT payment page", description: "The payer's side of a South African EFT charge." },
  sandboxKyc: { title: "Sandbox: KYC", description: "Decide KYC tiers and ask for re-verification." },
  sandboxWithdrawals: { title: "Sandbox: withdrawals", description: "Complete, fail or reverse a withdrawal." },
  sandboxLedger: { title: "Sandbox: balances", description: "Every customer's balances, held amounts included." },
  sandboxInspect: { title: "Sandbox: inspection", description: "What the rails are waiting on, the work due on the clock and an event's chain." },
  sandboxRates: { title: "Sandbox: exchange rates", description: "Set the prices the exchange quotes." },
  sandboxSends: { title: "Sandbox: stablecoin sends", description: "Confirm or fail a stablecoin send." },
  sandboxInternational: { title: "Sandbox: international verification", description: "Decide a customer's enrolment with a payout partner." },
  sandboxGlobalSends: { title: "Sandbox: global sends", description: "Complete or fail a global send." },
  sandboxConsole: { title: "Sandbox: console", description: "Decide the signed-in console partner's KYB." },
  sandboxWebhookChaos: { title: "Sandbox: webhook chaos", description: "Make webhook deliveries fail, slow down or repeat, and see what happened." }
} as const satisfies Record<string, TagText>

/** A group's OpenAPI annotations: its tag's plain-word title and description. */
export const resourceTag = (group: keyof typeof tags): Context.Context<never> =>
  OpenApi.annotations({ title: tags[group].title, description: tags[group].description })

/** The sidebar's three sections, in this order; a tag belongs to the section of its operations' paths. */
export const tagGroupNames = ["Partner API", "Sandbox", "Console"] as const

const sectionOf = (path: string): (typeof tagGroupNames)[number] =>
  path.startsWith("/api/v1/sandbox/")
    ? "Sandbox"
    : path.startsWith("/api/v1/partner/v1/") || path === "/api/v1/health" || path.startsWith("/api/v1/health/")
    ? "Partner API"
    : "Console"

/** Help text Effect's Schema writes for its own building blocks: it describes the schema, not the field. */
const genericDescription = [
  /^an? (string|number|integer|array|bigint|object|Date|boolean)\b.*$/,
  /^a Universally Unique Identifier$/,
  /^a valid (Date|date)$/,
  /^a template literal$/
]
const isGeneric = (text: string) => genericDescription.some((pattern) => pattern.test(text))

type Json = Record<string, any>

const dropGenericDescriptions = (node: unknown): void => {
  if (Array.isArray(node)) return node.forEach(dropGenericDescriptions)
  if (typeof node !== "object" || node === null) return
  const record = node as Json
  if (typeof record.description === "string" && isGeneric(record.description)) delete record.description
  for (const value of Object.values(record)) dropGenericDescriptions(value)
}

/**
 * The document as the docs page shows it: `x-tagGroups` (every tag in one section: Partner API, Sandbox,
 * Console; production has no sandbox tags, so no Sandbox section) and no generic help text on fields and
 * parameters.
 */
export const forPartners = (spec: Json): Json => {
  const sections = new Map<string, Set<string>>(tagGroupNames.map((name) => [name, new Set<string>()]))
  for (const [path, item] of Object.entries(spec.paths as Json)) {
    for (const operation of Object.values(item as Json)) {
      for (const tag of (operation as Json).tags ?? []) sections.get(sectionOf(path))!.add(tag)
    }
  }
  const order = (spec.tags as Array<Json>).map((tag) => tag.name as string)
  spec["x-tagGroups"] = tagGroupNames
    .map((name) => ({ name, tags: order.filter((tag) => sections.get(name)!.has(tag)) }))
    .filter((group) => group.tags.length > 0)
  dropGenericDescriptions(spec.components?.schemas)
  for (const item of Object.values(spec.paths as Json)) dropGenericDescriptions(item)
  return spec
}

/**
 * The Scalar settings of the docs page. No vendor toolbar (Scalar's share / SDK bar) and no "Open API Client"
 * button; no web fonts (the page works without internet). In sandbox mode, `demoApiKey` (the key `npm start` prints)
 * is the preselected `x-api-key`, so "Test Request" works at once; in production nothing is preselected.
 */
export const scalarConfiguration = (demoApiKey: string | undefined) => ({
  layout: "modern" as const,
  showToolbar: "never",
  hideClientButton: true,
  withDefaultFonts: false,
  defaultOpenAllTags: false,
  ...(demoApiKey === undefined ? {} : {
    authentication: {
      preferredSecurityScheme: "apiKey",
      securitySchemes: { apiKey: { value: demoApiKey } }
    }
  })
})
