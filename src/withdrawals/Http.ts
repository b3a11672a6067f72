import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { CurrentPartner } from "../http/Auth.js"
import { operatorReversalReason, Withdrawals } from "./Withdrawals.js"

export const WithdrawalsHttp = HttpApiBuilder.group(Api, "withdrawals", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const withdrawals = yield* Withdrawals
    const owned = (customerId: string) => Effect.flatMap(CurrentPartner, (partner) => customers.getOwned(partner.id, customerId))
    return handlers
      .handle("quote", ({ path, urlParams }) =>
        Effect.flatMap(owned(path.customerId), (customer) => withdrawals.quote(customer, urlParams.amount)))
      .handle("withdraw", ({ path, payload }) =>
        Effect.flatMap(owned(path.customerId), (customer) => withdrawals.withdraw(customer.partnerId, customer.id, payload)))
      .handle("withdrawWallet", ({ path, payload }) =>
        Effect.flatMap(owned(path.customerId), (customer) => withdrawals.withdraw(customer.partnerId, customer.id, payload)))
      .handle("list", ({ path, urlParams }) =>
        Effect.flatMap(owned(path.customerId), (customer) => withdrawals.list(customer, urlParams)))
      .handle("get", ({ path }) =>
        Effect.flatMap(owned(path.customerId), (customer) => withdrawals.get(customer, path.withdrawalId)))
  }))

export const SandboxWithdrawalsHttp = HttpApiBuilder.group(Api, "sandboxWithdrawals", (handlers) =>
  Effect.gen(function*() {
    const withdrawals = yield* Withdrawals
    const control = (withdrawalId: string, move: Parameters<typeof withdrawals.control>[2]) =>
      Effect.flatMap(CurrentPartner, (partner) => withdrawals.control(partner.id, withdrawalId, move))
    return handlers
      .handle("complete", ({ path }) => control(path.withdrawalId, { _tag: "complete" }))
      .handle("fail", ({ path, payload }) => control(path.withdrawalId, { _tag: "fail", reason: payload.reason }))
      .handle("reverse", ({ path }) => control(path.withdrawalId, { _tag: "reverse", reason: operatorReversalReason }))
  }))
