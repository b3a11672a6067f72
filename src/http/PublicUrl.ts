import * as HttpServer from "@effect/platform/HttpServer"
import { Effect } from "effect"
import { AppConfig } from "../config/AppConfig.js"

/**
 * Where clients reach the service: PUBLIC_BASE_URL, or the address the server listens on (`http://HOST:PORT`,
 * with the port actually bound when PORT=0). Every URL the service hands out is built from this, never from a
 * request's `Host` or `X-Forwarded-*` headers, which a client chooses.
 */
export const originOf = (address: HttpServer.Address): string =>
  address._tag === "TcpAddress"
    ? `http://${address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname}:${address.port}`
    : "http://localhost"

/** The public base URL (no trailing slash); needs the running server for the default. */
export const publicBaseUrl: Effect.Effect<string, never, AppConfig | HttpServer.HttpServer> = Effect.gen(function*() {
  const config = yield* AppConfig
  if (config.publicBaseUrl !== undefined) return config.publicBaseUrl
  return originOf((yield* HttpServer.HttpServer).address)
})

/** The public URL of a path of the API (`/api/v1/...`). */
export const publicUrl = (base: string, path: `/${string}`): string => `${base}${path}`
