import { Layer } from "effect"
import * as Deposits from "./Deposits.js"
import * as FundingCharges from "./FundingCharges.js"
import * as VirtualAccounts from "./VirtualAccounts.js"

/** Every funding service: virtual accounts, funding charges (and their jobs), deposit addresses and deposits. */
export const layer = Layer.mergeAll(VirtualAccounts.layer, FundingCharges.layer, Deposits.layer)
