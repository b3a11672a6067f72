import type { ConfigProvider } from "effect"
import { parseArgs } from "node:util"
import type { EventItem } from "../../scenario/Observations.js"
import { formatScenario, paint } from "../../scenario/Report.js"
import { catalog, loadFlow, specEventTypes, summaryOf } from "./Catalog.js"
import { defaultApiKeyOrProblem, defaultUrl, readSandboxEnvironment } from "../Defaults.js"
import * as Help from "../Help.js"
import { triggerHelp, triggerOptions } from "../HelpTexts.js"
import type { RequestEntry } from "./RequestLog.js"
import { baseUrlOf, type ExitCode, trigger, type TriggerResult } from "./Trigger.js"

/**
 * `npm run trigger -- <event type> [--customer id] [--set key=value]... [--print-json]`, `--list`: argument
 * parsing, output and exit codes around `trigger` (Trigger.ts). docs/sandbox-trigger.md describes it; the options
 * and the help are src/cli/HelpTexts.ts's `triggerOptions` and `triggerHelp`.
 */

/** The usage lines and the pointer to --help that follow a usage error. */
export const usage = `${Help.usageLines(triggerHelp)}\n${Help.seeHelp(triggerHelp)}`

export interface Io {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** Settings instead of the environment (tests). */
  readonly env?: ConfigProvider.ConfigProvider | undefined
  readonly color?: boolean | undefined
}

const parse = (argv: ReadonlyArray<string>) => {
  const { positionals, values } = parseArgs({
    args: [...argv],
    options: Help.parseArgsOptions(Object.values(triggerOptions)),
    strict: true,
    allowPositionals: true
  })
  const text = (name: string) => (typeof values[name] === "string" ? values[name] : undefined)
  const flag = (name: string) => values[name] === true
  const texts = (name: string) => {
    const value = values[name]
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []
  }
  return {
    positionals,
    values: {
      url: text(triggerOptions.url.name),
      apiKey: text(triggerOptions.apiKey.name) ?? triggerOptions.apiKey.aliases.map(text).find((value) => value !== undefined),
      customer: text(triggerOptions.customer.name),
      set: texts(triggerOptions.set.name),
      printJson: flag(triggerOptions.printJson.name),
      list: flag(triggerOptions.list.name)
    }
  }
}

const width = Math.max(...specEventTypes.map((type) => type.length)) + 2

export const listing = () =>
  catalog.map((entry) => {
    if (!entry.producible) return { type: entry.type, producible: false as const, why: entry.why }
    const loaded = loadFlow(entry)
    return {
      type: entry.type,
      producible: true as const,
      summary: loaded._tag === "Flow" ? summaryOf(loaded.scenario) : `(flow not valid: ${loaded.message})`,
      flow: `scenarios/triggers/${entry.flow}`,
      variables: loaded._tag === "Flow" ? Object.keys(loaded.scenario.vars).filter((name) => name !== "runId") : [],
      customer: entry.customer.reusable ? `--customer: ${entry.customer.needs}` : `always new: ${entry.customer.why}`,
      partner: entry.partner
    }
  })

const printList = (io: Io, json: boolean) => {
  const items = listing()
  if (json) {
    io.stdout(JSON.stringify(items, null, 2))
    return
  }
  io.stdout(`Event types of the partner contract (docs/contract.md "Event types"); npm run trigger -- <type> produces one:`)
  for (const item of items) {
    io.stdout(`  ${item.type.padEnd(width)}${item.producible ? item.summary : `not producible: ${item.why}`}`)
  }
}

const ms = (value: number) => `${Math.round(value)}ms`
export const requestLine = (entry: RequestEntry) =>
  `  ${entry.method} ${entry.path} → ${entry.status === 0 ? `no answer (${entry.error ?? "error"})` : entry.status} ${ms(entry.durationMs)}`

const eventLine = (event: EventItem, wanted: string) =>
  `    ${event.type.padEnd(width)}${event.id}${event.type === wanted ? "  ←" : ""}`

const summary = (result: TriggerResult, io: Io) => {
  const p = paint(io.color === true)
  if (result.ok) {
    const where = result.eventsApiKey !== undefined
      ? `on the new sandbox partner ${result.eventsPartnerId} (API key ${result.eventsApiKey})`
      : `for partner ${result.partner?.name ?? ""} ${result.partner?.partnerId ?? ""}${result.customerId !== undefined ? `, customer ${result.customerId}` : ""}`
    io.stdout(`${p.green("✓")} ${p.bold(result.type)} ${result.produced.map((event) => event.id).join(", ")} ${p.dim(where)}`)
    io.stdout(`  events this run produced (${result.events.length}, oldest first):`)
    for (const event of result.events) io.stdout(eventLine(event, result.type))
    return
  }
  if (result.scenario !== undefined && result.steps.length > 0) {
    const report = formatScenario({
      scenario: result.scenario,
      status: "failed",
      durationMs: 0,
      steps: result.steps,
      recentEvents: result.events.slice(-10).reverse(),
      variables: result.variables
    }, p, result.baseUrl)
    io.stderr(report.split("\n").slice(1).join("\n"))
  }
  io.stderr(`${p.red("✗")} ${p.bold(result.type)}: ${result.error ?? "failed"}`)
  for (const hint of result.hints) io.stderr(`  ${hint}`)
}

export const toJson = (result: TriggerResult) => ({
  type: result.type,
  ok: result.ok,
  exitCode: result.exitCode,
  error: result.error ?? null,
  hints: result.hints,
  baseUrl: result.baseUrl,
  partnerId: result.partner?.partnerId ?? null,
  eventsPartnerId: result.eventsPartnerId ?? null,
  eventsApiKey: result.eventsApiKey ?? null,
  customerId: result.customerId ?? null,
  eventIds: result.produced.map((event) => event.id),
  events: result.events,
  requests: result.requests.map((r) => ({ method: r.method, path: r.path, status: r.status, durationMs: Math.round(r.durationMs) })),
  variables: result.variables
})

/** Runs the command; returns its exit code. */
export const main = async (argv: ReadonlyArray<string>, io: Io): Promise<ExitCode> => {
  if (Help.wantsHelp(argv)) {
    io.stdout(Help.render(triggerHelp, { color: io.color }).trimEnd())
    return 0
  }
  let args: ReturnType<typeof parse>
  try {
    args = parse(argv)
  } catch (error) {
    io.stderr(`trigger: ${Help.parseArgsMessage(error)}\n${usage}`)
    return 2
  }
  const json = args.values.printJson
  if (args.values.list) {
    printList(io, json)
    return 0
  }
  if (args.positionals.length !== 1) {
    io.stderr(`trigger: ${args.positionals.length === 0 ? "name one event type" : `one event type at a time (got ${args.positionals.join(" ")})`}\n${usage}`)
    return 2
  }
  const type = args.positionals[0]!
  const env = readSandboxEnvironment(io.env)
  const url = args.values.url ?? defaultUrl(env)
  let apiKey = args.values.apiKey
  if (apiKey === undefined) {
    const found = defaultApiKeyOrProblem(env)
    if ("problem" in found) {
      io.stderr(`trigger: ${found.problem}`)
      return 3
    }
    apiKey = found.apiKey
  }
  const progress = json ? io.stderr : io.stdout
  if (!json) io.stdout(`Triggering ${type} on ${baseUrlOf(url)}`)
  const result = await trigger({
    type,
    url,
    apiKey,
    customerId: args.values.customer,
    settings: args.values.set,
    onRequest: (entry) => progress(requestLine(entry))
  })
  if (json) {
    if (!result.ok) summary(result, { ...io, stdout: io.stderr })
    io.stdout(JSON.stringify(toJson(result), null, 2))
  } else summary(result, io)
  return result.exitCode
}
