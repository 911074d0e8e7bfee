import type { AddressKind } from "./Address.js"
import { EgressBodyTooLarge, EgressRefused, EgressTimeout } from "./EgressErrors.js"
import { defaultLookup, type Lookup } from "./Hosts.js"
import { limitBody, semaphore } from "./Limits.js"
import { type Send, sendPinned } from "./PinnedSend.js"
import { checkTarget, type TargetPolicy } from "./Target.js"

/**
 * Outbound HTTP on behalf of someone else (a plugin, an MCP server's OAuth metadata): a
 * `fetch`-compatible function that only reaches what its options allow. See docs/egress.md.
 *
 * @example
 * const fetch = Egress.make({ allowedHosts: ["api.example.com", "*.cdn.example.com"] })
 */

export interface EgressOptions {
  /** Declared hosts: exact names, or `*.example.com` (subdomains only). Default: any host. */
  readonly allowedHosts?: ReadonlyArray<string>
  /** Allow plain `http:`; default false. */
  readonly allowHttp?: boolean
  /** Non-public kinds of network allowed (metadata endpoints never are); default none. */
  readonly allowedKinds?: Iterable<AddressKind> | (() => Promise<ReadonlySet<AddressKind>>)
  /** Name resolution, done once per hop by the broker; default `dns.lookup`. */
  readonly lookup?: Lookup
  /** Whole exchange, body included; default 30 s, `Infinity` for none (MCP event streams). */
  readonly timeoutMs?: number
  /** Response body cap; default 10 MiB, `Infinity` for none. */
  readonly maxBodyBytes?: number
  /** Default 5. */
  readonly maxRedirects?: number
  /** Requests in flight (until their body ends) through this broker; default 4. */
  readonly concurrency?: number
  /** Headers added to a hop after its checks (MCP: static headers for the server's origin only). */
  readonly decorate?: (url: URL, headers: Headers) => void
  /** How a checked hop is sent; default a connection to the checked address (tests replace it). */
  readonly send?: Send
}

export const defaults = { timeoutMs: 30_000, maxBodyBytes: 10 * 1024 * 1024, maxRedirects: 5, concurrency: 4 }

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/** Headers that are credentials of one origin and must not follow a redirect elsewhere. */
const originCredentials = ["authorization", "cookie", "proxy-authorization"]

/** A guarded `fetch`: every request and every redirect hop checked, DNS answers pinned. */
export const make = (options: EgressOptions = {}): typeof fetch => {
  const kinds = options.allowedKinds ?? []
  const allowedKinds =
    typeof kinds === "function"
      ? kinds
      : (
          (set) => () =>
            Promise.resolve(set)
        )(new Set<AddressKind>(kinds))
  const policy: TargetPolicy = {
    allowedHosts: options.allowedHosts,
    allowHttp: options.allowHttp ?? false,
    allowedKinds,
    lookup: options.lookup ?? defaultLookup,
  }
  const timeoutMs = options.timeoutMs ?? defaults.timeoutMs
  const maxBodyBytes = options.maxBodyBytes ?? defaults.maxBodyBytes
  const maxRedirects = options.maxRedirects ?? defaults.maxRedirects
  const send = options.send ?? sendPinned
  const permits = semaphore(options.concurrency ?? defaults.concurrency)

  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const first = new URL(input instanceof Request ? input.url : input)
    if (first.username !== "" || first.password !== "") {
      throw new EgressRefused(first.href, "credentials in URLs are not sent")
    }
    const request = new Request(input, init)
    // A caller giving up while queued takes no permit with it.
    await permits.acquire(request.signal)
    let released = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const done = () => {
      if (released) return
      released = true
      clearTimeout(timer)
      permits.release()
    }
    try {
      const deadline = new AbortController()
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => deadline.abort(new EgressTimeout(first.href, timeoutMs)), timeoutMs)
      }
      const signal = AbortSignal.any([request.signal, deadline.signal])
      const response = await follow(request, signal)
      const length = Number(response.headers.get("content-length") ?? Number.NaN)
      if (length > maxBodyBytes) {
        await response.body?.cancel()
        throw new EgressBodyTooLarge(response.url || first.href, maxBodyBytes)
      }
      if (response.body === null) {
        done()
        return response
      }
      const limited = new Response(limitBody(response.body, first.href, maxBodyBytes, done), response)
      return withUrl(limited, response.url)
    } catch (error) {
      done()
      throw error
    }
  }

  /** Sends `request`, following redirects itself so that each hop is checked before it is sent. */
  const follow = async (request: Request, signal: AbortSignal): Promise<Response> => {
    let url = new URL(request.url)
    let method = request.method.toUpperCase()
    const headers = new Headers(request.headers)
    // Compressed bodies would dodge the size cap and the decoding belongs to fetch: ask for none.
    headers.delete("accept-encoding")
    if (!headers.has("accept")) headers.set("accept", "*/*")
    if (!headers.has("user-agent")) headers.set("user-agent", "Aide")
    let body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer())
    for (let hop = 0; ; hop++) {
      const target = await checkTarget(url, policy)
      const hopHeaders = new Headers(headers)
      options.decorate?.(url, hopHeaders)
      const response = await send(target, { method, headers: hopHeaders, body, signal })
      const location = response.headers.get("location")
      if (!redirectStatuses.has(response.status) || location === null || request.redirect === "manual") {
        return withUrl(response, url.href)
      }
      await response.body?.cancel()
      if (request.redirect === "error") throw new TypeError(`Redirected: ${response.status}`)
      if (hop >= maxRedirects) throw new EgressRefused(url.href, `more than ${maxRedirects} redirects`)
      const next = new URL(location, url)
      // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        if (method !== "HEAD") method = "GET"
        body = undefined
        headers.delete("content-type")
      }
      if (next.origin !== url.origin) for (const name of originCredentials) headers.delete(name)
      url = next
    }
  }
  return guarded as typeof fetch
}

/** `response.url` as fetch sets it (a constructed Response has none). */
const withUrl = (response: Response, url: string): Response => {
  if (response.url === url || url === "") return response
  Object.defineProperty(response, "url", { value: url })
  return response
}
