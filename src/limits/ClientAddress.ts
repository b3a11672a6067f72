import { Context, Effect, Option } from "effect"
import { isIP } from "node:net"

/**
 * The address the current request came from, as the limits key it (docs/operations.md "Limits on abuse"): the HTTP
 * server provides, once, the effect that reads it from the request being served (src/http/Middleware.ts
 * `clientAddressLayer`: the socket's peer, or a trusted proxy's header); absent outside the server (a test of a
 * service, a tool).
 */
export class ClientAddress extends Context.Tag("ClientAddress")<ClientAddress, Effect.Effect<Option.Option<string>>>() {}

/** The current request's client address, if there is a request. */
export const current: Effect.Effect<Option.Option<string>> = Effect.flatMap(
  Effect.serviceOption(ClientAddress),
  Option.getOrElse(() => Effect.succeedNone)
)

export interface TrustedProxy {
  /** TRUSTED_PROXY_HEADER, lower case (`x-forwarded-for`): unset, the socket's address is the client's. */
  readonly header?: string | undefined
  /** TRUSTED_PROXIES: the socket addresses whose header is believed; empty: every peer's (only a proxy reaches us). */
  readonly proxies?: ReadonlyArray<string> | undefined
}

/** An IP address without an IPv4-mapped prefix, a port or brackets; `undefined` when it is not one. */
export const plainAddress = (raw: string): string | undefined => {
  let text = raw.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed !== null) text = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.indexOf(":"))
  if (text.toLowerCase().startsWith("::ffff:") && isIP(text.slice(7)) === 4) text = text.slice(7)
  return isIP(text) === 0 ? undefined : text.toLowerCase()
}

/** The first four groups of an IPv6 address (its /64: one subscriber's network), written in full. */
const ipv6Network = (address: string): string => {
  const [head, tail] = address.includes("::") ? address.split("::") as [string, string] : [address, undefined]
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
  return groups.slice(0, 4).map((group) => group.padStart(4, "0")).join(":") + "::/64"
}

/**
 * The limits' key of a client: its IPv4 address, or its IPv6 /64 network (a subscriber gets a whole /64, so one
 * address each would be no limit at all).
 */
export const limitKey = (address: string): string => isIP(address) === 6 ? ipv6Network(address) : address

/**
 * Who sent a request. The socket's peer address, unless a trusted proxy header is configured and the peer is a
 * trusted proxy (any peer when TRUSTED_PROXIES is empty): then the right-most entry of the header, the one the
 * proxy itself appended (entries to its left were written by the client and prove nothing). A header that is
 * absent or whose last entry is not an IP address leaves the peer's address.
 */
export const clientAddressOf = (
  remoteAddress: Option.Option<string>,
  headers: Readonly<Record<string, string | undefined>>,
  trusted: TrustedProxy
): string => {
  const peer = Option.match(remoteAddress, { onNone: () => undefined, onSome: plainAddress }) ?? "unknown"
  if (trusted.header === undefined || trusted.header === "") return limitKey(peer)
  const proxies = trusted.proxies ?? []
  if (proxies.length > 0 && !proxies.some((proxy) => plainAddress(proxy) === peer)) return limitKey(peer)
  const value = headers[trusted.header]
  const entries = value === undefined ? [] : value.split(",")
  const forwarded = entries.length === 0 ? undefined : plainAddress(entries[entries.length - 1]!)
  return limitKey(forwarded ?? peer)
}
