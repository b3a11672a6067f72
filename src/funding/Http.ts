import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { AppConfig } from "../config/AppConfig.js"
import { Customers } from "../customers/Customers.js"
import { withCustomer } from "../api/Ids.js"
import { answered } from "../http/Replayed.js"
import { publicBaseUrl } from "../http/PublicUrl.js"
import { Deposits } from "./Deposits.js"
import { FundingCharges } from "./FundingCharges.js"
import { VirtualAccounts } from "./VirtualAccounts.js"

/** Where the bank rail's EFT payment page is served (the bank simulator serves it in the sandbox). */
export const eftPath = "/api/v1/sandbox/eft"

export const FundingHttp = HttpApiBuilder.group(Api, "funding", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const accounts = yield* VirtualAccounts
    const charges = yield* FundingCharges
    const deposits = yield* Deposits
    // A ZAR charge's redirectUrl: the sandbox EFT page under PUBLIC_BASE_URL (never the request's Host header).
    // Production has no EFT page (it is a sandbox route), so a production charge has no redirectUrl.
    const config = yield* AppConfig
    const eftBaseUrl = config.mode === "production" ? null : `${yield* publicBaseUrl}${eftPath}`
    const owned = (customerId: string) => withCustomer(customerId, customers.getOwned)
    // A command checks ownership once, in the customer's actor.
    const createCharge = ({ path, payload }: { path: { customerId: string }; payload: { amount: number; reference?: string | undefined } }) =>
      answered(withCustomer(path.customerId, (partnerId, customerId) => charges.create(partnerId, customerId, payload, eftBaseUrl)))
    return handlers
      .handle("virtualAccount", ({ path }) => Effect.flatMap(owned(path.customerId), accounts.getOrIssue))
      .handle("createCharge", createCharge)
      .handle("createChargeWallet", createCharge)
      .handle("listCharges", ({ path, urlParams }) =>
        Effect.flatMap(owned(path.customerId), (customer) => charges.list(customer, urlParams)))
      .handle("getCharge", ({ path }) =>
        Effect.flatMap(owned(path.customerId), (customer) => charges.get(customer, path.chargeId)))
      .handle("addresses", ({ path }) => Effect.flatMap(owned(path.customerId), deposits.addresses))
  }))
