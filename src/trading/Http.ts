import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Customers } from "../customers/Customers.js"
import { CurrentPartner } from "../api/Auth.js"
import { Trading } from "./Trading.js"

export const TradingHttp = HttpApiBuilder.group(Api, "trading", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const trading = yield* Trading
    // Quotes and executes are commands: ownership is checked once, in the customer's actor.
    const partnerId = Effect.map(CurrentPartner, (partner) => partner.id)
    return handlers
      .handle("rate", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const customer = yield* customers.getOwned(yield* partnerId, path.customerId)
          return yield* trading.rate(customer, urlParams.amount)
        }))
      .handle("buyQuote", ({ path, payload }) =>
        Effect.flatMap(partnerId, (id) => trading.quoteBuy(id, path.customerId, payload)))
      .handle("buyExecute", ({ path, payload }) =>
        Effect.flatMap(partnerId, (id) => trading.executeBuy(id, path.customerId, payload.quoteId)))
      .handle("sellQuote", ({ path, payload }) =>
        Effect.flatMap(partnerId, (id) => trading.quoteSell(id, path.customerId, payload)))
      .handle("sellExecute", ({ path, payload }) =>
        Effect.flatMap(partnerId, (id) => trading.executeSell(id, path.customerId, payload.quoteId)))
  }))
