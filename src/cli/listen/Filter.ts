import { Either } from "effect"

/**
 * `--events`: a comma-separated list of event types (`customer.registered`), prefixes (`withdrawal.*`) or `*`.
 * One exact type is also sent to the stream as its `type` filter (the service then sends only those); anything
 * else is matched here, on every event of the partner.
 */
export interface EventFilter {
  /** The patterns as given, trimmed, in order, without repeats. */
  readonly patterns: ReadonlyArray<string>
  readonly matches: (type: string) => boolean
  /** The one exact type the stream can filter on itself, when that is the whole filter. */
  readonly streamType: string | undefined
}

const exactType = /^[a-z_]+\.[a-z_]+$/
const prefixPattern = /^[a-z_]+(\.[a-z_]+)*\.\*$/

export const everything: EventFilter = { patterns: [], matches: () => true, streamType: undefined }

export const parseEventFilter = (input: string): Either.Either<EventFilter, string> => {
  const patterns = [...new Set(input.split(",").map((part) => part.trim()).filter((part) => part !== ""))]
  if (patterns.length === 0) return Either.left("--events: give at least one event type, e.g. customer.registered,withdrawal.*")
  for (const pattern of patterns) {
    if (pattern !== "*" && !exactType.test(pattern) && !prefixPattern.test(pattern)) {
      return Either.left(`--events: ${JSON.stringify(pattern)} is not an event type (customer.registered), a prefix (withdrawal.*) or *`)
    }
  }
  if (patterns.includes("*")) return Either.right({ ...everything, patterns: ["*"] })
  const exact = new Set(patterns.filter((pattern) => !pattern.endsWith("*")))
  const prefixes = patterns.filter((pattern) => pattern.endsWith("*")).map((pattern) => pattern.slice(0, -1))
  return Either.right({
    patterns,
    matches: (type) => exact.has(type) || prefixes.some((prefix) => type.startsWith(prefix)),
    streamType: prefixes.length === 0 && exact.size === 1 ? [...exact][0] : undefined
  })
}
