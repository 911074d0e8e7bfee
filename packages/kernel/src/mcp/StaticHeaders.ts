/**
 * The static `headers` of an HTTP MCP server are its credentials: they go to that server's own
 * origin only, never to its OAuth authorization server or to any other host a redirect or a
 * metadata document names. They are added per request (per redirect hop) by a fetch wrapper,
 * instead of the SDK's `requestInit`, which the SDK also merges into its OAuth requests.
 */

/** Same origin, or its https upgrade on default ports (as the MCP SDK follows redirects). */
export const isServerOrigin = (server: URL, target: URL): boolean =>
  server.origin === target.origin ||
  (server.hostname === target.hostname &&
    server.protocol === "http:" &&
    server.port === "" &&
    target.protocol === "https:" &&
    target.port === "")

/** A `fetch` adding `headers` (overriding) to requests whose target is `serverUrl`'s origin. */
export const withStaticHeaders = (
  baseFetch: typeof fetch,
  serverUrl: string,
  headers: Readonly<Record<string, string>>,
): typeof fetch => {
  if (Object.keys(headers).length === 0) return baseFetch
  const server = new URL(serverUrl)
  const wrapped = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const target = new URL(input instanceof Request ? input.url : input)
    if (!isServerOrigin(server, target)) return baseFetch(input, init)
    const merged = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
    for (const [name, value] of Object.entries(headers)) merged.set(name, value)
    return baseFetch(input, { ...init, headers: merged })
  }
  return wrapped as typeof fetch
}

/**
 * Where and with which headers to reach an HTTP server: userinfo in its URL (`https://u:p@host`)
 * becomes an `Authorization: Basic` header (fetch refuses URLs with credentials, and the URL is
 * also sent to the authorization server as the OAuth `resource`), unless `headers` set one.
 */
export const httpTarget = (
  url: string,
  headers: Readonly<Record<string, string>> = {},
): { readonly url: URL; readonly headers: Readonly<Record<string, string>> } => {
  const target = new URL(url)
  if (target.username === "" && target.password === "") return { url: target, headers }
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value)
    } catch {
      return value
    }
  }
  const basic = Buffer.from(`${decode(target.username)}:${decode(target.password)}`).toString("base64")
  target.username = ""
  target.password = ""
  const hasAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === "authorization")
  return { url: target, headers: hasAuthorization ? headers : { ...headers, Authorization: `Basic ${basic}` } }
}
