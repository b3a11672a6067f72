import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { CurrentPartner } from "../api/Auth.js"
import { withCustomer } from "../api/Ids.js"
import { supportedCountries } from "../reference/Countries.js"
import { Customers, toCustomer } from "./Customers.js"

export const CustomersHttp = HttpApiBuilder.group(Api, "customers", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPartner, (partner) => customers.create(partner.id, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPartner, (partner) => customers.list(partner.id, urlParams)))
      .handle("get", ({ path }) =>
        Effect.map(withCustomer(path.customerId, customers.getOwned), toCustomer)
      )
      .handle("countries", () => Effect.succeed(supportedCountries))
  }))
