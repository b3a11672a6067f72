import { EncryptionKeyMismatch } from "./crypto/KeyCheck.js"
import { Args, Command, Options, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { ConfigError, Console, Effect, Layer, Logger, Option } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Banner, makeOperatorLayer, makeServicesLayer, ServerLayer } from "./App.js"
import * as CliOptions from "./cli/CliOptions.js"
import * as Help from "./cli/Help.js"
import {
  ledgerCheckHelp,
  partnerKybArguments,
  partnerKybDecisions,
  partnerKybHelp,
  partnerKybOptions,
  scenarioHelp,
  serveHelp,
  serviceCommands,
  serviceHelp
} from "./cli/HelpTexts.js"
import { decideKybInTransaction } from "./console/Console.js"
import { transaction } from "./events/Events.js"
import * as AppConfig from "./config/AppConfig.js"
import * as Database from "./db/Database.js"
import { checkLedger } from "./ledger/LedgerCheck.js"
import * as Workers from "./process/Workers.js"
import { runScenarioCommand, scenarioCommandConfig } from "./scenario/Runner.js"

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

const withConfig = <A, E, R>(effect: Effect.Effect<A, E, R>, logger: Layer.Layer<never> = Logger.logFmt) =>
  Effect.gen(function*() {
    const config = yield* AppConfig.appConfig
    return yield* effect.pipe(
      Effect.provide(Layer.succeed(AppConfig.AppConfig, config)),
      Effect.provide(logger),
      Logger.withMinimumLogLevel(config.logLevel)
    )
  }).pipe(
    Effect.catchIf(ConfigError.isConfigError, (error) =>
      Effect.zipRight(Console.error(AppConfig.describeConfigError(error)), Effect.sync(() => process.exit(78))))
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

const serve = Command.make("serve", {}, () =>
  withConfig(
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
  )).pipe(Command.withDescription(serveHelp.summary))

const ledgerCheck = Command.make("ledger-check", {}, () =>
  withConfig(
    Effect.gen(function*() {
      const report = yield* checkLedger
      yield* Console.log(JSON.stringify(report, null, 2))
      if (report.violations.length > 0) {
        return yield* Effect.fail(new Error(`${report.violations.length} ledger invariant violation(s)`))
      }
      yield* Console.log("ledger: every invariant holds")
    }).pipe(Effect.provide(Database.layer))
  )).pipe(Command.withDescription(ledgerCheckHelp.summary))

const scenario = Command.make("scenario", scenarioCommandConfig, (args) => withConfig(runScenarioCommand(args))).pipe(
  Command.withDescription(scenarioHelp.summary)
)

const partnerKyb = Command.make("partner-kyb", {
  partner: CliOptions.textArgument(partnerKybArguments.partner),
  decision: Args.choice(partnerKybDecisions, { name: partnerKybArguments.decision.name }).pipe(
    Args.withDescription(partnerKybArguments.decision.description)
  ),
  reason: CliOptions.text(partnerKybOptions.reason).pipe(Options.optional)
}, ({ decision, partner, reason }) =>
  withConfig(
    Effect.gen(function*() {
      const partnerId = yield* transaction(decideKybInTransaction(partner, {
        decision,
        ...(reason._tag === "Some" ? { reason: reason.value } : {})
      }))
      yield* Console.log(`partner ${partnerId}: KYB ${decision}`)
    }).pipe(
      Effect.catchTags({
        BadRequest: (error) => Effect.fail(new Error(error.message)),
        KybNotUnderReview: (error) => Effect.fail(new Error(error.message))
      }),
      Effect.provide(makeOperatorLayer(Database.layerFromConfig))
    )
  )).pipe(Command.withDescription(partnerKybHelp.summary))

const root = Command.make("service").pipe(Command.withSubcommands([serve, ledgerCheck, scenario, partnerKyb]))

const cli = Command.run(root, { name: "partner-money-movement", version: "0.1.0" })

const argv = process.argv.slice(2)
/** The subcommand the arguments name (the first argument that is one), whose help and usage line apply. */
const subcommand = argv.find((arg) => serviceCommands.some(({ name }) => name === arg))
const named = serviceCommands.find(({ name }) => name === subcommand)?.help ?? serviceHelp

if (Help.wantsHelp(argv) || argv.length === 0) {
  // Our own help (src/cli/HelpTexts.ts), anywhere among the arguments, before @effect/cli parses anything.
  process.stdout.write(Help.render(named, { color: Help.useColor(process.stdout) }), () => process.exit(0))
} else {
  cli(process.argv).pipe(
    // @effect/cli has printed what is wrong (an unknown command or option, a missing argument): point at the help.
    Effect.catchIf(ValidationError.isValidationError, () =>
      Effect.sync(() => {
        process.stderr.write(`${Help.seeHelp(named)}\n`)
        process.exit(2)
      })),
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({ disablePrettyLogger: true })
  )
}
