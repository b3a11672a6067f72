import { cleanup, render } from "ink-testing-library"
import { act } from "react"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import type { RailPolicyView } from "../src/rails/Api.js"
import type { RailName } from "../src/rails/RailPolicy.js"
import type { DueItem, EventChain, OperationAction, PendingOperation } from "../src/sandbox/InspectApi.js"
import type { Backend, CustomerBalances, FeedEvent, RailPolicyChange, StreamState } from "../src/tui/Backend.js"
import { globalKeys, paneKeys } from "../src/tui/Keys.js"
import { App } from "../src/tui/ui/App.js"
import type { WebhookDelivery } from "../src/webhooks/Api.js"

/**
 * Component tests of the terminal UI: the whole App over an in-memory fake Backend, driven by keys on stdin and
 * checked on the rendered frames and on the calls the fake records. Keys go through React's `act` (see `press`);
 * what the fake answers asynchronously is awaited by polling the frames (`waitFor`), never by fixed sleeps.
 */

const keys = {
  up: "\u001B[A",
  down: "\u001B[B",
  right: "\u001B[C",
  left: "\u001B[D",
  enter: "\r",
  escape: "\u001B",
  tab: "\t"
} as const

const start = new Date("2026-03-01T12:00:00.000Z")
const at = (seconds: number) => new Date(start.getTime() + seconds * 1_000)
const alice = "a1a1a1a1-0000-4000-8000-000000000001"
const bob = "b2b2b2b2-0000-4000-8000-000000000002"
const eventId = (n: number) => `e${String(n).padStart(7, "0")}-0000-4000-8000-00000000000${n % 10}`

const feedEvent = (n: number, type: string, customerId: string | null = alice): FeedEvent => ({
  id: eventId(n),
  type,
  createdAt: at(n).toISOString(),
  customerId,
  data: { reference: `ref-${String(n).padStart(3, "0")}` }
})

const action = (name: string, label: string, reason: "none" | "required", path: string): OperationAction => ({
  name,
  label,
  method: "POST",
  path,
  body: name === "complete" ? { outcome: "success" } : null,
  reason
})

const withdrawalId = "a0c0ffee-0000-4000-8000-00000000000a"
const chargeId = "c4a2fe00-0000-4000-8000-00000000000c"
const complete = action("complete", "Complete the payout", "none", `/api/v1/sandbox/withdrawals/${withdrawalId}/complete`)
const failAction = action("fail", "Fail the payout", "required", `/api/v1/sandbox/withdrawals/${withdrawalId}/fail`)
const pay = action("pay", "Pay the charge", "none", `/api/v1/sandbox/funding/charges/${chargeId}/pay`)

const operationsFixture = (): Array<PendingOperation> => [
  {
    id: withdrawalId,
    kind: "withdrawal",
    rail: "payout",
    customerId: alice,
    status: "PROCESSING",
    reference: "PAYOUT-1",
    summary: "USD 125.00 to bank ****6789",
    createdAt: at(0),
    dueAt: null,
    actions: [complete, failAction]
  },
  {
    id: chargeId,
    kind: "funding_charge",
    rail: "bank",
    customerId: bob,
    status: "PENDING",
    reference: null,
    summary: "USD 40.00 by ACH",
    createdAt: at(0),
    dueAt: at(600),
    actions: [pay]
  }
]

const delivery = (id: string, type: string, status: WebhookDelivery["status"], attempts: number): WebhookDelivery => ({
  id,
  type,
  status,
  attempts,
  nextAttemptAt: status === "PENDING" ? at(300) : null,
  lastAttemptAt: at(-60),
  lastResponseStatus: status === "DELIVERED" ? 200 : 500,
  lastError: status === "DEAD" ? "connection refused" : null,
  createdAt: at(-120),
  deliveredAt: status === "DELIVERED" ? at(-60) : null
})

interface FakeOptions {
  readonly backlog?: ReadonlyArray<FeedEvent>
  readonly actFailure?: Error
  readonly balancesFailure?: Error
}

/** A small in-memory sandbox: the Backend the components see, plus what a test pushes and reads back. */
const makeFake = (options: FakeOptions = {}) => {
  const listeners = new Set<{ readonly onEvent: (event: FeedEvent) => void; readonly onState: (state: StreamState) => void }>()
  const events: Array<FeedEvent> = [...(options.backlog ?? [])]
  let offset = 0
  let operations = operationsFixture()
  const rails: Array<RailPolicyView> = [
    { rail: "bank", mode: "auto", outcome: "success", delaySeconds: 30, isDefault: true, updatedAt: null },
    { rail: "payout", mode: "manual", outcome: "failure", delaySeconds: 120, isDefault: false, updatedAt: at(-3_600) }
  ]
  const customers: ReadonlyArray<CustomerBalances> = [
    {
      customerId: alice,
      name: "Alice Example",
      email: "alice@example.test",
      currency: "USD",
      balances: [{ currency: "USD", available: 1_500, held: 250 }]
    },
    {
      customerId: bob,
      name: "Bob Builder",
      email: "bob@example.test",
      currency: "USD",
      balances: [{ currency: "USD", available: 80, held: 0 }, { currency: "EUR", available: 10, held: 0 }]
    }
  ]
  const deliveries: ReadonlyArray<WebhookDelivery> = [
    delivery(eventId(1), "withdrawal.created", "PENDING", 2),
    delivery(eventId(2), "funding.charge_succeeded", "DELIVERED", 1),
    delivery(eventId(3), "customer.registered", "DEAD", 8)
  ]
  const dueItems: ReadonlyArray<DueItem> = [
    { id: "job-1", at: at(600), kind: "job", name: "bank.payout", description: "bank answers the payout", customerId: alice, resourceId: withdrawalId },
    { id: eventId(1), at: at(7_200), kind: "webhook_delivery", name: "withdrawal.created", description: "webhook retry #3", customerId: alice, resourceId: null },
    { id: "job-2", at: at(3 * 86_400), kind: "job", name: "funding.expire", description: "charge expires", customerId: bob, resourceId: chargeId }
  ]
  const calls = {
    eventChain: [] as Array<string>,
    replay: [] as Array<string>,
    act: [] as Array<{ readonly action: OperationAction; readonly reason: string | undefined; readonly args: number }>,
    setRail: [] as Array<{ readonly rail: RailName; readonly policy: RailPolicyChange }>,
    advance: [] as Array<number>,
    due: [] as Array<number>,
    followStopped: 0
  }
  const now = () => at(offset)
  const clock = () => ({ now: now(), offsetSeconds: offset })

  const chain = (id: string): EventChain => {
    const found = events.find((e) => e.id === id)
    if (found === undefined) throw new Error(`EVENT_NOT_FOUND: ${id}`)
    const transaction = (n: number, reason: string, amount: number) => ({
      id: `7a000000-0000-4000-8000-00000000000${n}`,
      eventId: n === 1 ? found.id : eventId(99),
      reason,
      resourceType: "withdrawal",
      resourceId: withdrawalId,
      reference: "PAYOUT-1",
      createdAt: at(n),
      entries: [
        { account: "available", currency: "USD", amount: -amount },
        { account: "held", currency: "USD", amount }
      ]
    })
    return {
      event: { ...found },
      resource: { type: "withdrawal", id: withdrawalId },
      transactions: [transaction(1, "withdrawal.hold", 12_500), transaction(2, "withdrawal.settle", 4_200)],
      delivery: delivery(found.id, found.type, "DELIVERED", 1),
      related: [{ ...feedEvent(99, "withdrawal.completed"), id: eventId(99) }]
    }
  }

  const backend: Backend = {
    baseUrl: "http://fake.test",
    partner: async () => ({ partnerId: "p-1", name: "Demo" }),
    events: async (limit) => [...events].reverse().slice(0, limit),
    follow: (handlers) => {
      listeners.add(handlers)
      handlers.onState("live")
      return () => {
        listeners.delete(handlers)
        calls.followStopped++
      }
    },
    eventChain: async (id) => {
      calls.eventChain.push(id)
      return chain(id)
    },
    balances: async () => {
      if (options.balancesFailure !== undefined) throw options.balancesFailure
      return customers
    },
    deliveries: async () => deliveries,
    replay: async (id) => {
      calls.replay.push(id)
    },
    operations: async () => operations,
    act: async (...args) => {
      const [chosen, reason] = args
      calls.act.push({ action: chosen, reason, args: args.length })
      if (options.actFailure !== undefined) throw options.actFailure
      operations = operations.filter((operation) => !operation.actions.includes(chosen))
    },
    rails: async () => rails.map((rail) => ({ ...rail })),
    setRail: async (rail, policy) => {
      calls.setRail.push({ rail, policy })
      const index = rails.findIndex((r) => r.rail === rail)
      if (index !== -1) rails[index] = { ...rails[index]!, ...policy, isDefault: false, updatedAt: now() }
    },
    clock: async () => clock(),
    advance: async (seconds) => {
      calls.advance.push(seconds)
      offset += seconds
      return clock()
    },
    due: async (seconds) => {
      calls.due.push(seconds)
      const until = now().getTime() + seconds * 1_000
      return dueItems.filter((item) => item.at.getTime() <= until)
    }
  }

  /** A live event, as the stream would deliver it. */
  const push = (event: FeedEvent) => {
    events.push(event)
    for (const listener of listeners) listener.onEvent(event)
  }
  return { backend, calls, push, listeners }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
// eslint-disable-next-line no-control-regex
const stripAnsi = (text: string) => text.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, "")

/**
 * Everything a test does runs inside React's `act`, the waits included. Ink renders at default priority (on the
 * scheduler, asynchronously) and subscribes its `useInput` handlers in effects, after the frame is written: a key
 * typed as soon as a frame shows could otherwise reach a handler of the previous render (a stale selection). Inside
 * `act`, renders and their effects are done by the time `act` returns, so the next key always meets the handlers
 * of the frame on screen.
 */
const actEnvironment = (on: boolean) => {
  ;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = on
}
beforeAll(() => actEnvironment(true))
afterAll(() => actEnvironment(false))

const launch = async (fake: ReturnType<typeof makeFake>) => {
  let instance: ReturnType<typeof render> | undefined
  await act(async () => {
    instance = render(<App backend={fake.backend} partnerName="Demo" />)
  })
  const ink = instance!
  const frame = () => stripAnsi(ink.lastFrame() ?? "")
  /** Polls every 10 ms (up to 3 s) until `check` holds on the last frame; the fake answers in the meantime. */
  const waitFor = async (what: string, check: (frame: string) => boolean, timeoutMs = 3_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (check(frame())) return
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last frame:\n${frame()}`)
      await act(() => delay(10))
    }
  }
  const waitForText = (...texts: ReadonlyArray<string>) =>
    waitFor(texts.map((t) => JSON.stringify(t)).join(" and "), (f) => texts.every((t) => f.includes(t)))
  const waitForGone = (...texts: ReadonlyArray<string>) =>
    waitFor(`${texts.map((t) => JSON.stringify(t)).join(" and ")} to go`, (f) => texts.every((t) => !f.includes(t)))
  /** Waits until `check` holds on the recorded calls. */
  const waitForCall = (what: string, check: () => boolean) => waitFor(what, () => check())
  /**
   * Types keys one at a time. A lone Esc is held by Ink's input parser until the next turn of the event loop (it
   * may start a sequence): that turn is taken inside `act` too.
   */
  const press = async (...sequence: ReadonlyArray<string>) => {
    for (const key of sequence) {
      await act(async () => {
        ink.stdin.write(key)
        await new Promise<void>((resolve) => setImmediate(resolve))
      })
    }
  }
  /** A live event from the fake's stream. */
  const push = (...events: ReadonlyArray<FeedEvent>) =>
    act(() => {
      for (const event of events) fake.push(event)
    })
  return { instance: ink, frame, waitFor, waitForText, waitForGone, waitForCall, press, push }
}

afterEach(async () => {
  await act(() => cleanup())
})

const backlog = [
  feedEvent(1, "customer.registered", alice),
  feedEvent(2, "funding.charge_succeeded", alice),
  feedEvent(3, "withdrawal.created", alice),
  feedEvent(4, "customer.registered", bob),
  feedEvent(5, "withdrawal.completed", bob)
]

describe("TUI App", () => {
  it("shows the header, the backlog and the live feed; up pauses, new events are counted, f follows", async () => {
    const fake = makeFake({ backlog: Array.from({ length: 20 }, (_, i) => feedEvent(i + 1, "funding.charge_succeeded")) })
    const ui = await launch(fake)
    await ui.waitForText("PMM sandbox", "http://fake.test", "Demo", "● live", "● following", "20 events", "ref-020")
    expect(ui.frame()).toContain("clock 2026-03-01 12:00:0")
    // 17 rows of list: the oldest are scrolled out while following.
    expect(ui.frame()).not.toContain("ref-001")

    await ui.push(feedEvent(21, "withdrawal.created"))
    await ui.waitForText("ref-021", "21 events")
    expect(ui.frame()).toContain("withdrawal.created")
    expect(ui.frame()).toContain("● following")
    expect(ui.frame()).not.toContain("ref-004")

    await ui.press(keys.up)
    await ui.waitForText("paused")
    expect(ui.frame()).not.toContain("new")

    await ui.push(feedEvent(22, "withdrawal.created"))
    await ui.push(feedEvent(23, "withdrawal.completed"))
    await ui.waitForText("2 new", "23 events")
    // Paused: the list stays where it was, the new events are below it.
    expect(ui.frame()).not.toContain("ref-023")
    expect(ui.frame()).toContain("ref-020")

    await ui.press("f")
    await ui.waitForText("● following", "ref-023")
    expect(ui.frame()).not.toContain("paused")
    expect(ui.frame()).not.toContain("new")
  })

  it("/ filters the events (other types disappear), x clears the filter", async () => {
    const ui = await launch(makeFake({ backlog }))
    await ui.waitForText("5 events", "ref-001", "ref-005")

    await ui.press("/")
    await ui.waitForText("Filter (type:<prefix> customer:<id> text):")
    await ui.press("type:withdrawal")
    await ui.waitForText("type:withdrawal")
    await ui.press(keys.enter)
    await ui.waitForText('2 events matching "type:withdrawal" of 5')
    const filtered = ui.frame()
    expect(filtered).toContain("ref-003")
    expect(filtered).toContain("ref-005")
    expect(filtered).not.toContain("ref-001")
    expect(filtered).not.toContain("ref-002")
    expect(filtered).not.toContain("ref-004")
    expect(filtered).not.toContain("customer.registered")
    expect(filtered).not.toContain("Filter (")

    await ui.press("x")
    await ui.waitForGone("matching")
    await ui.waitForText("5 events", "ref-001", "ref-002", "ref-004")
  })

  it("Esc cancels the filter prompt without filtering", async () => {
    const ui = await launch(makeFake({ backlog }))
    await ui.waitForText("5 events")
    await ui.press("/")
    await ui.waitForText("Filter (")
    await ui.press("type:nothing", keys.escape)
    await ui.waitForGone("Filter (")
    expect(ui.frame()).toContain("5 events")
    expect(ui.frame()).not.toContain("matching")
  })

  it("Enter opens the details of the selected event (full id, ledger transactions, delivery); Esc returns", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events", "ref-005")
    await ui.press(keys.up) // event 4
    await ui.waitForText("paused")
    await ui.press(keys.enter)
    await ui.waitForText("Details", `Event     ${eventId(4)}`, "Ledger transactions (2)")
    expect(fake.calls.eventChain).toEqual([eventId(4)])
    expect(ui.frame()).toContain("Type      customer.registered")
    expect(ui.frame()).toContain(`Customer  ${bob}`)
    expect(ui.frame()).toContain(`Resource  withdrawal ${withdrawalId}`)
    expect(ui.frame()).toContain("Esc back")

    await ui.press(" ") // a page down: the rest of the chain
    await ui.waitForText("7a000000-0000-4000-8000-000000000001  ← this event", "Webhook delivery: DELIVERED · 1 attempt")
    const page = ui.frame()
    expect(page).toContain("withdrawal.hold")
    expect(page).toContain("7a000000-0000-4000-8000-000000000002")
    expect(page).toContain("+12500")
    expect(page).toContain("-4200")
    expect(page).toContain("last response  200")
    expect(page).toContain("Related events (1)")
    expect(page).toContain(eventId(99))

    await ui.press(keys.escape)
    await ui.waitForGone("Details", "Ledger transactions")
    await ui.waitForText("paused", "ref-004", "5 events")
  })

  it("keys in one burst (↑ ↑ ↑ Enter, as a terminal delivers them) open the row the last ↑ highlighted", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events", "ref-005")
    await ui.press(keys.up + keys.up + keys.up + keys.enter) // one write: the keys arrive before any render
    await ui.waitForText("Details", `Event     ${eventId(2)}`)
    expect(fake.calls.eventChain).toEqual([eventId(2)])
    await ui.press(keys.escape)
    await ui.waitForGone("Details")
    await ui.press(keys.down + keys.enter)
    await ui.waitForText("Details", `Event     ${eventId(3)}`)
    expect(fake.calls.eventChain).toEqual([eventId(2), eventId(3)])
  })

  it("plain keys in one read (\"kk\", \"f4\", \"j\\r\", as a fast typist or a script sends them) each act", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events", "ref-005", "● following")
    await ui.press("kk\r") // two up, then Enter: the event two above the newest
    await ui.waitForText("Details", `Event     ${eventId(3)}`)
    expect(fake.calls.eventChain).toEqual([eventId(3)])
    await ui.press(keys.escape)
    await ui.waitForGone("Details")
    await ui.waitForText("paused")
    await ui.press("f4") // follow, then the Rails pane
    await ui.waitForText("Pending operations (2)")
    await ui.press("1")
    await ui.waitForText("● following", "5 events")
    await ui.press("j\r") // already on the newest: Enter opens it
    await ui.waitForText("Details", `Event     ${eventId(5)}`)
  })

  it("Customers (2) lists balances with held; Enter shows that customer's events", async () => {
    const ui = await launch(makeFake({ backlog }))
    await ui.waitForText("5 events")
    await ui.press("2")
    await ui.waitForText("2 customers", "Alice Example", "USD 1500 (held 250)", "Bob Builder", "USD 80 · EUR 10")
    expect(ui.frame()).toContain("a1a1a1a1")
    expect(ui.frame()).not.toContain("ref-001")

    await ui.press(keys.down, keys.enter)
    await ui.waitForText(`2 events matching "customer:${bob}" of 5`)
    const frame = ui.frame()
    expect(frame).toContain("ref-004")
    expect(frame).toContain("ref-005")
    expect(frame).not.toContain("ref-001")
    expect(frame).not.toContain("ref-003")
  })

  it("shows a loading failure in the pane and keeps working", async () => {
    const ui = await launch(makeFake({ backlog, balancesFailure: new Error("UNREACHABLE: cannot reach the service") }))
    await ui.waitForText("5 events")
    await ui.press("2")
    await ui.waitForText("0 customers", "UNREACHABLE: cannot reach the service")
    await ui.press("1")
    await ui.waitForText("5 events", "ref-005")
  })

  it("Webhooks (3): r replays the selected delivery, s cycles the status filter", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    await ui.press("3")
    await ui.waitForText("3 deliveries", "status: all (s)", "withdrawal.created", "funding.charge_succeeded", "customer.registered")
    expect(ui.frame()).toMatch(/PENDING\s+withdrawal\.created\s+e0000001\s+2×\s+500\s+next in 5m/)
    expect(ui.frame()).toMatch(/DEAD\s+customer\.registered\s+e0000003\s+8×/)

    await ui.press(keys.down, "r")
    await ui.waitForText("replay of funding.charge_succeeded e0000002 queued")
    expect(fake.calls.replay).toEqual([eventId(2)])

    await ui.press("s")
    await ui.waitForText("status: PENDING (s)", "1 delivery")
    expect(ui.frame()).not.toContain("funding.charge_succeeded  ")
    expect(ui.frame()).not.toContain("customer.registered")
    await ui.press("r")
    await ui.waitForCall("a second replay", () => fake.calls.replay.length === 2)
    expect(fake.calls.replay).toEqual([eventId(2), eventId(1)])

    await ui.press("s")
    await ui.waitForText("status: DELIVERED (s)", "1 delivery")
    await ui.press("s")
    await ui.waitForText("status: DEAD (s)", "1 delivery", "customer.registered")
    await ui.press("s")
    await ui.waitForText("status: all (s)", "3 deliveries")
  })

  it("Rails (4): Enter shows the actions; complete calls act with that action and the operation goes", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    await ui.press("4")
    await ui.waitForText("Pending operations (2)", "USD 125.00 to bank ****6789", "USD 40.00 by ACH", "manual")
    await ui.press(keys.enter)
    await ui.waitForText(`Actions for withdrawal ${withdrawalId}`, "Complete the payout", "Fail the payout", "(asks a reason)")
    expect(fake.calls.act).toEqual([])

    await ui.press(keys.enter)
    await ui.waitForText("complete withdrawal a0c0ffee: done")
    expect(fake.calls.act).toEqual([{ action: complete, reason: undefined, args: 2 }])
    expect(fake.calls.act[0]!.action).toBe(complete)
    await ui.waitForText("Pending operations (1)")
    await ui.waitForGone("USD 125.00 to bank ****6789", "Actions for")
    expect(ui.frame()).toContain("USD 40.00 by ACH")
  })

  it("Rails (4): fail asks a reason and calls act(action, reason)", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    await ui.press("4")
    await ui.waitForText("Pending operations (2)")
    await ui.press(keys.enter)
    await ui.waitForText("Fail the payout")
    await ui.press(keys.down, keys.enter)
    await ui.waitForText("Reason to fail withdrawal a0c0ffee:")
    expect(fake.calls.act).toEqual([])
    await ui.press("bank rejected it")
    await ui.waitForText("bank rejected it")
    await ui.press(keys.enter)
    await ui.waitForText("fail withdrawal a0c0ffee: done")
    expect(fake.calls.act).toEqual([{ action: failAction, reason: "bank rejected it", args: 2 }])
    await ui.waitForGone("USD 125.00 to bank ****6789")
  })

  it("Rails (4): p then m toggles the rail policy's mode with the whole policy", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    await ui.press("4")
    await ui.waitForText("Rail policies", "(default)")
    expect(ui.frame()).toMatch(/bank\s+auto\s+success\s+30s\s+\(default\)/)
    await ui.press("p", "m")
    await ui.waitForText("bank rail: manual, success, 30s")
    expect(fake.calls.setRail).toEqual([{ rail: "bank", policy: { mode: "manual", outcome: "success", delaySeconds: 30 } }])
    await ui.waitFor("the bank rail shown manual", (f) => /bank\s+manual\s+success\s+30s/.test(f))
    expect(ui.frame()).toMatch(/payout\s+manual\s+failure\s+2m/)
    expect(fake.calls.act).toEqual([])

    // Down to the payout rail, outcome: the whole policy again.
    await ui.press(keys.down, "o")
    await ui.waitForText("payout rail: manual, success, 2m")
    expect(fake.calls.setRail[1]).toEqual({ rail: "payout", policy: { mode: "manual", outcome: "success", delaySeconds: 120 } })

    // d: the delay, prompted with the current one (Ctrl+U clears it); a non-number is refused.
    await ui.press("d")
    await ui.waitForText("Delay of the payout rail in seconds: 120")
    await ui.press("\u0015", "soon", keys.enter)
    await ui.waitForText("delay: must be a whole number of seconds")
    expect(fake.calls.setRail).toHaveLength(2)
    await ui.press("d")
    await ui.waitForText("Delay of the payout rail in seconds: 120")
    await ui.press("\u0015", "45", keys.enter)
    await ui.waitForText("payout rail: manual, success, 45s")
    expect(fake.calls.setRail[2]).toEqual({ rail: "payout", policy: { mode: "manual", outcome: "success", delaySeconds: 45 } })
    await ui.waitFor("the payout rail shown with 45s", (f) => /payout\s+manual\s+success\s+45s/.test(f))
  })

  it("Clock (5): due for the chosen window, ← → presets, t types a duration, Enter advances", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    await ui.press("5")
    await ui.waitForText("Service clock 2026-03-01 12:00:0", "bank answers the payout")
    await ui.waitFor("1 item due in 1h", (f) => /Falls due by 2026-03-01 13:00:\d\d: 1\b/.test(f))
    expect(fake.calls.due.at(-1)).toBe(3_600)
    expect(ui.frame()).not.toContain("webhook retry #3")

    await ui.press(keys.right)
    await ui.waitFor("2 items due in 6h", (f) => /Falls due by 2026-03-01 18:00:\d\d: 2\b/.test(f))
    expect(fake.calls.due.at(-1)).toBe(21_600)
    expect(ui.frame()).toContain("webhook retry #3")
    expect(ui.frame()).not.toContain("charge expires")

    await ui.press(keys.left, keys.left)
    await ui.waitForCall("due(900)", () => fake.calls.due.at(-1) === 900)
    await ui.waitFor("the 15m window", (f) => /Falls due by 2026-03-01 12:15:\d\d: 1\b/.test(f))
    expect(fake.calls.due.slice(-2)).toEqual([3_600, 900])

    await ui.press("t")
    await ui.waitForText("Advance by (90s, 15m, 2h, 1d, 1h30m):")
    await ui.press("90m")
    await ui.waitForText("90m")
    await ui.press(keys.enter)
    await ui.waitForCall("due(5400)", () => fake.calls.due.at(-1) === 5_400)
    await ui.waitFor("the 90m window", (f) => /Falls due by 2026-03-01 13:30:\d\d: 1\b/.test(f))
    expect(ui.frame()).toContain(" 1h 30m ")
    expect(fake.calls.advance).toEqual([])

    await ui.press(keys.enter)
    await ui.waitForText("advanced 1h 30m to 2026-03-01 13:30:00; 1 item fell due")
    expect(fake.calls.advance).toEqual([5_400])
    await ui.waitForText("clock 2026-03-01 13:30:0", "(+1h 30m)", "Service clock 2026-03-01 13:30:0")
  })

  it("Clock (5): a bad typed duration is refused on the status line", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    await ui.press("5")
    await ui.waitForText("Falls due by")
    await ui.press("t")
    await ui.waitForText("Advance by (")
    await ui.press("5x")
    await ui.waitForText("5x")
    await ui.press(keys.enter)
    await ui.waitForText("duration: not a duration: 5x")
    expect(fake.calls.due.every((seconds) => seconds === 3_600)).toBe(true)
    expect(fake.calls.advance).toEqual([])
  })

  it("? shows the keys of Keys.ts; any key closes it without acting", async () => {
    const ui = await launch(makeFake({ backlog }))
    await ui.waitForText("5 events")
    await ui.press("?")
    await ui.waitForText("Keys (any key closes this help")
    const help = ui.frame()
    // Global keys and the active pane's first (a long action is cut at the screen's width).
    for (const key of [...globalKeys, ...paneKeys.Events]) {
      expect(help).toMatch(new RegExp(`(Global|Events)\\s+${escapeRegExp(key.keys)}\\s+${escapeRegExp(key.action.slice(0, 60))}`))
    }
    expect(help).toContain("more keys of other panes")
    expect(help).not.toContain("ref-005")

    await ui.press("2") // closes the help only: no pane switch
    await ui.waitForGone("Keys (any key closes")
    await ui.waitForText("5 events", "ref-005")
    expect(ui.frame()).not.toContain("customers")
  })

  it("? on the Rails and Clock panes lists their keys", async () => {
    const ui = await launch(makeFake({ backlog }))
    await ui.waitForText("5 events")
    await ui.press("4")
    await ui.waitForText("Pending operations (2)")
    await ui.press("?")
    await ui.waitForText("Keys (any key closes this help")
    for (const key of paneKeys.Rails) expect(ui.frame()).toMatch(new RegExp(`Rails\\s+${escapeRegExp(key.keys)}\\s+${escapeRegExp(key.action.slice(0, 60))}`))
    await ui.press(keys.escape)
    await ui.waitForText("Pending operations (2)")
    await ui.press("5", "?")
    await ui.waitForText("Keys (any key closes this help")
    for (const key of paneKeys.Clock) expect(ui.frame()).toMatch(new RegExp(`Clock\\s+${escapeRegExp(key.keys)}\\s+${escapeRegExp(key.action.slice(0, 60))}`))
  })

  it("Tab and Shift+Tab switch panes; the footer shows each pane's hints", async () => {
    const ui = await launch(makeFake({ backlog }))
    await ui.waitForText("5 events", "/ filter")
    await ui.press(keys.tab)
    await ui.waitForText("2 customers", "Enter show the customer's events")
    await ui.press("\u001B[Z")
    await ui.waitForText("5 events")
    await ui.press("\u001B[Z")
    await ui.waitForText("Service clock", "t type a duration")
  })

  it("q quits: the App unmounts, stops following and takes no more keys", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    expect(fake.listeners.size).toBe(1)
    await ui.press("q")
    await ui.waitForCall("the feed to stop", () => fake.calls.followStopped === 1)
    expect(fake.listeners.size).toBe(0)
    const frames = ui.instance.frames.length
    await ui.press("2")
    expect(ui.instance.frames.length).toBe(frames)
    expect(ui.frame()).not.toContain("customers")
  })

  it("q quits from the details view too", async () => {
    const fake = makeFake({ backlog })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    await ui.press(keys.enter)
    await ui.waitForText("Ledger transactions")
    await ui.press("q")
    await ui.waitForCall("the feed to stop", () => fake.calls.followStopped === 1)
  })

  it("a rejected action shows its message on the status line, and the UI keeps working", async () => {
    const fake = makeFake({
      backlog,
      actFailure: new Error("WITHDRAWAL_NOT_PROCESSING: the withdrawal is not being paid out")
    })
    const ui = await launch(fake)
    await ui.waitForText("5 events")
    await ui.press("4")
    await ui.waitForText("Pending operations (2)")
    await ui.press(keys.enter)
    await ui.waitForText("Complete the payout")
    await ui.press(keys.enter)
    await ui.waitForText("complete withdrawal a0c0ffee: WITHDRAWAL_NOT_PROCESSING: the withdrawal is not being paid out")
    expect(fake.calls.act).toHaveLength(1)
    // Still listed, menu closed, and the other panes still answer.
    expect(ui.frame()).toContain("Pending operations (2)")
    expect(ui.frame()).toContain("USD 125.00 to bank ****6789")
    expect(ui.frame()).not.toContain("Actions for")
    await ui.press("1")
    await ui.waitForText("5 events", "ref-005")
    await ui.push(feedEvent(6, "withdrawal.failed"))
    await ui.waitForText("6 events", "ref-006")
    await ui.press("4")
    await ui.waitForText("Pending operations (2)")
    await ui.press(keys.enter)
    await ui.waitForText("Complete the payout")
    await ui.press(keys.escape)
    await ui.waitForGone("Complete the payout")
  })
})
