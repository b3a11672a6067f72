import { parseDecimalString } from "../money/Money.js"
import { type NetworkName, networkNames, networks } from "../reference/Networks.js"

/**
 * Send fees and minimums per network (docs/contract.md "Send network", "Limits"): a flat fee and a minimum send, both in
 * USDT, minor units (6 decimals). The defaults are src/reference/Networks.ts's (the deposit networks); SEND_FEES
 * (read in AppConfig) overrides entries, e.g. `TRON:1.5:5;ETHEREUM:6:20` = network:flatFeeUsdt:minSendUsdt.
 * A minimum must exceed the fee (a send must deliver something).
 */
export interface SendFee {
  readonly flatFee: bigint
  readonly minSend: bigint
}

export type SendFeeTable = Readonly<Record<NetworkName, SendFee>>

export const defaultSendFees: SendFeeTable = Object.fromEntries(
  networks.map((n) => [n.network, { flatFee: parseDecimalString("USDT", n.flatFeeUsdt), minSend: parseDecimalString("USDT", n.minSendUsdt) }])
) as unknown as SendFeeTable

/** Parses SEND_FEES over the defaults. Returns the table, or a message naming the bad entry. */
export const parseSendFees = (text: string): { readonly ok: true; readonly table: SendFeeTable } | { readonly ok: false; readonly message: string } => {
  const table: Record<string, SendFee> = { ...defaultSendFees }
  for (const raw of text.split(";").map((part) => part.trim()).filter((part) => part !== "")) {
    const match = /^([A-Z]+):(\d{1,9}(?:\.\d{1,6})?):(\d{1,9}(?:\.\d{1,6})?)$/.exec(raw)
    if (match === null || !(networkNames as ReadonlyArray<string>).includes(match[1]!)) {
      return { ok: false, message: `entry "${raw}" must be NETWORK:flatFeeUsdt:minSendUsdt with a network of ${networkNames.join(", ")}` }
    }
    const flatFee = parseDecimalString("USDT", match[2]!)
    const minSend = parseDecimalString("USDT", match[3]!)
    if (minSend <= flatFee) return { ok: false, message: `entry "${raw}": minSendUsdt must be more than flatFeeUsdt` }
    table[match[1]!] = { flatFee, minSend }
  }
  return { ok: true, table: table as unknown as SendFeeTable }
}
