import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { withCustomer } from "../api/Ids.js"
import { answered } from "../http/Replayed.js"
import { GlobalSends } from "./GlobalSends.js"

export const GlobalSendHttp = HttpApiBuilder.group(Api, "globalSend", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const globalSends = yield* GlobalSends
    const owned = (customerId: string) => withCustomer(customerId, customers.getOwned)
    const initiate = (customerId: string, payload: Parameters<typeof globalSends.initiate>[2]) =>
      answered(withCustomer(customerId, (partnerId, id) => globalSends.initiate(partnerId, id, payload)))
    return handlers
      // Both paths share one idempotency scope: a reference used on either answers the original on both.
      .handle("initiate", ({ path, payload }) => initiate(path.customerId, payload))
      .handle("initiateAlias", ({ path, payload }) => initiate(path.customerId, payload))
      .handle("list", ({ path, urlParams }) => Effect.flatMap(owned(path.customerId), (customer) => globalSends.list(customer, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(owned(path.customerId), (customer) => globalSends.get(customer, path.reference)))
  }))
