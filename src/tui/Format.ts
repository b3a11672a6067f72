/** Text helpers of the terminal UI: pure functions, no React. */

/** The first 8 characters of an id: lists show this, the details view the whole id. */
export const shortId = (id: string | null | undefined): string => (id === null || id === undefined ? "-" : id.slice(0, 8))

/** `2026-11-22 21:40:12` in UTC (the service clock is UTC). */
export const clockText = (date: Date): string => date.toISOString().replace("T", " ").slice(0, 19)

/** `21:40:12` in UTC. */
export const timeText = (iso: string | Date): string => {
  const date = typeof iso === "string" ? new Date(iso) : iso
  return Number.isNaN(date.getTime()) ? String(iso) : date.toISOString().slice(11, 19)
}

const units: ReadonlyArray<readonly [string, number]> = [["d", 86_400], ["h", 3_600], ["m", 60], ["s", 1]]

/** `1d 2h`, `15m`, `45s`: the two largest units. */
export const durationText = (seconds: number): string => {
  let rest = Math.round(seconds)
  if (!(rest > 0)) return "0s"
  const parts: Array<string> = []
  for (const [unit, size] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`)
      rest %= size
    }
    if (parts.length === 2) break
  }
  return parts.join(" ")
}

/** `in 5m`, `2h ago`, `now`: `at` relative to the service clock's `now`. */
export const relativeText = (at: Date | string | null, now: Date): string => {
  if (at === null) return "-"
  const date = typeof at === "string" ? new Date(at) : at
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000)
  if (Math.abs(seconds) < 1) return "now"
  return seconds > 0 ? `in ${durationText(seconds)}` : `${durationText(-seconds)} ago`
}

/** Largest advance the service accepts: 400 days. */
export const advanceSecondsMax = 400 * 86_400

/**
 * A typed duration: `90`, `90s`, `15m`, `2h`, `1d`, `1h30m`, `2d 4h`. Answers whole seconds from 1 to 400 days, or
 * a message saying what is wrong.
 */
export const parseDuration = (input: string): { readonly seconds: number } | { readonly error: string } => {
  const text = input.trim().toLowerCase().replace(/\s+/g, "")
  if (text === "") return { error: "type a duration such as 90s, 15m, 2h or 1d" }
  if (/^\d+$/.test(text)) return bounded(Number(text))
  const pattern = /(\d+)(d|h|m|s)/g
  let total = 0
  let consumed = 0
  for (const match of text.matchAll(pattern)) {
    if (match.index !== consumed) return { error: `not a duration: ${input.trim()}` }
    total += Number(match[1]) * (units.find(([unit]) => unit === match[2])?.[1] ?? 0)
    consumed += match[0].length
  }
  if (consumed !== text.length) return { error: `not a duration: ${input.trim()}` }
  return bounded(total)
}

const bounded = (seconds: number) =>
  seconds < 1 || seconds > advanceSecondsMax || !Number.isSafeInteger(seconds)
    ? { error: "must be from 1 second to 400 days" }
    : { seconds }

/** Cuts a line to `width` columns with an ellipsis. */
export const fit = (text: string, width: number): string =>
  width <= 0 ? "" : text.length <= width ? text : width === 1 ? "…" : `${text.slice(0, width - 1)}…`

/** Pads or cuts to exactly `width` columns. */
export const cell = (text: string, width: number): string => fit(text, width).padEnd(Math.max(0, width))

/** The window of `total` rows of height `height` that keeps `selected` visible, preferring `top`. */
export const scrollWindow = (total: number, height: number, selected: number, top: number): number => {
  if (height <= 0 || total <= height) return 0
  let start = Math.min(Math.max(0, top), total - height)
  if (selected < start) start = selected
  if (selected >= start + height) start = selected - height + 1
  return Math.max(0, Math.min(start, total - height))
}

/** A reference or id worth showing for an event: its data's `reference`, else the resource id it names. */
export const eventReference = (data: Readonly<Record<string, unknown>>): string => {
  for (const key of ["reference", "chargeId", "kycId", "withdrawalId", "id"]) {
    const value = data[key]
    if (typeof value === "string" && value !== "") return value
  }
  return ""
}
