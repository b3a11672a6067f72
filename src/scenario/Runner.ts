import { Effect, LogLevel, Option } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { glob, isDynamicPattern } from "tinyglobby"
import { AppConfig, type AppConfigShape } from "../config/AppConfig.js"
import { runScenario, type ScenarioResult } from "./Execute.js"
import type { Scenario, Step } from "./Language.js"
import { type LoadError, loadFile } from "./Loader.js"
import { WebhookReceiver } from "./Receiver.js"
import { countSteps, formatLoadErrors, formatScenario, formatSummary, junit, paint, type Totals } from "./Report.js"
import { makeDatabasePool, makeTemplate, remote, startInProcess, type Target } from "./Target.js"

/**
 * `npm run scenario -- <files or globs>`: loads and validates every file first (an invalid file stops the run
 * before any step), then runs the scenarios, `concurrency` at a time. In-process (the default) each scenario has
 * its own service, so all of them can run in parallel; against `--url` the service and its clock are shared,
 * so scenarios that advance the clock run one at a time after the others.
 */
export interface RunOptions {
  readonly patterns: ReadonlyArray<string>
  readonly url?: string | undefined
  readonly concurrency: number
  readonly reporter: "console" | "junit"
  readonly output?: string | undefined
  readonly config: AppConfigShape
  readonly write: (text: string) => void
  readonly color: boolean
  /** In-process: the migrated database to copy for each scenario (a PGlite data-dir tarball); made here when absent. */
  readonly template?: Blob | undefined
}

export interface RunSummary {
  readonly exitCode: number
  readonly totals: Totals
  readonly results: ReadonlyArray<ScenarioResult>
  readonly invalid: ReadonlyArray<{ readonly file: string; readonly errors: ReadonlyArray<LoadError> }>
}

/** Files named by the arguments: globs expanded here (quoted globs reach us unexpanded), directories searched. */
export const expandPatterns = async (patterns: ReadonlyArray<string>): Promise<Array<string>> => {
  const files: Array<string> = []
  for (const pattern of patterns) {
    if (isDynamicPattern(pattern)) files.push(...(await glob(pattern, { onlyFiles: true, expandDirectories: false })).sort())
    else if (NodeFs.existsSync(pattern) && NodeFs.statSync(pattern).isDirectory()) {
      files.push(...(await glob(`${pattern.replace(/\/+$/, "")}/**/*.{yaml,yml}`, { onlyFiles: true })).sort())
    } else files.push(pattern)
  }
  return [...new Set(files.map((file) => NodePath.normalize(file)))]
}

const advancesClock = (steps: ReadonlyArray<Step>): boolean =>
  steps.some((step) => step.kind === "advance" || advancesClock(step.children))

export const runScenarios = async (options: RunOptions): Promise<RunSummary> => {
  const started = performance.now()
  const p = paint(options.color)
  const totals: { -readonly [K in keyof Totals]: Totals[K] } = {
    scenarios: { passed: 0, failed: 0 },
    steps: { passed: 0, failed: 0, skipped: 0 },
    invalidFiles: 0,
    durationMs: 0
  }
  const finish = (results: ReadonlyArray<ScenarioResult>, invalid: RunSummary["invalid"], exitCode: number): RunSummary => {
    totals.durationMs = performance.now() - started
    options.write(`\n${formatSummary(totals, p)}`)
    if (options.reporter === "junit") {
      const report = junit(results, invalid, totals)
      if (options.output !== undefined) {
        NodeFs.mkdirSync(NodePath.dirname(NodePath.resolve(options.output)), { recursive: true })
        NodeFs.writeFileSync(options.output, report)
        options.write(`JUnit report written to ${options.output}`)
      } else options.write(report)
    }
    return { exitCode, totals, results, invalid }
  }

  const files = await expandPatterns(options.patterns)
  if (files.length === 0) {
    options.write(p.red(`no scenario files match ${options.patterns.join(" ")}`))
    return finish([], [], 2)
  }
  const scenarios: Array<Scenario> = []
  const invalid: Array<{ file: string; errors: ReadonlyArray<LoadError> }> = []
  for (const file of files) {
    const loaded = loadFile(file)
    if (loaded._tag === "Scenario") scenarios.push(loaded.scenario)
    else if (loaded._tag === "Invalid") invalid.push({ file: loaded.file, errors: loaded.errors })
  }
  if (invalid.length > 0) {
    totals.invalidFiles = invalid.length
    for (const { file, errors } of invalid) options.write(formatLoadErrors(file, errors, p))
    options.write(p.red("\nnothing was run: fix the files above first"))
    return finish([], invalid, 1)
  }
  if (scenarios.length === 0) {
    options.write(p.red(`no scenarios in ${files.join(", ")} (only fixtures)`))
    return finish([], [], 2)
  }

  const receiver = await WebhookReceiver.start()
  const results: Array<ScenarioResult> = []
  const record = (result: ScenarioResult, baseUrl: string) => {
    results.push(result)
    totals.scenarios[result.status]++
    countSteps(result.steps, totals.steps)
    options.write(formatScenario(result, p, baseUrl))
  }
  try {
    const mode = options.url !== undefined ? `against ${options.url}` : "in-process (a fresh service per scenario)"
    options.write(p.dim(`Running ${scenarios.length} scenario(s) ${mode}, ${options.concurrency} at a time\n`))
    if (options.url !== undefined) {
      const target = remote(options.url)
      const run = (scenario: Scenario) => Effect.promise(() => runScenario(scenario, target, receiver).then((r) => record(r, target.baseUrl)))
      await Effect.runPromise(Effect.forEach(scenarios.filter((s) => !advancesClock(s.steps)), run, { concurrency: options.concurrency, discard: true }))
      await Effect.runPromise(Effect.forEach(scenarios.filter((s) => advancesClock(s.steps)), run, { discard: true }))
    } else {
      const databases = makeDatabasePool(options.template ?? await makeTemplate())
      const config = { ...options.config, logLevel: LogLevel.Error }
      const run = (scenario: Scenario) =>
        Effect.promise(async () => {
          let target: Target | undefined
          const db = await databases.take()
          try {
            try {
              target = await startInProcess(config, db, scenario.seed)
            } catch (error) {
              record({ scenario, status: "failed", durationMs: 0, steps: [], setupError: `the service did not start: ${String(error)}`, recentEvents: [], variables: {} }, "")
              return
            }
            try {
              record(await runScenario(scenario, target, receiver), target.baseUrl)
            } finally {
              await target.close()
            }
          } finally {
            databases.give(db)
          }
        })
      try {
        await Effect.runPromise(Effect.forEach(scenarios, run, { concurrency: options.concurrency, discard: true }))
      } finally {
        await databases.close()
      }
    }
  } finally {
    await receiver.close()
  }
  return finish(results, [], totals.scenarios.failed > 0 ? 1 : 0)
}

/** The `scenario` command's arguments and options (see src/main.ts), described once in src/cli/HelpTexts.ts. */

export const runScenarioCommand = (args: {
  readonly files: ReadonlyArray<string>
  readonly url: Option.Option<string>
  readonly concurrency: number
  readonly reporter: "console" | "junit"
  readonly output: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const summary = yield* Effect.promise(() =>
      runScenarios({
        patterns: args.files,
        url: Option.getOrUndefined(args.url),
        concurrency: Math.max(1, args.concurrency),
        reporter: args.reporter,
        output: Option.getOrUndefined(args.output),
        config,
        write: (text) => process.stdout.write(`${text}\n`),
        color: process.stdout.isTTY === true
      })
    )
    // a CLI run ends here: do not wait for idle keep-alive sockets of the HTTP client
    yield* Effect.sync(() => process.exit(summary.exitCode))
  })
