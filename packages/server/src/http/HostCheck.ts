import { isIP } from "node:net"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"

/**
 * Defences against web pages the owner happens to visit (docs/security.md):
 *
 * - DNS rebinding: a page on `attacker.example` re-points its name at 127.0.0.1 and then calls
 *   the server as same-origin, with `Host: attacker.example`. Only names the server is known by
 *   are served; IP literals are always fine, since a rebinding page always uses its own name.
 * - Cross-origin requests: a browser request from a foreign page carries its `Origin`; only the
 *   server's own origin and `AIDE_CORS_ORIGINS` may call. Without an `Origin`, `Sec-Fetch-Site:
 *   cross-site` marks a foreign subresource request; top-level navigations (the MCP OAuth
 *   callback, arriving from the authorization server) stay allowed.
 */
export interface HostCheckOptions {
  /** `AIDE_ALLOWED_HOSTS`: extra host names (no port), `*` for any host. */
  readonly allowedHosts: ReadonlyArray<string>
  /** `HOST`, the listening interface: allowed when it is a name. */
  readonly host: string
  /** `AIDE_PUBLIC_URL`: its host is allowed, its origin may call. */
  readonly publicUrl?: string | undefined
  /** `AIDE_CORS_ORIGINS`: origins that may call from a browser (`*` for any). */
  readonly corsOrigins: ReadonlyArray<string>
}

/** `AIDE_ALLOWED_HOSTS`: comma-separated host names; ports and a scheme, if given, are dropped. */
export const parseAllowedHosts = (value: string | undefined): ReadonlyArray<string> =>
  (value ?? "")
    .split(",")
    .map((entry) =>
      hostnameOf(
        entry
          .trim()
          .replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")
          .replace(/\/.*$/, ""),
      ),
    )
    .filter((entry) => entry !== "")

/** The host name of a `Host` header value (`Example.com:4111` → `example.com`, `[::1]:80` → `::1`). */
export const hostnameOf = (host: string): string => {
  const text = host.trim().toLowerCase()
  const bracketed = /^\[([^\]]*)\](?::[0-9]*)?$/.exec(text)
  if (bracketed !== null) return bracketed[1] ?? ""
  // A bare IPv6 address has several colons and no port.
  if (isIP(text) === 6) return text
  return text.replace(/:[0-9]*$/, "").replace(/\.$/, "")
}

const originOf = (url: string | undefined) => {
  if (url === undefined) return undefined
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

const refuse = (status: number, error: string) => HttpServerResponse.unsafeJson({ error }, { status })

/** Quoted for an error message, without letting a hostile header make it long. */
const quote = (value: string) => JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value)

/** Whether requests for `options` may be served at `hostname`, a name without port. */
const hostAllowed = (options: HostCheckOptions) => {
  const names = new Set([...options.allowedHosts, hostnameOf(options.host)])
  const publicOrigin = originOf(options.publicUrl)
  if (publicOrigin !== undefined) names.add(hostnameOf(new URL(publicOrigin).host))
  return (hostname: string) =>
    names.has("*") ||
    names.has(hostname) ||
    isIP(hostname) !== 0 ||
    hostname === "localhost" ||
    hostname.endsWith(".localhost")
}

/** Whether `origin` is the origin of the requested `host`: a page served by this server. */
const sameOrigin = (origin: string, host: string | undefined) => {
  if (host === undefined) return false
  try {
    const url = new URL(origin)
    // Through URL both ways, so `:80` on http and letter case compare equal.
    return /^https?:$/.test(url.protocol) && url.host === new URL(`${url.protocol}//${host}`).host
  } catch {
    return false
  }
}

const maxRememberedHosts = 256

/**
 * The check of `layer` as a plain function of the request's headers: the refusal (421 or 403),
 * or undefined when the request may be served. Shared with the direct reconnect path.
 */
export const makeCheck = (options: HostCheckOptions) => {
  const allowedName = hostAllowed(options)
  const corsOrigins = new Set(options.corsOrigins)
  const publicOrigin = originOf(options.publicUrl)
  // Verdicts by `Host` header value: clients send the same one on every request, and parsing it
  // (IPv6 patterns, a URL) cost more than the rest of the check. Bounded: any text can be sent.
  const verdicts = new Map<string, boolean>()
  const allowed = (host: string) => {
    let verdict = verdicts.get(host)
    if (verdict === undefined) {
      verdict = allowedName(hostnameOf(host))
      if (verdicts.size >= maxRememberedHosts) verdicts.clear()
      verdicts.set(host, verdict)
    }
    return verdict
  }
  return (headers: Readonly<Record<string, string | undefined>>): HttpServerResponse.HttpServerResponse | undefined => {
    // HTTP/1.0 may omit Host; browsers never do, so there is nothing to rebind.
    const host = headers.host
    if (host !== undefined && !allowed(host)) {
      return refuse(421, `host ${quote(hostnameOf(host))} is not allowed: add it to AIDE_ALLOWED_HOSTS`)
    }
    const origin = headers.origin
    if (origin !== undefined) {
      const trusted =
        origin === publicOrigin || sameOrigin(origin, host) || corsOrigins.has("*") || corsOrigins.has(origin)
      if (!trusted) {
        return refuse(403, `cross-origin request from ${quote(origin)} refused: allow it with AIDE_CORS_ORIGINS`)
      }
    } else if (
      headers["sec-fetch-site"] === "cross-site" &&
      headers["sec-fetch-mode"] !== "navigate" &&
      !corsOrigins.has("*")
    ) {
      return refuse(403, "cross-site request refused")
    }
    return undefined
  }
}

/**
 * Middleware answering `421 Misdirected Request` to a `Host` the server is not known by, and
 * `403` to a browser request from a foreign origin, before anything else runs.
 */
export const layer = (options: HostCheckOptions) => {
  const check = makeCheck(options)
  return HttpApiBuilder.middleware((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const refused = check(request.headers)
      return refused === undefined ? app : Effect.succeed(refused)
    }),
  )
}

/**
 * Listening on every interface (`0.0.0.0`, `::`) still serves only IP literals and loopback
 * names: a remote client using a host name gets 421 until that name is configured. Said once at
 * start, so the 421 is no surprise.
 */
export const startupWarning = (options: HostCheckOptions): Layer.Layer<never> =>
  ["0.0.0.0", "::", "[::]"].includes(options.host) && options.allowedHosts.length === 0 && !options.publicUrl
    ? Layer.effectDiscard(
        Effect.logWarning(
          `listening on ${options.host}: requests are served for IP addresses and localhost only; set AIDE_ALLOWED_HOSTS (or AIDE_PUBLIC_URL) to the host names clients use`,
        ),
      )
    : Layer.empty
