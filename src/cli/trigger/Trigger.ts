import * as Crypto from "node:crypto"
import { type Fetch, type HttpResponse, send } from "../../scenario/Client.js"
import type { RunContext } from "../../scenario/Context.js"
import { Scope } from "../../scenario/Interpolate.js"
import type { Scenario } from "../../scenario/Language.js"
import type { EventItem } from "../../scenario/Observations.js"
import { WebhookReceiver } from "../../scenario/Receiver.js"
import { runSteps, type StepResult } from "../../scenario/Steps.js"
import { closest, type Entry, findEntry, flowsDir, isCustomerStage, loadFlow } from "./Catalog.js"
import { recordingFetch, type RequestEntry } from "./RequestLog.js"
import { parseSettings, typedValue, VariableError } from "./Variables.js"

/**
 * One trigger run: the flow of an event type, run with the scenario runner's steps against a running sandbox as
 * the calling partner (the flow's new partner for partner.* and webhook.test), then the events it produced read
 * back from the sandbox event log. Never advances the shared clock and never changes the caller's rail
 * policies, rates, KYB or webhook: rail outcomes are given by sandbox controls.
 */
export interface TriggerOptions {
  readonly type: string
  /** `http://host:port` or `http://host:port/api/v1`. */
  readonly url: string
  readonly apiKey: string
  /** Reuse this customer instead of registering one (flows that allow it). */
  readonly customerId?: string | undefined
  /** `--set` values, `key=value`. */
  readonly settings?: ReadonlyArray<string> | undefined
  /** Names the run's customers and references; random by default. */
  readonly runId?: string | undefined
  /** Called as each request completes. */
  readonly onRequest?: ((entry: RequestEntry) => void) | undefined
  readonly flowsDir?: string | undefined
}

/** 0 produced; 1 the flow failed or left no such event; 2 a usage error; 3 the sandbox or the key cannot be used. */
export type ExitCode = 0 | 1 | 2 | 3

export interface TriggerResult {
  readonly exitCode: ExitCode
  readonly type: string
  readonly ok: boolean
  /** Why it failed or was refused (exit code other than 0). */
  readonly error?: string | undefined
  /** Hints shown with a failure. */
  readonly hints: ReadonlyArray<string>
  readonly baseUrl: string
  /** The calling partner. */
  readonly partner?: { readonly partnerId: string; readonly name: string } | undefined
  /** The partner whose event log holds the events: the caller, or the new sandbox partner of the flow. */
  readonly eventsPartnerId?: string | undefined
  /** The new sandbox partner's key (partner.* and webhook.test); never the caller's. */
  readonly eventsApiKey?: string | undefined
  readonly customerId?: string | undefined
  /** Events of the requested type this run produced. */
  readonly produced: ReadonlyArray<EventItem>
  /** Every event this run produced (of its customer, or on its new partner), oldest first. */
  readonly events: ReadonlyArray<EventItem>
  readonly requests: ReadonlyArray<RequestEntry>
  readonly scenario?: Scenario | undefined
  readonly steps: ReadonlyArray<StepResult>
  /** The flow's variables and saved values (the caller's API key left out). */
  readonly variables: Readonly<Record<string, unknown>>
}

/**
 * `http://host:port` or `http://host:port/api/v1` as the base URL (the scenario runner's `remote` does the same;
 * its module starts a whole service, which a CLI talking to a remote one need not load).
 */
export const baseUrlOf = (url: string): string => {
  const trimmed = url.replace(/\/+$/, "")
  return trimmed.endsWith("/api/v1") ? trimmed : `${trimmed}/api/v1`
}

class Refusal extends Error {
  constructor(readonly exitCode: ExitCode, message: string, readonly hints: ReadonlyArray<string> = []) {
    super(message)
  }
}

const eventPagesMax = 20

/** The sandbox a run talks to: its base URL, and the run's own `Fetch` that records each request it sends. */
interface Sandbox {
  readonly baseUrl: string
  readonly fetch: Fetch
}

/** A request to the service with `apiKey`; a connection failure is exit code 3. */
const ask = async (sandbox: Sandbox, apiKey: string | undefined, method: string, path: string, query?: Record<string, unknown>): Promise<HttpResponse> => {
  const { baseUrl } = sandbox
  try {
    return await send(baseUrl, { method, path, query, headers: apiKey === undefined ? {} : { "x-api-key": apiKey } }, { fetch: sandbox.fetch })
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    throw new Refusal(3, `cannot reach the sandbox at ${baseUrl}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, [
      "start it with `npm start` (or pass --url for another one)"
    ])
  }
}

const dataOf = <A>(response: HttpResponse): A => (response.body as { data: A }).data

/** The calling partner, checked: a sandbox answers, the key is known, and (for flows run as the caller) KYB approved. */
const callingPartner = async (sandbox: Sandbox, apiKey: string, entry: Extract<Entry, { producible: true }>) => {
  const { baseUrl } = sandbox
  const response = await ask(sandbox, apiKey, "GET", "/sandbox/partner")
  if (response.status === 401) throw new Refusal(3, "the sandbox refused the API key (401)", ["pass the partner's key with --api-key, or run on the machine of `npm start` for the demo partner's"])
  if (response.status === 404) throw new Refusal(3, `${baseUrl} has no sandbox control API (404 on /sandbox/partner): a production service, or another service`)
  if (response.status !== 200) throw new Refusal(3, `GET /sandbox/partner answered ${response.status}: ${JSON.stringify(response.body)}`)
  const partner = dataOf<{ partnerId: string; name: string; kybStatus: string }>(response)
  if (entry.partner === "caller" && partner.kybStatus !== "APPROVED") {
    throw new Refusal(3, `partner ${partner.partnerId} has KYB ${partner.kybStatus}: its partner routes are refused until it is approved`)
  }
  return partner
}

/** The newest event of the log, so that the events made afterwards can be told apart. */
const newestEventId = async (sandbox: Sandbox, apiKey: string): Promise<string | undefined> => {
  const response = await ask(sandbox, apiKey, "GET", "/sandbox/events", { limit: 1 })
  if (response.status !== 200) throw new Refusal(3, `GET /sandbox/events answered ${response.status}`)
  return dataOf<Array<EventItem>>(response)[0]?.id
}

/**
 * Events newer than `after` (all when undefined), oldest first, optionally of one customer. The log is read without
 * a customer filter down to `after` (the newest event before the run, whoever it was about), then filtered.
 */
const eventsSince = async (sandbox: Sandbox, apiKey: string, after: string | undefined, customerId: string | undefined) => {
  const newestFirst: Array<EventItem> = []
  let cursor: string | undefined
  for (let page = 0; page < eventPagesMax; page++) {
    const response = await ask(sandbox, apiKey, "GET", "/sandbox/events", { limit: 100, cursor })
    if (response.status !== 200) throw new Error(`GET /sandbox/events answered ${response.status}: ${JSON.stringify(response.body)}`)
    const body = response.body as { data: Array<EventItem>; meta?: { nextCursor: string | null } }
    const stop = body.data.findIndex((event) => event.id === after)
    newestFirst.push(...(stop < 0 ? body.data : body.data.slice(0, stop)))
    if (stop >= 0 || !body.meta?.nextCursor) break
    cursor = body.meta.nextCursor
  }
  return newestFirst.reverse().filter((event) => customerId === undefined || event.customerId === customerId)
}

/** `--set` values of the flow's variables, typed like their defaults; a name the flow does not have is refused. */
const overridesOf = (scenario: Scenario, settings: Record<string, string>): Map<string, unknown> => {
  const unknown = Object.keys(settings).filter((name) => !Object.hasOwn(scenario.vars, name))
  if (unknown.length > 0) {
    const known = Object.keys(scenario.vars).filter((name) => name !== "runId")
    throw new Refusal(2, `--set ${unknown.join(", ")}: not a variable of this flow; its variables: ${known.length > 0 ? known.join(", ") : "none"}`)
  }
  return new Map(Object.entries(settings).map(([name, text]) => [name, typedValue(name, text, scenario.vars[name])]))
}

/** The flow's variables in order: an override, a fresh runId, else the flow's default (interpolated). */
const bindVariables = (scenario: Scenario, scope: Scope, overrides: Map<string, unknown>, runId: string) => {
  for (const [name, fallback] of Object.entries(scenario.vars)) {
    if (overrides.has(name)) scope.set(name, overrides.get(name))
    else if (name === "runId") scope.set(name, runId)
    else scope.set(name, scope.interpolate(fallback))
  }
}

/** The rail policy that would answer before the flow's control does (auto with a delay of a few seconds at most). */
const railHint = async (sandbox: Sandbox, apiKey: string, rail: string | undefined): Promise<Array<string>> => {
  if (rail === undefined) return []
  const response = await ask(sandbox, apiKey, "GET", "/sandbox/rails").catch(() => undefined)
  const policy = response?.status === 200
    ? dataOf<Array<{ rail: string; mode: string; outcome: string; delaySeconds: number }>>(response).find((p) => p.rail === rail)
    : undefined
  if (policy === undefined || policy.mode !== "auto" || policy.delaySeconds > 5) return []
  return [`the flow answers for the ${rail} rail with a sandbox control; your ${rail} rail policy is auto with a ${policy.delaySeconds} s delay, ` +
    `so the rail may answer first: PUT /sandbox/rails/${rail} { "mode": "manual" } (or a longer delay) and trigger again`]
}

const base = (options: TriggerOptions, baseUrl: string) => ({
  type: options.type,
  baseUrl,
  hints: [] as ReadonlyArray<string>,
  produced: [] as ReadonlyArray<EventItem>,
  events: [] as ReadonlyArray<EventItem>,
  requests: [] as ReadonlyArray<RequestEntry>,
  steps: [] as ReadonlyArray<StepResult>,
  variables: {}
})

type Flow = Extract<Entry, { producible: true }>

interface Prepared {
  readonly entry: Flow
  readonly scenario: Scenario
  readonly overrides: Map<string, unknown>
  readonly partner: { readonly partnerId: string; readonly name: string }
  /** The newest event before the run. */
  readonly marker: string | undefined
}

/** Everything checked before the flow writes anything: the type, its flow, the options, the sandbox and the key. */
const prepare = async (options: TriggerOptions, sandbox: Sandbox): Promise<Prepared> => {
  const entry = findEntry(options.type)
  if (entry === undefined) {
    const near = closest(options.type)
    throw new Refusal(2, `unknown event type ${JSON.stringify(options.type)}${near !== undefined ? ` (did you mean ${near}?)` : ""}`, [
      "`npm run trigger -- --list` lists every type"
    ])
  }
  if (!entry.producible) throw new Refusal(2, `${entry.type} cannot be produced: ${entry.why}`)
  if (options.customerId !== undefined && !entry.customer.reusable) {
    throw new Refusal(2, `--customer does not apply to ${entry.type}: ${entry.customer.why}`)
  }
  const loaded = loadFlow(entry, options.flowsDir ?? flowsDir)
  if (loaded._tag === "Invalid") throw new Refusal(1, `the flow of ${entry.type} is not valid:\n${loaded.message}`)
  const overrides = overridesOf(loaded.scenario, parseSettings(options.settings ?? []))
  const partner = await callingPartner(sandbox, options.apiKey, entry)
  if (options.customerId !== undefined) {
    const found = await ask(sandbox, options.apiKey, "GET", `/partner/v1/customers/${encodeURIComponent(options.customerId)}`)
    if (found.status !== 200) throw new Refusal(2, `--customer ${options.customerId}: not a customer of partner ${partner.partnerId} (${found.status})`)
  }
  return { entry, scenario: loaded.scenario, overrides, partner, marker: await newestEventId(sandbox, options.apiKey) }
}

/** Runs the flow's steps as the caller, with the trigger's own webhook receiver for `${webhookUrl}`. */
const runFlow = async (options: TriggerOptions, sandbox: Sandbox, prepared: Prepared) => {
  const { baseUrl } = sandbox
  const { scenario, partner } = prepared
  const receiver = await WebhookReceiver.start()
  const inbox = receiver.open()
  try {
    const runId = options.runId ?? Crypto.randomBytes(6).toString("hex")
    const scope = new Scope(new Map<string, unknown>([
      ["apiKey", options.apiKey],
      ["partnerId", partner.partnerId],
      ["baseUrl", baseUrl],
      ["webhookUrl", inbox.url],
      ["seed", runId],
      ["scenario", scenario.name]
    ]))
    bindVariables(scenario, scope, prepared.overrides, runId)
    let steps = scenario.steps
    if (options.customerId !== undefined) {
      scope.set("customerId", options.customerId)
      steps = steps.filter((step) => !isCustomerStage(step))
    }
    const context: RunContext = { baseUrl, apiKey: options.apiKey, inbox, scope, fetch: sandbox.fetch }
    const outcome = await runSteps(context, steps)
    return { outcome, scope }
  } finally {
    receiver.release(inbox)
    await receiver.close()
  }
}

export const trigger = async (options: TriggerOptions): Promise<TriggerResult> => {
  const baseUrl = baseUrlOf(options.url)
  const requests: Array<RequestEntry> = []
  const onRequest = (entry: RequestEntry) => {
    requests.push(entry)
    options.onRequest?.(entry)
  }
  // every request of this run, and only those, goes through this run's recording fetch
  const sandbox: Sandbox = { baseUrl, fetch: recordingFetch(baseUrl, onRequest) }
  try {
    const prepared = await prepare(options, sandbox)
    const { entry, partner } = prepared
    const { outcome, scope } = await runFlow(options, sandbox, prepared)
    const eventsApiKey = scope.get("eventsApiKey") as string | undefined
    const customerId = scope.get("customerId") as string | undefined
    const events = eventsApiKey !== undefined
      ? await eventsSince(sandbox, eventsApiKey, undefined, undefined)
      : await eventsSince(sandbox, options.apiKey, prepared.marker, customerId)
    const produced = events.filter((event) => event.type === entry.type)
    const ok = !outcome.failed && produced.length > 0
    const hints: Array<string> = []
    if (outcome.failed) {
      if (options.customerId !== undefined && entry.customer.reusable) hints.push(`with --customer, this flow needs ${entry.customer.needs}`)
      hints.push(...await railHint(sandbox, options.apiKey, entry.rail))
    }
    return {
      ...base(options, baseUrl),
      exitCode: ok ? 0 : 1,
      ok,
      error: ok ? undefined : outcome.failed ? "a step of the flow failed" : `the flow finished but no ${entry.type} event of this run is in the event log`,
      hints,
      partner,
      eventsPartnerId: eventsApiKey !== undefined ? scope.get("eventsPartnerId") as string : partner.partnerId,
      eventsApiKey,
      customerId,
      produced,
      events,
      requests,
      scenario: prepared.scenario,
      steps: outcome.results,
      variables: Object.fromEntries(scope.names().filter((name) => name !== "apiKey").map((name) => [name, scope.get(name)]))
    }
  } catch (error) {
    const failed = { ...base(options, baseUrl), ok: false, requests }
    if (error instanceof Refusal) return { ...failed, exitCode: error.exitCode, error: error.message, hints: error.hints }
    if (error instanceof VariableError) return { ...failed, exitCode: 2, error: error.message }
    return { ...failed, exitCode: 1, error: `unexpected error: ${(error as Error).stack ?? String(error)}` }
  }
}
