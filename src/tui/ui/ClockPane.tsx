import { Box, Text } from "ink"
import { useCallback, useState } from "react"
import type { DueItem } from "../../sandbox/InspectApi.js"
import { cell, clockText, durationText, parseDuration, relativeText, shortId } from "../Format.js"
import { List, useKeyState, useLoad, useKeys } from "./Common.js"
import { useUi } from "./Context.js"

export const presets: ReadonlyArray<number> = [60, 300, 900, 3_600, 21_600, 86_400, 604_800]

export const dueLine = (item: DueItem, now: Date) =>
  `${cell(relativeText(item.at, now), 10)}  ${cell(item.kind === "job" ? "job" : "webhook", 7)}  ${cell(shortId(item.customerId), 8)}  ${item.description}`

/** The service clock: choose how far to advance, see what falls due by then, advance. */
export const ClockPane = (props: {
  readonly active: boolean
  readonly width: number
  readonly height: number
  readonly onAdvanced: () => void
}) => {
  const ui = useUi()
  const [seconds, setSeconds, secondsRef] = useKeyState(3_600)
  const [busy, setBusy] = useState(false)
  const load = useCallback(() => ui.backend.due(seconds), [ui.backend, seconds])
  const due = useLoad(load, ui.refresh)
  const items = due.data ?? []
  useKeys((input, key) => {
    if (busy) return
    const seconds = secondsRef.current
    if (key.leftArrow || key.rightArrow) {
      const index = presets.findIndex((preset) => preset >= seconds)
      const at = index === -1 ? presets.length : index
      const next = key.rightArrow
        ? presets[Math.min(presets.length - 1, presets[at] === seconds ? at + 1 : at)]
        : presets[Math.max(0, at - 1)]
      if (next !== undefined) setSeconds(next)
      return
    }
    if (input === "t") {
      return ui.ask("Advance by (90s, 15m, 2h, 1d, 1h30m)", "", (text) => {
        const parsed = parseDuration(text)
        if ("error" in parsed) return ui.say(`duration: ${parsed.error}`, "error")
        setSeconds(parsed.seconds)
      })
    }
    if (key.return) {
      setBusy(true)
      const count = items.length
      ui.backend.advance(seconds).then(
        (clock) => {
          setBusy(false)
          ui.say(`advanced ${durationText(seconds)} to ${clockText(clock.now)}; ${count} item${count === 1 ? "" : "s"} fell due`)
          props.onAdvanced()
        },
        (failure: unknown) => {
          setBusy(false)
          ui.say(`advance failed: ${failure instanceof Error ? failure.message : String(failure)}`, "error")
        }
      )
    }
  }, { isActive: props.active })
  const now = ui.now()
  return (
    <Box flexDirection="column" height={props.height}>
      <Text wrap="truncate">
        <Text bold>{`Service clock ${clockText(now)} UTC`}</Text>
      </Text>
      <Text wrap="truncate">
        {"Advance by: "}
        {presets.map((preset) => (
          <Text key={preset} inverse={preset === seconds}>{` ${durationText(preset)} `}</Text>
        ))}
        {presets.includes(seconds) ? null : <Text inverse>{` ${durationText(seconds)} `}</Text>}
        <Text dimColor>{busy ? "  advancing…" : "  ← → choose · t type · Enter advance"}</Text>
      </Text>
      <Text wrap="truncate">
        <Text bold>{`Falls due by ${clockText(new Date(now.getTime() + seconds * 1000))}: ${items.length}`}</Text>
        {due.error === undefined ? null : <Text color="red">{`  ${due.error}`}</Text>}
      </Text>
      <List
        lines={items.map((item) => dueLine(item, now))}
        selected={-1}
        height={Math.max(1, props.height - 3)}
        width={props.width}
        empty={due.data === undefined ? "Loading…" : "Nothing falls due in this window"}
      />
    </Box>
  )
}
