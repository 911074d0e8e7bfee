import * as Net from "node:net"

/**
 * What kind of network an IP address is on. Everything but `public` can reach the host's own
 * machine, its LAN or its cloud provider, so egress refuses it unless a policy allows that kind.
 */

/** The kind of network an address belongs to; everything but `public` is guarded. */
export type AddressKind = "public" | "loopback" | "private" | "link-local" | "reserved"

const ipv4Ranges: ReadonlyArray<readonly [string, number, AddressKind]> = [
  ["0.0.0.0", 8, "reserved"], // "this network": 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "private"], // carrier-grade NAT
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"], // includes cloud metadata endpoints
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"], // documentation
  ["192.88.99.0", 24, "reserved"], // 6to4 relay anycast
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"], // benchmarking
  ["198.51.100.0", 24, "reserved"], // documentation
  ["203.0.113.0", 24, "reserved"], // documentation
  ["224.0.0.0", 4, "reserved"], // multicast
  ["240.0.0.0", 4, "reserved"], // reserved and broadcast
]

const ipv4ToInt = (address: string) =>
  address.split(".").reduce((value, octet) => (value << 8) + Number(octet), 0) >>> 0

const ipv4Kind = (address: string): AddressKind => {
  const value = ipv4ToInt(address)
  for (const [base, bits, kind] of ipv4Ranges) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0
    if ((value & mask) >>> 0 === (ipv4ToInt(base) & mask) >>> 0) return kind
  }
  return "public"
}

/** Expands an IPv6 address to its eight 16-bit groups. */
const ipv6Groups = (address: string): ReadonlyArray<number> => {
  let text = address.split("%")[0] ?? address
  // A trailing dotted IPv4 part (`::ffff:1.2.3.4`) becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted?.[1] !== undefined) {
    const value = ipv4ToInt(dotted[1])
    text = `${text.slice(0, dotted.index)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const headGroups = head === "" ? [] : head.split(":")
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":")
  const missing = 8 - headGroups.length - tailGroups.length
  return [...headGroups, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...tailGroups].map((group) =>
    Number.parseInt(group, 16),
  )
}

const dottedOf = (high: number, low: number) => `${high >>> 8}.${high & 0xff}.${low >>> 8}.${low & 0xff}`

/**
 * The IPv4 address an IPv6 address carries and is routed to: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d` (and the local-use `64:ff9b:1::/48`),
 * 6to4 `2002:aabb:ccdd::`. Judging only the IPv6 form would let `[::ffff:7f00:1]` reach loopback.
 */
const embeddedIpv4 = (address: string): string | undefined => {
  if (Net.isIP(address) !== 6) return undefined
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = ipv6Groups(address)
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  if (zeroPrefix && g5 === 0 && g6 === 0 && g7 <= 1) return undefined
  if (zeroPrefix && (g5 === 0xffff || g5 === 0)) return dottedOf(g6, g7)
  // IPv4-translated `::ffff:0:a.b.c.d` (SIIT).
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return dottedOf(g6, g7)
  if (g0 === 0x64 && g1 === 0xff9b && (g2 === 0 || g2 === 1) && g3 === 0 && g4 === 0 && g5 === 0) {
    return dottedOf(g6, g7)
  }
  if (g0 === 0x2002) return dottedOf(g1, g2)
  return undefined
}

const ipv6Kind = (address: string): AddressKind => {
  const embedded = embeddedIpv4(address)
  if (embedded !== undefined) return ipv4Kind(embedded)
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = ipv6Groups(address)
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0) {
    return g7 === 1 ? "loopback" : "reserved"
  }
  if ((g0 & 0xfe00) === 0xfc00) return "private" // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return "link-local" // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return "private" // deprecated site-local fec0::/10
  if ((g0 & 0xff00) === 0xff00) return "reserved" // multicast
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return "reserved" // discard 100::/64
  if (g0 === 0x2001 && g1 === 0xdb8) return "reserved" // documentation
  return "public"
}

/** The kind of network of an IP address (v4 or v6, as text); anything else is `reserved`. */
export const addressKind = (address: string): AddressKind => {
  const family = Net.isIP(address)
  if (family === 4) return ipv4Kind(address)
  if (family === 6) return ipv6Kind(address)
  return "reserved"
}

/**
 * Cloud metadata and platform endpoints: they hand out credentials, so no policy allows them,
 * not even one allowing their network kind (Alibaba's sits in CGNAT space, Azure's is public).
 */
const metadataAddresses = new Set([
  "169.254.169.254", // AWS, GCP, Azure, OpenStack, Oracle…
  "169.254.170.2", // AWS ECS task credentials
  "169.254.169.253", // AWS VPC DNS
  "100.100.100.200", // Alibaba Cloud
  "168.63.129.16", // Azure wire server
  "fd00:ec2::254", // AWS IMDS over IPv6
  "fd00:ec2::23", // AWS IPv6 DNS
])

/** Whether `address` (any IPv6 spelling, or an IPv4 embedded in one) is a metadata endpoint. */
export const isMetadataAddress = (address: string): boolean => {
  const v4 = Net.isIP(address) === 6 ? (embeddedIpv4(address) ?? address) : address
  if (Net.isIP(v4) === 4) return metadataAddresses.has(v4)
  const canonical = ipv6Groups(v4)
    .map((group) => group.toString(16))
    .join(":")
  for (const known of metadataAddresses) {
    if (
      Net.isIP(known) === 6 &&
      ipv6Groups(known)
        .map((group) => group.toString(16))
        .join(":") === canonical
    ) {
      return true
    }
  }
  return false
}
