/**
 * IPv6 address parsing for the webhook URL rules (src/webhooks/UrlRules.ts): an address is expanded to its eight
 * 16-bit groups (`::` compression, an embedded dotted quad at the end), then the IPv4 addresses it embeds or maps
 * are read from the groups by prefix, whatever spelling the address was written in.
 */

/** A dotted quad (four decimal octets, 0 to 255, at most three digits each), or undefined. */
export const parseIpv4 = (text: string): [number, number, number, number] | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const octets = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN))
  if (octets.some((octet) => !(octet >= 0 && octet <= 255))) return undefined
  return octets as [number, number, number, number]
}

/** Hex groups of one side of `::` (empty for an empty side), or undefined when one is not 1 to 4 hex digits. */
const hexGroups = (side: string): Array<number> | undefined => {
  if (side === "") return []
  const groups: Array<number> = []
  for (const group of side.split(":")) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined
    groups.push(parseInt(group, 16))
  }
  return groups
}

/**
 * The eight 16-bit groups of an IPv6 address, or undefined when the text is not one. Accepts `::` once (for one
 * or more zero groups) and a dotted quad as the last 32 bits; refuses a zone id (`fe80::1%eth0`) and brackets.
 */
export const expandIpv6 = (text: string): Array<number> | undefined => {
  if (text.includes("%") || text.length > 45) return undefined
  let head = text
  const tail: Array<number> = []
  const lastColon = text.lastIndexOf(":")
  if (lastColon >= 0 && text.slice(lastColon + 1).includes(".")) {
    const quad = parseIpv4(text.slice(lastColon + 1))
    if (quad === undefined) return undefined
    tail.push((quad[0] << 8) | quad[1], (quad[2] << 8) | quad[3])
    // Keep a trailing `::` intact (`::1.2.3.4`), otherwise drop the colon before the quad.
    head = text.slice(0, text.endsWith("::", lastColon + 1) ? lastColon + 1 : lastColon)
  }
  const halves = head.split("::")
  if (halves.length > 2) return undefined
  const left = hexGroups(halves[0]!)
  const right = halves.length === 2 ? hexGroups(halves[1]!) : []
  if (left === undefined || right === undefined) return undefined
  const given = left.length + right.length + tail.length
  if (halves.length === 1) return given === 8 ? [...left, ...tail] : undefined
  if (given > 7) return undefined
  return [...left, ...Array<number>(8 - given).fill(0), ...right, ...tail]
}

/** The dotted form of the IPv4 address in two 16-bit groups. */
const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`

const zero = (groups: ReadonlyArray<number>, from: number, to: number) => groups.slice(from, to).every((group) => group === 0)

/**
 * The IPv4 addresses an IPv6 address (its eight groups) carries, by prefix: IPv4-compatible `::/96`,
 * IPv4-mapped `::ffff:0:0/96`, its SIIT form `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96` (the last 32 bits), 6to4
 * `2002::/16` (bits 16 to 48), Teredo `2001::/32` (the server, bits 32 to 64, and the client, the last 32 bits
 * inverted). Empty for any other address.
 */
export const embeddedIpv4s = (groups: ReadonlyArray<number>): Array<string> => {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  if (zero(groups, 0, 5) && (g5 === 0 || g5 === 0xffff)) return [ipv4Of(g6, g7)]
  if (zero(groups, 0, 4) && g4 === 0xffff && g5 === 0) return [ipv4Of(g6, g7)]
  if (g0 === 0x64 && g1 === 0xff9b && zero(groups, 2, 6)) return [ipv4Of(g6, g7)]
  if (g0 === 0x2002) return [ipv4Of(g1, g2)]
  if (g0 === 0x2001 && g1 === 0) return [ipv4Of(g2, g3), ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff)]
  return []
}

/** The canonical, uncompressed spelling of eight groups (what `BlockList` is given). */
export const formatIpv6 = (groups: ReadonlyArray<number>) => groups.map((group) => group.toString(16)).join(":")
