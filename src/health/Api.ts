import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { ApiError } from "../api/ApiError.js"
import { example, resourceTag } from "../api/Docs.js"
import { Envelope } from "../api/Envelope.js"

export const Health = Schema.Struct({ status: Schema.Literal("ok"), mode: Schema.Literal("sandbox", "production") })

/** Liveness: the process answers; nothing else is checked. */
export const Liveness = Schema.Struct({ status: Schema.Literal("ok") })

/** Readiness: the database answered `SELECT 1` within the time limit. */
export const Readiness = Schema.Struct({ status: Schema.Literal("ok"), database: Schema.Literal("ok") })

/** The readiness check's database did not answer `SELECT 1` (unreachable, failing or too slow). */
export class DatabaseUnavailable extends ApiError("DatabaseUnavailable", 503, "DATABASE_UNAVAILABLE") {}

export class HealthApi extends HttpApiGroup.make("health").annotateContext(resourceTag("health"))
  .add(HttpApiEndpoint.get("health", "/health")
    .annotateContext(OpenApi.annotations({
      summary: "Health check",
      description: "Answers `{ status: \"ok\", mode }` while the service is up; `mode` is `sandbox` or `production`. " +
        "No API key."
    }))
    .addSuccess(Envelope(example(Health, { status: "ok", mode: "sandbox" }))))
  .add(HttpApiEndpoint.get("live", "/health/live")
    .annotateContext(OpenApi.annotations({
      summary: "Liveness",
      description: "Answers 200 `{ status: \"ok\" }` while the process serves HTTP. It does not touch the database: " +
        "a failing liveness check means the process should be restarted. No API key."
    }))
    .addSuccess(Envelope(example(Liveness, { status: "ok" }))))
  .add(HttpApiEndpoint.get("ready", "/health/ready")
    .annotateContext(OpenApi.annotations({
      summary: "Readiness",
      description: "Answers 200 `{ status: \"ok\", database: \"ok\" }` when the database answers `SELECT 1` within " +
        "one second, else 503 `DATABASE_UNAVAILABLE` (send no traffic to this instance until it is ready again). " +
        "No API key."
    }))
    .addSuccess(Envelope(example(Readiness, { status: "ok", database: "ok" })))
    .addError(DatabaseUnavailable))
{}
