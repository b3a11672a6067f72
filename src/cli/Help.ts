/**
 * The `--help` of every command-line tool (`npm start`'s service and its subcommands, `npm run listen`, `npm run
 * trigger`, `npm run scenario`, `npm run tui`), written for a person: a one-line summary, usage, each option once
 * with its value name, default and whether it is required, a few examples, the exit codes, the docs page.
 *
 * One source of truth per option: a command lists its options as `OptionSpec`s; the same spec builds the option the
 * parser uses (`text`, `flag`, `integer`, `choice` for @effect/cli; `parseArgsOptions` for node:util's parseArgs)
 * and its line in the help (`render`); the @effect/cli builders are in src/cli/CliOptions.ts (this module stays free of
 * @effect/cli, for the terminal UI's start). test/cli.help.test.ts runs each command's `--help` and checks every spec'd
 * option is there.
 *
 * Colour (bold headings, nothing else) only when the stream is a terminal and NO_COLOR is unset or empty.
 */

export interface OptionSpec {
  /** Without the dashes: `forward-to`. */
  readonly name: string
  /** Other long names it answers to (without dashes), shown after the name. */
  readonly aliases?: ReadonlyArray<string>
  /** The value's name (`URL`, `KEY`); absent for a flag. */
  readonly value?: string
  /** What it does, in the command's terms: one sentence or two, no default and no "required" (those are below). */
  readonly description: string
  /** The default, as a person reads it (`2`, `http://HOST:PORT of npm start`). */
  readonly default?: string
  readonly required?: boolean
  readonly repeatable?: boolean
  /** The accepted values of a choice. */
  readonly choices?: ReadonlyArray<string>
}

export interface ArgumentSpec {
  /** As usage shows it: `files or globs`. */
  readonly name: string
  readonly description: string
  readonly repeatable?: boolean
  readonly choices?: ReadonlyArray<string>
}

export interface CommandHelp {
  /** How a person runs it: `npm run listen --`. */
  readonly command: string
  /** One line: what it does. */
  readonly summary: string
  /** Usage lines, each without the command in front (`--forward-to URL [options]`). */
  readonly usage: ReadonlyArray<string>
  /** Paragraphs after the usage: what a person must know before the options. */
  readonly about?: ReadonlyArray<string>
  readonly commands?: ReadonlyArray<{ readonly name: string; readonly summary: string }>
  readonly arguments?: ReadonlyArray<ArgumentSpec>
  readonly options: ReadonlyArray<OptionSpec>
  /** Environment variables worth naming here (a command configured by them rather than by options). */
  readonly environment?: ReadonlyArray<{ readonly name: string; readonly description: string }>
  readonly examples: ReadonlyArray<{ readonly command: string; readonly note?: string }>
  readonly exitCodes?: ReadonlyArray<readonly [code: number, meaning: string]>
  /** The docs page (or README section) that says everything. */
  readonly docs: string
}

/** `-h` / `--help`, added to every command's options by `render` and `parseArgsOptions`. */
export const helpOption: OptionSpec = { name: "help", aliases: ["h"], description: "print this help and exit" }

// --- parsers built from the specs ------------------------------------------------------------------------------------

/** node:util `parseArgs` options for these specs, `--help`/`-h` included. */
export const parseArgsOptions = (specs: ReadonlyArray<OptionSpec>) => {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {}
  for (const spec of [...specs, helpOption]) {
    for (const name of [spec.name, ...(spec.aliases ?? [])]) {
      if (name.length === 1) continue
      options[name] = {
        type: spec.value === undefined ? "boolean" : "string",
        ...(spec.repeatable === true ? { multiple: true } : {}),
        ...(spec.aliases?.find((alias) => alias.length === 1) !== undefined && name === spec.name
          ? { short: spec.aliases.find((alias) => alias.length === 1)! }
          : {})
      }
    }
  }
  return options
}

// --- when to print it -------------------------------------------------------------------------------------------------

/** `-h` or `--help` anywhere among the arguments (before a `--` that ends the options). */
export const wantsHelp = (argv: ReadonlyArray<string>): boolean => {
  for (const arg of argv) {
    if (arg === "--") return false
    if (arg === "-h" || arg === "--help") return true
  }
  return false
}

/** Colour for `stream`: a terminal, and NO_COLOR unset or empty (https://no-color.org). */
export const useColor = (stream: { readonly isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && (env.NO_COLOR ?? "") === ""

// --- the text -----------------------------------------------------------------------------------------------------------

const width = 100

/** Words of `text` in lines of at most `max` characters (a longer word stays whole). */
const wrap = (text: string, max: number): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > max) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines
}

/** `label` in a column, `text` wrapped beside it (or under it when the label is wide). */
const table = (rows: ReadonlyArray<readonly [string, string]>, indent = 2): Array<string> => {
  const column = Math.min(Math.max(...rows.map(([label]) => label.length)) + 3, 30)
  const out: Array<string> = []
  for (const [label, text] of rows) {
    const body = wrap(text, width - indent - column)
    const pad = " ".repeat(indent + column)
    if (label.length + 3 > column) {
      out.push(`${" ".repeat(indent)}${label}`)
      for (const line of body) out.push(`${pad}${line}`)
    } else {
      out.push(`${" ".repeat(indent)}${label.padEnd(column)}${body[0] ?? ""}`)
      for (const line of body.slice(1)) out.push(`${pad}${line}`)
    }
  }
  return out
}

/** `--name, --alias VALUE` (`-h, --help`). */
export const optionLabel = (spec: OptionSpec): string => {
  const names = [spec.name, ...(spec.aliases ?? [])].map((name) => (name.length === 1 ? `-${name}` : `--${name}`))
  const ordered = [...names.filter((n) => !n.startsWith("--")), ...names.filter((n) => n.startsWith("--"))]
  const value = spec.value === undefined ? (spec.choices === undefined ? "" : ` ${spec.choices.join("|")}`) : ` ${spec.value}`
  return `${ordered.join(", ")}${value}`
}

const optionText = (spec: OptionSpec): string => {
  const sentence = /[.!?]$/.test(spec.description) ? spec.description : `${spec.description}.`
  return [
    spec.required === true ? "Required." : undefined,
    sentence.charAt(0).toUpperCase() + sentence.slice(1),
    spec.repeatable === true ? "Repeatable." : undefined,
    spec.default === undefined ? undefined : `Default: ${spec.default}.`
  ].filter((part) => part !== undefined).join(" ")
}

/** The help text of a command. */
export const render = (help: CommandHelp, options: { readonly color?: boolean | undefined } = {}): string => {
  const heading = (title: string) => (options.color === true ? `\x1b[1m${title}\x1b[22m` : title)
  const lines: Array<string> = [`${help.command.replace(/ --$/, "")}: ${help.summary}`, "", heading("Usage")]
  for (const usage of help.usage) lines.push(`  ${help.command} ${usage}`.trimEnd())
  for (const paragraph of help.about ?? []) lines.push("", ...wrap(paragraph, width))
  if (help.commands !== undefined && help.commands.length > 0) {
    lines.push("", heading("Commands"), ...table(help.commands.map((c) => [c.name, c.summary])))
  }
  if (help.arguments !== undefined && help.arguments.length > 0) {
    lines.push("", heading("Arguments"), ...table(help.arguments.map((a) => [
      `<${a.name}>${a.repeatable === true ? "..." : ""}`,
      `${a.description}${a.choices === undefined ? "" : ` One of: ${a.choices.join(", ")}.`}`
    ])))
  }
  lines.push("", heading("Options"), ...table([...help.options, helpOption].map((o) => [optionLabel(o), optionText(o)])))
  if (help.environment !== undefined && help.environment.length > 0) {
    lines.push("", heading("Environment"), ...table(help.environment.map((e) => [e.name, e.description])))
  }
  if (help.examples.length > 0) {
    lines.push("", heading("Examples"))
    const spaced = help.examples.some((example) => example.note !== undefined)
    for (const [i, example] of help.examples.entries()) {
      if (i > 0 && spaced) lines.push("")
      if (example.note !== undefined) lines.push(...wrap(example.note, width - 4).map((line) => `  # ${line}`))
      lines.push(`  ${example.command}`)
    }
  }
  if (help.exitCodes !== undefined && help.exitCodes.length > 0) {
    lines.push("", heading("Exit codes"), ...table(help.exitCodes.map(([code, meaning]) => [String(code), meaning])))
  }
  lines.push("", `More: ${help.docs}`)
  return `${lines.join("\n")}\n`
}

/** `Usage: <command> <usage>` lines, for a usage error. */
export const usageLines = (help: Pick<CommandHelp, "command" | "usage">): string =>
  help.usage.map((usage, i) => `${i === 0 ? "Usage: " : "       "}${help.command} ${usage}`.trimEnd()).join("\n")

/** node:util parseArgs's refusal, its first sentence only (`Unknown option '--bogus'`, without its advice on `--`). */
export const parseArgsMessage = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  return /^Unknown option '[^']*'/.exec(message)?.[0] ?? message
}

/** The one line a usage error ends with. */
export const seeHelp = (help: Pick<CommandHelp, "command">): string => `Run \`${help.command} --help\` for usage.`
