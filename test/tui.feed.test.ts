import { describe, expect, it } from "vitest"
import type { FeedEvent } from "../src/tui/Backend.js"
import * as Feed from "../src/tui/Feed.js"
import {
  advanceSecondsMax,
  durationText,
  parseDuration,
  relativeText,
  scrollWindow
} from "../src/tui/Format.js"
import type { Key } from "ink"
import { footerHints, paneKeys, paneNames, splitKeys } from "../src/tui/Keys.js"

/** Unit tests of the terminal UI's pure parts: the Events pane reducer, the text helpers and the key table. */

const base = Date.parse("2026-03-01T12:00:00.000Z")

const event = (
  n: number,
  overrides: Partial<Pick<FeedEvent, "type" | "customerId" | "data" | "createdAt">> = {}
): FeedEvent => ({
  id: `e${String(n).padStart(7, "0")}-0000-4000-8000-000000000000`,
  type: overrides.type ?? "funding.charge_succeeded",
  createdAt: overrides.createdAt ?? new Date(base + n * 1_000).toISOString(),
  customerId: overrides.customerId === undefined ? "c1111111-0000-4000-8000-000000000000" : overrides.customerId,
  data: overrides.data ?? { reference: `ref-${n}` }
})

const add = (state: Feed.FeedState, ...events: ReadonlyArray<FeedEvent>) => Feed.reduce(state, { _tag: "Add", events })
const move = (state: Feed.FeedState, by: number) => Feed.reduce(state, { _tag: "Move", by })
const filter = (state: Feed.FeedState, text: string) => Feed.reduce(state, { _tag: "Filter", filter: text })
const ids = (events: ReadonlyArray<FeedEvent>) => events.map((e) => Number(e.id.slice(1, 8)))
const selectedEvent = (state: Feed.FeedState) => Feed.visible(state)[state.selected]

describe("Feed reducer", () => {
  it("deduplicates by id, within a batch and across batches", () => {
    const once = add(Feed.initial, event(1), event(2), event(1))
    expect(ids(once.events)).toEqual([1, 2])
    const twice = add(once, event(2), event(3))
    expect(ids(twice.events)).toEqual([1, 2, 3])
    // Nothing new: the very same state (no re-render).
    expect(add(twice, event(1), event(3))).toBe(twice)
  })

  it("orders by createdAt whatever the arrival order", () => {
    const state = add(add(Feed.initial, event(5), event(2)), event(4), event(1), event(3))
    expect(ids(state.events)).toEqual([1, 2, 3, 4, 5])
  })

  it("keeps at most feedMax events, dropping the oldest", () => {
    const many = Array.from({ length: Feed.feedMax + 100 }, (_, i) => event(i + 1))
    const state = add(Feed.initial, ...many)
    expect(state.events.length).toBe(Feed.feedMax)
    expect(ids(state.events)[0]).toBe(101)
    expect(ids(state.events).at(-1)).toBe(Feed.feedMax + 100)
    // Following: the newest stays selected.
    expect(state.selected).toBe(Feed.feedMax - 1)
  })

  it("follow mode keeps the newest selected as events arrive", () => {
    let state = add(Feed.initial, event(1), event(2))
    expect(state.follow).toBe(true)
    expect(ids([selectedEvent(state)!])).toEqual([2])
    state = add(state, event(3))
    expect(ids([selectedEvent(state)!])).toEqual([3])
    expect(state.unseen).toBe(0)
  })

  it("moving up pauses; events arriving while paused are counted and do not move the selection", () => {
    let state = add(Feed.initial, event(1), event(2), event(3))
    state = move(state, -1)
    expect(state.follow).toBe(false)
    expect(ids([selectedEvent(state)!])).toEqual([2])
    state = add(state, event(4), event(5))
    expect(state.unseen).toBe(2)
    expect(state.follow).toBe(false)
    expect(ids([selectedEvent(state)!])).toEqual([2])
  })

  it("moving down onto the newest event follows again", () => {
    let state = add(Feed.initial, event(1), event(2), event(3))
    state = add(move(state, -1), event(4))
    expect(state.unseen).toBe(1)
    state = move(state, 1)
    expect(state.follow).toBe(false) // on event 3, event 4 is below
    state = move(state, 1)
    expect(state.follow).toBe(true)
    expect(state.unseen).toBe(0)
  })

  it("while paused, an event older than the selected one does not change which event is selected", () => {
    let state = add(Feed.initial, event(10), event(20), event(30))
    state = move(state, -1)
    expect(ids([selectedEvent(state)!])).toEqual([20])
    state = add(state, event(5))
    expect(ids(state.events)).toEqual([5, 10, 20, 30])
    expect(ids([selectedEvent(state)!])).toEqual([20])
  })

  it("while paused at the cap, the selection stays on its event as the oldest drop off", () => {
    let state = add(Feed.initial, ...Array.from({ length: Feed.feedMax }, (_, i) => event(i + 1)))
    state = move(state, -10)
    const chosen = selectedEvent(state)!
    state = add(state, event(Feed.feedMax + 1), event(Feed.feedMax + 2))
    expect(state.events.length).toBe(Feed.feedMax)
    expect(selectedEvent(state)).toBe(chosen)
    expect(state.unseen).toBe(2)
  })

  it("counts as unseen only the events that match the filter", () => {
    let state = filter(add(Feed.initial, event(1, { type: "withdrawal.created" }), event(2, { type: "withdrawal.created" })), "type:withdrawal")
    state = move(state, -1)
    expect(state.follow).toBe(false)
    state = add(
      state,
      event(3, { type: "withdrawal.completed" }),
      event(4, { type: "funding.charge_succeeded" }),
      event(5, { type: "customer.registered" }),
      event(6, { type: "withdrawal.failed" })
    )
    expect(state.unseen).toBe(2)
    expect(ids(Feed.visible(state))).toEqual([1, 2, 3, 6])
    expect(ids([selectedEvent(state)!])).toEqual([1])
  })

  it("Follow resets the unseen count and selects the newest", () => {
    let state = move(add(Feed.initial, event(1), event(2)), -1)
    state = add(state, event(3), event(4))
    expect(state.unseen).toBe(2)
    state = Feed.reduce(state, { _tag: "Follow" })
    expect(state).toMatchObject({ follow: true, unseen: 0, selected: 3 })
  })

  it("Top pauses on the oldest event", () => {
    const state = Feed.reduce(add(Feed.initial, event(1), event(2), event(3)), { _tag: "Top" })
    expect(state).toMatchObject({ follow: false, selected: 0 })
  })

  it("a new filter follows and clears the unseen count", () => {
    let state = add(move(add(Feed.initial, event(1), event(2)), -1), event(3))
    expect(state.unseen).toBe(1)
    state = filter(state, "ref-2")
    expect(state).toMatchObject({ follow: true, unseen: 0, selected: 0, filter: "ref-2" })
  })

  describe("filter terms", () => {
    const alice = "a1b2c3d4-0000-4000-8000-000000000000"
    const bob = "b0b0b0b0-0000-4000-8000-000000000000"
    const state = add(
      Feed.initial,
      event(1, { type: "customer.registered", customerId: alice, data: { id: alice } }),
      event(2, { type: "withdrawal.created", customerId: alice, data: { withdrawalId: "wd_1", reference: "PAYOUT-77", amount: 1250 } }),
      event(3, { type: "withdrawal.completed", customerId: bob, data: { withdrawalId: "wd_2" } }),
      event(4, { type: "funding.charge_succeeded", customerId: bob, data: { chargeId: "ch_9", note: "Birthday" } }),
      event(5, { type: "partner.notice", customerId: null, data: {} })
    )
    const shown = (text: string) => ids(Feed.visible(filter(state, text)))

    it("no filter shows everything", () => expect(shown("")).toEqual([1, 2, 3, 4, 5]))
    it("type: matches a prefix of the type", () => {
      expect(shown("type:withdrawal")).toEqual([2, 3])
      expect(shown("type:withdrawal.c")).toEqual([2, 3])
      expect(shown("type:withdrawal.completed")).toEqual([3])
      expect(shown("type:drawal")).toEqual([])
    })
    it("customer: matches a prefix of the customer id (no customer never matches)", () => {
      expect(shown("customer:a1b2")).toEqual([1, 2])
      expect(shown(`customer:${bob}`)).toEqual([3, 4])
      expect(shown("customer:0000")).toEqual([])
    })
    it("free text matches the type, id, reference or anywhere in the data, case-insensitively", () => {
      expect(shown("payout-77")).toEqual([2])
      expect(shown("birthday")).toEqual([4])
      expect(shown("CH_9")).toEqual([4])
      expect(shown("e0000005")).toEqual([5])
      expect(shown("registered")).toEqual([1])
    })
    it("every term must match", () => {
      expect(shown("type:withdrawal customer:b0b0")).toEqual([3])
      expect(shown("  type:withdrawal   wd_1 ")).toEqual([2])
      expect(shown("type:funding customer:a1b2")).toEqual([])
    })
    it("parseFilter splits the terms", () => {
      expect(Feed.parseFilter(" Type:Withdrawal  customer:AB  hello ")).toEqual([
        { field: "type", value: "withdrawal" },
        { field: "customer", value: "ab" },
        { field: "text", value: "hello" }
      ])
    })
  })
})

describe("parseDuration", () => {
  it.each([
    ["90", 90],
    ["90s", 90],
    ["15m", 900],
    ["2h", 7_200],
    ["1d", 86_400],
    ["1h30m", 5_400],
    ["2d 4h", 187_200],
    [" 1D 2H 3M 4S ", 93_784],
    ["400d", advanceSecondsMax]
  ])("accepts %j as %d seconds", (input, seconds) => {
    expect(parseDuration(input)).toEqual({ seconds })
  })

  it.each(["0", "0s", "401d", "abc", "5x", "m5", "", "  ", "1.5h", "-5m", "5 m x", "h", "99999999999999999999"])(
    "refuses %j",
    (input) => {
      const parsed = parseDuration(input)
      expect("error" in parsed).toBe(true)
    }
  )
})

describe("durationText", () => {
  it.each([
    [0, "0s"],
    [-5, "0s"],
    [45, "45s"],
    [60, "1m"],
    [90, "1m 30s"],
    [900, "15m"],
    [3_600, "1h"],
    [5_400, "1h 30m"],
    [86_400, "1d"],
    [93_784, "1d 2h"],
    [86_460, "1d 1m"],
    [604_800, "7d"],
    [0.4, "0s"]
  ])("%d s reads %j", (seconds, text) => {
    expect(durationText(seconds)).toBe(text)
  })
})

describe("relativeText", () => {
  const now = new Date("2026-03-01T12:00:00.000Z")
  it("says in, ago or now, relative to the service clock", () => {
    expect(relativeText(new Date("2026-03-01T12:05:00.000Z"), now)).toBe("in 5m")
    expect(relativeText("2026-03-01T10:00:00.000Z", now)).toBe("2h ago")
    expect(relativeText("2026-03-02T13:00:00.000Z", now)).toBe("in 1d 1h")
    expect(relativeText(new Date(now.getTime() + 400), now)).toBe("now")
    expect(relativeText(null, now)).toBe("-")
  })
})

describe("scrollWindow", () => {
  it("starts at 0 when everything fits", () => {
    expect(scrollWindow(5, 10, 4, 3)).toBe(0)
    expect(scrollWindow(10, 10, 9, 0)).toBe(0)
  })
  it("keeps the preferred top while the selection is visible", () => {
    expect(scrollWindow(100, 10, 25, 20)).toBe(20)
    expect(scrollWindow(100, 10, 29, 20)).toBe(20)
  })
  it("scrolls just enough to show the selection", () => {
    expect(scrollWindow(100, 10, 30, 20)).toBe(21)
    expect(scrollWindow(100, 10, 19, 20)).toBe(19)
    expect(scrollWindow(100, 10, 99, 0)).toBe(90)
  })
  it("never scrolls past the end nor before the start", () => {
    expect(scrollWindow(100, 10, 95, 200)).toBe(90)
    expect(scrollWindow(100, 10, 0, -5)).toBe(0)
    expect(scrollWindow(100, 0, 50, 0)).toBe(0)
  })
})

describe("Keys", () => {
  it.each(paneNames)("the %s pane has footer hints, its own and the global ones", (pane) => {
    const hints = footerHints(pane)
    expect(hints).not.toBe("")
    expect(hints).toContain("? help")
    expect(hints).toContain("q / Ctrl+C quit")
    for (const key of paneKeys[pane].filter((k) => k.hint === true)) expect(hints).toContain(key.keys)
  })
})

describe("splitKeys", () => {
  const none: Key = {
    upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false,
    end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false,
    meta: false, super: false, hyper: false, capsLock: false, numLock: false
  }
  const named = (pairs: ReadonlyArray<readonly [string, Key]>) =>
    pairs.map(([input, key]) => [input, Object.entries(key).filter(([, on]) => on === true).map(([name]) => name).join("+")])

  it("answers a run of plain characters one key at a time: letters (capitals with shift), Enter, Tab, Backspace", () => {
    expect(named(splitKeys("f4", none))).toEqual([["f", ""], ["4", ""]])
    expect(named(splitKeys("kR\r", none))).toEqual([["k", ""], ["R", "shift"], ["", "return"]])
    expect(named(splitKeys("j\t\x7f", none))).toEqual([["j", ""], ["", "tab"], ["", "backspace"]])
    expect(named(splitKeys("é?", none))).toEqual([["é", ""], ["?", ""]])
  })

  it("answers a single key, a key with a modifier and a run with other control characters as they came", () => {
    const one = splitKeys("q", none)
    expect(one).toEqual([["q", none]])
    const shifted = { ...none, shift: true }
    expect(splitKeys("G", shifted)).toEqual([["G", shifted]])
    const ctrl = { ...none, ctrl: true }
    expect(splitKeys("ab", ctrl)).toEqual([["ab", ctrl]])
    const meta = { ...none, meta: true }
    expect(splitKeys("xy", meta)).toEqual([["xy", meta]])
    expect(splitKeys("a\x01b", none)).toEqual([["a\x01b", none]])
    expect(splitKeys("", none)).toEqual([["", none]])
  })
})
