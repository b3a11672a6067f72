import { call, control, poll, type RunContext, sleep, StepFailure } from "./Context.js"
import { parseDurationMs } from "./Duration.js"
import type { Step } from "./Language.js"
import { match, type Mismatch, show } from "./Matchers.js"

/**
 * Steps that observe the service: the event log, the webhook receiver, the delivery list and balances. Each
 * polls until its expectation holds or its timeout passes (default 5 s of real time), so a step after an
 * asynchronous transition (a rail delay, a webhook retry) needs no sleeps.
 */
export interface EventItem {
  readonly id: string
  readonly type: string
  readonly createdAt: string
  readonly customerId: string | null
  readonly data: Record<string, unknown>
}

const defaultTimeoutMs = 5_000
const pagesMax = 50

const timeoutOf = (value: string | number | undefined, fallback = defaultTimeoutMs) =>
  value === undefined ? fallback : (parseDurationMs(value) as number)

/** Every event of the partner (optionally of one type and customer), oldest first. */
export const listEvents = async (context: RunContext, filter: { type?: string | undefined; customerId?: string | undefined }) => {
  const events: Array<EventItem> = []
  let cursor: string | undefined
  for (let page = 0; page < pagesMax; page++) {
    const query = { type: filter.type, customerId: filter.customerId, limit: 100, cursor }
    const response = await call(context, { method: "GET", path: "/sandbox/events", query })
    if (response.status !== 200) throw new StepFailure(`GET /sandbox/events answered ${response.status}`, { response })
    const body = response.body as { data: Array<EventItem>; meta?: { nextCursor: string | null } }
    events.push(...body.data)
    if (!body.meta?.nextCursor) break
    cursor = body.meta.nextCursor
  }
  return events.reverse()
}

const summary = (events: ReadonlyArray<EventItem>) =>
  events.length === 0 ? "none" : events.map((event) => event.type).join(", ")

type Of<K extends Step["kind"]> = Extract<Step, { kind: K }>["spec"]

export const waitFor = async (context: RunContext, spec: Of<"waitFor">) => {
  const wanted = context.scope.interpolate(spec.waitFor) as typeof spec.waitFor
  const result = await poll(timeoutOf(wanted.timeout), async () => {
    const events = await listEvents(context, wanted)
    const found = events.find((event) => wanted.where === undefined || match(wanted.where, event, { exact: false }).length === 0)
    const mismatches: Array<Mismatch> = found !== undefined ? [] : [{
      path: "events",
      message: `no ${wanted.type} event${wanted.where !== undefined ? ` matching ${show(wanted.where)}` : ""} within ${timeoutOf(wanted.timeout)}ms; ${wanted.type} events seen: ${events.length}${events.length > 0 ? `, last data ${show(events.at(-1)?.data)}` : ""}`
    }]
    return { mismatches, value: found }
  })
  if (result.value === undefined) throw new StepFailure(`event ${wanted.type} did not happen`, { mismatches: result.mismatches })
  return result.value
}

const matchesItem = (item: string | { type: string; data?: unknown }, event: EventItem) =>
  typeof item === "string" ? event.type === item : event.type === item.type && (item.data === undefined || match(item.data, event.data, { exact: false }).length === 0)

/** Mismatches of an expected sequence against the log: in order (a subsequence), or each item by a distinct event. */
export const checkSequence = (sequence: ReadonlyArray<string | { type: string; data?: unknown }>, events: ReadonlyArray<EventItem>, ordered: boolean): Array<Mismatch> => {
  const used = new Set<number>()
  let from = 0
  const out: Array<Mismatch> = []
  sequence.forEach((item, index) => {
    const position = events.findIndex((event, i) => (ordered ? i >= from : !used.has(i)) && matchesItem(item, event))
    if (position === -1) {
      out.push({ path: `sequence[${index}]`, message: `expected ${show(item)}${ordered && index > 0 ? " after the previous item" : ""}; events (oldest first): ${summary(events)}` })
      return
    }
    used.add(position)
    from = position + 1
  })
  return out
}

export const expectEvents = async (context: RunContext, spec: Of<"expectEvents">) => {
  const wanted = context.scope.interpolate(spec.expectEvents) as typeof spec.expectEvents
  const result = await poll(timeoutOf(wanted.timeout), async () => {
    const events = await listEvents(context, { customerId: wanted.customerId })
    return { mismatches: checkSequence(wanted.sequence, events, wanted.ordered ?? true), value: events }
  })
  if (result.mismatches.length > 0) throw new StepFailure("the event log does not hold the expected sequence", { mismatches: result.mismatches })
}

export const expectNoEvent = async (context: RunContext, spec: Of<"expectNoEvent">) => {
  const wanted = context.scope.interpolate(spec.expectNoEvent) as typeof spec.expectNoEvent
  if (wanted.within !== undefined) await sleep(parseDurationMs(wanted.within) as number)
  const events = await listEvents(context, wanted)
  const found = events.find((event) => wanted.data === undefined || match(wanted.data, event.data, { exact: false }).length === 0)
  if (found !== undefined) {
    throw new StepFailure(`an event that must not happen happened: ${found.type}`, { mismatches: [{ path: "events", message: `unexpected ${found.type} ${show(found.data)}` }] })
  }
}

export const expectWebhooks = async (context: RunContext, spec: Of<"expectWebhooks">) => {
  const wanted = context.scope.interpolate(spec.expectWebhooks) as typeof spec.expectWebhooks
  const expectedCount = wanted.count ?? { $gte: 1 }
  const result = await poll(timeoutOf(wanted.timeout), async () => {
    const received = context.inbox.received.filter((hook) =>
      (wanted.type === undefined || hook.type === wanted.type) && (wanted.eventId === undefined || hook.eventId === wanted.eventId))
    const mismatches: Array<Mismatch> = match(expectedCount, received.length, { exact: false }, "count")
      .map((m) => ({ ...m, message: `${m.message} (answers given: ${received.map((hook) => hook.answered).join(", ") || "none"})` }))
    received.forEach((hook, i) => {
      if (!hook.verified) mismatches.push({ path: `received[${i}].signature`, message: "not checked: no secret registered (use a webhook step with register: true)" })
      else if (!hook.signatureValid) mismatches.push({ path: `received[${i}].signature`, message: hook.signatureProblem ?? "invalid" })
      if (hook.eventId !== (hook.body as { id?: string } | undefined)?.id) {
        mismatches.push({ path: `received[${i}].X-Service-Event-Id`, message: `header ${show(hook.eventId)} differs from body id ${show((hook.body as { id?: string }).id)}` })
      }
      if (wanted.body !== undefined) mismatches.push(...match(wanted.body, hook.body, { exact: false }, `received[${i}].body`))
    })
    return { mismatches, value: received }
  })
  if (result.mismatches.length > 0) throw new StepFailure("the webhook receiver did not get what was expected", { mismatches: result.mismatches })
}

const listDeliveries = async (context: RunContext) => {
  const deliveries: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  for (let page = 0; page < pagesMax; page++) {
    const response = await call(context, { method: "GET", path: "/partner/v1/webhook/deliveries", query: { limit: 100, cursor } })
    if (response.status !== 200) throw new StepFailure(`GET /partner/v1/webhook/deliveries answered ${response.status}`, { response })
    const body = response.body as { data: Array<Record<string, unknown>>; meta?: { nextCursor: string | null } }
    deliveries.push(...body.data)
    if (!body.meta?.nextCursor) break
    cursor = body.meta.nextCursor
  }
  return deliveries
}

export const expectDelivery = async (context: RunContext, spec: Of<"expectDelivery">) => {
  const wanted = context.scope.interpolate(spec.expectDelivery) as typeof spec.expectDelivery
  const result = await poll(timeoutOf(wanted.timeout), async () => {
    const deliveries = (await listDeliveries(context)).filter((delivery) =>
      (wanted.type === undefined || delivery.type === wanted.type) && (wanted.eventId === undefined || delivery.id === wanted.eventId))
    const delivery = deliveries[0]
    const mismatches: Array<Mismatch> = delivery === undefined
      ? [{ path: "deliveries", message: `no delivery${wanted.type !== undefined ? ` of ${wanted.type}` : ""}${wanted.eventId !== undefined ? ` for event ${wanted.eventId}` : ""}` }]
      : match(wanted.match, delivery, { exact: false }, "delivery")
    return { mismatches, value: delivery }
  })
  if (result.mismatches.length > 0 || result.value === undefined) {
    throw new StepFailure("the webhook delivery is not as expected", { mismatches: result.mismatches })
  }
  return result.value
}

export const expectBalances = async (context: RunContext, spec: Of<"expectBalances">) => {
  const wanted = context.scope.interpolate(spec.expectBalances) as typeof spec.expectBalances
  const entries = await control(context, { method: "GET", path: `/partner/v1/customers/${wanted.customerId}/balance` }) as Array<{ currency: string; balance: unknown }>
  const actual = new Map(entries.map((entry) => [entry.currency, entry.balance]))
  const mismatches: Array<Mismatch> = []
  for (const [currency, expected] of Object.entries(wanted.balances)) {
    mismatches.push(...match(expected, actual.get(currency) ?? 0, { exact: false }, currency))
  }
  if (wanted.exact === true) {
    for (const [currency, balance] of actual) {
      if (!(currency in wanted.balances) && Number(balance) !== 0) mismatches.push({ path: currency, message: `unexpected balance ${show(balance)}` })
    }
  }
  if (mismatches.length > 0) throw new StepFailure("balances differ", { mismatches: [...mismatches, { path: "actual", message: show(entries, 400) }] })
}

