import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../src/Api.js"
import { CurrentPartner } from "../src/api/Auth.js"
import { BadRequest } from "../src/api/ApiError.js"
import { policyProblem, RailPolicies } from "./RailPolicies.js"

export const SandboxRailsHttp = HttpApiBuilder.group(Api, "sandboxRails", (handlers) =>
  Effect.map(RailPolicies, (policies) =>
    handlers
      .handle("list", () => Effect.flatMap(CurrentPartner, (partner) => policies.list(partner.id)))
      .handle("set", ({ path, payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          // A policy the rail cannot follow (the exchange has no manual mode and no delay) changes nothing.
          const problem = policyProblem(path.rail, payload)
          if (problem !== undefined) return yield* new BadRequest({ message: `${problem.field}: ${problem.message}` })
          return yield* policies.set(partner.id, path.rail, payload)
        }))))
