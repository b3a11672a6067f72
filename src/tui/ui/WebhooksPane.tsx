import { Box, Text } from "ink"
import { useCallback, useState } from "react"
import type { WebhookDelivery } from "../../webhooks/Api.js"
import { cell, relativeText, shortId } from "../Format.js"
import { List, moveSelection, useKeyState, useLoad, useKeys } from "./Common.js"
import { useUi } from "./Context.js"

const statusFilters = [undefined, "PENDING", "DELIVERED", "DEAD"] as const

const statusColor = (status: WebhookDelivery["status"]) =>
  status === "DELIVERED" ? "green" : status === "DEAD" ? "red" : "yellow"

export const deliveryLine = (delivery: WebhookDelivery, now: Date) =>
  [
    cell(delivery.status, 9),
    cell(delivery.type, 30),
    cell(shortId(delivery.id), 8),
    cell(`${delivery.attempts}×`, 4),
    cell(delivery.lastResponseStatus === null ? (delivery.lastError === null ? "-" : "error") : String(delivery.lastResponseStatus), 6),
    delivery.status === "PENDING" ? `next ${relativeText(delivery.nextAttemptAt, now)}` : delivery.status === "DELIVERED" ? `delivered ${relativeText(delivery.deliveredAt, now)}` : "gave up"
  ].join("  ")

/** Webhook deliveries with status, attempts, last response and the next attempt on the service clock; replay. */
export const WebhooksPane = (props: { readonly active: boolean; readonly width: number; readonly height: number }) => {
  const ui = useUi()
  const load = useCallback(() => ui.backend.deliveries(), [ui.backend])
  const { data, error, reload } = useLoad(load, ui.refresh)
  const [selected, setSelected, selectedRef] = useKeyState(0)
  const [filter, setFilter] = useState(0)
  const status = statusFilters[filter]
  const deliveries = (data ?? []).filter((delivery) => status === undefined || delivery.status === status)
  const listHeight = Math.max(1, props.height - 2)
  useKeys((input, key) => {
    const moved = moveSelection(input, key, selectedRef.current, deliveries.length, listHeight)
    if (moved !== undefined) return setSelected(moved)
    if (input === "R") return reload()
    if (input === "s") {
      setSelected(0)
      return setFilter((index) => (index + 1) % statusFilters.length)
    }
    const current = deliveries[Math.min(selectedRef.current, deliveries.length - 1)]
    if (current === undefined) return
    if (input === "r") {
      ui.backend.replay(current.id).then(
        () => {
          ui.say(`replay of ${current.type} ${shortId(current.id)} queued`)
          ui.bump()
        },
        (failure: unknown) => ui.say(`replay failed: ${failure instanceof Error ? failure.message : String(failure)}`, "error")
      )
      return
    }
    if (key.return) ui.openDetails(current.id)
  }, { isActive: props.active })
  const now = ui.now()
  return (
    <Box flexDirection="column" height={props.height}>
      <Text wrap="truncate">
        <Text bold>{`${deliveries.length} deliver${deliveries.length === 1 ? "y" : "ies"}`}</Text>
        <Text dimColor>{`  status: ${status ?? "all"} (s)`}</Text>
        {error === undefined ? null : <Text color="red">{`  ${error}`}</Text>}
      </Text>
      <Text dimColor wrap="truncate">{`${cell("status", 9)}  ${cell("event type", 30)}  ${cell("event", 8)}  ${cell("try", 4)}  ${cell("last", 6)}  schedule`}</Text>
      <List
        lines={deliveries.map((delivery) => deliveryLine(delivery, now))}
        colors={deliveries.map((delivery) => statusColor(delivery.status))}
        selected={Math.min(selected, Math.max(0, deliveries.length - 1))}
        height={listHeight}
        width={props.width}
        empty={data === undefined ? "Loading…" : "No deliveries (set a URL: PUT /api/v1/partner/v1/webhook)"}
      />
    </Box>
  )
}
