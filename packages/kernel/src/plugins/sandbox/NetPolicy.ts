import * as Net from "node:net"
import type { AddressKind } from "../../net/Address.js"
import { hostAllowed } from "../../net/Hosts.js"
import { checkTarget } from "../../net/Target.js"

/**
 * A plugin's `permissions.network` as its brokers read it (docs/egress.md, docs/plugin-sandbox.md):
 * - `api.example.com`, `*.example.com`: that host (or its subdomains) on any port, for `fetch`
 *   and `webSocket`; not for `connect`, whose raw sockets go only to declared ports;
 * - `imap.example.com:993`: that host on that port only, for all three;
 * - `config:<key>`: the host the owner put in the plugin's setting `<key>` (a URL, `host:port` or
 *   a bare host): a self-hosted server (a Matrix homeserver, an IMAP host, a fake in a test) is
 *   the owner's choice, not the plugin's. With a port in the value, that port only; without one,
 *   any port, `connect` included (the owner named the host; the protocol picks the port).
 * Whatever the entry, the resolved addresses are checked as for `fetch`: no loopback, private,
 * link-local or reserved address unless the operator allowed its kind, never a metadata endpoint.
 */

export interface NetworkEntry {
  /** A host pattern as Egress reads it (`*.example.com` allowed). */
  readonly host: string
  /** `undefined`: any port for fetch/webSocket, none for connect; "any": any port for all. */
  readonly port: number | "any" | undefined
}

export type Use = "fetch" | "webSocket" | "connect"

const portOf = (text: string): number | undefined => {
  const port = Number(text)
  return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined
}

/** An owner's setting as a host and maybe a port; undefined when it is not one. */
const fromSetting = (value: unknown): NetworkEntry | undefined => {
  if (typeof value !== "string" || value.trim() === "" || value.length > 2_048) return undefined
  const text = value.trim()
  let url: URL
  try {
    url = new URL(text.includes("://") ? text : `aide://${text}`)
  } catch {
    return undefined
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase()
  if (host === "" || host.includes("*")) return undefined
  return { host, port: url.port === "" ? "any" : portOf(url.port) }
}

/** The declared entries, `config:` ones read from the settings; `skipped` names the empty ones. */
export const resolve = (
  declared: ReadonlyArray<string>,
  config: Readonly<Record<string, unknown>>,
): { readonly entries: ReadonlyArray<NetworkEntry>; readonly skipped: ReadonlyArray<string> } => {
  const entries: Array<NetworkEntry> = []
  const skipped: Array<string> = []
  for (const raw of declared) {
    if (raw.startsWith("config:")) {
      const entry = fromSetting(config[raw.slice("config:".length)])
      if (entry === undefined) skipped.push(raw)
      else entries.push(entry)
      continue
    }
    const match = /^(.*?)(?::(\d{1,5}))?$/.exec(raw)
    const port = match?.[2] === undefined ? undefined : portOf(match[2])
    entries.push({ host: (match?.[1] ?? raw).toLowerCase(), port })
  }
  return { entries, skipped }
}

/** The host patterns alone (Egress's `allowedHosts`). */
export const hostsOf = (entries: ReadonlyArray<NetworkEntry>): ReadonlyArray<string> => [
  ...new Set(entries.map((entry) => entry.host)),
]

/** Whether `host` (normalized) on `port` is declared for `use`. */
export const allows = (entries: ReadonlyArray<NetworkEntry>, host: string, port: number, use: Use): boolean =>
  entries.some(
    (entry) =>
      hostAllowed([entry.host], host) &&
      (entry.port === "any" || (entry.port === undefined ? use !== "connect" : entry.port === port)),
  )

/** Whether any entry names `host`, whatever its port. */
export const hostDeclared = (entries: ReadonlyArray<NetworkEntry>, host: string): boolean =>
  entries.some((entry) => hostAllowed([entry.host], host))

/** The default port of a URL's scheme, for the port check of a URL without one. */
export const urlPort = (url: URL): number =>
  url.port !== ""
    ? Number(url.port)
    : url.protocol === "https:" || url.protocol === "wss:"
      ? 443
      : url.protocol === "http:" || url.protocol === "ws:"
        ? 80
        : 0

export interface AddressPolicy {
  readonly allowedKinds: () => Promise<ReadonlySet<AddressKind>>
  readonly lookup: (hostname: string) => Promise<ReadonlyArray<string>>
}

/**
 * Resolves `host` once and checks every address as Egress does; the first is the one to connect
 * to (pinned: a second resolution is never made). Throws the refusal in the host's words.
 */
export const pinnedAddress = async (host: string, port: number, policy: AddressPolicy): Promise<string> => {
  const bracketed = Net.isIPv6(host) ? `[${host}]` : host
  try {
    const target = await checkTarget(new URL(`https://${bracketed}:${port}/`), {
      allowedHosts: undefined,
      allowHttp: false,
      ...policy,
    })
    return target.address
  } catch (error) {
    const reason = (error as { readonly reason?: unknown }).reason
    if (typeof reason === "string") throw new Error(`connection to ${host}:${port} refused: ${reason}`)
    throw new Error(`connection to ${host}:${port} failed: the name does not resolve`)
  }
}

/** Egress's `allowedKinds` option as the function the checks call. */
export const kindsOf = (
  kinds: Iterable<AddressKind> | (() => Promise<ReadonlySet<AddressKind>>) | undefined,
): (() => Promise<ReadonlySet<AddressKind>>) => {
  if (typeof kinds === "function") return kinds
  const set: ReadonlySet<AddressKind> = new Set(kinds ?? [])
  return () => Promise.resolve(set)
}
