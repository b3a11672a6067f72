import { describeParts, urlOf } from "./Client.js"
import { formatDurationMs } from "./Duration.js"
import type { ScenarioResult } from "./Execute.js"
import type { LoadError } from "./Loader.js"
import { show } from "./Matchers.js"
import type { StepResult } from "./Steps.js"

/** Human-readable output (✓/✗ per step, details of a failure) and JUnit XML. */
export interface Totals {
  readonly scenarios: { passed: number; failed: number }
  readonly steps: { passed: number; failed: number; skipped: number }
  readonly invalidFiles: number
  readonly durationMs: number
}

interface Paint {
  readonly green: (s: string) => string
  readonly red: (s: string) => string
  readonly dim: (s: string) => string
  readonly bold: (s: string) => string
}

export const paint = (enabled: boolean): Paint => {
  const wrap = (code: string) => (s: string) => (enabled ? `\u001b[${code}m${s}\u001b[0m` : s)
  return { green: wrap("32"), red: wrap("31"), dim: wrap("2"), bold: wrap("1") }
}

export const formatLoadErrors = (file: string, errors: ReadonlyArray<LoadError>, p: Paint): string =>
  [`${p.red("✗")} ${p.bold(file)} ${p.red("is not a valid scenario file")}`, ...errors.map((e) => `    ${e.file}:${e.line}:${e.column}  ${e.message}`)].join("\n")

const failureDetails = (result: StepResult, baseUrl: string | undefined): Array<string> => {
  const failure = result.failure
  if (failure === undefined) return []
  const lines = [`at ${result.file}:${result.line}`, failure.message]
  const { request, response, mismatches } = failure.details
  if (request !== undefined) {
    lines.push(`request:  ${request.method} ${baseUrl !== undefined ? urlOf(baseUrl, request) : request.path}`)
    if (request.body !== undefined) lines.push(`          body ${show(request.body, 600)}`)
    if (request.multipart !== undefined) lines.push(`          multipart ${describeParts(request.multipart)}`)
  }
  if (response !== undefined) lines.push(`response: ${response.status} ${show(response.body, 800)}`)
  if (mismatches !== undefined && mismatches.length > 0) {
    lines.push("expected vs actual:")
    for (const m of mismatches) lines.push(`  ${m.path === "" ? "(root)" : m.path}: ${m.message}`)
  }
  return lines
}

const formatSteps = (steps: ReadonlyArray<StepResult>, p: Paint, baseUrl: string | undefined, depth: number): Array<string> => {
  const pad = "  ".repeat(depth + 1)
  const lines: Array<string> = []
  for (const step of steps) {
    const mark = step.status === "passed" ? p.green("✓") : step.status === "failed" ? p.red("✗") : p.dim("-")
    const time = step.status === "skipped" ? p.dim("skipped") : p.dim(formatDurationMs(step.durationMs))
    lines.push(`${pad}${mark} ${step.status === "skipped" ? p.dim(step.label) : step.label} ${time}`)
    // the inside of a repeat or include is shown only when it failed, up to its last 20 steps
    if (step.status === "failed" && step.children.length > 0) lines.push(...formatSteps(step.children.slice(-20), p, baseUrl, depth + 1))
    if (step.status === "failed") lines.push(...failureDetails(step, baseUrl).map((line) => `${pad}    ${p.red("│")} ${line}`))
  }
  return lines
}

export const formatScenario = (result: ScenarioResult, p: Paint, baseUrl?: string): string => {
  const mark = result.status === "passed" ? p.green("✓") : p.red("✗")
  const lines = [`${mark} ${p.bold(result.scenario.name)} ${p.dim(`${result.scenario.file} · seed ${result.scenario.seed} · ${formatDurationMs(result.durationMs)}`)}`]
  if (result.setupError !== undefined) lines.push(`    ${p.red("│")} could not start: ${result.setupError}`)
  lines.push(...formatSteps(result.steps, p, baseUrl, 0))
  if (result.status === "failed" && result.recentEvents.length > 0) {
    lines.push(`    ${p.dim("recent events (newest first):")}`)
    for (const event of result.recentEvents) {
      lines.push(`      ${p.dim(event.createdAt)} ${event.type}${event.customerId !== null ? ` customer ${event.customerId}` : ""} ${p.dim(show(event.data, 200))}`)
    }
  }
  return lines.join("\n")
}

export const countSteps = (steps: ReadonlyArray<StepResult>, totals: Totals["steps"]) => {
  for (const step of steps) totals[step.status]++
}

export const formatSummary = (totals: Totals, p: Paint): string => {
  const s = totals.scenarios
  const parts = [
    `${p.bold("Scenarios")}: ${s.passed} passed${s.failed > 0 ? `, ${p.red(`${s.failed} failed`)}` : ""} (${s.passed + s.failed})`,
    `${p.bold("Steps")}: ${totals.steps.passed} passed${totals.steps.failed > 0 ? `, ${p.red(`${totals.steps.failed} failed`)}` : ""}${totals.steps.skipped > 0 ? `, ${totals.steps.skipped} skipped` : ""}`
  ]
  if (totals.invalidFiles > 0) parts.push(p.red(`${totals.invalidFiles} invalid file(s)`))
  parts.push(`${p.bold("Time")}: ${formatDurationMs(totals.durationMs)}`)
  return parts.join(" · ")
}

const xml = (text: string) =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const seconds = (ms: number) => (ms / 1000).toFixed(3)

const flatten = (steps: ReadonlyArray<StepResult>): Array<StepResult> =>
  steps.flatMap((step) => (step.status === "failed" && step.children.length > 0 ? [step, ...flatten(step.children).filter((c) => c.status === "failed")] : [step]))

export const junit = (results: ReadonlyArray<ScenarioResult>, invalid: ReadonlyArray<{ file: string; errors: ReadonlyArray<LoadError> }>, totals: Totals): string => {
  const suites: Array<string> = []
  for (const { file, errors } of invalid) {
    const message = errors.map((e) => `${e.file}:${e.line}:${e.column} ${e.message}`).join("\n")
    suites.push(`  <testsuite name="${xml(file)}" tests="1" failures="1" skipped="0" time="0">\n    <testcase classname="${xml(file)}" name="load" file="${xml(file)}"><failure message="invalid scenario file">${xml(message)}</failure></testcase>\n  </testsuite>`)
  }
  for (const result of results) {
    const steps = flatten(result.steps)
    const cases = steps.map((step) => {
      const attributes = `classname="${xml(result.scenario.name)}" name="${xml(step.label)}" time="${seconds(step.durationMs)}" file="${xml(step.file)}" line="${step.line}"`
      if (step.status === "skipped") return `    <testcase ${attributes}><skipped/></testcase>`
      if (step.status === "failed" && step.failure !== undefined) {
        return `    <testcase ${attributes}><failure message="${xml(step.failure.message)}">${xml(failureDetails(step, undefined).join("\n"))}</failure></testcase>`
      }
      return `    <testcase ${attributes}/>`
    })
    if (result.setupError !== undefined) cases.push(`    <testcase classname="${xml(result.scenario.name)}" name="setup"><error message="${xml(result.setupError)}"/></testcase>`)
    const failures = steps.filter((s) => s.status === "failed" && s.failure !== undefined).length
    const skipped = steps.filter((s) => s.status === "skipped").length
    suites.push(`  <testsuite name="${xml(result.scenario.name)}" file="${xml(result.scenario.file)}" tests="${cases.length}" failures="${failures}" errors="${result.setupError !== undefined ? 1 : 0}" skipped="${skipped}" time="${seconds(result.durationMs)}">\n${cases.join("\n")}\n  </testsuite>`)
  }
  const tests = totals.steps.passed + totals.steps.failed + totals.steps.skipped + totals.invalidFiles
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="scenarios" tests="${tests}" failures="${totals.steps.failed + totals.invalidFiles}" time="${seconds(totals.durationMs)}">\n${suites.join("\n")}\n</testsuites>\n`
}
