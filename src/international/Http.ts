import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { CurrentPartner } from "../api/Auth.js"
import { Enrolments } from "./Enrolments.js"
import { International } from "./International.js"

export const InternationalHttp = HttpApiBuilder.group(Api, "international", (handlers) =>
  Effect.gen(function*() {
    const international = yield* International
    const enrolments = yield* Enrolments
    const partnerId = Effect.map(CurrentPartner, (partner) => partner.id)
    return handlers
      .handle("corridors", ({ path }) => Effect.flatMap(partnerId, (id) => international.corridors(id, path.customerId)))
      // Commands check ownership once, in the customer's actor.
      .handle("tier3", ({ path, payload }) => Effect.flatMap(partnerId, (id) => enrolments.submitTier3(id, path.customerId, payload)))
      .handle("internationalStatus", ({ path }) => Effect.flatMap(partnerId, (id) => enrolments.status(id, path.customerId)))
      .handle("internationalResend", ({ path, urlParams }) =>
        Effect.flatMap(partnerId, (id) => enrolments.resend(id, path.customerId, urlParams.group)))
      .handle("internationalReject", ({ path, payload, urlParams }) =>
        Effect.flatMap(partnerId, (id) => enrolments.reject(id, path.customerId, urlParams.group, payload.reason)))
      .handle("feeSetting", () => Effect.flatMap(partnerId, (id) => international.feeSetting(id)))
      .handle("setFeeSetting", ({ payload }) =>
        Effect.flatMap(partnerId, (id) => international.setFeeSetting(id, payload.paysForCustomers)))
  }))
