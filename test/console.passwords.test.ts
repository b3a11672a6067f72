import { ConfigProvider, Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import { describe, expect, it } from "vitest"
import { appConfig, describeConfigError } from "../src/config/AppConfig.js"
import * as PasswordRules from "../src/console/PasswordRules.js"
import * as Passwords from "../src/console/Passwords.js"
import * as SecretStrength from "../src/console/SecretStrength.js"
import * as KeyStrength from "../src/crypto/KeyStrength.js"

/**
 * Console password hashing and its cost setting (CONSOLE_PASSWORD_COST, docs/console.md), what a new password and a
 * chosen webhook secret must not be, and production's refusal of an ENCRYPTION_KEY of one byte repeated: pure rules
 * (test/console.rules.test.ts checks the same rules' 400s over HTTP).
 */
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

describe("what a new password must not be (docs/console.md \"Accounts and sign-in\")", () => {
  it("refuses only whitespace (any kind, after NFKC) and one character repeated; accepts the rest", () => {
    for (const blank of [" ".repeat(12), "\t \t \t \t \t \t", "\u3000".repeat(12), "\u00a0 ".repeat(6)]) {
      expect(PasswordRules.shapeProblem(blank), JSON.stringify(blank)).toBe("must not be only spaces or other whitespace")
    }
    for (const repeated of ["a".repeat(12), "7".repeat(128), "😀".repeat(12), "ａ".repeat(6) + "a".repeat(6)]) {
      expect(PasswordRules.shapeProblem(repeated), repeated).toBe("must not be one character repeated")
    }
    for (const fine of ["aaaaaaaaaaab", " correct horse ", "correct horse battery staple"]) {
      expect(PasswordRules.shapeProblem(fine), fine).toBeUndefined()
    }
  })

  it("refuses a password of the common list whatever its case, width or surrounding spaces; loads the list once", async () => {
    const problem = (password: string) => Effect.runPromise(PasswordRules.commonProblem(password))
    for (const common of ["password1234", "PassWord1234", " qwerty123456 ", "１２３４５６７８９０１２", "1qaz2wsx3edc"]) {
      expect(await problem(common), common).toBe(PasswordRules.commonMessage)
    }
    for (const fine of ["correct horse battery staple", "password1234!x", "Obi Payments 2026 rocks"]) {
      expect(await problem(fine), fine).toBeUndefined()
    }
    const [first, second] = await Promise.all([Effect.runPromise(PasswordRules.commonPasswords), Effect.runPromise(PasswordRules.commonPasswords)])
    expect(first).toBe(second)
    expect(first.size).toBeGreaterThan(40_000)
  })
})

describe("a chosen webhook secret's strength (docs/console.md \"POST /partner/update-webhook\")", () => {
  it.each([
    ["32 × a", "a".repeat(32), /it has 1 distinct characters, at least 8/],
    ["7 distinct characters", "abcdefg".repeat(4) + "gfed", /it has 7 distinct characters/],
    ["a word repeated", "password".repeat(4), /it has 7 distinct characters/],
    ["a block repeated", "Tr0ub4dor&3x".repeat(3), /one block of characters repeated/],
    ["a run of the alphabet", "abcdefghijklmnopqrstuvwxyz012345", /a run of consecutive characters/],
    ["a run backwards", "zyxwvutsrqponmlkjihgfedcba987654", /a run of consecutive characters/],
    ["32 random hex characters", NodeCrypto.randomBytes(16).toString("hex"), /estimated entropy is \d+ bits, at least 128/],
    ["few characters, mostly one", `${"a".repeat(30)}bcdefghij`, /estimated entropy is \d+ bits/]
  ])("refuses %s", (_, secret, reason) => {
    expect(SecretStrength.weakness(secret)).toMatch(reason)
    expect(SecretStrength.weakness(secret)).toMatch(/^is too easy to guess: .*; use a random secret/)
  })

  it("passes random secrets: 64 hex characters, 40 base62 or base64url characters, a minted-style whsec_ secret", () => {
    const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    const random = (length: number, alphabet: string) => [...NodeCrypto.randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join("")
    for (let i = 0; i < 200; i++) {
      for (const secret of [NodeCrypto.randomBytes(32).toString("hex"), random(40, base62), NodeCrypto.randomBytes(30).toString("base64url"), `whsec_${NodeCrypto.randomBytes(32).toString("base64url")}`]) {
        expect(SecretStrength.weakness(secret), secret).toBeUndefined()
      }
    }
    expect(SecretStrength.estimatedBits("ab".repeat(16))).toBe(32)
  })
})

describe("ENCRYPTION_KEY of one byte repeated (docs/operations.md \"Configuration\")", () => {
  const production = (key: string) => read([["SERVICE_MODE", "production"], ["DATABASE_URL", "postgres://db.example.com/pmm"], ["ENCRYPTION_KEY", key]])
  const sandbox = (key: string) => read([["ENCRYPTION_KEY", key]])

  it("production refuses it, in hex or base64, with one line naming ENCRYPTION_KEY; sandbox accepts it", async () => {
    for (const key of ["0".repeat(64), "a".repeat(64), "FF".repeat(32), Buffer.alloc(32, 0x11).toString("base64"), Buffer.alloc(32).toString("base64")]) {
      expect(KeyStrength.isOneRepeatedByte(key), key).toBe(true)
      const refused = await production(key)
      expect(refused.ok, key).toBe(false)
      expect(refused.ok ? "" : refused.message).toBe(`Invalid configuration: ${KeyStrength.repeatedByteMessage}`)
      expect(refused.ok ? "" : refused.message).toMatch(/^Invalid configuration: ENCRYPTION_KEY: must not be one byte repeated/)
      expect(await sandbox(key), key).toMatchObject({ ok: true })
    }
  })

  it("production accepts a key with two byte values or more", async () => {
    for (const key of [NodeCrypto.randomBytes(32).toString("hex"), NodeCrypto.randomBytes(32).toString("base64"), "00".repeat(31) + "01"]) {
      expect(KeyStrength.isOneRepeatedByte(key), key).toBe(false)
      expect(await production(key), key).toMatchObject({ ok: true })
    }
  })
})
