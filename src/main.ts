import * as Help from "./cli/Help.js"
import { serviceCommands, serviceHelp } from "./cli/HelpTexts.js"

/**
 * The service's command line (`npm start` runs `serve`; docs/cli.md). Help is printed from src/cli/HelpTexts.ts
 * before anything else loads; the parsers (src/cli/ServiceCommands.ts) load only for a command with arguments to parse
 * (a bare `serve` starts without them: src/cli/Running.ts), and the service (src/cli/ServiceRun.ts) only once a command
 * runs. The bundle (esbuild.config.mjs) keeps each in a chunk of
 * its own, so `--help` starts in a fraction of the time the whole service takes to load.
 */
const argv = process.argv.slice(2)
/** The subcommand the arguments name (the first argument that is one), whose help and usage line apply. */
const subcommand = argv.find((arg) => serviceCommands.some(({ name }) => name === arg))
const named = serviceCommands.find(({ name }) => name === subcommand)?.help ?? serviceHelp

if (Help.wantsHelp(argv) || argv.length === 0) {
  // Our own help (src/cli/HelpTexts.ts), anywhere among the arguments, before @effect/cli parses anything.
  process.stdout.write(Help.render(named, { color: Help.useColor(process.stdout) }), () => process.exit(0))
} else if (argv.length === 1 && argv[0] === "serve") {
  // `npm start`: nothing to parse, so @effect/cli's parsers are not loaded (src/cli/Running.ts).
  const { serveMain } = await import("./cli/Running.js")
  serveMain()
} else {
  const { main } = await import("./cli/ServiceCommands.js")
  main(process.argv, named)
}
