import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../src/Api.js"
import { CurrentPartner } from "../src/http/Auth.js"
import { RailPolicies } from "./RailPolicies.js"

export const SandboxRailsHttp = HttpApiBuilder.group(Api, "sandboxRails", (handlers) =>
  Effect.map(RailPolicies, (policies) =>
    handlers
      .handle("list", () => Effect.flatMap(CurrentPartner, (partner) => policies.list(partner.id)))
      .handle("set", ({ path, payload }) =>
        Effect.flatMap(CurrentPartner, (partner) => policies.set(partner.id, path.rail, payload)))))
