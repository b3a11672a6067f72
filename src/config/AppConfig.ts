import { Config, ConfigError, Context, Effect, Either, Layer, LogLevel, Option, Redacted } from "effect"
import { parseSendFees, type SendFeeTable } from "../sends/Fees.js"
import { parseWithdrawalFees, type WithdrawalFeeTable } from "../withdrawals/Fees.js"

/**
 * The one place that reads the environment. Everything else asks for `AppConfig`.
 */
export type ServiceMode = "sandbox" | "production"

export interface AppConfigShape {
  readonly port: number
  readonly host: string
  /**
   * PUBLIC_BASE_URL: where clients reach the service (`https://api.example.com`, no trailing slash); every URL the
   * service hands out (an EFT `redirectUrl`, a KYC document's `url`) is built from it, never from a request's
   * `Host`. Unset: the listen address, `http://HOST:PORT` (src/http/PublicUrl.ts).
   */
  readonly publicBaseUrl?: string | undefined
  /** A directory for the embedded database and sandbox secrets, or ":memory:" for a throwaway database. */
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** DATABASE_POOL_SIZE: PostgreSQL connections at most (DATABASE_URL only; PGlite serves one connection). 10 when absent. */
  readonly databasePoolSize?: number | undefined
  /**
   * PGLITE_SHARED_BUFFERS: the embedded database's page cache, a PostgreSQL size (`16MB`, `64MB`, `131072kB`).
   * Unset: `pgliteSharedBuffers` of src/db/Database.ts.
   */
  readonly pgliteSharedBuffers?: string | undefined
  readonly mode: ServiceMode
  /** 32-byte key (hex or base64); required in production, generated into DATA_DIR in sandbox mode. */
  readonly encryptionKey: Option.Option<Redacted.Redacted<string>>
  readonly logLevel: LogLevel.LogLevel
  /** Largest accepted JSON request body. */
  readonly maxJsonBodyBytes: number
  /** Per-customer actor mailbox capacity. */
  readonly actorMailboxCapacity: number
  /** Idle time after which a customer actor stops. */
  readonly actorIdleMs: number
  /** Live customer actors at most; a command for another customer past it answers 503 CUSTOMER_BUSY. */
  readonly actorsMax: number
  /** Webhook answer time-out (10 s by the contract; shorter in tests). */
  readonly webhookTimeoutMs: number
  /** Withdrawal fee schedule per currency (WITHDRAWAL_FEES over the defaults of src/withdrawals/Fees.ts). */
  readonly withdrawalFees?: WithdrawalFeeTable | undefined
  /** Send fees and minimums per network (SEND_FEES over the defaults of src/sends/Fees.ts). */
  readonly sendFees?: SendFeeTable | undefined
  /**
   * Production mode only: wire the simulated rails (a staging deployment that opts in). Off by default: a rail
   * with no live adapter answers 503 `<RAIL>_RAIL_UNAVAILABLE`. Sandbox mode always wires the simulators.
   */
  readonly simulatedRails?: boolean | undefined
  /**
   * CONSOLE_PASSWORD_COST: log2 of scrypt's N for new console password hashes, 10 to 20; 15 (32 MiB, tens of
   * milliseconds) when absent. A stored hash keeps its own parameters, so changing it never breaks a sign-in.
   */
  readonly consolePasswordCost?: number | undefined
}

export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {}

/**
 * `Config.validate` and a bare `InvalidData([])` lose the variable's name (the message would read
 * "Invalid configuration: must be ..."); every check here names its variable.
 */
const invalid = (name: string, message: string) => ConfigError.InvalidData([name], message)

const checked = <A>(name: string, config: Config.Config<A>, message: string, validation: (value: A) => boolean) =>
  Config.mapOrFail(config, (value) => validation(value) ? Either.right(value) : Either.left(invalid(name, message)))

const port = checked(
  "PORT",
  Config.integer("PORT").pipe(Config.withDefault(8080)),
  "must be an integer from 0 to 65535",
  (n) => n >= 0 && n <= 65535
)

const logLevel = Config.string("LOG_LEVEL").pipe(
  Config.withDefault("Info"),
  Config.mapOrFail((raw) => {
    const wanted = raw.toLowerCase()
    const found = LogLevel.allLevels.find((level) => level.label.toLowerCase() === wanted || level._tag.toLowerCase() === wanted)
    return found
      ? Either.right(found)
      : Either.left(invalid("LOG_LEVEL", `must be one of ${LogLevel.allLevels.map((l) => l._tag.toLowerCase()).join(", ")}, got "${raw}"`))
  })
)

const positive = (name: string, fallback: number) =>
  checked(name, Config.integer(name).pipe(Config.withDefault(fallback)), "must be a positive integer", (n) => n > 0)

const optionalRedacted = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== ""))
  )

/** An absolute http(s) URL without credentials, query or fragment; normalised without a trailing slash. */
const publicBaseUrl = Config.option(Config.string("PUBLIC_BASE_URL")).pipe(
  Config.mapOrFail((value) => {
    if (Option.isNone(value) || value.value.trim() === "") return Either.right(undefined)
    const raw = value.value.trim()
    const message = "must be an absolute http or https URL without credentials, query or fragment, e.g. https://api.example.com"
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return Either.left(invalid("PUBLIC_BASE_URL", message))
    }
    const fine = (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "" &&
      url.search === "" && url.hash === "" && !raw.includes("?") && !raw.includes("#")
    return fine ? Either.right(url.toString().replace(/\/+$/, "")) : Either.left(invalid("PUBLIC_BASE_URL", message))
  })
)

/** A PostgreSQL memory size for shared_buffers: a number of kB, MB or GB from 128kB (PostgreSQL's minimum) to 8GB. */
const pgliteSharedBuffers = Config.option(Config.string("PGLITE_SHARED_BUFFERS")).pipe(
  Config.mapOrFail((value) => {
    if (Option.isNone(value) || value.value.trim() === "") return Either.right(undefined)
    const match = /^(\d+)\s*(kB|MB|GB)$/.exec(value.value.trim())
    const kB = match ? Number(match[1]) * ({ kB: 1, MB: 1024, GB: 1024 * 1024 } as const)[match[2] as "kB" | "MB" | "GB"] : NaN
    return kB >= 128 && kB <= 8 * 1024 * 1024
      ? Either.right(`${match![1]}${match![2]}`)
      : Either.left(invalid("PGLITE_SHARED_BUFFERS", "must be a size from 128kB to 8GB with its unit, e.g. 16MB or 131072kB"))
  })
)

const isValidKey = (raw: string) => /^[0-9a-fA-F]{64}$/.test(raw) || Buffer.from(raw, "base64").length === 32

export const appConfig: Config.Config<AppConfigShape> = Config.all({
  port,
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  publicBaseUrl,
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./data")),
  databaseUrl: checked(
    "DATABASE_URL",
    optionalRedacted("DATABASE_URL"),
    "must be a postgres:// or postgresql:// URL",
    (url) => Option.isNone(url) || /^postgres(ql)?:\/\//.test(Redacted.value(url.value))
  ),
  databasePoolSize: positive("DATABASE_POOL_SIZE", 10),
  pgliteSharedBuffers,
  mode: Config.literal("sandbox", "production")("SERVICE_MODE").pipe(Config.withDefault("sandbox" as const)),
  encryptionKey: checked(
    "ENCRYPTION_KEY",
    optionalRedacted("ENCRYPTION_KEY"),
    "must be 32 bytes, as 64 hex characters or base64",
    (key) => Option.isNone(key) || isValidKey(Redacted.value(key.value))
  ),
  logLevel,
  maxJsonBodyBytes: positive("MAX_JSON_BODY_BYTES", 1024 * 1024),
  actorMailboxCapacity: positive("ACTOR_MAILBOX_CAPACITY", 256),
  actorIdleMs: positive("ACTOR_IDLE_MS", 60_000),
  actorsMax: positive("ACTORS_MAX", 10_000),
  webhookTimeoutMs: positive("WEBHOOK_TIMEOUT_MS", 10_000),
  simulatedRails: Config.boolean("SIMULATED_RAILS").pipe(Config.withDefault(false)),
  withdrawalFees: Config.string("WITHDRAWAL_FEES").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) => {
      const parsed = parseWithdrawalFees(text)
      return parsed.ok ? Either.right(parsed.table) : Either.left(invalid("WITHDRAWAL_FEES", parsed.message))
    })
  ),
  consolePasswordCost: Config.integer("CONSOLE_PASSWORD_COST").pipe(
    Config.withDefault(15),
    Config.mapOrFail((cost) => cost >= 10 && cost <= 20 ? Either.right(cost) : Either.left(invalid("CONSOLE_PASSWORD_COST", "must be an integer from 10 to 20")))
  ),
  sendFees: Config.string("SEND_FEES").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) => {
      const parsed = parseSendFees(text)
      return parsed.ok ? Either.right(parsed.table) : Either.left(invalid("SEND_FEES", parsed.message))
    })
  )
}).pipe(
  Config.validate({
    message: "SERVICE_MODE=production requires DATABASE_URL (the embedded database does not fsync)",
    validation: (c) => c.mode !== "production" || Option.isSome(c.databaseUrl)
  }),
  Config.validate({
    message: "SERVICE_MODE=production requires ENCRYPTION_KEY",
    validation: (c) => c.mode !== "production" || Option.isSome(c.encryptionKey)
  })
)

/** Renders a configuration error as one line that names the variable. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const lines: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        return
      case "MissingData":
      case "InvalidData":
      case "SourceUnavailable":
      case "Unsupported": {
        const name = e.path.join("_")
        lines.push(name === "" ? e.message : `${name}: ${e.message}`)
        return
      }
    }
  }
  walk(error)
  return `Invalid configuration: ${lines.join("; ")}`
}

export const layer: Layer.Layer<AppConfig, ConfigError.ConfigError> = Layer.effect(AppConfig, appConfig)

export const layerFrom = (overrides: Partial<AppConfigShape>): Layer.Layer<AppConfig, ConfigError.ConfigError> =>
  Layer.effect(AppConfig, Effect.map(appConfig, (config) => ({ ...config, ...overrides })))
