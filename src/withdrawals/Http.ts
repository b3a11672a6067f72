import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { withCustomer } from "../api/Ids.js"
import { answered } from "../http/Replayed.js"
import type { WithdrawBody } from "./Api.js"
import { Withdrawals } from "./Withdrawals.js"

export const WithdrawalsHttp = HttpApiBuilder.group(Api, "withdrawals", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const withdrawals = yield* Withdrawals
    const owned = (customerId: string) => withCustomer(customerId, customers.getOwned)
    // A command checks ownership once, in the customer's actor.
    const withdraw = ({ path, payload }: { readonly path: { readonly customerId: string }; readonly payload: WithdrawBody }) =>
      answered(withCustomer(path.customerId, (partnerId, customerId) => withdrawals.withdraw(partnerId, customerId, payload)))
    return handlers
      .handle("quote", ({ path, urlParams }) =>
        Effect.flatMap(owned(path.customerId), (customer) => withdrawals.quote(customer, urlParams.amount)))
      .handle("withdraw", withdraw)
      .handle("withdrawWallet", withdraw)
      .handle("list", ({ path, urlParams }) =>
        Effect.flatMap(owned(path.customerId), (customer) => withdrawals.list(customer, urlParams)))
      .handle("get", ({ path }) =>
        Effect.flatMap(owned(path.customerId), (customer) => withdrawals.get(customer, path.withdrawalId)))
  }))
