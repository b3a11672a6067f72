import type { ArgumentSpec, CommandHelp, OptionSpec } from "./Help.js"

/**
 * Every command-line tool's options and `--help` (src/cli/Help.ts renders them): the one place an option is
 * described. The commands build their parsers from these specs (src/main.ts, src/scenario/Runner.ts,
 * src/cli/listen.ts, src/cli/trigger/Cli.ts, src/tui/main.tsx); test/cli.help.test.ts checks each `--help` names
 * every option listed here. This module imports nothing at run time, so the terminal UI loads it for free.
 */

const sandboxUrl = "http://HOST:PORT of `npm start` (HOST 127.0.0.1, PORT 8080)"
const demoKey = "PMM_API_KEY, else the demo partner's key derived from ENCRYPTION_KEY or DATA_DIR/encryption.key (as `npm start` derives it)"

// --- npm run listen -----------------------------------------------------------------------------------------------------

export const listenOptions = {
  forwardTo: {
    name: "forward-to",
    value: "URL",
    required: true,
    description: "the http(s) URL to POST every event to, e.g. http://127.0.0.1:3000/webhooks"
  },
  url: { name: "url", value: "URL", description: "the sandbox's origin; a trailing /api/v1 is accepted", default: sandboxUrl },
  apiKey: { name: "api-key", value: "KEY", description: "the partner API key whose events are forwarded", default: demoKey },
  events: {
    name: "events",
    value: "TYPES",
    description: "only these event types, comma-separated; a family such as withdrawal.* (any prefix ending in .*) or * matches several",
    default: "every event"
  },
  customer: { name: "customer", value: "ID", description: "only the events of this customer (a uuid)", default: "every customer" },
  secret: {
    name: "secret",
    value: "WHSEC",
    description: "the signing secret the deliveries are signed with; give your receiver's to keep one across runs",
    default: "a fresh whsec_..., printed on the Ready line"
  },
  printJson: { name: "print-json", description: "print NDJSON records (ready, event, answer) on stdout instead of lines" }
} as const satisfies Record<string, OptionSpec>

export const listenHelp: CommandHelp = {
  command: "npm run listen --",
  summary: "forward the partner's live sandbox events to a local URL, signed exactly like real webhook deliveries",
  usage: ["--forward-to URL [options]"],
  about: [
    "Follows the event stream of a running sandbox (local or remote) and POSTs each event to --forward-to, one at a " +
    "time in arrival order, with the same body, headers and signature a real delivery has. Prints one line per event " +
    "and one per answer: the receiver's status and the first line of its body. Stop it with Ctrl+C."
  ],
  options: Object.values(listenOptions),
  examples: [
    { note: "forward the demo partner's events from `npm start` to a receiver on port 3000", command: "npm run listen -- --forward-to http://127.0.0.1:3000/webhooks" },
    {
      note: "sign with your receiver's secret, only withdrawal events",
      command: "npm run listen -- --forward-to http://127.0.0.1:3000/webhooks --secret whsec_devloop_4f9c2a --events 'withdrawal.*'"
    }
  ],
  exitCodes: [
    [0, "stopped by Ctrl+C (SIGINT) or SIGTERM, or stdout closed; also after --help"],
    [1, "the sandbox cannot be followed: unreachable, the API key refused, no sandbox API, no API key found"],
    [2, "usage: no --forward-to, a URL that is not http(s), a bad --events or --customer, an unknown option"]
  ],
  docs: "docs/sandbox-listen.md"
}

// --- npm run trigger ----------------------------------------------------------------------------------------------------

export const triggerArguments: ReadonlyArray<ArgumentSpec> = [
  { name: "event type", description: "the event to produce, e.g. withdrawal.failed (--list shows every type)" }
]

export const triggerOptions = {
  url: { name: "url", value: "URL", description: "the sandbox, http://host:port", default: sandboxUrl },
  apiKey: { name: "api-key", aliases: ["key"], value: "KEY", description: "a partner API key", default: demoKey },
  customer: {
    name: "customer",
    value: "ID",
    description: "reuse this customer instead of registering a new one (only flows that allow it; --list says which)"
  },
  set: { name: "set", value: "KEY=VALUE", repeatable: true, description: "override a flow variable, e.g. --set amount=500" },
  printJson: { name: "print-json", description: "print the result as one JSON document on stdout (request lines go to stderr)" },
  list: { name: "list", description: "list every event type of the partner contract and what its flow does, then exit" }
} as const satisfies Record<string, OptionSpec>

export const triggerHelp: CommandHelp = {
  command: "npm run trigger --",
  summary: "produce a real event of any type on a running sandbox by running the flow that causes it",
  usage: ["<event type> [options]", "--list [--print-json]"],
  about: [
    "Runs scenarios/triggers/<event type>.yaml against the sandbox as the partner, prints each request it makes and " +
    "the ids of the events produced. The events are real: webhooks, `npm run listen` and the TUI see them."
  ],
  arguments: triggerArguments,
  options: Object.values(triggerOptions),
  examples: [
    { note: "a failed withdrawal for a new customer of the demo partner", command: "npm run trigger -- withdrawal.failed" },
    { note: "a deposit of 500 for an existing customer", command: "npm run trigger -- deposit.received --customer <customer id> --set amount=500" },
    { note: "every event type and what its flow does", command: "npm run trigger -- --list" }
  ],
  exitCodes: [
    [0, "the event was produced"],
    [1, "the flow failed or produced no such event"],
    [2, "usage: an unknown or unproducible type, an unknown variable, --customer where it does not apply, an unknown option"],
    [3, "the sandbox cannot be reached or used with this key"]
  ],
  docs: "docs/sandbox-trigger.md"
}

// --- npm run tui ----------------------------------------------------------------------------------------------------------

export const tuiOptions = {
  url: { name: "url", value: "URL", description: "the service, e.g. http://127.0.0.1:8080", default: sandboxUrl },
  key: { name: "key", value: "KEY", description: "a partner API key", default: demoKey },
  output: {
    name: "output",
    value: "json",
    choices: ["json"],
    description: "no UI: print the live event feed as NDJSON on stdout (works without a terminal)",
    default: "the UI"
  }
} as const satisfies Record<string, OptionSpec>

export const tuiHelp: CommandHelp = {
  command: "npm run tui --",
  summary: "the terminal UI of a running sandbox: customers, balances, events, webhooks, the clock",
  usage: ["[--url URL] [--key KEY]", "--output json"],
  about: ["The UI needs a terminal; inside it, press ? for every key."],
  options: Object.values(tuiOptions),
  examples: [
    { note: "the UI, as the demo partner of `npm start`", command: "npm run tui" },
    { note: "the live event feed, piped", command: "npm run -s tui -- --output json | jq .type" }
  ],
  exitCodes: [
    [0, "quit (q or Ctrl+C), or the feed stopped by SIGINT/SIGTERM; also after --help"],
    [1, "cannot start: a bad option, the sandbox unreachable, the key refused, no terminal for the UI"]
  ],
  docs: "docs/tui.md"
}

// --- the service: node dist/main.js <command> ---------------------------------------------------------------------------

const configurationExit = [78, "invalid configuration (one line naming the variable)"] as const

export const serveHelp: CommandHelp = {
  command: "node dist/main.js serve",
  summary: "run the HTTP server (what `npm start` runs): sandbox mode on the embedded database by default",
  usage: [""],
  about: [
    "Configured by environment variables, not options. On start it prints the base URL, the docs URL and (sandbox) " +
    "the demo partner's API key. SIGINT or SIGTERM shut it down gracefully."
  ],
  options: [],
  environment: [
    { name: "PORT, HOST", description: "where it listens (8080, 127.0.0.1)" },
    { name: "DATA_DIR", description: "the embedded database and sandbox key material (./data; :memory: for a throwaway one)" },
    { name: "DATABASE_URL", description: "postgres://...: PostgreSQL instead of the embedded database" },
    { name: "WORKERS", description: "processes sharing the port (1; more than 1 needs DATABASE_URL)" },
    { name: "SERVICE_MODE", description: "sandbox (default) or production" },
    { name: "LOG_LEVEL", description: "info by default; one logfmt line per request on stdout" }
  ],
  examples: [
    { command: "npm start" },
    { note: "another port, a throwaway database", command: "PORT=9090 DATA_DIR=:memory: npm start" }
  ],
  exitCodes: [
    [0, "shut down by SIGINT or SIGTERM"],
    [1, "it could not start (the port is taken, the database cannot be opened)"],
    configurationExit
  ],
  docs: "README.md (Quick start, Configuration: every variable)"
}

export const ledgerCheckHelp: CommandHelp = {
  command: "node dist/main.js ledger-check",
  summary: "verify every ledger invariant against the configured database and print a JSON report",
  usage: [""],
  about: ["Reads the database DATABASE_URL or DATA_DIR names (as `serve` does); changes nothing. `npm run ledger:check` runs it."],
  options: [],
  examples: [{ command: "npm run ledger:check" }, { command: "DATABASE_URL=postgres://localhost/pmm node dist/main.js ledger-check" }],
  exitCodes: [[0, "every invariant holds"], [1, "a violation (the report lists each), or the database cannot be read"], configurationExit],
  docs: "docs/ledger-for-developers.md"
}

export const scenarioArguments: ReadonlyArray<ArgumentSpec> = [
  { name: "files or globs", repeatable: true, description: "scenario files, directories or quoted globs such as 'scenarios/**/*.yaml'" }
]

export const scenarioOptions = {
  url: {
    name: "url",
    value: "URL",
    description: "run against a service already running in sandbox mode (http://host:port) instead of in-process",
    default: "in-process: a fresh in-memory service per scenario"
  },
  concurrency: { name: "concurrency", value: "N", description: "scenarios run at once", default: "2" },
  reporter: { name: "reporter", choices: ["console", "junit"], description: "console: readable results; junit: also a JUnit XML report", default: "console" },
  output: { name: "output", value: "FILE", description: "the file the JUnit XML report is written to", default: "stdout" }
} as const satisfies Record<string, OptionSpec>

export const scenarioHelp: CommandHelp = {
  command: "npm run scenario --",
  summary: "run QA scenario files (YAML) end to end and report each step",
  usage: ["<files or globs>... [options]"],
  about: [
    "Every file is loaded and checked first: an invalid file stops the run before any step. Also " +
    "`node dist/main.js scenario ...`, the same command from the `npm start` bundle."
  ],
  arguments: scenarioArguments,
  options: Object.values(scenarioOptions),
  examples: [
    { note: "the whole library, each scenario on its own in-process service", command: "npm run scenario -- 'scenarios/**/*.yaml'" },
    { note: "against a running sandbox", command: "npm run scenario -- scenarios/clock.yaml --url http://127.0.0.1:8080" },
    { command: "npm run scenario -- 'scenarios/**/*.yaml' --concurrency 4 --reporter junit --output reports/scenarios.xml" }
  ],
  exitCodes: [
    [0, "every scenario passed"],
    [1, "a scenario failed, or a file is invalid (nothing was run)"],
    [2, "usage: no files match, no file named, a bad option value (a word that is no option is read as a file)"],
    configurationExit
  ],
  docs: "docs/scenarios.md"
}

/** The decision as typed, and as recorded. */
export const partnerKybDecisions: ReadonlyArray<[string, "APPROVED" | "REJECTED" | "RESUBMISSION_REQUESTED"]> = [
  ["approve", "APPROVED"],
  ["reject", "REJECTED"],
  ["request-resubmission", "RESUBMISSION_REQUESTED"]
]

export const partnerKybArguments = {
  partner: { name: "partner", description: "the partner's id, or its console sign-in email" },
  decision: { name: "decision", description: "compliance's decision.", choices: partnerKybDecisions.map(([name]) => name) }
} as const satisfies Record<string, ArgumentSpec>

export const partnerKybOptions = {
  reason: { name: "reason", value: "TEXT", description: "the reason for the decision; needed for reject and request-resubmission" }
} as const satisfies Record<string, OptionSpec>

export const partnerKybHelp: CommandHelp = {
  command: "node dist/main.js partner-kyb",
  summary: "compliance's KYB decision on a partner whose KYB is under review",
  usage: ["<partner> approve", "<partner> reject|request-resubmission --reason TEXT"],
  about: ["Writes the decision to the database DATABASE_URL or DATA_DIR names (as `serve` does)."],
  arguments: Object.values(partnerKybArguments),
  options: Object.values(partnerKybOptions),
  examples: [
    { command: "node dist/main.js partner-kyb ops@acme.example approve" },
    { command: "node dist/main.js partner-kyb ops@acme.example reject --reason 'the registration document is unreadable'" }
  ],
  exitCodes: [
    [0, "decided"],
    [1, "refused: no such partner, its KYB is not under review, a reason is missing"],
    [2, "usage: a missing argument, an unknown decision or option"],
    configurationExit
  ],
  docs: "docs/console.md"
}

export const serviceCommands = [
  { name: "serve", help: serveHelp },
  { name: "ledger-check", help: ledgerCheckHelp },
  { name: "scenario", help: scenarioHelp },
  { name: "partner-kyb", help: partnerKybHelp }
] as const

export const serviceHelp: CommandHelp = {
  command: "node dist/main.js",
  summary: "the Partner Money Movement Service and its operator commands",
  usage: ["<command> [options]", "<command> --help"],
  about: ["`npm start` builds dist/main.js and runs `serve`; `npm run scenario` and `npm run ledger:check` run the others."],
  commands: serviceCommands.map(({ help, name }) => ({ name, summary: help.summary })),
  options: [],
  examples: [{ command: "npm start" }, { command: "node dist/main.js scenario --help" }],
  exitCodes: [[0, "success"], [1, "the command failed"], [2, "usage: an unknown command, option or argument"], configurationExit],
  docs: "README.md"
}
