import { useColor } from "./Help.js"
import { main } from "./trigger/Cli.js"

/** `npm run trigger -- <event type> [--customer id] [--set key=value] [--print-json]`, `--list`: see docs/sandbox-trigger.md. */
const code = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  color: useColor(process.stdout)
})
// a CLI run ends here: do not wait for idle keep-alive sockets of the HTTP client; exit once stdout is flushed
process.stdout.write("", () => process.exit(code))
