import type { Answer } from "./Delivery.js"
import type { StreamEvent } from "./EventStream.js"

/**
 * What `listen` prints on stdout: one line when the stream is connected, one per event forwarded and one per
 * answer (the receiver's status and the first line of its body, `Delivery.firstLine`), as text (default) or as
 * NDJSON (`--print-json`). Messages (drops, reconnections, fatal errors) go to
 * stderr as `listen: ...` lines in both modes.
 */

export interface Ready {
  readonly partnerId: string
  readonly partnerName: string
  readonly url: string
  readonly forwardTo: string
  readonly secret: string
  readonly events: ReadonlyArray<string>
  readonly customerId: string | undefined
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** This machine's local time, `YYYY-MM-DD HH:MM:SS`, as a line's prefix. */
export const localTime = (at: Date): string =>
  `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`

export interface Printer {
  readonly ready: (ready: Ready) => string
  readonly event: (at: Date, event: StreamEvent) => string
  readonly answer: (at: Date, forwardTo: string, event: StreamEvent, answer: Answer) => string
}

export const text: Printer = {
  ready: (ready) => {
    const filters = [
      ...(ready.events.length === 0 ? [] : [`events ${ready.events.join(",")}`]),
      ...(ready.customerId === undefined ? [] : [`customer ${ready.customerId}`])
    ]
    return `Ready! Forwarding events of partner ${ready.partnerId} to ${ready.forwardTo}; signing secret ${ready.secret}` +
      (filters.length === 0 ? "" : ` (only ${filters.join(", ")})`)
  },
  event: (at, event) => `${localTime(at)} --> ${event.type} [${event.id}]`,
  answer: (at, forwardTo, event, answer) =>
    answer._tag === "Answered"
      ? `${localTime(at)} <-- [${answer.status}] POST ${forwardTo} [${event.id}] in ${answer.ms}ms${answer.body === "" ? "" : `: ${answer.body}`}`
      : `${localTime(at)} <-- [ERR] POST ${forwardTo} [${event.id}] after ${answer.ms}ms: ${answer.error}`
}

export const json: Printer = {
  ready: (ready) =>
    JSON.stringify({
      kind: "ready",
      partnerId: ready.partnerId,
      partnerName: ready.partnerName,
      url: ready.url,
      forwardTo: ready.forwardTo,
      secret: ready.secret,
      events: ready.events.length === 0 ? null : ready.events,
      customerId: ready.customerId ?? null
    }),
  event: (at, event) =>
    JSON.stringify({
      kind: "event",
      at: at.toISOString(),
      seq: event.seq ?? null,
      event: { id: event.id, type: event.type, createdAt: event.createdAt, customerId: event.customerId, data: event.data }
    }),
  answer: (at, forwardTo, event, answer) =>
    JSON.stringify({
      kind: "answer",
      at: at.toISOString(),
      eventId: event.id,
      type: event.type,
      url: forwardTo,
      status: answer._tag === "Answered" ? answer.status : null,
      error: answer._tag === "Failed" ? answer.error : null,
      body: answer._tag === "Answered" ? answer.body : null,
      ms: answer.ms
    })
}
