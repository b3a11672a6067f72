import { Console, Effect, Layer, Logger, Option } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Banner, makeOperatorLayer, makeServicesLayer, ServerLayer } from "../App.js"
import * as AppConfig from "../config/AppConfig.js"
import { decideKybInTransaction } from "../console/Console.js"
import { EncryptionKeyMismatch } from "../crypto/KeyCheck.js"
import * as Database from "../db/Database.js"
import { transaction } from "../events/Events.js"
import { checkLedger } from "../ledger/LedgerCheck.js"
import * as Workers from "../process/Workers.js"

/**
 * What the service's commands run (src/cli/ServiceCommands.ts parses them): the whole service is imported here, and
 * this module is loaded only once a command is to run, so `--help`, a usage error or `--completions` never load it.
 */

/**
 * The server's log: logfmt lines, written to stdout together every `serverLogWindow` instead of one write per line
 * (one per request otherwise: a system call that costs ~0.1 ms on a pipe). What is buffered when the server stops is
 * written then; a process killed outright loses at most the last window's lines.
 */
const serverLogWindow = "10 millis"
const serverLogger = Logger.replaceScoped(
  Logger.defaultLogger,
  Logger.batched(Logger.logfmtLogger, serverLogWindow, (lines) => Effect.sync(() => process.stdout.write(`${lines.join("\n")}\n`)))
)

/**
 * A command with the configuration src/cli/ServiceCommands.ts read (and refused, exit 78, before this module loaded)
 * and the log at its level.
 */
const withConfig = <A, E, R>(effect: Effect.Effect<A, E, R>, logger: Layer.Layer<never> = Logger.logFmt) =>
(config: AppConfig.AppConfigShape) =>
  effect.pipe(
    Effect.provide(Layer.succeed(AppConfig.AppConfig, config)),
    Effect.provide(logger),
    Logger.withMinimumLogLevel(config.logLevel)
  )

/** Another instance (or an earlier start) sealed this database's data with another key: a configuration error, 78. */
const exitOnKeyMismatch = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(effect, (error) => error instanceof EncryptionKeyMismatch, (error) =>
    Effect.zipRight(Console.error((error as EncryptionKeyMismatch).message), Effect.sync(() => process.exit(78))))

/** A start-up phase a person waits for (`npm start` on a new DATA_DIR), on stderr: stdout has the banner and the log. */
const phase = (line: string) => Effect.sync(() => void process.stderr.write(`${line}\n`))

/**
 * The configured database, saying what takes the time on a first start: a new embedded database runs initdb and
 * then every migration (about 10 s on a laptop; an existing one opens in well under a second and prints nothing).
 */
const announcedDatabase = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig.AppConfig
  const fresh = Option.isNone(config.databaseUrl) && config.dataDir !== ":memory:" &&
    !NodeFs.existsSync(NodePath.join(config.dataDir, "pgdata", "PG_VERSION"))
  if (!fresh) return Database.layerFromConfig
  yield* phase(`creating the embedded database in ${config.dataDir} (first run, about 10 s)…`)
  const started = Date.now()
  return Database.layerFromConfig.pipe(
    Layer.tap(() => phase(`applying migrations (database created in ${((Date.now() - started) / 1000).toFixed(1)} s)…`))
  )
}))

/** The service in this process, or, with WORKERS > 1, the primary that runs it in that many (src/process/Workers.ts). */
const serveHere = exitOnKeyMismatch(Layer.launch(Banner.pipe(Layer.provideMerge(ServerLayer), Layer.provideMerge(makeServicesLayer(announcedDatabase)))))

/** `serve`: the service in this process, or its primary supervising WORKERS processes. */
export const serve = withConfig(
  Effect.flatMap(AppConfig.AppConfig, (config) => {
    const workers = config.workers ?? 1
    if (workers === 1 || Workers.isWorker()) return serveHere
    // The primary supervises until every worker has stopped (a signal waits for them: uninterruptible).
    return Effect.zipRight(
      phase(`starting ${workers} worker processes on one port (WORKERS=${workers})…`),
      Effect.flatMap(
        Effect.uninterruptible(Effect.promise(() => Workers.supervise(workers, (line) => void process.stderr.write(`${line}\n`)))),
        (code) => Effect.sync(() => process.exit(code))
      )
    )
  }),
  serverLogger
)

/** `ledger-check`: every invariant of the configured database's ledger; fails when one does not hold. */
export const ledgerCheck = withConfig(
  Effect.gen(function*() {
    const report = yield* checkLedger
    yield* Console.log(JSON.stringify(report, null, 2))
    if (report.violations.length > 0) {
      return yield* Effect.fail(new Error(`${report.violations.length} ledger invariant violation(s)`))
    }
    yield* Console.log("ledger: every invariant holds")
  }).pipe(Effect.provide(Database.layer))
)

type ScenarioRunner = typeof import("../scenario/Runner.js")

/**
 * `scenario`: the scenario files against an in-process service (or `--url`). The runner (its YAML reader, file
 * globbing and reports) is loaded by this command only, not by every start of the service.
 */
export const scenario = (args: Parameters<ScenarioRunner["runScenarioCommand"]>[0]) =>
  withConfig(Effect.flatMap(Effect.promise(() => import("../scenario/Runner.js")), (runner) => runner.runScenarioCommand(args)))

/** `partner-kyb`: an operator's KYB decision on a partner. */
export const partnerKyb = (input: {
  readonly partner: string
  readonly decision: "APPROVED" | "REJECTED" | "RESUBMISSION_REQUESTED"
  readonly reason: Option.Option<string>
}) =>
  withConfig(
    Effect.gen(function*() {
      const partnerId = yield* transaction(decideKybInTransaction(input.partner, {
        decision: input.decision,
        ...(Option.isSome(input.reason) ? { reason: input.reason.value } : {})
      }))
      yield* Console.log(`partner ${partnerId}: KYB ${input.decision}`)
    }).pipe(
      Effect.catchTags({
        BadRequest: (error) => Effect.fail(new Error(error.message)),
        KybNotUnderReview: (error) => Effect.fail(new Error(error.message))
      }),
      Effect.provide(makeOperatorLayer(Database.layerFromConfig))
    )
  )
