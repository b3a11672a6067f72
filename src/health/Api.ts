import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Envelope } from "../http/Envelope.js"

export const Health = Schema.Struct({ status: Schema.Literal("ok"), mode: Schema.Literal("sandbox", "production") })

export class HealthApi extends HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("health", "/health").addSuccess(Envelope(Health)))
{}
