import { isIP } from "node:net"
import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"

/**
 * How far to trust `X-Forwarded-For`: not at all (default), or a number of proxy hops in front
 * of us. Each trusted proxy appends the address it saw, so the client is `hops` entries from the
 * right; everything left of it was written by the client and proves nothing.
 */
export type TrustProxy = { readonly _tag: "None" } | { readonly _tag: "Hops"; readonly hops: number }

export const trustNone: TrustProxy = { _tag: "None" }

/**
 * `AIDE_TRUST_PROXY`: unset/`false`/`0` → none, `true` → one hop (a single reverse proxy), a
 * positive integer → that many hops. Anything else is refused rather than guessed at.
 */
export const parseTrustProxy = (value: string | undefined): TrustProxy => {
  const text = (value ?? "").trim().toLowerCase()
  if (text === "" || text === "false" || text === "0") return trustNone
  if (text === "true") return { _tag: "Hops", hops: 1 }
  const hops = Number(text)
  if (/^[0-9]+$/.test(text) && Number.isSafeInteger(hops)) return { _tag: "Hops", hops }
  throw new Error(`AIDE_TRUST_PROXY must be true, false or a number of proxy hops, not ${JSON.stringify(value)}`)
}

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) is the IPv4 client `1.2.3.4`. */
const stripMappedIpv4 = (address: string) =>
  /^::ffff:[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/i.test(address) ? address.slice(7) : address

/**
 * One `X-Forwarded-For` entry as an IP address, or undefined. Proxies write bare addresses, some
 * with a port (`1.2.3.4:5678`, `[2001:db8::1]:5678`); anything else (`<script>`, `unknown`) is
 * not an address and must never be stored or counted as one.
 */
const forwardedAddress = (entry: string): string | undefined => {
  const bracketed = /^\[([^\]]+)\](?::[0-9]+)?$/.exec(entry)
  const withPort = /^([0-9.]+):[0-9]+$/.exec(entry)
  const address = bracketed?.[1] ?? withPort?.[1] ?? entry
  return isIP(address) === 0 ? undefined : stripMappedIpv4(address.toLowerCase())
}

/**
 * The client's IP address as seen through `trust`: the entry `hops` from the right of
 * `X-Forwarded-For` when it is a valid IP, else the socket's peer (the nearest proxy). A header
 * with fewer entries than trusted hops did not come through the configured proxies: ignored.
 */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trust: TrustProxy): string => {
  const peer = stripMappedIpv4(Option.getOrElse(request.remoteAddress, () => "unknown"))
  if (trust._tag === "None") return peer
  // Node joins repeated X-Forwarded-For headers with ", ", in order.
  const entries = (request.headers["x-forwarded-for"] ?? "").split(",").map((entry) => entry.trim())
  if (entries.length === 1 && entries[0] === "") return peer
  const chosen = entries[entries.length - trust.hops]
  return (chosen === undefined ? undefined : forwardedAddress(chosen)) ?? peer
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 split). */
const ipv6Groups = (address: string): ReadonlyArray<number> => {
  let text = address
  const dotted = /([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)$/.exec(text)
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
}

/**
 * The rate-limit bucket of a client address. One IPv6 host usually holds a whole /64 (SLAAC,
 * privacy addresses) and can pick a fresh address per request, so IPv6 is counted per /64;
 * an IPv4-mapped address (`::ffff:1.2.3.4`, in either spelling) counts as its IPv4 address.
 */
export const rateLimitBucket = (address: string): string => {
  const plain = address.replace(/%.*$/, "")
  if (isIP(plain) !== 6) return address
  const groups = ipv6Groups(plain.toLowerCase())
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6)
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`
}
