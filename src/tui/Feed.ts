import type { FeedEvent } from "./Backend.js"
import { eventReference } from "./Format.js"

/**
 * The Events pane's state as a pure reducer: the feed (oldest first, deduplicated by id, bounded), the filter, the
 * selected row and follow mode. Following keeps the newest event selected; moving the selection up pauses it, and
 * events that arrive while paused are counted until the user follows again.
 */

/** Events kept in memory; the oldest drop off. */
export const feedMax = 2_000

export interface FeedState {
  readonly events: ReadonlyArray<FeedEvent>
  readonly filter: string
  /** Index into `visible(state)`. */
  readonly selected: number
  readonly follow: boolean
  /** Visible events that arrived while paused. */
  readonly unseen: number
}

export const initial: FeedState = { events: [], filter: "", selected: 0, follow: true, unseen: 0 }

export type FeedAction =
  | { readonly _tag: "Add"; readonly events: ReadonlyArray<FeedEvent> }
  | { readonly _tag: "Move"; readonly by: number }
  | { readonly _tag: "Follow" }
  | { readonly _tag: "Top" }
  | { readonly _tag: "Filter"; readonly filter: string }

interface Term {
  readonly field: "type" | "customer" | "text"
  readonly value: string
}

/** `type:withdrawal customer:3f2a settled`: every term must match (type and customer by prefix, text anywhere). */
export const parseFilter = (filter: string): ReadonlyArray<Term> =>
  filter.trim().toLowerCase().split(/\s+/).filter((word) => word !== "").map((word) => {
    if (word.startsWith("type:")) return { field: "type", value: word.slice(5) }
    if (word.startsWith("customer:")) return { field: "customer", value: word.slice(9) }
    return { field: "text", value: word }
  })

export const matches = (terms: ReadonlyArray<Term>) => (event: FeedEvent): boolean =>
  terms.every((term) => {
    switch (term.field) {
      case "type":
        return event.type.toLowerCase().startsWith(term.value)
      case "customer":
        return (event.customerId ?? "").toLowerCase().startsWith(term.value)
      case "text":
        return [event.type, event.customerId ?? "", event.id, eventReference(event.data), JSON.stringify(event.data)]
          .some((text) => text.toLowerCase().includes(term.value))
    }
  })

const visibleCache = new WeakMap<FeedState, ReadonlyArray<FeedEvent>>()

/** The events the filter lets through, oldest first. */
export const visible = (state: FeedState): ReadonlyArray<FeedEvent> => {
  const cached = visibleCache.get(state)
  if (cached !== undefined) return cached
  const terms = parseFilter(state.filter)
  const result = terms.length === 0 ? state.events : state.events.filter(matches(terms))
  visibleCache.set(state, result)
  return result
}

const last = (state: FeedState) => Math.max(0, visible(state).length - 1)

export const reduce = (state: FeedState, action: FeedAction): FeedState => {
  switch (action._tag) {
    case "Add": {
      const known = new Set(state.events.map((event) => event.id))
      const fresh = action.events.filter((event) => {
        if (known.has(event.id)) return false
        known.add(event.id)
        return true
      })
      if (fresh.length === 0) return state
      const merged = [...state.events, ...fresh].sort((a, b) => a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0)
      const dropped = Math.max(0, merged.length - feedMax)
      const events = dropped === 0 ? merged : merged.slice(dropped)
      const next: FeedState = { ...state, events }
      if (state.follow) return { ...next, selected: last(next) }
      const terms = parseFilter(state.filter)
      const arrived = terms.length === 0 ? fresh.length : fresh.filter(matches(terms)).length
      // Paused: the selection stays on its event, wherever the new ones sort (an older one may arrive late).
      const anchor = visible(state)[state.selected]
      const at = anchor === undefined ? -1 : visible(next).indexOf(anchor)
      return { ...next, selected: Math.max(0, at), unseen: state.unseen + arrived }
    }
    case "Move": {
      const selected = Math.max(0, Math.min(last(state), state.selected + action.by))
      if (selected >= last(state) && action.by > 0) return { ...state, selected, follow: true, unseen: 0 }
      return { ...state, selected, follow: action.by < 0 && selected < last(state) ? false : state.follow }
    }
    case "Follow":
      return { ...state, follow: true, unseen: 0, selected: last(state) }
    case "Top":
      return { ...state, follow: false, selected: 0 }
    case "Filter": {
      const next: FeedState = { ...state, filter: action.filter, unseen: 0 }
      return { ...next, follow: true, selected: last(next) }
    }
  }
}
