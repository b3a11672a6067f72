import { parseArgs } from "node:util"
import * as Help from "../cli/Help.js"
import { tuiHelp, tuiOptions } from "../cli/HelpTexts.js"
import type { Backend } from "./Backend.js"

/**
 * `npm run tui [-- --url <base_url> --key <api key> --output json]`: the terminal UI, or with `--output json` the
 * live event feed as NDJSON on stdout. Defaults reach the sandbox that `npm start` runs on this machine: the URL
 * from HOST and PORT, the demo partner's key from ENCRYPTION_KEY or DATA_DIR/encryption.key. The options and the
 * help are src/cli/HelpTexts.ts's `tuiOptions` and `tuiHelp`.
 */

const fail = (message: string): never => {
  process.stderr.write(`tui: ${message}\n`)
  process.exit(1)
}

const main = async () => {
  if (Help.wantsHelp(process.argv.slice(2))) {
    // Before the rest loads (Effect, the HTTP backend): help answers at once, as the service's entry does.
    process.stdout.write(Help.render(tuiHelp, { color: Help.useColor(process.stdout) }))
    return
  }
  const { defaultApiKeyOrProblem, defaultUrl, readSandboxEnvironment } = await import("../cli/Defaults.js")
  const { BackendError, followEvents, httpBackend, normaliseBaseUrl } = await import("./Backend.js")
  /** The demo partner's key, or the one-line refusal (the same lookup `npm run listen` and `npm run trigger` make). */
  const defaultKey = (env: Parameters<typeof defaultApiKeyOrProblem>[0]): string => {
    const found = defaultApiKeyOrProblem(env, "--key")
    return "apiKey" in found ? found.apiKey : fail(found.problem)
  }
  let values: Record<string, unknown>
  try {
    values = parseArgs({ options: Help.parseArgsOptions(Object.values(tuiOptions)), strict: true, allowPositionals: false }).values
  } catch (error) {
    return fail(`${Help.parseArgsMessage(error)}\n${Help.usageLines(tuiHelp)}\n${Help.seeHelp(tuiHelp)}`)
  }
  const text = (name: string) => (typeof values[name] === "string" ? values[name] as string : undefined)
  const args = { values: { url: text(tuiOptions.url.name), key: text(tuiOptions.key.name), output: text(tuiOptions.output.name) } }
  const env = readSandboxEnvironment()
  const output = args.values.output
  if (output !== undefined && !(tuiOptions.output.choices as ReadonlyArray<string>).includes(output)) {
    return fail(`--output: must be ${tuiOptions.output.choices.join(" or ")} (got ${output})`)
  }
  let baseUrl: string
  try {
    baseUrl = normaliseBaseUrl(args.values.url ?? defaultUrl(env))
  } catch {
    return fail(`--url: not a valid http(s) URL: ${args.values.url}`)
  }
  const apiKey = args.values.key ?? defaultKey(env)
  let backend: Backend
  let partnerName: string
  try {
    backend = await httpBackend({ baseUrl, apiKey })
    partnerName = (await backend.partner()).name
  } catch (error) {
    if (error instanceof BackendError && error.code === "UNREACHABLE") return fail(`cannot reach ${baseUrl} (is \`npm start\` running?)`)
    if (error instanceof BackendError && error.status === 401) return fail(`the API key was refused by ${baseUrl} (401 ${error.code ?? "UNAUTHORIZED"})`)
    if (error instanceof BackendError && error.status === 404) return fail(`${baseUrl} has no sandbox API (a production service?)`)
    return fail(`${baseUrl}: ${error instanceof Error ? error.message : String(error)}`)
  }

  if (output === "json") {
    const stop = followEvents({
      baseUrl,
      apiKey,
      onEvent: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
      onState: (state) => {
        if (state === "reconnecting") process.stderr.write("tui: event stream dropped, reconnecting\n")
      }
    })
    const quit = () => {
      stop()
      process.exit(0)
    }
    process.on("SIGINT", quit)
    process.on("SIGTERM", quit)
    process.stdout.on("error", quit) // e.g. `| head`
    return
  }

  if (!process.stdout.isTTY || !process.stdin.isTTY) return fail("the UI needs a terminal; use --output json to pipe the event feed")
  // Ink draws nothing when it believes it runs in CI (CI, CONTINUOUS_INTEGRATION or CI_* set, read once when it
  // loads): this process has a terminal, so it is interactive whatever the shell exported. Ink loads after this.
  for (const name of Object.keys(process.env)) {
    if (name === "CI" || name === "CONTINUOUS_INTEGRATION" || name.startsWith("CI_")) delete process.env[name]
  }
  const { render } = await import("ink")
  const { App } = await import("./ui/App.js")
  // Full screen on the alternate buffer, restored on every way out.
  process.stdout.write("\x1b[?1049h\x1b[H")
  let restored = false
  const restore = () => {
    if (restored) return
    restored = true
    process.stdout.write("\x1b[?1049l\x1b[?25h")
  }
  process.on("exit", restore)
  // Ink's standard renderer: each frame is one write (erase + redraw) inside a synchronized update (DEC mode 2026)
  // where the terminal supports it, so the screen never shows a half-drawn frame. Its incremental renderer (6.8)
  // misplaces the cursor by one line when the frame ends with a newline, leaving stale lines behind.
  const instance = render(<App backend={backend} partnerName={partnerName} />, { exitOnCtrlC: true })
  await instance.waitUntilExit()
  restore()
  process.exit(0)
}

void main()
