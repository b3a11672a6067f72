import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { example, resourceTag } from "../api/Docs.js"
import { BadRequest } from "../api/ApiError.js"
import { SandboxAuth } from "../api/Auth.js"
import { Envelope } from "../api/Envelope.js"
import { delaySecondsMax, RailMode, RailName, railNames, RailOutcome } from "./RailPolicy.js"

export const RailPath = Schema.Struct({
  rail: RailName.annotations({ message: () => `must be one of ${railNames.join(", ")}` })
})

export const SetRailPolicyBody = example(Schema.Struct({
  mode: RailMode.annotations({ message: () => "must be auto or manual" }),
  outcome: Schema.optional(RailOutcome.annotations({ message: () => "must be success or failure" })),
  delaySeconds: Schema.optional(Schema.Number.pipe(
    Schema.int({ message: () => `must be a whole number of seconds from 0 to ${delaySecondsMax}` }),
    Schema.between(0, delaySecondsMax, { message: () => `must be a whole number of seconds from 0 to ${delaySecondsMax}` })
  ))
}), { mode: "auto", outcome: "success", delaySeconds: 5 })

export const RailPolicyView = Schema.Struct({
  rail: RailName,
  mode: RailMode,
  outcome: RailOutcome,
  delaySeconds: Schema.Number,
  isDefault: Schema.Boolean,
  updatedAt: Schema.NullOr(Schema.Date)
})
export type RailPolicyView = typeof RailPolicyView.Type

/** Sandbox control of the simulated rails' behaviour, per partner. */
export class SandboxRailsApi extends HttpApiGroup.make("sandboxRails").annotateContext(resourceTag("sandboxRails"))
  .add(HttpApiEndpoint.get("list", "/rails")
    .annotateContext(OpenApi.annotations({
      summary: "List rail policies",
      description: "How the simulated `bank`, `chain`, `payout`, `identity` and `exchange` rails answer for the " +
        "calling partner (a plain array); a rail never set reads its defaults with `isDefault: true`."
    }))
    .addSuccess(Envelope(Schema.Array(RailPolicyView))))
  .add(
    HttpApiEndpoint.put("set", "/rails/:rail")
      .annotateContext(OpenApi.annotations({
        summary: "Set a rail policy",
        description: "Replaces the calling partner's policy for one rail: `mode` `auto` (the rail answers after " +
          "`delaySeconds` with `outcome`) or `manual` (the operation waits for a sandbox control). Omitted " +
          "fields take their defaults. Operations already started keep the policy they began with. The `exchange` " +
          "fills at once: it takes no `manual` mode and no `delaySeconds` other than 0 (400 naming the field); " +
          "`outcome: failure` makes its executions fail."
      }))
      .setPath(RailPath)
      .setPayload(SetRailPolicyBody)
      .addSuccess(Envelope(RailPolicyView))
      .addError(BadRequest)
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
