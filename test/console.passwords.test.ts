import { ConfigProvider, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { appConfig, describeConfigError } from "../src/config/AppConfig.js"
import * as Passwords from "../src/console/Passwords.js"

/** Console password hashing and its cost setting (CONSOLE_PASSWORD_COST, docs/console.md). */
const read = (entries: ReadonlyArray<[string, string]>) =>
  Effect.runPromise(
    appConfig.pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries))),
      Effect.map((config) => ({ ok: true as const, cost: config.consolePasswordCost })),
      Effect.catchAll((error) => Effect.succeed({ ok: false as const, message: describeConfigError(error) }))
    )
  )

describe("console password hashes", () => {
  it("CONSOLE_PASSWORD_COST is 15 when absent, an integer from 10 to 20 when set, refused otherwise naming the variable", async () => {
    expect(await read([])).toEqual({ ok: true, cost: 15 })
    expect(await read([["CONSOLE_PASSWORD_COST", "10"]])).toEqual({ ok: true, cost: 10 })
    expect(await read([["CONSOLE_PASSWORD_COST", "20"]])).toEqual({ ok: true, cost: 20 })
    for (const bad of ["9", "21", "12.5", "fast"]) {
      const result = await read([["CONSOLE_PASSWORD_COST", bad]])
      expect(result.ok, bad).toBe(false)
      expect(result.ok ? "" : result.message, bad).toMatch(/^Invalid configuration: CONSOLE_PASSWORD_COST: /)
    }
  })

  it("a hash records its own N (2^cost), r and p; the default cost is N = 2^15", async () => {
    const cheap = await Effect.runPromise(Passwords.hash("correct horse battery", 10))
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
    const standard = await Effect.runPromise(Passwords.hash("correct horse battery"))
    expect(standard.split("$").slice(0, 4)).toEqual(["scrypt", "32768", "8", "1"])
  })

  it("verifies with the stored hash's parameters, whatever the cost new hashes use now", async () => {
    const stored = await Effect.runPromise(Passwords.hash("correct horse battery", 11))
    expect(await Effect.runPromise(Passwords.verify("correct horse battery", stored))).toBe(true)
    expect(await Effect.runPromise(Passwords.verify("correct horse batterY", stored))).toBe(false)
    // NFKC: the full-width form of the same password matches.
    expect(await Effect.runPromise(Passwords.verify("ｃorrect horse battery", stored))).toBe(true)
    expect(await Effect.runPromise(Passwords.verify("correct horse battery", "scrypt$x$8$1$AA==$AA=="))).toBe(false)
    expect(await Effect.runPromise(Passwords.verify("correct horse battery", "bcrypt$1$2"))).toBe(false)
  })
})
