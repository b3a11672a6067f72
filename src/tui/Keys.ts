import type { Key } from "ink"

/**
 * Every key of the terminal UI, by pane: the `?` help screen and the footer's hints are drawn from this table, and
 * a test checks that docs/tui.md lists each of them.
 */
export type PaneName = "Events" | "Customers" | "Webhooks" | "Rails" | "Clock"

export const paneNames: ReadonlyArray<PaneName> = ["Events", "Customers", "Webhooks", "Rails", "Clock"]

export interface KeyHelp {
  readonly keys: string
  readonly action: string
  /** Shown in the footer of its pane. */
  readonly hint?: boolean
}

export const globalKeys: ReadonlyArray<KeyHelp> = [
  { keys: "1-5", action: "switch pane (Events, Customers, Webhooks, Rails, Clock)" },
  { keys: "Tab / Shift+Tab", action: "next / previous pane" },
  { keys: "?", action: "help (any key closes it)", hint: true },
  { keys: "q / Ctrl+C", action: "quit", hint: true },
  { keys: "Esc", action: "close the details view, a menu or a prompt" }
]

export const paneKeys: Readonly<Record<PaneName, ReadonlyArray<KeyHelp>>> = {
  Events: [
    { keys: "↑↓ / j k", action: "select (moving up pauses follow mode)", hint: true },
    { keys: "PgUp PgDn", action: "page up / down" },
    { keys: "g / Home", action: "oldest event (pauses)" },
    { keys: "f / G / End", action: "follow: jump to the newest and keep up", hint: true },
    { keys: "/", action: "filter: type:<prefix> customer:<id prefix> and free text", hint: true },
    { keys: "x", action: "clear the filter" },
    { keys: "Enter", action: "details: payload, resource, ledger transactions, webhook delivery, related events", hint: true }
  ],
  Customers: [
    { keys: "↑↓ / j k", action: "select", hint: true },
    { keys: "Enter", action: "show the customer's events (filters the Events pane)", hint: true },
    { keys: "R", action: "reload now" }
  ],
  Webhooks: [
    { keys: "↑↓ / j k", action: "select", hint: true },
    { keys: "s", action: "cycle status filter: all, PENDING, DELIVERED, DEAD", hint: true },
    { keys: "r", action: "replay the selected delivery", hint: true },
    { keys: "Enter", action: "details of the delivery's event", hint: true },
    { keys: "R", action: "reload now" }
  ],
  Rails: [
    { keys: "↑↓ / j k", action: "select an operation (or a rail policy)", hint: true },
    { keys: "Enter", action: "actions of the operation: complete, fail, reverse, pay, approve, reject ...", hint: true },
    { keys: "p", action: "switch between pending operations and rail policies", hint: true },
    { keys: "m", action: "policy: toggle mode auto / manual" },
    { keys: "o", action: "policy: toggle outcome success / failure" },
    { keys: "d", action: "policy: set the delay in seconds" },
    { keys: "R", action: "reload now" }
  ],
  Clock: [
    { keys: "← →", action: "choose how far to advance (1m, 5m, 15m, 1h, 6h, 1d, 7d)", hint: true },
    { keys: "t", action: "type a duration (90s, 15m, 2h, 1d, 1h30m)", hint: true },
    { keys: "Enter", action: "advance the clock by the chosen duration", hint: true }
  ]
}

export const footerHints = (pane: PaneName): string =>
  [...paneKeys[pane], ...globalKeys].filter((key) => key.hint === true).map((key) => `${key.keys} ${key.action.split(/[:(,]/)[0]!.trim()}`).join(" · ")

/**
 * One command key per call. Ink's input parser splits escape sequences (arrows, Esc) into one input each, but hands
 * a run of plain characters that arrive in one read — "f4" typed quickly, or sent by a script — to `useInput` as one
 * input, which matches no single-key command, so both keys would be lost. This answers such a run one character at
 * a time, with Enter, Tab and Backspace inside it as those keys (as Ink reports them alone: no text, the key's
 * flag). Anything with a modifier, or with another control character, is answered as it came. Text prompts read
 * whole runs (a paste) and do not use this.
 */
export const splitKeys = (input: string, key: Key): ReadonlyArray<readonly [string, Key]> => {
  const characters = Array.from(input)
  if (characters.length <= 1 || key.ctrl || key.meta) return [[input, key]]
  if (!characters.every((c) => c === "\r" || c === "\t" || c >= " ")) return [[input, key]]
  const plain: Key = { ...key, return: false, tab: false, backspace: false, shift: false }
  return characters.map((c): readonly [string, Key] =>
    c === "\r"
      ? ["", { ...plain, return: true }]
      : c === "\t"
      ? ["", { ...plain, tab: true }]
      : c === "\x7f"
      ? ["", { ...plain, backspace: true }]
      : [c, { ...plain, shift: /^[A-Z]$/.test(c) }]
  )
}
