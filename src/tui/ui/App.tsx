import { Box, Text, useApp, useStdout } from "ink"
import { useCallback, useEffect, useMemo, useRef, useState } from "react"
import type { Backend, Clock, StreamState } from "../Backend.js"
import * as Feed from "../Feed.js"
import { clockText, durationText, fit } from "../Format.js"
import { footerHints, globalKeys, paneKeys, type PaneName, paneNames } from "../Keys.js"
import { ClockPane } from "./ClockPane.js"
import { Prompt, useKeyReducer, useKeys } from "./Common.js"
import { type Ui, UiContext } from "./Context.js"
import { CustomersPane } from "./CustomersPane.js"
import { Details } from "./Details.js"
import { EventsPane } from "./EventsPane.js"
import { RailsPane } from "./RailsPane.js"
import { WebhooksPane } from "./WebhooksPane.js"

/** Events loaded when the UI opens, before the live feed takes over. */
export const backlogSize = 100
/** How often the panes reload without an event (webhook attempts and clock readings change without one). */
export const pollMs = 5_000
/** Quiet time after an event before the panes reload (a burst of events reloads once). */
export const settleMs = 150

interface PromptState {
  readonly label: string
  readonly initial: string
  readonly onSubmit: (value: string) => void
}

const useTerminalSize = () => {
  const { stdout } = useStdout()
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 })
  const [size, setSize] = useState(read)
  useEffect(() => {
    const onResize = () => setSize(read())
    stdout.on("resize", onResize)
    return () => {
      stdout.off("resize", onResize)
    }
  }, [stdout])
  return size
}

/** The global keys and the active pane's first (the whole table does not fit 24 rows), then the other panes'. */
const HelpScreen = (props: { readonly height: number; readonly pane: PaneName }) => {
  const rows: Array<[string, string, string]> = [
    ...globalKeys.map((key): [string, string, string] => ["Global", key.keys, key.action]),
    ...[props.pane, ...paneNames.filter((pane) => pane !== props.pane)]
      .flatMap((pane) => paneKeys[pane].map((key): [string, string, string] => [pane, key.keys, key.action]))
  ]
  const room = Math.max(0, props.height - 1)
  const shown = rows.length <= room ? rows : rows.slice(0, Math.max(0, room - 1))
  return (
    <Box flexDirection="column" height={props.height}>
      <Text bold color="cyan">Keys (any key closes this help; docs/tui.md has the same table)</Text>
      {shown.map(([pane, keys, action], index) => (
        <Text key={index} wrap="truncate">
          <Text dimColor>{pane.padEnd(10)}</Text>
          <Text bold>{keys.padEnd(16)}</Text>
          {action}
        </Text>
      ))}
      {shown.length < rows.length && room > 0
        ? <Text dimColor wrap="truncate">{`… ${rows.length - shown.length} more keys of other panes: press ? in them, or see docs/tui.md`}</Text>
        : null}
    </Box>
  )
}

/**
 * The whole screen: header (service, partner, clock, feed state), tabs, the active pane, footer (prompt or status
 * and key hints). Keys go to exactly one place at a time: a prompt, the help screen, the details view, or the
 * active pane (plus the global keys).
 */
export const App = (props: { readonly backend: Backend; readonly partnerName: string; readonly initialPane?: PaneName }) => {
  const { backend } = props
  const app = useApp()
  const { columns, rows } = useTerminalSize()
  const [pane, setPane] = useState<PaneName>(props.initialPane ?? "Events")
  const [feed, dispatch, feedRef] = useKeyReducer(Feed.reduce, Feed.initial)
  const [stream, setStream] = useState<StreamState>("connecting")
  const [prompt, setPrompt] = useState<PromptState | undefined>(undefined)
  const [help, setHelp] = useState(false)
  const [details, setDetails] = useState<string | undefined>(undefined)
  const [status, setStatus] = useState<{ readonly message: string; readonly kind: "info" | "error" } | undefined>(undefined)
  const [refresh, setRefresh] = useState(0)
  const [clock, setClock] = useState<{ readonly reading: Clock; readonly at: number } | undefined>(undefined)
  const [, setTick] = useState(0)
  const settle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)

  const bump = useCallback(() => setRefresh((n) => n + 1), [])

  // The live feed first, then the backlog: an event in between comes through one or the other (deduplicated by id).
  useEffect(() => {
    const stop = backend.follow({
      onEvent: (event) => {
        dispatch({ _tag: "Add", events: [event] })
        if (settle.current !== undefined) clearTimeout(settle.current)
        settle.current = setTimeout(bump, settleMs)
      },
      onState: setStream
    })
    backend.events(backlogSize).then(
      (events) => dispatch({ _tag: "Add", events }),
      (error: unknown) => setStatus({ message: `events: ${error instanceof Error ? error.message : String(error)}`, kind: "error" })
    )
    const poll = setInterval(bump, pollMs)
    const second = setInterval(() => setTick((n) => n + 1), 1_000)
    return () => {
      stop()
      clearInterval(poll)
      clearInterval(second)
      if (settle.current !== undefined) clearTimeout(settle.current)
    }
  }, [backend, bump])

  useEffect(() => {
    backend.clock().then(
      (reading) => setClock({ reading, at: Date.now() }),
      () => undefined
    )
  }, [backend, refresh])

  const now = useCallback(
    () => (clock === undefined ? new Date() : new Date(clock.reading.now.getTime() + (Date.now() - clock.at))),
    [clock]
  )

  const ui = useMemo<Ui>(() => ({
    backend,
    ask: (label, initial, onSubmit) => setPrompt({ label, initial, onSubmit }),
    say: (message, kind = "info") => setStatus({ message, kind }),
    openDetails: (eventId) => setDetails(eventId),
    now,
    refresh,
    bump
  }), [backend, now, refresh, bump])

  useKeys((input, key) => {
    if (help) return setHelp(false)
    if (details !== undefined) {
      if (input === "q") app.exit()
      return
    }
    if (input === "q") return app.exit()
    if (input === "?") return setHelp(true)
    const index = "12345".indexOf(input)
    if (input !== "" && index !== -1) return setPane(paneNames[index]!)
    if (key.tab) {
      const at = paneNames.indexOf(pane)
      return setPane(paneNames[(at + (key.shift ? paneNames.length - 1 : 1)) % paneNames.length]!)
    }
  }, { isActive: prompt === undefined })

  const bodyHeight = Math.max(3, rows - 5)
  const paneActive = prompt === undefined && !help && details === undefined
  const width = Math.max(20, columns)
  const offset = clock === undefined ? "" : clock.reading.offsetSeconds > 0 ? ` (+${durationText(clock.reading.offsetSeconds)})` : ""
  const streamText = stream === "live" ? "● live" : stream === "connecting" ? "○ connecting" : "○ reconnecting"

  return (
    <UiContext.Provider value={ui}>
      <Box flexDirection="column" width={width} height={Math.max(7, rows - 1)}>
        <Text wrap="truncate">
          <Text bold color="cyan">PMM sandbox</Text>
          {` ${backend.baseUrl} · ${props.partnerName} · clock ${clockText(now())} UTC${offset} · `}
          <Text color={stream === "live" ? "green" : "yellow"}>{streamText}</Text>
        </Text>
        <Text wrap="truncate">
          {paneNames.map((name, index) => (
            <Text key={name} inverse={name === pane && details === undefined} bold={name === pane}>{` ${index + 1} ${name} `}</Text>
          ))}
          {details === undefined ? null : <Text inverse bold>{" Details "}</Text>}
        </Text>
        <Box flexDirection="column" height={bodyHeight}>
          {help
            ? <HelpScreen height={bodyHeight} pane={pane} />
            : details !== undefined
            ? <Details eventId={details} width={width} height={bodyHeight} onClose={() => setDetails(undefined)} />
            : pane === "Events"
            ? <EventsPane feed={feed} feedRef={feedRef} dispatch={dispatch} active={paneActive} width={width} height={bodyHeight} />
            : pane === "Customers"
            ? (
              <CustomersPane
                active={paneActive}
                width={width}
                height={bodyHeight}
                onShowEvents={(customerId) => {
                  dispatch({ _tag: "Filter", filter: `customer:${customerId}` })
                  setPane("Events")
                }}
              />
            )
            : pane === "Webhooks"
            ? <WebhooksPane active={paneActive} width={width} height={bodyHeight} />
            : pane === "Rails"
            ? <RailsPane active={paneActive} width={width} height={bodyHeight} />
            : <ClockPane active={paneActive} width={width} height={bodyHeight} onAdvanced={bump} />}
        </Box>
        <Box height={1}>
          {prompt === undefined
            ? status === undefined
              ? <Text dimColor wrap="truncate"> </Text>
              : <Text color={status.kind === "error" ? "red" : "green"} wrap="truncate">{fit(status.message, width)}</Text>
            : (
              <Prompt
                label={prompt.label}
                initial={prompt.initial}
                onSubmit={(value) => {
                  setPrompt(undefined)
                  prompt.onSubmit(value)
                }}
                onCancel={() => setPrompt(undefined)}
              />
            )}
        </Box>
        <Text dimColor wrap="truncate">{fit(details === undefined ? footerHints(pane) : "↑↓ PgUp PgDn scroll · Esc back · q quit", width)}</Text>
      </Box>
    </UiContext.Provider>
  )
}
