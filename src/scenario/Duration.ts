/**
 * Durations in scenario files: a number of seconds, or units written together such as `30s`, `2m`, `1h30m`,
 * `1d`, `250ms`. Parsed once, when the file is loaded.
 */
const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

const durationPattern = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)/

/** Milliseconds of a duration, or an error message. */
export const parseDurationMs = (input: string | number): number | string => {
  if (typeof input === "number") {
    return Number.isFinite(input) && input >= 0 ? input * 1000 : "must be a non-negative number of seconds"
  }
  let rest = input.trim()
  if (rest === "") return "must be a duration such as 30s, 2m, 2h or 1d"
  let total = 0
  while (rest !== "") {
    const match = durationPattern.exec(rest)
    if (match === null) return `"${input}" is not a duration: use a number with a unit, e.g. 30s, 2m, 1h30m, 1d`
    total += Number(match[1]) * unitMs[match[2]!]!
    rest = rest.slice(match[0].length).trim()
  }
  return total
}

export const formatDurationMs = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`
  const minutes = Math.floor(ms / 60_000)
  return `${minutes}m${Math.round((ms % 60_000) / 1000)}s`
}
