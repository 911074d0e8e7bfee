/**
 * The static `headers` of an HTTP MCP server are its credentials: they go to that server's own
 * origin only, never to its OAuth authorization server or to any other host a redirect or a
 * metadata document names. They are added per request (per redirect hop) by the guarded fetch
 * (`UrlGuard.guardedFetch`), instead of the SDK's `requestInit`, which the SDK also merges into
 * its OAuth requests.
 */

/** Same origin, or its https upgrade on default ports (as the MCP SDK follows redirects). */
export const isServerOrigin = (server: URL, target: URL): boolean =>
  server.origin === target.origin ||
  (server.hostname === target.hostname &&
    server.protocol === "http:" &&
    server.port === "" &&
    target.protocol === "https:" &&
    target.port === "")

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
