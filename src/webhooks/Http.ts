import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { CurrentPartner } from "../api/Auth.js"
import { Webhooks } from "./Webhooks.js"

export const WebhooksHttp = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("get", () => Effect.flatMap(CurrentPartner, (partner) => webhooks.get(partner.id)))
      .handle("set", ({ payload }) => Effect.flatMap(CurrentPartner, (partner) => webhooks.setUrl(partner.id, payload.url)))
      .handle("rotateSecret", () => Effect.flatMap(CurrentPartner, (partner) => webhooks.rotateSecret(partner.id)))
      .handle("deliveries", ({ urlParams }) =>
        Effect.flatMap(CurrentPartner, (partner) => webhooks.deliveries(partner.id, urlParams)))
      .handle("delivery", ({ path }) => Effect.flatMap(CurrentPartner, (partner) => webhooks.delivery(partner.id, path.id)))
      .handle("replay", ({ path }) => Effect.flatMap(CurrentPartner, (partner) => webhooks.replay(partner.id, path.id)))
  }))

export const SandboxWebhookChaosHttp = HttpApiBuilder.group(Api, "sandboxWebhookChaos", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("getChaos", () => Effect.flatMap(CurrentPartner, (partner) => webhooks.chaos(partner.id)))
      .handle("setChaos", ({ payload }) =>
        Effect.flatMap(CurrentPartner, (partner) =>
          webhooks.setChaos(partner.id, {
            duplicates: payload.duplicates ?? 0,
            reorderWindowSeconds: payload.reorderWindowSeconds ?? 0,
            extraDelaySeconds: payload.extraDelaySeconds ?? 0,
            failFirstAttempts: payload.failFirstAttempts ?? 0
          })))
      .handle("chaosReport", () => Effect.flatMap(CurrentPartner, (partner) => webhooks.chaosReport(partner.id)))
  }))
