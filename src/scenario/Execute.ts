import { send } from "./Client.js"
import { control, type RunContext } from "./Context.js"
import { Scope } from "./Interpolate.js"
import type { Scenario } from "./Language.js"
import type { EventItem } from "./Observations.js"
import type { WebhookReceiver } from "./Receiver.js"
import { runSteps, type StepResult } from "./Steps.js"
import type { Target } from "./Target.js"

/** One scenario from a clean partner to its last step. */
export interface ScenarioResult {
  readonly scenario: Scenario
  readonly status: "passed" | "failed"
  readonly durationMs: number
  readonly steps: ReadonlyArray<StepResult>
  /** Set when the scenario could not start (service, partner creation). */
  readonly setupError?: string | undefined
  /** The partner's newest events, shown with a failure. */
  readonly recentEvents: ReadonlyArray<EventItem>
  /** Every name the scenario ended with (built-ins, vars and saves). */
  readonly variables: Readonly<Record<string, unknown>>
}

const recentEventsMax = 10

export const runScenario = async (scenario: Scenario, target: Target, receiver: WebhookReceiver): Promise<ScenarioResult> => {
  const started = performance.now()
  const inbox = receiver.open()
  const failed = (setupError: string): ScenarioResult =>
    ({ scenario, status: "failed", durationMs: performance.now() - started, steps: [], setupError, recentEvents: [], variables: {} })
  try {
    const created = await send(target.baseUrl, { method: "POST", path: "/sandbox/partners", body: { kybStatus: scenario.partner.kybStatus ?? "APPROVED", name: scenario.partner.name ?? scenario.name.slice(0, 200) } })
      .catch((error: Error) => ({ status: 0, body: error.message, headers: {} }))
    const partner = (created.body as { data?: { partnerId: string; apiKey: string } } | undefined)?.data
    if (created.status !== 201 || partner === undefined) {
      return failed(`could not create the scenario's partner (POST /sandbox/partners answered ${created.status}: ${JSON.stringify(created.body)})`)
    }
    const scope = new Scope(new Map<string, unknown>([
      ["apiKey", partner.apiKey],
      ["partnerId", partner.partnerId],
      ["baseUrl", target.baseUrl],
      ["webhookUrl", inbox.url],
      ["seed", scenario.seed],
      ["scenario", scenario.name]
    ]))
    const context: RunContext = { baseUrl: target.baseUrl, apiKey: partner.apiKey, inbox, scope }
    for (const [name, value] of Object.entries(scenario.vars)) scope.set(name, scope.interpolate(value))
    const outcome = await runSteps(context, scenario.steps)
    let recentEvents: ReadonlyArray<EventItem> = []
    if (outcome.failed) {
      recentEvents = await control(context, { method: "GET", path: "/sandbox/events", query: { limit: recentEventsMax } })
        .catch(() => []) as ReadonlyArray<EventItem>
    }
    return { scenario, status: outcome.failed ? "failed" : "passed", durationMs: performance.now() - started, steps: outcome.results, recentEvents,
      variables: Object.fromEntries(scope.names().map((name) => [name, scope.get(name)])) }
  } catch (error) {
    return failed((error as Error).message)
  } finally {
    receiver.release(inbox)
  }
}
