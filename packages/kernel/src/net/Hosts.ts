import * as Dns from "node:dns/promises"
import * as Net from "node:net"
import { domainToASCII } from "node:url"

/** Host names as egress compares them, and how they are resolved. */

/** Resolves a host name to its addresses (default: `dns.lookup` with `all: true`, as fetch resolves). */
export type Lookup = (hostname: string) => Promise<ReadonlyArray<string>>

export const defaultLookup: Lookup = async (hostname) =>
  (await Dns.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/**
 * A URL's host as compared and resolved: lower case, without IPv6 brackets, without the
 * trailing dot of an absolute name (`localhost.` is `localhost`, not a way around the guard).
 */
export const normalizeHost = (url: URL): string =>
  url.hostname
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase()
    .replace(/\.+$/, "")

/** `localhost` and `*.localhost` are loopback by definition (RFC 6761), whatever DNS says. */
export const isLocalhostName = (host: string): boolean => host === "localhost" || host.endsWith(".localhost")

/** A declared host pattern in the form URLs give their hosts (IDN as punycode, no trailing dot). */
const normalizePattern = (pattern: string): string => {
  const trimmed = pattern.trim().toLowerCase().replace(/\.+$/, "")
  const wildcard = trimmed.startsWith("*.")
  const name = wildcard ? trimmed.slice(2) : trimmed
  const bare = name.replace(/^\[(.*)\]$/, "$1")
  const ascii = Net.isIP(bare) !== 0 ? bare : domainToASCII(bare) || bare
  return wildcard ? `*.${ascii}` : ascii
}

/**
 * Whether `host` (normalized) is declared: exact names, or `*.example.com`, which matches
 * `a.example.com` and `a.b.example.com` but neither `example.com` nor `evil-example.com`.
 */
export const hostAllowed = (patterns: ReadonlyArray<string>, host: string): boolean =>
  patterns.some((raw) => {
    const pattern = normalizePattern(raw)
    if (!pattern.startsWith("*.")) return pattern === host
    const suffix = pattern.slice(1) // ".example.com"
    return host.length > suffix.length && host.endsWith(suffix)
  })
