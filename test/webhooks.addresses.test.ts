import { describe, expect, it } from "vitest"
import { embeddedIpv4s, expandIpv6 } from "../src/webhooks/IpAddresses.js"
import { checkWebhookUrl, isPublicAddress, refuseNonPublic } from "../src/webhooks/UrlRules.js"

/**
 * The production webhook URL rules on IPv6 forms that carry an IPv4 address: each is judged as the IPv4 address
 * it carries, whatever its spelling, both as a URL's literal host and as a resolved address (pure functions).
 */
const refusedHost = { ok: false, rule: "must point at a public host, not a loopback, private, link-local or metadata address" }

describe("IPv6 expansion", () => {
  it("expands :: compression and an embedded dotted quad to eight groups", () => {
    const hex = (text: string) => expandIpv6(text)?.map((group) => group.toString(16)).join(":")
    expect(hex("::")).toBe("0:0:0:0:0:0:0:0")
    expect(hex("::1")).toBe("0:0:0:0:0:0:0:1")
    expect(hex("::127.0.0.1")).toBe("0:0:0:0:0:0:7f00:1")
    expect(hex("::ffff:127.0.0.1")).toBe("0:0:0:0:0:ffff:7f00:1")
    expect(hex("0:0:0:0:0:FFFF:7F00:1")).toBe("0:0:0:0:0:ffff:7f00:1")
    expect(hex("::ffff:0:127.0.0.1")).toBe("0:0:0:0:ffff:0:7f00:1")
    expect(hex("2002:7f00:1::")).toBe("2002:7f00:1:0:0:0:0:0")
    expect(hex("1:2:3:4:5:6:1.2.3.4")).toBe("1:2:3:4:5:6:102:304")
    expect(hex("1:2:3:4:5:6:7::")).toBe("1:2:3:4:5:6:7:0")
  })

  it("refuses what is not an IPv6 address, and zone ids", () => {
    for (
      const text of ["", ":", ":::", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "g::1", "::1.2.3",
        "::256.0.0.1", "::1.2.3.4:5", "1:2:3:4:5:6:7:1.2.3.4", "fe80::1%eth0", "[::1]", "127.0.0.1"]
    ) expect(expandIpv6(text), text).toBeUndefined()
  })

  it("reads the IPv4 addresses an address carries, by prefix", () => {
    const carried = (text: string) => embeddedIpv4s(expandIpv6(text)!)
    expect(carried("::7f00:1")).toEqual(["127.0.0.1"]) // IPv4-compatible
    expect(carried("::ffff:a00:1")).toEqual(["10.0.0.1"]) // IPv4-mapped
    expect(carried("::ffff:0:a9fe:a9fe")).toEqual(["169.254.169.254"]) // SIIT
    expect(carried("64:ff9b::c0a8:1")).toEqual(["192.168.0.1"]) // NAT64
    expect(carried("2002:c0a8:101::1")).toEqual(["192.168.1.1"]) // 6to4
    // Teredo: the server (bits 32..64) and the client (the last 32 bits, inverted: 0x80fffffe -> 127.0.0.1).
    expect(carried("2001:0:4136:e378:8000:63bf:80ff:fffe")).toEqual(["65.54.227.120", "127.0.0.1"])
    expect(carried("2606:4700:4700::1111")).toEqual([])
  })
})

describe("IPv6 forms of non-public IPv4 addresses", () => {
  const forms: Array<[string, string]> = [
    ["IPv4-compatible, dotted", "::127.0.0.1"],
    ["IPv4-compatible, hex", "::7f00:1"],
    ["IPv4-mapped, dotted", "::ffff:127.0.0.1"],
    ["IPv4-mapped, hex", "::ffff:7f00:1"],
    ["IPv4-mapped, uncompressed", "0:0:0:0:0:ffff:7f00:1"],
    ["IPv4-mapped, private", "::ffff:10.1.2.3"],
    ["SIIT", "::ffff:0:127.0.0.1"],
    ["SIIT, metadata", "::ffff:0:a9fe:a9fe"],
    ["6to4 of loopback", "2002:7f00:1::"],
    ["6to4 of a private address", "2002:c0a8:101::1"],
    ["Teredo, loopback client", "2001:0:4136:e378:8000:63bf:80ff:fffe"],
    ["Teredo, private server", "2001:0:a00:1::"],
    ["NAT64 of metadata", "64:ff9b::a9fe:a9fe"],
    ["NAT64 of loopback, dotted", "64:ff9b::127.0.0.1"],
    ["local-use NAT64, even of a public address", "64:ff9b:1::808:808"]
  ]
  for (const [name, address] of forms) {
    it(`${name} (${address}) is refused as a literal host and as a resolved address`, () => {
      expect(isPublicAddress(address)).toBe(false)
      expect(checkWebhookUrl(`https://[${address}]/in`, "production")).toEqual(refusedHost)
      expect(refuseNonPublic("hooks.example.com", ["93.184.216.34", address])).toBe(
        `refused: hooks.example.com resolves to a non-public address (${address})`
      )
    })
  }

  it("the same forms of a public IPv4 address are public, and sandbox mode allows the private ones", () => {
    for (
      const address of ["::8.8.8.8", "::ffff:8.8.8.8", "::ffff:0:808:808", "2002:808:808::1", "64:ff9b::808:808",
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7"]
    ) {
      expect(isPublicAddress(address), address).toBe(true)
      expect(checkWebhookUrl(`https://[${address}]/in`, "production").ok, address).toBe(true)
    }
    expect(refuseNonPublic("hooks.example.com", ["2606:4700:4700::1111", "::ffff:8.8.8.8"])).toBeUndefined()
    expect(checkWebhookUrl("http://[::ffff:127.0.0.1]:9000/in", "sandbox")).toEqual({ ok: true, url: "http://[::ffff:7f00:1]:9000/in" })
  })

  it("a resolved address with a zone id is never public", () => {
    expect(isPublicAddress("fe80::1%eth0")).toBe(false)
    expect(isPublicAddress("2606:4700:4700::1111%1")).toBe(false)
  })
})
