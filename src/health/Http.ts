import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { AppConfig } from "../config/AppConfig.js"

export const HealthHttp = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.map(AppConfig, (config) => handlers.handle("health", () => Effect.succeed({ status: "ok" as const, mode: config.mode }))))
