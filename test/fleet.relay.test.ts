import { describe, expect, it } from "vitest"
import { parsePayload, payloads } from "../src/events/Relay.js"

/**
 * The relay's notifications (src/events/Relay.ts): the seqs an instance committed, split into payloads PostgreSQL
 * accepts (under 8000 bytes each), and read back by the other instances. The relay across processes is checked by
 * test/fleet.instances.test.ts on PostgreSQL.
 */
describe("event relay payloads", () => {
  it("carry every seq once, in order, with the origin, each payload under 8000 bytes", () => {
    const seqs = Array.from({ length: 2_000 }, (_, i) => String(9_000_000_000_000_000_000n + BigInt(i)))
    const sent = payloads("0123456789abcdef", seqs)
    expect(sent.length).toBeGreaterThan(1)
    for (const payload of sent) expect(Buffer.byteLength(payload)).toBeLessThan(8_000)
    const read = sent.map((payload) => parsePayload(payload)!)
    for (const one of read) expect(one.origin).toBe("0123456789abcdef")
    expect(read.flatMap((one) => one.seqs)).toEqual(seqs)
  })

  it("one seq is one short payload; nothing to send is no payload", () => {
    expect(payloads("abc", ["42"])).toEqual(["abc 42"])
    expect(payloads("abc", [])).toEqual([])
  })

  it("a payload that is not the relay's is ignored, and so are entries that are not seqs", () => {
    expect(parsePayload("")).toBeUndefined()
    expect(parsePayload("noseparator")).toBeUndefined()
    expect(parsePayload("origin 1,x,2;drop,3")).toEqual({ origin: "origin", seqs: ["1", "3"] })
  })
})
