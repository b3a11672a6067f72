import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest } from "../http/ApiError.js"
import { SandboxAuth } from "../http/Auth.js"
import { Envelope } from "../http/Envelope.js"
import { delaySecondsMax, RailMode, RailName, RailOutcome } from "./RailPolicy.js"

export const RailPath = Schema.Struct({
  rail: RailName.annotations({ message: () => "must be one of bank, chain, payout, identity" })
})

export const SetRailPolicyBody = Schema.Struct({
  mode: RailMode.annotations({ message: () => "must be auto or manual" }),
  outcome: Schema.optional(RailOutcome.annotations({ message: () => "must be success or failure" })),
  delaySeconds: Schema.optional(Schema.Number.pipe(
    Schema.int({ message: () => `must be a whole number of seconds from 0 to ${delaySecondsMax}` }),
    Schema.between(0, delaySecondsMax, { message: () => `must be a whole number of seconds from 0 to ${delaySecondsMax}` })
  ))
})

export const RailPolicyView = Schema.Struct({
  rail: RailName,
  mode: RailMode,
  outcome: RailOutcome,
  delaySeconds: Schema.Number,
  isDefault: Schema.Boolean,
  updatedAt: Schema.NullOr(Schema.Date)
})

/** Sandbox control of the simulated rails' behaviour, per partner. */
export class SandboxRailsApi extends HttpApiGroup.make("sandboxRails")
  .add(HttpApiEndpoint.get("list", "/rails").addSuccess(Envelope(Schema.Array(RailPolicyView))))
  .add(
    HttpApiEndpoint.put("set", "/rails/:rail")
      .setPath(RailPath)
      .setPayload(SetRailPolicyBody)
      .addSuccess(Envelope(RailPolicyView))
      .addError(BadRequest)
  )
  .middleware(SandboxAuth)
  .prefix("/sandbox")
{}
