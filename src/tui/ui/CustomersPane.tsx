import { Box, Text } from "ink"
import { useCallback } from "react"
import type { CustomerBalances } from "../Backend.js"
import { cell, shortId } from "../Format.js"
import { List, moveSelection, useKeyState, useLoad, useKeys } from "./Common.js"
import { useUi } from "./Context.js"

export const balancesText = (customer: CustomerBalances) =>
  customer.balances
    .map((balance) => `${balance.currency} ${balance.available}${balance.held === 0 ? "" : ` (held ${balance.held})`}`)
    .join(" · ")

/** Customers with their balances per currency, available and held, reloaded after every event. */
export const CustomersPane = (props: {
  readonly active: boolean
  readonly width: number
  readonly height: number
  readonly onShowEvents: (customerId: string) => void
}) => {
  const ui = useUi()
  const load = useCallback(() => ui.backend.balances(), [ui.backend])
  const { data, error, reload } = useLoad(load, ui.refresh)
  const [selected, setSelected, selectedRef] = useKeyState(0)
  const customers = data ?? []
  const listHeight = Math.max(1, props.height - 2)
  useKeys((input, key) => {
    const moved = moveSelection(input, key, selectedRef.current, customers.length, listHeight)
    if (moved !== undefined) return setSelected(moved)
    if (input === "R") return reload()
    if (key.return) {
      const customer = customers[selectedRef.current]
      if (customer !== undefined) props.onShowEvents(customer.customerId)
    }
  }, { isActive: props.active })
  return (
    <Box flexDirection="column" height={props.height}>
      <Text wrap="truncate">
        <Text bold>{`${customers.length} customer${customers.length === 1 ? "" : "s"}`}</Text>
        {error === undefined ? <Text dimColor>  balances: available (held)</Text> : <Text color="red">{`  ${error}`}</Text>}
      </Text>
      <Text dimColor wrap="truncate">{`${cell("name", 24)}  customer  balances`}</Text>
      <List
        lines={customers.map((customer) => `${cell(customer.name, 24)}  ${cell(shortId(customer.customerId), 8)}  ${balancesText(customer)}`)}
        selected={Math.min(selected, Math.max(0, customers.length - 1))}
        height={listHeight}
        width={props.width}
        empty={data === undefined ? "Loading…" : "No customers yet (POST /api/v1/partner/v1/customers)"}
      />
    </Box>
  )
}
