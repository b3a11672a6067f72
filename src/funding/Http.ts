import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { CurrentPartner } from "../http/Auth.js"
import { Deposits } from "./Deposits.js"
import { FundingCharges } from "./FundingCharges.js"
import { VirtualAccounts } from "./VirtualAccounts.js"

/** Where the bank rail's EFT payment page is served (the bank simulator serves it in the sandbox). */
export const eftPath = "/api/v1/sandbox/eft"

/** Where the EFT page lives, as the caller reached this server (the redirect must open from the customer's browser). */
const eftBaseUrl = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const forwarded = request.headers["x-forwarded-proto"]
  const proto = forwarded === "https" ? "https" : "http"
  return `${proto}://${request.headers["host"] ?? "localhost"}${eftPath}`
})

export const FundingHttp = HttpApiBuilder.group(Api, "funding", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const accounts = yield* VirtualAccounts
    const charges = yield* FundingCharges
    const deposits = yield* Deposits
    const owned = (customerId: string) => Effect.flatMap(CurrentPartner, (partner) => customers.getOwned(partner.id, customerId))
    // A command checks ownership once, in the customer's actor.
    const createCharge = ({ path, payload }: { path: { customerId: string }; payload: { amount: number; reference?: string | undefined } }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        return yield* charges.create(partner.id, path.customerId, payload, yield* eftBaseUrl)
      })
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
