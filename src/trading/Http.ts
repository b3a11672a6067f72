import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { withCustomer } from "../api/Ids.js"
import { Trading } from "./Trading.js"

export const TradingHttp = HttpApiBuilder.group(Api, "trading", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const trading = yield* Trading
    // Quotes and executes are commands: ownership is checked once, in the customer's actor.
    return handlers
      .handle("rate", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const customer = yield* withCustomer(path.customerId, customers.getOwned)
          return yield* trading.rate(customer, urlParams.amount)
        }))
      .handle("buyQuote", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => trading.quoteBuy(partnerId, customerId, payload)))
      .handle("buyExecute", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => trading.executeBuy(partnerId, customerId, payload.quoteId)))
      .handle("sellQuote", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => trading.quoteSell(partnerId, customerId, payload)))
      .handle("sellExecute", ({ path, payload }) =>
        withCustomer(path.customerId, (partnerId, customerId) => trading.executeSell(partnerId, customerId, payload.quoteId)))
  }))
