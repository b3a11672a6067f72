import { Args, Command, Options, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import * as CliOptions from "./CliOptions.js"
import * as Help from "./Help.js"
import * as Running from "./Running.js"
import {
  ledgerCheckHelp,
  partnerKybArguments,
  partnerKybDecisions,
  partnerKybHelp,
  partnerKybOptions,
  scenarioArguments,
  scenarioHelp,
  scenarioOptions,
  serveHelp
} from "./HelpTexts.js"

/**
 * The service's commands as @effect/cli parses them (`serve`, `ledger-check`, `scenario`, `partner-kyb`). Parsing
 * needs no more than this module: what a command runs is src/cli/ServiceRun.ts, which imports the whole service and
 * is loaded only when a parsed command runs (src/cli/Running.ts; a usage error or `--completions` never loads it).
 */
const serve = Command.make("serve", {}, () => Running.serve).pipe(Command.withDescription(serveHelp.summary))

const ledgerCheck = Command.make("ledger-check", {}, () => Running.running((run, config) => run.ledgerCheck(config))).pipe(
  Command.withDescription(ledgerCheckHelp.summary)
)

const scenario = Command.make("scenario", {
  files: CliOptions.textArgument(scenarioArguments[0]!).pipe(Args.atLeast(1)),
  url: CliOptions.text(scenarioOptions.url).pipe(Options.optional),
  concurrency: CliOptions.integer(scenarioOptions.concurrency).pipe(Options.withDefault(Number(scenarioOptions.concurrency.default))),
  reporter: CliOptions.choice(scenarioOptions.reporter).pipe(Options.withDefault(scenarioOptions.reporter.default)),
  output: CliOptions.text(scenarioOptions.output).pipe(Options.optional)
}, (args) => Running.running((run, config) => run.scenario(args)(config))).pipe(Command.withDescription(scenarioHelp.summary))

const partnerKyb = Command.make("partner-kyb", {
  partner: CliOptions.textArgument(partnerKybArguments.partner),
  decision: Args.choice(partnerKybDecisions, { name: partnerKybArguments.decision.name }).pipe(
    Args.withDescription(partnerKybArguments.decision.description)
  ),
  reason: CliOptions.text(partnerKybOptions.reason).pipe(Options.optional)
}, (input) => Running.running((run, config) => run.partnerKyb(input)(config))).pipe(Command.withDescription(partnerKybHelp.summary))

const root = Command.make("service").pipe(Command.withSubcommands([serve, ledgerCheck, scenario, partnerKyb]))

const cli = Command.run(root, { name: "partner-money-movement", version: "0.1.0" })

/**
 * Parses `argv` (process.argv) and runs the command, as the process's main; `help` is the help of the command named
 * (its usage line is pointed at after a usage error, exit 2).
 */
export const main = (argv: ReadonlyArray<string>, help: Help.CommandHelp): void =>
  cli(argv).pipe(
    // @effect/cli has printed what is wrong (an unknown command or option, a missing argument): point at the help.
    Effect.catchIf(ValidationError.isValidationError, () =>
      Effect.sync(() => {
        process.stderr.write(`${Help.seeHelp(help)}\n`)
        process.exit(2)
      })),
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({ disablePrettyLogger: true })
  )
