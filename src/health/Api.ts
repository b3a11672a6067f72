import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { example, resourceTag } from "../api/Docs.js"
import { Envelope } from "../api/Envelope.js"

export const Health = Schema.Struct({ status: Schema.Literal("ok"), mode: Schema.Literal("sandbox", "production") })

export class HealthApi extends HttpApiGroup.make("health").annotateContext(resourceTag("health"))
  .add(HttpApiEndpoint.get("health", "/health")
    .annotateContext(OpenApi.annotations({
      summary: "Health check",
      description: "Answers `{ status: \"ok\", mode }` while the service is up; `mode` is `sandbox` or `production`. " +
        "No API key."
    }))
    .addSuccess(Envelope(example(Health, { status: "ok", mode: "sandbox" }))))
{}
