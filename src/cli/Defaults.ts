import { Config, type ConfigProvider, Effect, Either, Option } from "effect"
import * as NodeFs from "node:fs"
import { demoApiKey, fromMaster, parseKey, sandboxKeyPath } from "../crypto/Keys.js"

/**
 * Where the sandbox that `npm start` runs on this machine is, and the demo partner's key, as the terminal UI finds
 * them (src/tui/main.tsx): the URL from HOST and PORT, the key from PMM_API_KEY or else derived from ENCRYPTION_KEY
 * or DATA_DIR/encryption.key exactly as the service derives it (`Keys.demoApiKey`). Read through Effect Config.
 *
 * Shared by `npm run listen` and `npm run trigger` (src/cli/) and the terminal UI (src/tui/main.tsx).
 */

/** A setting that is absent or empty reads as none. */
const setting = (name: string) => Config.string(name).pipe(Config.option, Config.map(Option.filter((value) => value !== "")))

/** What locates the sandbox `npm start` runs (its HOST, PORT, DATA_DIR, ENCRYPTION_KEY) and PMM_API_KEY. */
export const SandboxEnvironment = Config.all({
  host: setting("HOST"),
  port: setting("PORT"),
  dataDir: setting("DATA_DIR"),
  encryptionKey: setting("ENCRYPTION_KEY"),
  apiKey: setting("PMM_API_KEY")
})
export type SandboxEnvironment = Config.Config.Success<typeof SandboxEnvironment>

/** `http://HOST:PORT` of `npm start`: 127.0.0.1 for an unset or wildcard HOST, 8080 for an unset PORT. */
export const defaultUrl = (env: SandboxEnvironment): string => {
  const host = Option.getOrElse(Option.filter(env.host, (h) => h !== "0.0.0.0" && h !== "::"), () => "127.0.0.1")
  const port = Option.getOrElse(env.port, () => "8080")
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`
}

/** The demo partner's key could not be found: no PMM_API_KEY, no ENCRYPTION_KEY and no key file in DATA_DIR. */
export class NoDefaultKey {
  readonly _tag = "NoDefaultKey"
  constructor(readonly dataDir: string) {}
}

/** PMM_API_KEY, else the demo partner's key derived from ENCRYPTION_KEY or DATA_DIR/encryption.key. */
export const defaultApiKey = (env: SandboxEnvironment): Effect.Effect<string, NoDefaultKey> =>
  Effect.suspend(() => {
    if (Option.isSome(env.apiKey)) return Effect.succeed(env.apiKey.value)
    const dataDir = Option.getOrElse(env.dataDir, () => "./data")
    const raw = Option.isSome(env.encryptionKey)
      ? Effect.succeed(env.encryptionKey.value)
      : Effect.try({
        try: () => NodeFs.readFileSync(sandboxKeyPath(dataDir), "utf8").trim(),
        catch: () => new NoDefaultKey(dataDir)
      })
    return Effect.map(raw, (value) => demoApiKey(fromMaster(parseKey(value))))
  })

/** The settings read from the environment, or from `provider` (tests). */
export const readSandboxEnvironment = (provider?: ConfigProvider.ConfigProvider): SandboxEnvironment =>
  Effect.runSync(provider === undefined ? SandboxEnvironment : Effect.withConfigProvider(SandboxEnvironment, provider))

/** Why there is no default key, naming the command's own key option (`--api-key`, the terminal UI's `--key`). */
export const noDefaultKeyMessage = (missing: NoDefaultKey, keyOption: string): string =>
  `no API key: pass ${keyOption}, or run \`npm start\` first (it creates the demo partner in ${missing.dataDir})`

/** The default key, or a sentence saying why there is none (for a one-line error). */
export const defaultApiKeyOrProblem = (
  env: SandboxEnvironment,
  keyOption = "--api-key"
): { readonly apiKey: string } | { readonly problem: string } => {
  const found = Effect.runSync(Effect.either(defaultApiKey(env)))
  return Either.isRight(found) ? { apiKey: found.right } : { problem: noDefaultKeyMessage(found.left, keyOption) }
}
