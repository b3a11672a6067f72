import * as NodeDns from "node:dns"
import * as NodeNet from "node:net"
import type { ServiceMode } from "../config/AppConfig.js"
import { embeddedIpv4s, expandIpv6, formatIpv6 } from "./IpAddresses.js"

/**
 * The rules a webhook URL must follow (docs/contract.md "Webhook management"): an absolute http(s) URL of at most 2048
 * characters, without credentials; in production https only and a public host. The host is normalised before
 * it is checked (`hostOf`: lower case and IDN to ASCII by the URL parser, one trailing dot removed), so
 * `https://localhost./` or `https://intranet./` are the local names they spell. A host name is also checked when
 * it is resolved before each send in production, and again by the connection's own lookup, so a name that
 * points (or later re-points: DNS rebinding) at a private address is refused then. Literal hosts and resolved
 * addresses go through the same `isPublicAddress`, which judges an IPv6 address carrying an IPv4 one as that IPv4.
 */
export const urlLengthMax = 2048

/** Address ranges that are never a partner's public endpoint: loopback, private, link-local (cloud metadata), CGNAT, ... */
const nonPublic = new NodeNet.BlockList()
for (
  const [network, prefix] of [
    ["0.0.0.0", 8], // "this" network
    ["10.0.0.0", 8], // private
    ["100.64.0.0", 10], // CGNAT
    ["127.0.0.0", 8], // loopback
    ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
    ["172.16.0.0", 12], // private
    ["192.0.0.0", 24], // IETF protocol assignments
    ["192.0.2.0", 24], // documentation
    ["192.88.99.0", 24], // 6to4 relay
    ["192.168.0.0", 16], // private
    ["198.18.0.0", 15], // benchmarking
    ["198.51.100.0", 24], // documentation
    ["203.0.113.0", 24], // documentation
    ["224.0.0.0", 4], // multicast
    ["240.0.0.0", 4] // reserved, broadcast
  ] as const
) nonPublic.addSubnet(network, prefix, "ipv4")
for (
  const [network, prefix] of [
    ["::", 128], // unspecified
    ["::1", 128], // loopback
    ["64:ff9b:1::", 48], // local-use NAT64 (RFC 8215): a network's own translator, never a public host, whatever IPv4 it carries
    ["100::", 64], // discard
    ["2001:db8::", 32], // documentation
    ["fc00::", 7], // unique local (includes fd00:ec2::254, the AWS metadata address)
    ["fe80::", 10], // link-local
    ["fec0::", 10], // site-local (deprecated)
    ["ff00::", 8] // multicast
  ] as const
) nonPublic.addSubnet(network, prefix, "ipv6")

/**
 * True when an IP address literal is a public unicast address. An IPv6 address is expanded first
 * (src/webhooks/IpAddresses.ts), so every spelling of one address gets one answer; one that embeds or maps an
 * IPv4 address (IPv4-compatible, IPv4-mapped and its SIIT form, NAT64, 6to4, Teredo's server and client) is public
 * only when each IPv4 address it carries is. A zone id (`fe80::1%eth0`) is never public.
 */
export const isPublicAddress = (address: string): boolean => {
  if (NodeNet.isIPv4(address)) return !nonPublic.check(address, "ipv4")
  const groups = address.includes(":") ? expandIpv6(address) : undefined
  if (groups === undefined) return false
  if (embeddedIpv4s(groups).some((inner) => nonPublic.check(inner, "ipv4"))) return false
  return !nonPublic.check(formatIpv6(groups), "ipv6")
}

/** Names that only ever mean something inside a private network. */
const isPrivateName = (host: string) =>
  host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal") ||
  host.endsWith(".home.arpa") || !host.includes(".")

export type UrlVerdict =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly rule: string }

const broken = (rule: string): UrlVerdict => ({ ok: false, rule })

/** Checks a URL against the rules of the mode; `rule` says which rule is broken, in words a partner can act on. */
export const checkWebhookUrl = (raw: string, mode: ServiceMode): UrlVerdict => {
  const value = raw.trim()
  if (value.length === 0) return broken("must not be empty")
  if (value.length > urlLengthMax) return broken(`must be at most ${urlLengthMax} characters`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return broken("must be an absolute http or https URL")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return broken("must be an absolute http or https URL")
  if (url.username !== "" || url.password !== "") return broken("must not contain credentials")
  if (url.hash !== "") return broken("must not contain a fragment (#...)")
  if (mode === "production") {
    if (url.protocol !== "https:") return broken("must use https in production")
    const host = hostOf(url)
    if (host === "" || host.split(".").some((label) => label === "")) {
      return broken("must have a valid host name (no empty labels such as a doubled dot)")
    }
    if (NodeNet.isIP(host) !== 0 || host.includes(":")) {
      if (!isPublicAddress(host)) return broken("must point at a public host, not a loopback, private, link-local or metadata address")
    } else if (isPrivateName(host)) {
      return broken("must point at a public host name, not a local or internal name")
    }
  }
  const normalized = url.toString()
  if (normalized.length > urlLengthMax) return broken(`must be at most ${urlLengthMax} characters`)
  return { ok: true, url: normalized }
}

/**
 * The host of a URL as the rules see it: without IPv6 brackets, lower case, and without one trailing dot (the
 * fully-qualified spelling `localhost.` names the same host as `localhost`). The URL parser has already mapped
 * an internationalised name to ASCII (punycode) and a numeric IPv4 spelling (`2130706433`, `127.1`) to dotted form.
 */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase().replace(/\.$/, "")

/** Why a host may not be sent to, once resolved; undefined when every address it resolves to is public. */
export const refuseNonPublic = (host: string, addresses: ReadonlyArray<string>): string | undefined => {
  const bad = addresses.find((address) => !isPublicAddress(address))
  return bad === undefined ? undefined : `refused: ${host} resolves to a non-public address (${bad})`
}

/**
 * A `lookup` for the HTTP agent in production: the connection itself only goes to public addresses, so a name
 * that re-points between the check and the connection (DNS rebinding) is still refused.
 */
export const publicOnlyLookup: NodeNet.LookupFunction = (hostname, options, callback) => {
  NodeDns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return (callback as (e: Error) => void)(error)
    const refusal = refuseNonPublic(hostname, addresses.map((a) => a.address))
    if (refusal !== undefined) {
      return (callback as (e: Error) => void)(Object.assign(new Error(refusal), { code: "ENONPUBLIC" }))
    }
    if (options.all) return (callback as (e: null, a: ReadonlyArray<NodeDns.LookupAddress>) => void)(null, addresses)
    const first = addresses[0]!
    return (callback as (e: null, a: string, f: number) => void)(null, first.address, first.family)
  })
}
