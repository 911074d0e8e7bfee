import * as Net from "node:net"
import { type AddressKind, addressKind, isMetadataAddress } from "./Address.js"
import { EgressRefused } from "./EgressErrors.js"
import { hostAllowed, isLocalhostName, type Lookup, normalizeHost } from "./Hosts.js"

/** The checks every request and every redirect hop passes before a connection is opened. */

export interface TargetPolicy {
  /** Declared hosts (`api.example.com`, `*.example.com`); undefined: any host. */
  readonly allowedHosts: ReadonlyArray<string> | undefined
  readonly allowHttp: boolean
  /** Non-public kinds of network allowed (MCP: the kind of the configured server). */
  readonly allowedKinds: () => Promise<ReadonlySet<AddressKind>>
  readonly lookup: Lookup
}

/** A checked target: the address the connection must go to, and the name TLS must verify. */
export interface CheckedTarget {
  readonly url: URL
  readonly host: string
  readonly address: string
}

/**
 * Checks `url` and resolves its host ONCE: the address returned is the one checked, and the
 * caller connects to it, so a name answering differently the next time (DNS rebinding) cannot
 * move the connection elsewhere. A name with one non-public address among public ones is refused:
 * which one a client would use is not ours to guess.
 */
export const checkTarget = async (url: URL, policy: TargetPolicy): Promise<CheckedTarget> => {
  const refuse = (reason: string) => new EgressRefused(url.href, reason)
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refuse("only http and https are allowed")
  if (url.protocol === "http:" && !policy.allowHttp) throw refuse("only https is allowed")
  // fetch refuses them too, but quoting the URL; and they would leak to every redirect hop.
  if (url.username !== "" || url.password !== "") throw refuse("credentials in URLs are not sent")
  const host = normalizeHost(url)
  if (policy.allowedHosts !== undefined && !hostAllowed(policy.allowedHosts, host)) {
    throw refuse(`host ${host} is not declared`)
  }
  const allowed = await policy.allowedKinds()
  const judge = (address: string, where: string) => {
    const kind = addressKind(address)
    if (isMetadataAddress(address)) throw refuse(`${kind} address ${where}is a metadata endpoint, never allowed`)
    if (kind !== "public" && !allowed.has(kind)) throw refuse(`${kind} address ${where}is not allowed`)
  }
  if (Net.isIP(host) !== 0) {
    judge(host, "")
    return { url, host, address: host }
  }
  if (isLocalhostName(host) && !allowed.has("loopback")) throw refuse(`loopback address (${host}) is not allowed`)
  let addresses: ReadonlyArray<string>
  try {
    addresses = await policy.lookup(host)
  } catch (cause) {
    // Not a refusal but a network failure, reported as fetch reports one (callers read the cause's code).
    throw new TypeError("fetch failed", { cause })
  }
  if (addresses.length === 0) throw refuse(`${host} has no address`)
  for (const address of addresses) {
    judge(address, `(${host} resolves to ${address}) `)
    // `localhost` must stay on this machine even if a resolver says otherwise.
    if (isLocalhostName(host) && addressKind(address) !== "loopback") {
      throw refuse(`${host} resolves to ${address}, not to a loopback address`)
    }
  }
  return { url, host, address: addresses[0]! }
}
