import { Box, Text } from "ink"
import type { Dispatch, RefObject } from "react"
import * as Feed from "../Feed.js"
import { cell, eventReference, shortId, timeText } from "../Format.js"
import { List, moveSelection, useKeys } from "./Common.js"
import { useUi } from "./Context.js"

export const eventLine = (event: { type: string; createdAt: string; customerId: string | null; data: Readonly<Record<string, unknown>> }) =>
  `${timeText(event.createdAt)}  ${cell(event.type, 34)}  ${cell(shortId(event.customerId), 8)}  ${eventReference(event.data)}`

/** The live feed: follow mode, filter, details. Its state lives in the App so that it survives pane switches. */
export const EventsPane = (props: {
  readonly feed: Feed.FeedState
  /** The feed as the keys so far left it (a burst of keys runs before the next render): what key handlers read. */
  readonly feedRef: RefObject<Feed.FeedState>
  readonly dispatch: Dispatch<Feed.FeedAction>
  readonly active: boolean
  readonly width: number
  readonly height: number
}) => {
  const ui = useUi()
  const events = Feed.visible(props.feed)
  const listHeight = Math.max(1, props.height - 2)
  useKeys((input, key) => {
    const feed = props.feedRef.current ?? props.feed
    const shown = Feed.visible(feed)
    const moved = moveSelection(input, key, feed.selected, shown.length, listHeight)
    if (moved !== undefined) {
      if (key.end) return props.dispatch({ _tag: "Follow" })
      if (key.home) return props.dispatch({ _tag: "Top" })
      return props.dispatch({ _tag: "Move", by: moved - feed.selected })
    }
    if (input === "f" || input === "G") return props.dispatch({ _tag: "Follow" })
    if (input === "g") return props.dispatch({ _tag: "Top" })
    if (input === "x") return props.dispatch({ _tag: "Filter", filter: "" })
    if (input === "/") {
      return ui.ask("Filter (type:<prefix> customer:<id> text)", feed.filter, (filter) =>
        props.dispatch({ _tag: "Filter", filter: filter.trim() }))
    }
    if (key.return) {
      const event = shown[feed.selected]
      if (event !== undefined) ui.openDetails(event.id)
    }
  }, { isActive: props.active })

  const status = props.feed.follow
    ? <Text color="green">● following</Text>
    : <Text color="yellow">⏸ paused{props.feed.unseen > 0 ? ` · ${props.feed.unseen} new` : ""} — f to follow</Text>
  return (
    <Box flexDirection="column" height={props.height}>
      <Text wrap="truncate">
        {status}
        <Text dimColor>{`  ${events.length} event${events.length === 1 ? "" : "s"}`}{props.feed.filter === "" ? "" : ` matching "${props.feed.filter}"`}{events.length < props.feed.events.length ? ` of ${props.feed.events.length}` : ""}</Text>
      </Text>
      <Text dimColor wrap="truncate">{`time      ${cell("type", 34)}  customer  reference`}</Text>
      <List
        lines={events.map(eventLine)}
        selected={props.feed.selected}
        height={listHeight}
        width={props.width}
        empty={props.feed.events.length === 0 ? "Waiting for events… (create a customer, fund it, withdraw)" : "No event matches the filter (x clears it)"}
      />
    </Box>
  )
}
