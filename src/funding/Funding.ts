import { Layer } from "effect"
import { Deposits } from "./Deposits.js"
import { FundingCharges } from "./FundingCharges.js"
import { VirtualAccounts } from "./VirtualAccounts.js"

/** Every funding service: virtual accounts, funding charges (and their jobs), deposit addresses and deposits. */
export const layer = Layer.mergeAll(VirtualAccounts.Default, FundingCharges.Default, Deposits.Default)
