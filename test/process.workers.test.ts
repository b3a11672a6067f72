import { ConfigProvider, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { appConfig, describeConfigError } from "../src/config/AppConfig.js"

/**
 * WORKERS (src/process/Workers.ts, docs/operations.md "Both cores"): how many processes `serve` runs on one port. The
 * processes themselves are checked on PostgreSQL in test/fleet.instances.test.ts.
 */
const read = (entries: ReadonlyArray<readonly [string, string]>) =>
  Effect.runPromise(
    appConfig.pipe(
      Effect.map((config) => config.workers),
      Effect.catchAll((error) => Effect.succeed(describeConfigError(error))),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries)))
    )
  )

const database = ["DATABASE_URL", "postgres://pmm@127.0.0.1:5432/pmm"] as const

describe("WORKERS", () => {
  it("is 1 when absent; 2 to 32 with a PostgreSQL database", async () => {
    expect(await read([])).toBe(1)
    expect(await read([database, ["WORKERS", "2"]])).toBe(2)
    expect(await read([database, ["WORKERS", "32"]])).toBe(32)
  })

  it("more than one on the embedded database is refused, naming WORKERS and DATABASE_URL", async () => {
    expect(await read([["WORKERS", "2"]])).toBe(
      "Invalid configuration: WORKERS: more than 1 needs DATABASE_URL: the embedded database serves one process"
    )
    expect(await read([["WORKERS", "1"]])).toBe(1)
  })

  it("anything but an integer from 1 to 32 is refused, naming the variable", async () => {
    for (const bad of ["0", "33", "-1", "two", "1.5"]) {
      expect(await read([database, ["WORKERS", bad]]), bad).toMatch(/^Invalid configuration: WORKERS: /)
    }
  })
})
