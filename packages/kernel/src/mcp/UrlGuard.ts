import * as Dns from "node:dns/promises"
import * as Net from "node:net"
import { redactUrl } from "./Redact.js"

/**
 * SSRF guard for URLs learned from remote MCP servers (OAuth metadata, token endpoints,
 * redirects). A target whose host is on a non-public network (loopback, private, link-local…)
 * is refused unless the configured MCP server URL itself is on a network of the same kind: a
 * server on `127.0.0.1` may use an authorization server on loopback, a public one may not
 * send us to `10.0.0.1` or to `169.254.169.254`.
 */

/** The kind of network an address belongs to; everything but `public` is guarded. */
export type AddressKind = "public" | "loopback" | "private" | "link-local" | "reserved"

/** Resolves a host name to its addresses (default: `dns.lookup` with `all: true`, as fetch resolves). */
export type Lookup = (hostname: string) => Promise<ReadonlyArray<string>>

export const defaultLookup: Lookup = async (hostname) =>
  (await Dns.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/** A request the guard refused; the SDK reports its message as the connection error. */
export class UrlRefusedError extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`Refused ${redactUrl(url)}: ${reason}`)
    this.name = "UrlRefusedError"
  }
}

const ipv4Ranges: ReadonlyArray<readonly [string, number, AddressKind]> = [
  ["0.0.0.0", 8, "reserved"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "private"], // carrier-grade NAT
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"], // includes cloud metadata endpoints
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"], // benchmarking
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

const ipv6Kind = (address: string): AddressKind => {
  const groups = ipv6Groups(address)
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups
  const embeddedV4 = `${g6 >>> 8}.${g6 & 0xff}.${g7 >>> 8}.${g7 & 0xff}`
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0
  if (zeroPrefix && g5 === 0 && g6 === 0) return g7 === 1 ? "loopback" : "reserved"
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address: judge that one.
  if (zeroPrefix && g5 === 0xffff) return ipv4Kind(embeddedV4)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(embeddedV4)
  if ((g0 & 0xfe00) === 0xfc00) return "private" // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return "link-local" // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return "private" // deprecated site-local fec0::/10
  if ((g0 & 0xff00) === 0xff00) return "reserved" // multicast
  return "public"
}

/** The kind of network of an IP address (v4 or v6, as text). */
export const addressKind = (address: string): AddressKind => {
  const family = Net.isIP(address)
  if (family === 4) return ipv4Kind(address)
  if (family === 6) return ipv6Kind(address)
  return "reserved"
}

/** Host of a URL without IPv6 brackets. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1")

/**
 * The kinds of network a URL's host is on: its literal address, or every address its name
 * resolves to (a name with one private address among public ones counts as private too).
 * `localhost` and `*.localhost` are loopback without asking DNS (RFC 6761).
 */
export const hostKinds = async (url: URL, lookup: Lookup = defaultLookup): Promise<ReadonlySet<AddressKind>> => {
  const host = bareHost(url).toLowerCase()
  if (Net.isIP(host) !== 0) return new Set([addressKind(host)])
  if (host === "localhost" || host.endsWith(".localhost")) return new Set(["loopback"])
  const addresses = await lookup(host)
  return new Set(addresses.length === 0 ? ["reserved"] : addresses.map(addressKind))
}

export interface GuardOptions {
  /** Host name resolution used for the check; default `dns.lookup`. */
  readonly lookup?: Lookup
  /** The fetch the guarded requests go through; default the global `fetch`. */
  readonly fetch?: typeof fetch
  /** Redirects followed per request; default 5. */
  readonly maxRedirects?: number
}

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/**
 * A `fetch` for everything related to the MCP server at `serverUrl`: every request, and every
 * redirect hop (followed here with `redirect: "manual"`), is checked first. A caller that asks
 * for `redirect: "manual"` itself (the MCP SDK does) gets the redirect response back unfollowed,
 * and checks the next hop with its next request.
 *
 * DNS is resolved for the check and again by fetch: a host that changes its answer in between
 * (DNS rebinding) is not caught.
 */
export const guardedFetch = (serverUrl: string, options: GuardOptions = {}): typeof fetch => {
  const lookup = options.lookup ?? defaultLookup
  const baseFetch = options.fetch ?? globalThis.fetch
  const maxRedirects = options.maxRedirects ?? 5
  let serverKinds: Promise<ReadonlySet<AddressKind>> | undefined
  const allowedKinds = () => {
    serverKinds ??= hostKinds(new URL(serverUrl), lookup).catch(() => new Set<AddressKind>(["public"]))
    return serverKinds
  }

  const check = async (url: URL) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new UrlRefusedError(url.href, `only http and https are allowed`)
    }
    let kinds: ReadonlySet<AddressKind>
    try {
      kinds = await hostKinds(url, lookup)
    } catch (cause) {
      throw new UrlRefusedError(url.href, `cannot resolve ${url.hostname} (${String(cause)})`)
    }
    const allowed = await allowedKinds()
    for (const kind of kinds) {
      if (kind !== "public" && !allowed.has(kind)) {
        throw new UrlRefusedError(url.href, `${kind} address, while the MCP server is not on such a network`)
      }
    }
  }

  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let url = new URL(input instanceof Request ? input.url : input)
    await check(url)
    if (init?.redirect === "manual" || init?.redirect === "error") return baseFetch(input, init)
    let request = input instanceof Request ? input : url
    let requestInit: RequestInit = { ...init, redirect: "manual" }
    for (let hop = 0; ; hop++) {
      const response = await baseFetch(request, requestInit)
      const location = response.headers.get("location")
      if (!redirectStatuses.has(response.status) || location === null) return response
      if (hop >= maxRedirects) {
        await response.body?.cancel()
        throw new UrlRefusedError(url.href, `more than ${maxRedirects} redirects`)
      }
      await response.body?.cancel()
      const next = new URL(location, url)
      await check(next)
      const method = (requestInit.method ?? (request instanceof Request ? request.method : "GET")).toUpperCase()
      // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
      const asGet =
        response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")
      const headers = new Headers(requestInit.headers ?? (request instanceof Request ? request.headers : undefined))
      // Credentials stay with the origin they were meant for.
      if (next.origin !== url.origin) headers.delete("authorization")
      if (asGet) {
        headers.delete("content-type")
        const { body: _body, ...rest } = requestInit
        requestInit = { ...rest, method: "GET", headers }
      } else {
        requestInit = { ...requestInit, headers }
      }
      url = next
      request = next
    }
  }
  return guarded as typeof fetch
}
