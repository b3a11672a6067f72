import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { NotFound } from "../http/ApiError.js"
import type { CustomerBusy } from "../ledger/Errors.js"
import type { FundingChargeNotFound } from "./Api.js"
import { CurrentPartner } from "../http/Auth.js"
import { Deposits } from "./Deposits.js"
import { renderEftPage } from "./EftPage.js"
import { type EftOutcome, FundingCharges } from "./FundingCharges.js"
import { VirtualAccounts } from "./VirtualAccounts.js"

const eftPath = "/api/v1/sandbox/eft"

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
    const createCharge = ({ path, payload }: { path: { customerId: string }; payload: { amount: number; reference?: string | undefined } }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        yield* customers.getOwned(partner.id, path.customerId)
        return yield* charges.create(partner.id, path.customerId.toLowerCase(), payload, yield* eftBaseUrl)
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

export const SandboxFundingHttp = HttpApiBuilder.group(Api, "sandboxFunding", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const accounts = yield* VirtualAccounts
    const charges = yield* FundingCharges
    const deposits = yield* Deposits
    const ownedId = (customerId: string) =>
      Effect.flatMap(CurrentPartner, (partner) =>
        Effect.map(customers.getOwned(partner.id, customerId), (customer) => ({ partnerId: partner.id, customerId: customer.id })))
    return handlers
      .handle("creditVirtualAccount", ({ path, payload }) =>
        Effect.flatMap(ownedId(path.customerId), ({ partnerId, customerId }) => accounts.credit(partnerId, customerId, payload)))
      .handle("payCharge", ({ path, payload }) =>
        Effect.flatMap(CurrentPartner, (partner) => charges.pay(partner.id, path.chargeId, payload.amount)))
      .handle("deposit", ({ path, payload }) =>
        Effect.flatMap(ownedId(path.customerId), ({ partnerId, customerId }) => deposits.receive(partnerId, customerId, payload)))
  }))

const notFound = () => new NotFound({ message: "This payment link is not valid" })

export const SandboxEftHttp = HttpApiBuilder.group(Api, "sandboxEft", (handlers) =>
  Effect.gen(function*() {
    const charges = yield* FundingCharges
    const page = (token: string, outcome: Effect.Effect<EftOutcome, FundingChargeNotFound | CustomerBusy>) =>
      outcome.pipe(
        Effect.map((result) =>
          HttpServerResponse.text(renderEftPage(result, `${eftPath}/${token}`), {
            contentType: "text/html; charset=utf-8",
            headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" }
          })),
        Effect.catchTag("FundingChargeNotFound", () => Effect.fail(notFound()))
      )
    return handlers
      .handle("page", ({ path }) => page(path.token, charges.eftPage(path.token)))
      .handle("authorize", ({ path }) => page(path.token, charges.eftDecide(path.token, "authorize")))
      .handle("cancel", ({ path }) => page(path.token, charges.eftDecide(path.token, "cancel")))
  }))
