import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { withCustomer } from "../api/Ids.js"
import { BankAccounts } from "./BankAccounts.js"

export const BankAccountsHttp = HttpApiBuilder.group(Api, "bankAccounts", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const accounts = yield* BankAccounts
    const owned = (customerId: string) => withCustomer(customerId, customers.getOwned)
    return handlers
      .handle("banks", ({ path, urlParams }) => Effect.zipRight(owned(path.customerId), accounts.banks(urlParams.country)))
      .handle("verifyAccount", ({ path, payload }) =>
        Effect.flatMap(owned(path.customerId), (customer) => accounts.verify(customer, payload)))
      .handle("save", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => accounts.save(partnerId, customerId, payload)))
      .handle("list", ({ path }) => Effect.flatMap(owned(path.customerId), accounts.list))
      .handle("get", ({ path }) => Effect.flatMap(owned(path.customerId), (customer) => accounts.get(customer, path.accountId)))
      .handle("makeDefault", ({ path }) =>
        withCustomer(path.customerId, (partnerId, customerId) => accounts.makeDefault(partnerId, customerId, path.accountId)))
  }))
