import { Box, type Key, Text, useInput } from "ink"
import { useCallback, useEffect, useRef, useState } from "react"
import { fit, scrollWindow } from "../Format.js"
import { splitKeys } from "../Keys.js"

/**
 * `useInput` for command keys: the handler sees one key per call, also when several arrive in one read ("f4"; see
 * `splitKeys`).
 */
export const useKeys = (handler: (input: string, key: Key) => void, options?: { readonly isActive?: boolean }) =>
  useInput((input, key) => {
    for (const [one, oneKey] of splitKeys(input, key)) handler(one, oneKey)
  }, options)

/** Loads with `load` on mount and whenever `refresh` changes; keeps the last data while reloading. */
export const useLoad = <A,>(load: () => Promise<A>, refresh: number) => {
  const [state, setState] = useState<{ readonly data: A | undefined; readonly error: string | undefined }>({
    data: undefined,
    error: undefined
  })
  const latest = useRef(0)
  const reload = useCallback(() => {
    const ticket = ++latest.current
    load().then(
      (data) => {
        if (ticket === latest.current) setState({ data, error: undefined })
      },
      (error: unknown) => {
        if (ticket === latest.current) setState((previous) => ({ data: previous.data, error: error instanceof Error ? error.message : String(error) }))
      }
    )
  }, [load])
  useEffect(() => {
    reload()
    return () => {
      latest.current++
    }
  }, [reload, refresh])
  return { ...state, reload }
}

/** Moves a selection with ↑↓ / j k / PgUp PgDn / Home End. Answers the new index, or undefined for another key. */
export const moveSelection = (
  input: string,
  key: { upArrow: boolean; downArrow: boolean; pageUp: boolean; pageDown: boolean; home: boolean; end: boolean },
  selected: number,
  total: number,
  page: number
): number | undefined => {
  const last = Math.max(0, total - 1)
  // One key per call (useKeys): a held key's repeats that arrive as one chunk ("kkk") come here one by one.
  if (key.upArrow || input === "k") return Math.max(0, selected - 1)
  if (key.downArrow || input === "j") return Math.min(last, selected + 1)
  if (key.pageUp) return Math.max(0, selected - page)
  if (key.pageDown) return Math.min(last, selected + page)
  if (key.home) return 0
  if (key.end) return last
  return undefined
}

/** A list of pre-formatted lines with the selected one in inverse video, scrolled to keep it visible. */
export const List = (props: {
  readonly lines: ReadonlyArray<string>
  readonly selected: number
  readonly height: number
  readonly width: number
  readonly focused?: boolean
  readonly empty?: string
  readonly colors?: ReadonlyArray<string | undefined>
}) => {
  const top = useRef(0)
  const start = scrollWindow(props.lines.length, props.height, props.selected, top.current)
  top.current = start
  if (props.lines.length === 0) {
    return (
      <Box height={props.height} flexDirection="column">
        <Text dimColor>{props.empty ?? "(nothing yet)"}</Text>
      </Box>
    )
  }
  const shown = props.lines.slice(start, start + props.height)
  return (
    <Box height={props.height} flexDirection="column">
      {shown.map((line, index) => {
        const row = start + index
        const color = props.colors?.[row]
        return (
          <Text key={row} inverse={row === props.selected && props.focused !== false} wrap="truncate" {...(color === undefined ? {} : { color })}>
            {fit(line, props.width)}
          </Text>
        )
      })}
    </Box>
  )
}

/** The one-line text prompt of the footer: typing edits, Enter submits, Esc cancels. */
export const Prompt = (props: {
  readonly label: string
  readonly initial: string
  readonly onSubmit: (value: string) => void
  readonly onCancel: () => void
}) => {
  const [value, setState] = useState(props.initial)
  // The text is also kept in a ref: keys that arrive in one burst (a paste, then Enter) run before React renders
  // again, and Enter must submit what was typed, not the text of the last render.
  const current = useRef(props.initial)
  const setValue = (next: string) => {
    current.current = next
    setState(next)
  }
  useInput((input, key) => {
    if (key.escape) return props.onCancel()
    if (key.return) return props.onSubmit(current.current)
    if (key.backspace || key.delete) return setValue(current.current.slice(0, -1))
    if (key.ctrl && input === "u") return setValue("")
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return
    if (input !== "") setValue(current.current + input.replace(/[\r\n]/g, ""))
  })
  return (
    <Text>
      <Text color="cyan">{props.label}: </Text>
      {value}
      <Text inverse> </Text>
      <Text dimColor>  Enter to submit · Esc to cancel</Text>
    </Text>
  )
}

/**
 * State whose latest value key handlers read from a ref: keys that arrive in one burst (↓ then Enter) run before
 * React renders again, and each must see what the previous one did (Enter runs the action ↓ selected).
 */
export const useKeyState = <A,>(initial: A) => {
  const [value, setValue] = useState(initial)
  const ref = useRef(initial)
  const set = useCallback((next: A | ((previous: A) => A)) => {
    ref.current = typeof next === "function" ? (next as (previous: A) => A)(ref.current) : next
    setValue(ref.current)
  }, [])
  return [value, set, ref] as const
}

/**
 * `useReducer` whose latest state key handlers read from a ref, for the same reason as `useKeyState`: in a burst
 * (↑ ↑ ↑ Enter) each key must see the state the previous keys left, not the last render's.
 */
export const useKeyReducer = <S, A>(reduce: (state: S, action: A) => S, initial: S) => {
  const [state, setState] = useState(initial)
  const ref = useRef(initial)
  const dispatch = useCallback((action: A) => {
    ref.current = reduce(ref.current, action)
    setState(ref.current)
  }, [reduce])
  return [state, dispatch, ref] as const
}
