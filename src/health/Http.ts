import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Exit } from "effect"
import { Api } from "../Api.js"
import { AppConfig } from "../config/AppConfig.js"
import { DatabaseUnavailable } from "./Api.js"

/** How long readiness waits for the database's `SELECT 1`. */
export const readinessTimeout = Duration.seconds(1)

const unavailable = () =>
  new DatabaseUnavailable({ message: "The database did not answer SELECT 1 within 1 s; this instance is not ready" })

export const HealthHttp = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    // A statement of its own; an error, a defect of the driver (a closed embedded database) and a time-out all 503.
    const ready = sql`SELECT 1`.pipe(
      Effect.timeout(readinessTimeout),
      Effect.exit,
      Effect.flatMap((exit) =>
        Exit.isSuccess(exit) ? Effect.succeed({ status: "ok" as const, database: "ok" as const }) : Effect.fail(unavailable()))
    )
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const, mode: config.mode }))
      .handle("live", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () => ready)
  }))
