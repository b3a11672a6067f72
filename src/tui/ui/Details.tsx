import { Box, Text } from "ink"
import { useCallback, useState } from "react"
import type { EventChain } from "../../sandbox/InspectApi.js"
import { cell, clockText, relativeText, timeText } from "../Format.js"
import { useLoad, useKeys } from "./Common.js"
import { useUi } from "./Context.js"

/** The details of an event as lines: ids in full, so that they can be copied from the terminal. */
export const chainLines = (chain: EventChain, now: Date): ReadonlyArray<string> => {
  const lines: Array<string> = []
  const { event } = chain
  lines.push(`Event     ${event.id}`)
  lines.push(`Type      ${event.type}`)
  lines.push(`At        ${clockText(new Date(event.createdAt))} UTC`)
  lines.push(`Customer  ${event.customerId ?? "-"}`)
  lines.push(`Resource  ${chain.resource === null ? "-" : `${chain.resource.type} ${chain.resource.id}`}`)
  lines.push("")
  lines.push("Payload")
  for (const line of JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data }, null, 2).split("\n")) {
    lines.push(`  ${line}`)
  }
  lines.push("")
  lines.push(`Ledger transactions (${chain.transactions.length})`)
  if (chain.transactions.length === 0) lines.push("  none: this resource moved no money")
  for (const transaction of chain.transactions) {
    lines.push(`  ${timeText(transaction.createdAt)}  ${cell(transaction.reason, 20)}  ${transaction.id}${transaction.eventId === event.id ? "  ← this event" : ""}`)
    for (const entry of transaction.entries) {
      const amount = entry.amount > 0 ? `+${entry.amount}` : String(entry.amount)
      lines.push(`            ${cell(entry.account, 24)}  ${cell(entry.currency, 5)}  ${amount}`)
    }
  }
  lines.push("")
  const delivery = chain.delivery
  if (delivery === null) {
    lines.push("Webhook delivery: none (no webhook URL was set when this event happened)")
  } else {
    lines.push(`Webhook delivery: ${delivery.status} · ${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`)
    lines.push(`  last response  ${delivery.lastResponseStatus ?? "-"}${delivery.lastError === null ? "" : `  ${delivery.lastError}`}`)
    lines.push(`  last attempt   ${delivery.lastAttemptAt === null ? "-" : `${clockText(delivery.lastAttemptAt)} UTC`}`)
    if (delivery.status === "PENDING") lines.push(`  next attempt   ${delivery.nextAttemptAt === null ? "-" : `${clockText(delivery.nextAttemptAt)} UTC (${relativeText(delivery.nextAttemptAt, now)})`}`)
    if (delivery.deliveredAt !== null) lines.push(`  delivered      ${clockText(delivery.deliveredAt)} UTC`)
  }
  lines.push("")
  lines.push(`Related events (${chain.related.length})`)
  for (const related of chain.related) lines.push(`  ${timeText(related.createdAt)}  ${cell(related.type, 32)}  ${related.id}`)
  return lines
}

/** Full-screen details of one event; ↑↓ PgUp PgDn scroll, Esc closes. */
export const Details = (props: { readonly eventId: string; readonly width: number; readonly height: number; readonly onClose: () => void }) => {
  const ui = useUi()
  const load = useCallback(() => ui.backend.eventChain(props.eventId), [ui.backend, props.eventId])
  const { data, error } = useLoad(load, ui.refresh)
  const [top, setTop] = useState(0)
  const lines = data === undefined ? [] : chainLines(data, ui.now())
  const bodyHeight = Math.max(1, props.height - 1)
  const maxTop = Math.max(0, lines.length - bodyHeight)
  useKeys((input, key) => {
    if (key.escape || key.backspace || key.leftArrow) return props.onClose()
    if (key.upArrow || input === "k") return setTop((at) => Math.max(0, at - 1))
    if (key.downArrow || input === "j") return setTop((at) => Math.min(maxTop, at + 1))
    if (key.pageUp) return setTop((at) => Math.max(0, at - bodyHeight))
    if (key.pageDown || input === " ") return setTop((at) => Math.min(maxTop, at + bodyHeight))
  })
  const start = Math.min(top, maxTop)
  return (
    <Box flexDirection="column" height={props.height}>
      <Text wrap="truncate">
        <Text bold color="cyan">Details</Text>
        <Text dimColor>{`  ${props.eventId}  ↑↓ PgUp PgDn scroll · Esc back${lines.length > bodyHeight ? `  (${start + 1}-${Math.min(lines.length, start + bodyHeight)} of ${lines.length})` : ""}`}</Text>
      </Text>
      <Box flexDirection="column" height={bodyHeight}>
        {error !== undefined && data === undefined
          ? <Text color="red">{error}</Text>
          : data === undefined
          ? <Text dimColor>Loading…</Text>
          : lines.slice(start, start + bodyHeight).map((line, index) => <Text key={start + index} wrap="truncate">{line === "" ? " " : line}</Text>)}
      </Box>
    </Box>
  )
}
