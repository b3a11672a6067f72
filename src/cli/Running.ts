import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { ConfigError, Console, Effect } from "effect"
import * as AppConfig from "../config/AppConfig.js"

/**
 * Running a command of the service once it is parsed: the configuration first (docs/operations.md), then the
 * service's module (src/cli/ServiceRun.ts, which imports the whole service). src/cli/ServiceCommands.ts parses the
 * commands with @effect/cli and runs them through `running`; a bare `serve`, what `npm start` runs, needs no parser
 * and starts through `serveMain` without loading @effect/cli (src/main.ts).
 */
type ServiceRun = typeof import("./ServiceRun.js")

/**
 * A parsed command. A configuration that is refused prints one line naming the variable and exits 78 before the
 * service loads (0.35 CPU-s instead of 0.6).
 */
export const running = <A, E, R>(command: (run: ServiceRun, config: AppConfig.AppConfigShape) => Effect.Effect<A, E, R>) =>
  AppConfig.appConfig.pipe(
    Effect.catchIf(ConfigError.isConfigError, (error) =>
      Effect.zipRight(Console.error(AppConfig.describeConfigError(error)), Effect.sync(() => process.exit(78)))),
    Effect.flatMap((config) => Effect.flatMap(Effect.promise(() => import("./ServiceRun.js")), (run) => command(run, config)))
  )

/** `serve`: the service in this process (or, with WORKERS, the primary of its processes), once the configuration is read. */
export const serve = running((run, config) => run.serve(config))

/**
 * `serve` and nothing else on the command line, as the process's main: what `ServiceCommands.main` runs for it, in
 * the same runtime (NodeContext, NodeRuntime.runMain), without @effect/cli's parsers and what they load (about
 * 0.5 MB of bundled code: the parsers, their printer, and the TOML, YAML and INI readers of @effect/cli's config
 * files).
 */
export const serveMain = (): void => serve.pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disablePrettyLogger: true }))
