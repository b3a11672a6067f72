import * as Help from "./Help.js"
import { listenHelp } from "./HelpTexts.js"

/**
 * `npm run listen -- --forward-to http://127.0.0.1:3000/webhooks [--events type,...]` (docs/sandbox-listen.md): the
 * entry. Help is printed from src/cli/HelpTexts.ts before anything else loads; listen itself (src/cli/listen/Command.ts:
 * Effect, @effect/cli, the HTTP client) loads only to run, as the service's entry (src/main.ts) does.
 */

// A closed stdout (`| head`) ends listen quietly.
process.stdout.on("error", () => process.exit(0))

if (Help.wantsHelp(process.argv.slice(2))) {
  // Our own help, anywhere among the arguments, before @effect/cli parses anything.
  process.stdout.write(Help.render(listenHelp, { color: Help.useColor(process.stdout) }), () => process.exit(0))
} else {
  const { main } = await import("./listen/Command.js")
  main(process.argv)
}
