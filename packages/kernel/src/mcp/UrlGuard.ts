import * as Net from "node:net"
import { type AddressKind, addressKind } from "../net/Address.js"
import * as Egress from "../net/Egress.js"
import { EgressRefused } from "../net/EgressErrors.js"
import { defaultLookup, isLocalhostName, type Lookup, normalizeHost } from "../net/Hosts.js"
import type { Send } from "../net/PinnedSend.js"
import { isServerOrigin } from "./StaticHeaders.js"

/**
 * SSRF guard for URLs learned from remote MCP servers (OAuth metadata, token endpoints,
 * redirects). A target whose host is on a non-public network (loopback, private, link-local…)
 * is refused unless the configured MCP server URL itself is on a network of the same kind: a
 * server on `127.0.0.1` may use an authorization server on loopback, a public one may not
 * send us to `10.0.0.1` or to `169.254.169.254`. The checks are the egress broker's
 * (`net/Egress.ts`), which also pins each checked address for its connection.
 */

export { type AddressKind, addressKind, defaultLookup, type Lookup }

/** A request the guard refused; the SDK reports its message as the connection error. */
export const UrlRefusedError = EgressRefused
export type UrlRefusedError = EgressRefused

/**
 * The kinds of network a URL's host is on: its literal address, or every address its name
 * resolves to (a name with one private address among public ones counts as private too).
 * `localhost` and `*.localhost` are loopback without asking DNS (RFC 6761).
 */
export const hostKinds = async (url: URL, lookup: Lookup = defaultLookup): Promise<ReadonlySet<AddressKind>> => {
  const host = normalizeHost(url)
  if (Net.isIP(host) !== 0) return new Set([addressKind(host)])
  if (isLocalhostName(host)) return new Set(["loopback"])
  const addresses = await lookup(host)
  return new Set(addresses.length === 0 ? ["reserved"] : addresses.map(addressKind))
}

export interface GuardOptions {
  /** Host name resolution used for the check; default `dns.lookup`. */
  readonly lookup?: Lookup
  /**
   * The fetch each checked hop is sent with (tests). Default: a connection to the checked
   * address itself; a fetch given here resolves the name again, so it loses that pinning.
   */
  readonly fetch?: typeof fetch
  /** Redirects followed per request; default 5. */
  readonly maxRedirects?: number
  /** The MCP server's static headers (its credentials): added only to hops on its own origin. */
  readonly headers?: Readonly<Record<string, string>>
}

const viaFetch =
  (baseFetch: typeof fetch): Send =>
  (target, hop) =>
    baseFetch(target.url, {
      method: hop.method,
      headers: hop.headers,
      body: hop.body ?? null,
      signal: hop.signal,
      redirect: "manual",
    })

/**
 * A `fetch` for everything related to the MCP server at `serverUrl`: every request, and every
 * redirect hop (followed here), is checked first, and connects to the address that was checked
 * (no second DNS answer, so no DNS rebinding). A caller that asks for `redirect: "manual"`
 * itself (the MCP SDK does) gets the redirect response back unfollowed, and checks the next hop
 * with its next request. No timeout or body cap: MCP event streams are long-lived.
 */
export const guardedFetch = (serverUrl: string, options: GuardOptions = {}): typeof fetch => {
  const lookup = options.lookup ?? defaultLookup
  let serverKinds: Promise<ReadonlySet<AddressKind>> | undefined
  const allowedKinds = () => {
    serverKinds ??= hostKinds(new URL(serverUrl), lookup).catch(() => new Set<AddressKind>(["public"]))
    return serverKinds
  }
  const server = new URL(serverUrl)
  const headers = Object.entries(options.headers ?? {})
  return Egress.make({
    allowHttp: true,
    allowedKinds,
    lookup,
    maxRedirects: options.maxRedirects ?? 5,
    timeoutMs: Number.POSITIVE_INFINITY,
    maxBodyBytes: Number.POSITIVE_INFINITY,
    concurrency: Number.POSITIVE_INFINITY,
    decorate: (url, hopHeaders) => {
      if (isServerOrigin(server, url)) for (const [name, value] of headers) hopHeaders.set(name, value)
    },
    ...(options.fetch === undefined ? {} : { send: viaFetch(options.fetch) }),
  })
}
