import { Config, ConfigError, Context, Effect, Either, Layer, LogLevel, Option, Redacted } from "effect"
import { isIP } from "node:net"
import { limitDefaults } from "../limits/Defaults.js"
import { isOneRepeatedByte, repeatedByteMessage } from "../crypto/KeyStrength.js"
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
  /**
   * Limits on abuse (docs/operations.md "Limits on abuse"; defaults in src/limits/Defaults.ts, used when absent):
   * RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST (requests per API key), AUTH_FAILURES_PER_MINUTE / AUTH_FAILURES_BURST
   * (unknown API keys per client address), SIGN_IN_FAILURES_PER_MINUTE / SIGN_IN_FAILURES_BURST (console sign-ins
   * per client address), PASSWORD_HASHING_CONCURRENCY / PASSWORD_HASHING_QUEUE, LIMITS_MAX_ENTRIES. A burst of 0
   * turns its limit off.
   */
  readonly keyRequestsPerSecond?: number | undefined
  readonly keyRequestsBurst?: number | undefined
  readonly authFailuresPerMinute?: number | undefined
  readonly authFailuresBurst?: number | undefined
  /** AUTH_FAILURES_DELAY_MS: the pause before a 429 TOO_MANY_FAILED_AUTHENTICATIONS is sent (0: none). */
  readonly authFailureDelayMs?: number | undefined
  readonly signInFailuresPerMinute?: number | undefined
  readonly signInFailuresBurst?: number | undefined
  readonly passwordHashingConcurrency?: number | undefined
  readonly passwordHashingQueue?: number | undefined
  readonly limitsMaxEntries?: number | undefined
  /**
   * TRUSTED_PROXY_HEADER: the header (lower case, e.g. `x-forwarded-for`) whose right-most entry is the client's
   * address; unset (the default): the socket's peer. TRUSTED_PROXIES: the peers whose header is believed
   * (comma-separated IP addresses); empty: any peer.
   */
  readonly trustedProxyHeader?: string | undefined
  readonly trustedProxies?: ReadonlyArray<string> | undefined
  /**
   * METRICS_PORT: the Prometheus text endpoint (`GET /metrics`) on a port of its own, never the partner API's;
   * unset: no endpoint (docs/observability.md). 0 picks a free port.
   */
  /**
   * WORKERS: processes `serve` runs on one machine, sharing the listening port (node:cluster), 1 to 32; 1 when absent.
   * More than one needs DATABASE_URL (the embedded database serves one process). src/process/Workers.ts.
   */
  readonly workers?: number | undefined
  /**
   * This process's number among the workers of `serve` (1, 2, ...), set by the primary for each worker it starts
   * (PMM_WORKER_NUMBER, src/process/Workers.ts); 1 for a process that is not a worker.
   */
  readonly workerNumber?: number | undefined
  readonly metricsPort?: number | undefined
  /** METRICS_HOST: the interface the metrics endpoint listens on; 127.0.0.1 when absent. */
  readonly metricsHost?: string | undefined
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: an OTLP/HTTP collector's base URL (spans are posted to `<url>/v1/traces`, JSON);
   * unset: no spans are built at all.
   */
  readonly otlpEndpoint?: string | undefined
  /** OTEL_EXPORTER_OTLP_HEADERS: headers sent with every export, `name=value,name2=value2` (values URL-encoded). */
  readonly otlpHeaders?: Readonly<Record<string, string>> | undefined
  /** OTEL_SERVICE_NAME: the `service.name` of exported spans; `partner-money-movement` when absent. */
  readonly otelServiceName?: string | undefined
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

/** METRICS_PORT: unset or empty is no metrics endpoint; otherwise a port as PORT. */
const metricsPort = Config.option(Config.string("METRICS_PORT")).pipe(
  Config.mapOrFail((value) => {
    if (Option.isNone(value) || value.value.trim() === "") return Either.right(undefined)
    const n = Number(value.value.trim())
    return /^\d+$/.test(value.value.trim()) && n <= 65535
      ? Either.right(n)
      : Either.left(invalid("METRICS_PORT", "must be an integer from 0 to 65535 (unset: no metrics endpoint)"))
  })
)

/** OTEL_EXPORTER_OTLP_ENDPOINT: an absolute http(s) URL, kept without a trailing slash; unset or empty is none. */
const otlpEndpoint = Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(
  Config.mapOrFail((value) => {
    if (Option.isNone(value) || value.value.trim() === "") return Either.right(undefined)
    const raw = value.value.trim()
    let url: URL | undefined
    try {
      url = new URL(raw)
    } catch {
      url = undefined
    }
    return url !== undefined && (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === ""
      ? Either.right(raw.replace(/\/+$/, ""))
      : Either.left(invalid("OTEL_EXPORTER_OTLP_ENDPOINT", "must be an absolute http or https URL without query or fragment, e.g. http://127.0.0.1:4318"))
  })
)

/** OTEL_EXPORTER_OTLP_HEADERS: `name=value` pairs separated by commas, values URL-encoded (the OpenTelemetry format). */
const otlpHeaders = Config.string("OTEL_EXPORTER_OTLP_HEADERS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    const headers: Record<string, string> = {}
    for (const pair of text.split(",").map((part) => part.trim()).filter((part) => part !== "")) {
      const at = pair.indexOf("=")
      const name = at > 0 ? pair.slice(0, at).trim().toLowerCase() : ""
      let value: string | undefined
      try {
        value = decodeURIComponent(pair.slice(at + 1).trim())
      } catch {
        value = undefined
      }
      if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || value === undefined) {
        return Either.left(invalid("OTEL_EXPORTER_OTLP_HEADERS", "must be name=value pairs separated by commas, values URL-encoded"))
      }
      headers[name] = value
    }
    return Either.right(headers)
  })
)

const nonNegative = (name: string, fallback: number) =>
  checked(name, Config.integer(name).pipe(Config.withDefault(fallback)), "must be an integer of 0 or more", (n) => n >= 0)

/** TRUSTED_PROXIES: IP addresses separated by commas (empty: any peer). */
const trustedProxies = Config.string("TRUSTED_PROXIES").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    const list = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
    return list.every((entry) => isIP(entry) !== 0)
      ? Either.right(list)
      : Either.left(invalid("TRUSTED_PROXIES", "must be IP addresses separated by commas"))
  })
)

/** TRUSTED_PROXY_HEADER: a header name, kept in lower case; unset or empty is none. */
const trustedProxyHeader = Config.string("TRUSTED_PROXY_HEADER").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    const name = text.trim().toLowerCase()
    if (name === "") return Either.right(undefined)
    return /^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)
      ? Either.right(name)
      : Either.left(invalid("TRUSTED_PROXY_HEADER", "must be a header name, e.g. x-forwarded-for"))
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
  workerNumber: positive("PMM_WORKER_NUMBER", 1),
  workers: checked("WORKERS", Config.integer("WORKERS").pipe(Config.withDefault(1)), "must be an integer from 1 to 32", (n) => n >= 1 && n <= 32),
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
  metricsPort,
  metricsHost: Config.string("METRICS_HOST").pipe(Config.withDefault("127.0.0.1")),
  otlpEndpoint,
  otlpHeaders,
  otelServiceName: Config.string("OTEL_SERVICE_NAME").pipe(
    Config.withDefault(""),
    Config.map((name) => name.trim() === "" ? undefined : name.trim())
  ),
  consolePasswordCost: Config.integer("CONSOLE_PASSWORD_COST").pipe(
    Config.withDefault(15),
    Config.mapOrFail((cost) => cost >= 10 && cost <= 20 ? Either.right(cost) : Either.left(invalid("CONSOLE_PASSWORD_COST", "must be an integer from 10 to 20")))
  ),
  keyRequestsPerSecond: positive("RATE_LIMIT_PER_SECOND", limitDefaults.keyRequestsPerSecond),
  keyRequestsBurst: nonNegative("RATE_LIMIT_BURST", limitDefaults.keyRequestsBurst),
  authFailuresPerMinute: positive("AUTH_FAILURES_PER_MINUTE", limitDefaults.authFailuresPerMinute),
  authFailuresBurst: nonNegative("AUTH_FAILURES_BURST", limitDefaults.authFailuresBurst),
  authFailureDelayMs: nonNegative("AUTH_FAILURES_DELAY_MS", limitDefaults.authFailureDelayMs),
  signInFailuresPerMinute: positive("SIGN_IN_FAILURES_PER_MINUTE", limitDefaults.signInFailuresPerMinute),
  signInFailuresBurst: nonNegative("SIGN_IN_FAILURES_BURST", limitDefaults.signInFailuresBurst),
  passwordHashingConcurrency: positive("PASSWORD_HASHING_CONCURRENCY", limitDefaults.passwordHashingConcurrency),
  passwordHashingQueue: nonNegative("PASSWORD_HASHING_QUEUE", limitDefaults.passwordHashingQueue),
  limitsMaxEntries: positive("LIMITS_MAX_ENTRIES", limitDefaults.limitsMaxEntries),
  trustedProxyHeader,
  trustedProxies,
  sendFees: Config.string("SEND_FEES").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) => {
      const parsed = parseSendFees(text)
      return parsed.ok ? Either.right(parsed.table) : Either.left(invalid("SEND_FEES", parsed.message))
    })
  )
}).pipe(
  Config.mapOrFail((c) =>
    (c.workers ?? 1) > 1 && Option.isNone(c.databaseUrl)
      ? Either.left(invalid("WORKERS", "more than 1 needs DATABASE_URL: the embedded database serves one process"))
      : Either.right(c)),
  Config.validate({
    message: "SERVICE_MODE=production requires DATABASE_URL (the embedded database does not fsync)",
    validation: (c) => c.mode !== "production" || Option.isSome(c.databaseUrl)
  }),
  Config.validate({
    message: "SERVICE_MODE=production requires ENCRYPTION_KEY",
    validation: (c) => c.mode !== "production" || Option.isSome(c.encryptionKey)
  }),
  // ENCRYPTION_KEY of one byte repeated: a placeholder anyone can guess; sandbox mode accepts it (src/crypto/KeyStrength.ts).
  Config.validate({
    message: repeatedByteMessage,
    validation: (c) => c.mode !== "production" || Option.isNone(c.encryptionKey) || !isOneRepeatedByte(Redacted.value(c.encryptionKey.value))
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
