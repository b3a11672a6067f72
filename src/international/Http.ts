import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { CurrentPartner } from "../http/Auth.js"
import { International } from "./International.js"

export const InternationalHttp = HttpApiBuilder.group(Api, "international", (handlers) =>
  Effect.gen(function*() {
    const international = yield* International
    const partnerId = Effect.map(CurrentPartner, (partner) => partner.id)
    return handlers
      .handle("corridors", ({ path }) => Effect.flatMap(partnerId, (id) => international.corridors(id, path.customerId)))
      .handle("feeSetting", () => Effect.flatMap(partnerId, (id) => international.feeSetting(id)))
      .handle("setFeeSetting", ({ payload }) =>
        Effect.flatMap(partnerId, (id) => international.setFeeSetting(id, payload.paysForCustomers)))
  }))
