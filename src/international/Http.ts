import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { CurrentPartner } from "../api/Auth.js"
import { withCustomer } from "../api/Ids.js"
import { Enrolments } from "./Enrolments.js"
import { International } from "./International.js"

export const InternationalHttp = HttpApiBuilder.group(Api, "international", (handlers) =>
  Effect.gen(function*() {
    const international = yield* International
    const enrolments = yield* Enrolments
    const partnerId = Effect.map(CurrentPartner, (partner) => partner.id)
    return handlers
      .handle("corridors", ({ path }) => withCustomer(path.customerId, international.corridors))
      // Commands check ownership once, in the customer's actor.
      .handle("tier3", ({ path, payload }) => withCustomer(path.customerId, (partnerId, customerId) => enrolments.submitTier3(partnerId, customerId, payload)))
      .handle("internationalStatus", ({ path }) => withCustomer(path.customerId, enrolments.status))
      .handle("internationalResend", ({ path, urlParams }) =>
        withCustomer(path.customerId, (partnerId, customerId) => enrolments.resend(partnerId, customerId, urlParams.group)))
      .handle("internationalReject", ({ path, payload, urlParams }) =>
        withCustomer(path.customerId, (partnerId, customerId) => enrolments.reject(partnerId, customerId, urlParams.group, payload.reason)))
      .handle("feeSetting", () => Effect.flatMap(partnerId, (id) => international.feeSetting(id)))
      .handle("setFeeSetting", ({ payload }) =>
        Effect.flatMap(partnerId, (id) => international.setFeeSetting(id, payload.paysForCustomers)))
  }))
