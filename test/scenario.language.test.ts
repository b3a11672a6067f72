import { describe, expect, it } from "vitest"
import { parseDurationMs } from "../src/scenario/Duration.js"
import { InterpolationError, lookup, Scope } from "../src/scenario/Interpolate.js"
import { loadFile } from "../src/scenario/Loader.js"
import { checkMatchers, match } from "../src/scenario/Matchers.js"
import { checkSequence } from "../src/scenario/Observations.js"
import { toFormParts } from "../src/scenario/Steps.js"
import { verifySignature } from "../src/scenario/Receiver.js"
import * as Crypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const ok = (expected: unknown, actual: unknown, exact = false) => match(expected, actual, { exact })

describe("matchers", () => {
  it("matches objects as a subset and arrays element by element", () => {
    expect(ok({ a: 1 }, { a: 1, b: 2 })).toEqual([])
    expect(ok({ a: 1 }, { a: 2 })).toEqual([{ path: "a", message: "expected 1 but got 2" }])
    expect(ok([{ id: 1 }, { id: 2 }], [{ id: 1, x: 0 }, { id: 2 }])).toEqual([])
    expect(ok([1, 2], [1, 2, 3])[0]?.message).toContain("expected 2 element(s) but got 3")
    expect(ok({ a: { b: [1, { c: "x" }] } }, { a: { b: [1, { c: "y" }] } })).toEqual([{ path: "a.b[1].c", message: 'expected "x" but got "y"' }])
  })

  it("exact mode and $exact refuse extra keys", () => {
    expect(ok({ a: 1 }, { a: 1, b: 2 }, true)).toEqual([{ path: "b", message: "unexpected key (exact match) with value 2" }])
    expect(ok({ outer: { $exact: { a: 1 } } }, { outer: { a: 1, extra: true }, other: 1 })).toHaveLength(1)
    expect(ok({ outer: { $exact: { a: 1 } } }, { outer: { a: 1 }, other: 1 })).toEqual([])
  })

  it("$any and $absent", () => {
    expect(ok({ a: "$any" }, { a: null })).toEqual([])
    expect(ok({ a: "$any" }, {})).toEqual([{ path: "a", message: "expected a value but it is absent" }])
    expect(ok({ a: "$absent" }, {})).toEqual([])
    expect(ok({ a: "$absent" }, { a: 0 })).toEqual([{ path: "a", message: "expected no value but got 0" }])
  })

  it("$type, including uuid and timestamp", () => {
    expect(ok({ $type: "string" }, "x")).toEqual([])
    expect(ok({ $type: "integer" }, 1.5)).toHaveLength(1)
    expect(ok({ $type: "array" }, [])).toEqual([])
    expect(ok({ $type: "null" }, null)).toEqual([])
    expect(ok({ $type: "uuid" }, "0f8fad5b-d9cb-469f-a165-70867728950e")).toEqual([])
    expect(ok({ $type: "uuid" }, "nope")).toHaveLength(1)
    expect(ok({ $type: "timestamp" }, "2026-01-02T03:04:05.678Z")).toEqual([])
    expect(ok({ $type: "object" }, [])).toHaveLength(1)
  })

  it("$regex, numeric comparisons (numeric strings too), $ne, $oneOf, $not", () => {
    expect(ok({ $regex: "^Your partner account is not yet approved" }, "Your partner account is not yet approved by KYB")).toEqual([])
    expect(ok({ $regex: "^x$" }, 1)).toHaveLength(1)
    expect(ok({ $gt: 5 }, 6)).toEqual([])
    expect(ok({ $gt: 5 }, 5)).toEqual([{ path: "", message: "expected a number > 5 but got 5" }])
    expect(ok({ $gte: 1, $lt: 10 }, "9.5")).toEqual([])
    expect(ok({ $lte: 0 }, "abc")).toHaveLength(1)
    expect(ok({ $ne: 3 }, 4)).toEqual([])
    expect(ok({ $ne: 3 }, 3)).toHaveLength(1)
    expect(ok({ $oneOf: [201, 409] }, 409)).toEqual([])
    expect(ok({ $oneOf: [201, 409] }, 500)).toHaveLength(1)
    expect(ok({ $not: { $type: "string" } }, 1)).toEqual([])
    expect(ok({ $eq: "$any" }, "$any")).toEqual([])
    expect(ok({ $eq: "$any" }, "x")).toHaveLength(1)
  })

  it("$contains on arrays (partial element match) and strings, $length with a number or a matcher", () => {
    expect(ok({ $contains: { id: "b" } }, [{ id: "a" }, { id: "b", more: 1 }])).toEqual([])
    expect(ok({ $contains: { id: "c" } }, [{ id: "a" }])).toHaveLength(1)
    expect(ok({ $contains: "lo w" }, "hello world")).toEqual([])
    expect(ok({ $length: 3 }, [1, 2, 3])).toEqual([])
    expect(ok({ $length: 3 }, "ab")).toEqual([{ path: "", message: "expected length 3 but got length 2" }])
    expect(ok({ $length: { $gte: 1 } }, [0])).toEqual([])
  })

  it("checks matcher syntax before running", () => {
    expect(checkMatchers({ data: { $lenght: 3 } })[0]?.path).toBe("data.$lenght")
    expect(checkMatchers({ $type: "str" })[0]?.message).toContain("must be one of")
    expect(checkMatchers({ $regex: "(" })[0]?.message).toContain("invalid regular expression")
    expect(checkMatchers("$anything")[0]?.message).toContain("unknown matcher")
    expect(checkMatchers({ a: "${x}", b: { $gt: "${limit}" }, c: [{ $type: "string" }] })).toEqual([])
  })
})

describe("interpolation", () => {
  const scope = new Scope(new Map<string, unknown>([["id", "c-1"], ["n", 3], ["customer", { id: "c-9", tags: ["a", "b"] }]]))

  it("keeps the type of a whole-value reference and renders text inside strings", () => {
    expect(scope.interpolate("${n}")).toBe(3)
    expect(scope.interpolate("${customer}")).toEqual({ id: "c-9", tags: ["a", "b"] })
    expect(scope.interpolate("/customers/${id}/kyc?n=${n}")).toBe("/customers/c-1/kyc?n=3")
    expect(scope.interpolate({ a: ["${customer.tags[1]}", "${customer.id}"], b: 1 })).toEqual({ a: ["b", "c-9"], b: 1 })
    expect(scope.interpolate("cost: $${n}")).toBe("cost: ${n}")
  })

  it("adds or subtracts a constant to a number (clock offsets after an advance)", () => {
    expect(scope.interpolate("${n + 7200}")).toBe(7203)
    expect(scope.interpolate("${n - 1}")).toBe(2)
    expect(scope.interpolate("offset ${n+1}")).toBe("offset 4")
    expect(() => scope.interpolate("${id + 1}")).toThrow(/id is not a number/)
  })

  it("fails on unknown names and absent paths, naming what is known", () => {
    expect(() => scope.interpolate("${nope}")).toThrow(InterpolationError)
    expect(() => scope.interpolate("${nope}")).toThrow(/unknown variable \$\{nope\}; known: customer, id, n/)
    expect(() => scope.interpolate("${customer.missing}")).toThrow(/is absent/)
  })

  it("child scopes see the parent; absorb copies saves back but not loop counters", () => {
    const parent = new Scope(new Map([["a", 1]]))
    const child = parent.child({ i: 2 })
    child.set("saved", "x")
    expect(child.interpolate("${a}-${i}")).toBe("1-2")
    parent.absorb(child, ["i"])
    expect(parent.get("saved")).toBe("x")
    expect(parent.get("i")).toBeUndefined()
  })

  it("looks up paths with dots and indexes", () => {
    expect(lookup({ data: [{ id: "x" }] }, "data[0].id")).toBe("x")
    expect(lookup({ data: [{ id: "x" }] }, "data.0.id")).toBe("x")
    expect(lookup({ data: null }, "data.id")).toBeUndefined()
  })
})

describe("durations", () => {
  it("parses units and combinations", () => {
    expect(parseDurationMs("30s")).toBe(30_000)
    expect(parseDurationMs("2m")).toBe(120_000)
    expect(parseDurationMs("2h")).toBe(7_200_000)
    expect(parseDurationMs("1d")).toBe(86_400_000)
    expect(parseDurationMs("1h30m")).toBe(5_400_000)
    expect(parseDurationMs("250ms")).toBe(250)
    expect(parseDurationMs(90)).toBe(90_000)
    expect(parseDurationMs("2 weeks")).toMatch(/is not a duration/)
  })
})

describe("event sequences", () => {
  const event = (type: string, data: Record<string, unknown> = {}) => ({ id: type, type, createdAt: "", customerId: null, data })
  const log = [event("a"), event("b", { n: 1 }), event("c"), event("b", { n: 2 })]

  it("ordered: a subsequence in order", () => {
    expect(checkSequence(["a", "b", "c"], log, true)).toEqual([])
    expect(checkSequence(["a", { type: "b", data: { n: 2 } }], log, true)).toEqual([])
    expect(checkSequence(["c", "a"], log, true)[0]?.message).toContain("after the previous item")
  })

  it("unordered: each item by a distinct event", () => {
    expect(checkSequence(["c", "a", "b", "b"], log, false)).toEqual([])
    expect(checkSequence(["c", "c"], log, false)).toHaveLength(1)
  })
})

describe("webhook signatures", () => {
  const secret = "whsec_test"
  const body = '{"id":"e1"}'
  const sign = (t: number, key = secret) => `t=${t},v1=${Crypto.createHmac("sha256", key).update(`${t}.${body}`).digest("hex")}`

  it("accepts the HMAC of <t>.<body> within five minutes of the service clock", () => {
    expect(verifySignature(sign(1_000), body, secret, 1_000_000 + 299_000)).toBeUndefined()
  })

  it("rejects a wrong key, a stale t, a malformed header and a missing secret", () => {
    expect(verifySignature(sign(1_000, "other"), body, secret, 1_000_000)).toMatch(/not the HMAC/)
    expect(verifySignature(sign(1_000), body, secret, 1_000_000 + 301_000)).toMatch(/more than 5 minutes/)
    expect(verifySignature("v1=abc", body, secret, 0)).toMatch(/malformed/)
    expect(verifySignature(sign(1), body, undefined, 1000)).toMatch(/no secret/)
  })
})

describe("loading files", () => {
  it("reports a schema error with its file and line before anything runs", () => {
    const loaded = loadFile("test/fixtures/scenarios/invalid.yaml")
    expect(loaded._tag).toBe("Invalid")
    if (loaded._tag !== "Invalid") return
    expect(loaded.errors).toEqual([{
      file: "test/fixtures/scenarios/invalid.yaml",
      line: 12,
      column: 14,
      message: 'steps.2.expect.bodee: is unexpected, expected: "status" | "body" | "exact" | "headers"'
    }])
  })

  it("reports a cycle of includes in the fixture that closes it", () => {
    const loaded = loadFile("test/fixtures/scenarios/uses-cycle.yaml")
    expect(loaded._tag === "Invalid" && loaded.errors[0]).toMatchObject({ file: "test/fixtures/scenarios/cycle.yaml", line: 3, message: expect.stringContaining("include cycle") })
  })

  it("loads includes inside repeats, and treats a fixture file as a fixture", () => {
    const loaded = loadFile("test/fixtures/scenarios/include-repeat.yaml")
    expect(loaded._tag).toBe("Scenario")
    if (loaded._tag !== "Scenario") return
    expect(loaded.scenario.seed).toBe("Includes and repeats")
    const repeat = loaded.scenario.steps[0]!
    expect(repeat.kind).toBe("repeat")
    expect(repeat.children[0]?.children[0]).toMatchObject({ kind: "request", file: "test/fixtures/scenarios/fixtures/customer.yaml", line: 4 })
    expect(loadFile("test/fixtures/scenarios/fixtures/customer.yaml")._tag).toBe("Fixture")
  })

  it("reports YAML syntax errors, unknown steps, two actions in one step and missing files with lines", () => {
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "scenario-"))
    const write = (name: string, text: string) => {
      const file = NodePath.join(dir, name)
      NodeFs.writeFileSync(file, text)
      return file
    }
    const syntax = loadFile(write("a.yaml", "name: x\ndescription: y\nsteps:\n  - request: [\n"))
    expect(syntax._tag === "Invalid" && syntax.errors[0]?.message).toMatch(/^YAML:/)
    const steps = loadFile(write("b.yaml", "name: x\ndescription: y\nsteps:\n  - advance: 1h\n  - sleep: 1s\n  - advance: 1h\n    request: GET /x\n  - include: nowhere.yaml\n"))
    expect(steps._tag).toBe("Invalid")
    if (steps._tag !== "Invalid") return
    expect(steps.errors.map((e) => e.line)).toEqual([5, 6, 8])
    expect(steps.errors[0]?.message).toMatch(/^steps\.1: unknown step \(keys: sleep\)/)
    expect(steps.errors[1]?.message).toMatch(/^steps\.2: one action per step, found advance and request/)
    expect(steps.errors[2]?.message).toMatch(/^steps\.3\.include: no such file: .*nowhere\.yaml/)
    const missing = loadFile(write("c.yaml", "name: x\nsteps:\n  - advance: 1h\n"))
    expect(missing._tag === "Invalid" && missing.errors[0]).toMatchObject({ line: 1, message: expect.stringContaining("description") })
  })

})

describe("multipart requests", () => {
  const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "scenario-multipart-"))
  const write = (name: string, text: string | Uint8Array) => {
    const file = NodePath.join(dir, name)
    NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true })
    NodeFs.writeFileSync(file, text)
    return file
  }
  const header = "name: x\ndescription: y\nsteps:\n"
  write("files/a.png", Uint8Array.from([0x89, 0x50, 0x4e, 0x47]))

  it("resolves a file path against the file that holds the step and builds the parts in order", () => {
    const loaded = loadFile(write("ok.yaml", `${header}  - request:\n      method: POST\n      path: /up\n      multipart:\n        type: SELFIE\n        file: { path: files/a.png }\n        inline: { base64: "aGVsbG8=", filename: h.pdf }\n        note: { text: hi }\n`))
    expect(loaded._tag).toBe("Scenario")
    if (loaded._tag !== "Scenario") return
    const step = loaded.scenario.steps[0]!
    const request = step.kind === "request" && typeof step.spec.request === "object" ? step.spec.request : undefined
    expect(request?.multipart?.file).toEqual({ path: NodePath.join(dir, "files/a.png") })
    const parts = toFormParts(request!.multipart!)
    expect(parts.map((p) => p.name)).toEqual(["type", "file", "inline", "note"])
    expect(parts[0]).toEqual({ name: "type", value: "SELFIE" })
    expect(parts[1]).toMatchObject({ filename: "a.png", contentType: "image/png" })
    expect(Array.from((parts[1] as { data: Uint8Array }).data)).toEqual([0x89, 0x50, 0x4e, 0x47])
    expect(parts[2]).toMatchObject({ filename: "h.pdf", contentType: "application/pdf" })
    expect(Buffer.from((parts[2] as { data: Uint8Array }).data).toString()).toBe("hello")
    expect(parts[3]).toMatchObject({ filename: "note", contentType: "application/octet-stream" })
  })

  it("refuses a missing file, zero or two sources, bad base64, and body with multipart, with lines", () => {
    const missing = loadFile(write("missing.yaml", `${header}  - request:\n      method: POST\n      path: /up\n      multipart:\n        file: { path: files/nope.png }\n`))
    expect(missing._tag === "Invalid" && missing.errors[0]).toMatchObject({ line: 8, message: expect.stringMatching(/multipart\.file\.path: no such file: .*nope\.png/) })
    const two = loadFile(write("two.yaml", `${header}  - request:\n      method: POST\n      path: /up\n      multipart:\n        file: { path: files/a.png, text: x }\n`))
    expect(two._tag === "Invalid" && two.errors[0]?.message).toContain("exactly one of path, base64, text (found path, text)")
    const none = loadFile(write("none.yaml", `${header}  - request:\n      method: POST\n      path: /up\n      multipart:\n        file: { filename: a.png }\n`))
    expect(none._tag === "Invalid" && none.errors[0]?.message).toContain("(found none)")
    const bad = loadFile(write("bad.yaml", `${header}  - request:\n      method: POST\n      path: /up\n      multipart:\n        file: { base64: "not base64!" }\n`))
    expect(bad._tag === "Invalid" && bad.errors[0]?.message).toContain("must be base64")
    const both = loadFile(write("both.yaml", `${header}  - request:\n      method: POST\n      path: /up\n      body: { a: 1 }\n      multipart: { type: SELFIE }\n`))
    expect(both._tag === "Invalid" && both.errors.map((e) => e.message).join("\n")).toContain("body (JSON) or multipart, not both")
    const pathAndUrl = loadFile(write("path-url.yaml", `${header}  - request: { method: GET, path: /up, url: "\${link}" }\n`))
    expect(pathAndUrl._tag === "Invalid" && pathAndUrl.errors.map((e) => e.message).join("\n")).toContain("exactly one of path (relative to /api/v1) and url")
    const neither = loadFile(write("neither.yaml", `${header}  - request: { method: GET }\n`))
    expect(neither._tag === "Invalid" && neither.errors.map((e) => e.message).join("\n")).toContain("exactly one of path (relative to /api/v1) and url")
  })
})
