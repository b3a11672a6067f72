import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { withCustomer } from "../api/Ids.js"
import { answered } from "../http/Replayed.js"
import { Sends } from "./Sends.js"

export const SendsHttp = HttpApiBuilder.group(Api, "sends", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const sends = yield* Sends
    const owned = (customerId: string) => withCustomer(customerId, customers.getOwned)
    return handlers
      .handle("networks", ({ path }) => Effect.map(owned(path.customerId), () => sends.networks()))
      .handle("quote", ({ path, payload }) => Effect.flatMap(owned(path.customerId), (customer) => sends.quote(customer, payload)))
      // A command checks ownership once, in the customer's actor.
      .handle("send", ({ path, payload }) =>
        answered(withCustomer(path.customerId, (partnerId, customerId) => sends.send(partnerId, customerId, payload))))
      .handle("list", ({ path, urlParams }) => Effect.flatMap(owned(path.customerId), (customer) => sends.list(customer, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(owned(path.customerId), (customer) => sends.get(customer, path.reference)))
  }))
