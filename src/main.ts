import { Args, Command, Options } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { ConfigError, Console, Effect, Layer, Logger } from "effect"
import { Banner, makeOperatorLayer, makeServicesLayer, ServerLayer } from "./App.js"
import { decideKybInTransaction } from "./console/Console.js"
import { transaction } from "./events/Events.js"
import * as AppConfig from "./config/AppConfig.js"
import * as Database from "./db/Database.js"
import { checkLedger } from "./ledger/LedgerCheck.js"
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

const serve = Command.make("serve", {}, () =>
  withConfig(
    Layer.launch(Banner.pipe(Layer.provideMerge(ServerLayer), Layer.provideMerge(makeServicesLayer(Database.layerFromConfig)))),
    serverLogger
  )).pipe(Command.withDescription("Run the HTTP server (sandbox mode on the embedded database by default)"))

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
  )).pipe(Command.withDescription("Verify every ledger invariant against the configured database"))

const scenario = Command.make("scenario", scenarioCommandConfig, (args) => withConfig(runScenarioCommand(args))).pipe(
  Command.withDescription("Run QA scenario files (YAML) end to end, in-process by default or against --url")
)

const partnerKyb = Command.make("partner-kyb", {
  partner: Args.text({ name: "partner" }).pipe(Args.withDescription("the partner's id, or its console sign-in email")),
  decision: Args.choice([["approve", "APPROVED"], ["reject", "REJECTED"], ["request-resubmission", "RESUBMISSION_REQUESTED"]] as const, {
    name: "decision"
  }),
  reason: Options.text("reason").pipe(Options.optional, Options.withDescription("required for reject and request-resubmission"))
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
  )).pipe(Command.withDescription("Compliance's KYB decision on a partner under review: approve, reject or request-resubmission"))

const root = Command.make("service").pipe(Command.withSubcommands([serve, ledgerCheck, scenario, partnerKyb]))

const cli = Command.run(root, { name: "partner-money-movement", version: "0.1.0" })

cli(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disablePrettyLogger: true }))
