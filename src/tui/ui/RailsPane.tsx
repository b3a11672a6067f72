import { Box, Text } from "ink"
import { useCallback } from "react"
import type { RailPolicyView } from "../../rails/Api.js"
import type { OperationAction, PendingOperation } from "../../sandbox/InspectApi.js"
import { cell, durationText, relativeText, shortId } from "../Format.js"
import { List, moveSelection, useKeyState, useLoad, useKeys } from "./Common.js"
import { useUi } from "./Context.js"

export const operationLine = (operation: PendingOperation, now: Date) =>
  [
    cell(operation.rail, 8),
    cell(operation.kind, 15),
    cell(operation.status, 10),
    cell(shortId(operation.customerId), 8),
    cell(operation.dueAt === null ? "manual" : relativeText(operation.dueAt, now), 10),
    operation.summary
  ].join("  ")

export const policyLine = (policy: RailPolicyView) =>
  `${cell(policy.rail, 8)}  ${cell(policy.mode, 6)}  ${cell(policy.outcome, 7)}  ${cell(durationText(policy.delaySeconds), 8)}${policy.isDefault ? "  (default)" : ""}`

/**
 * Pending operations of every rail with the actions the sandbox controls allow, and the rail policies. The actions
 * come from the service with each operation (method, path, body), so a rail added later needs no change here.
 */
export const RailsPane = (props: { readonly active: boolean; readonly width: number; readonly height: number }) => {
  const ui = useUi()
  const loadOperations = useCallback(() => ui.backend.operations(), [ui.backend])
  const loadRails = useCallback(() => ui.backend.rails(), [ui.backend])
  const operations = useLoad(loadOperations, ui.refresh)
  const rails = useLoad(loadRails, ui.refresh)
  const [focus, setFocus, focusRef] = useKeyState<"operations" | "policies">("operations")
  const [selected, setSelected, selectedRef] = useKeyState(0)
  const [policy, setPolicy, policyRef] = useKeyState(0)
  const [menu, setMenu, menuRef] = useKeyState<{ readonly operation: PendingOperation; readonly index: number } | undefined>(undefined)
  const items = operations.data ?? []
  const policies = rails.data ?? []
  const policyHeight = Math.max(4, (rails.data ?? []).length)
  const listHeight = Math.max(1, props.height - policyHeight - 4 - (menu === undefined ? 0 : menu.operation.actions.length + 1))

  const run = (operation: PendingOperation, action: OperationAction, reason?: string) => {
    const what = `${action.name} ${operation.kind} ${shortId(operation.id)}`
    ui.backend.act(action, reason).then(
      () => {
        ui.say(`${what}: done`)
        ui.bump()
      },
      (failure: unknown) => ui.say(`${what}: ${failure instanceof Error ? failure.message : String(failure)}`, "error")
    )
  }
  const choose = (operation: PendingOperation, action: OperationAction) => {
    setMenu(undefined)
    if (action.reason === "required") {
      ui.ask(`Reason to ${action.name} ${operation.kind} ${shortId(operation.id)}`, "", (reason) => {
        if (reason.trim() === "") return ui.say("a reason is required", "error")
        run(operation, action, reason.trim())
      })
    } else {
      run(operation, action)
    }
  }
  const change = (rail: RailPolicyView, next: Partial<Pick<RailPolicyView, "mode" | "outcome" | "delaySeconds">>) => {
    const body = { mode: rail.mode, outcome: rail.outcome, delaySeconds: rail.delaySeconds, ...next }
    ui.backend.setRail(rail.rail, body).then(
      () => {
        ui.say(`${rail.rail} rail: ${body.mode}, ${body.outcome}, ${durationText(body.delaySeconds)}`)
        ui.bump()
      },
      (failure: unknown) => ui.say(`${rail.rail} rail: ${failure instanceof Error ? failure.message : String(failure)}`, "error")
    )
  }

  useKeys((input, key) => {
    const menu = menuRef.current
    if (menu !== undefined) {
      if (key.escape) return setMenu(undefined)
      const moved = moveSelection(input, key, menu.index, menu.operation.actions.length, menu.operation.actions.length)
      if (moved !== undefined) return setMenu({ ...menu, index: moved })
      const action = menu.operation.actions[menu.index]
      if (key.return && action !== undefined) choose(menu.operation, action)
      return
    }
    if (input === "R") return void (operations.reload(), rails.reload())
    if (input === "p") return setFocus((now) => (now === "operations" ? "policies" : "operations"))
    if (focusRef.current === "policies") {
      const moved = moveSelection(input, key, policyRef.current, policies.length, policyHeight)
      if (moved !== undefined) return setPolicy(moved)
      const rail = policies[policyRef.current]
      if (rail === undefined) return
      if (input === "m") return change(rail, { mode: rail.mode === "auto" ? "manual" : "auto" })
      if (input === "o") return change(rail, { outcome: rail.outcome === "success" ? "failure" : "success" })
      if (input === "d") {
        return ui.ask(`Delay of the ${rail.rail} rail in seconds`, String(rail.delaySeconds), (text) => {
          const seconds = Number(text.trim())
          if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(seconds)) return ui.say("delay: must be a whole number of seconds", "error")
          change(rail, { delaySeconds: seconds })
        })
      }
      return
    }
    const moved = moveSelection(input, key, selectedRef.current, items.length, listHeight)
    if (moved !== undefined) return setSelected(moved)
    const current = items[Math.min(selectedRef.current, items.length - 1)]
    if (key.return && current !== undefined) {
      if (current.actions.length === 0) return ui.say(`${current.kind} ${shortId(current.id)}: no action available`)
      setMenu({ operation: current, index: 0 })
    }
  }, { isActive: props.active })

  const now = ui.now()
  const error = operations.error ?? rails.error
  return (
    <Box flexDirection="column" height={props.height}>
      <Text wrap="truncate">
        <Text bold {...(focus === "operations" ? { color: "cyan" } : {})}>{`Pending operations (${items.length})`}</Text>
        {error === undefined ? <Text dimColor>  Enter: actions · p: policies</Text> : <Text color="red">{`  ${error}`}</Text>}
      </Text>
      <Text dimColor wrap="truncate">{`${cell("rail", 8)}  ${cell("kind", 15)}  ${cell("status", 10)}  ${cell("customer", 8)}  ${cell("due", 10)}  summary`}</Text>
      <List
        lines={items.map((operation) => operationLine(operation, now))}
        selected={Math.min(selected, Math.max(0, items.length - 1))}
        height={listHeight}
        width={props.width}
        focused={focus === "operations" && menu === undefined}
        empty={operations.data === undefined ? "Loading…" : "Nothing pending (set a rail to manual to hold operations here)"}
      />
      {menu === undefined ? null : (
        <Box flexDirection="column">
          <Text color="cyan" wrap="truncate">{`Actions for ${menu.operation.kind} ${menu.operation.id} (Enter runs, Esc closes):`}</Text>
          {menu.operation.actions.map((action, index) => (
            <Text key={action.name} inverse={index === menu.index} wrap="truncate">
              {`  ${cell(action.label, 24)}  ${cell(action.reason === "required" ? "(asks a reason)" : "", 15)}  ${action.method} ${action.path}`}
            </Text>
          ))}
        </Box>
      )}
      <Text bold {...(focus === "policies" ? { color: "cyan" } : {})} wrap="truncate">
        Rail policies <Text dimColor bold={false}>(p to focus · m mode · o outcome · d delay)</Text>
      </Text>
      <List
        lines={policies.map(policyLine)}
        selected={policy}
        height={policyHeight}
        width={props.width}
        focused={focus === "policies"}
        empty="Loading…"
      />
    </Box>
  )
}
