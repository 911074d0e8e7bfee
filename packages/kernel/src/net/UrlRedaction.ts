/**
 * Secrets of a URL (userinfo, query values such as `?token=…`) kept out of every
 * log line and every `error` text. The URL itself stays in the config (the owner sees it in
 * `GET /api/config`); only what we print about it is redacted.
 */

const mask = "***"

/** `https://user:pw@host/mcp?token=abc#x` → `https://***@host/mcp?token=***` (no fragment). */
export const redactUrl = (text: string): string => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return text
  }
  const userinfo = url.username !== "" || url.password !== ""
  const query = [...url.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${mask}`).join("&")
  const rest = `${url.host}${url.pathname}${query === "" ? "" : `?${query}`}`
  return `${url.protocol}//${userinfo ? `${mask}@` : ""}${rest}`
}

/** Whether `url` carries userinfo or a query (what `redactUrl` masks). */
const hasSecrets = (url: string) => {
  try {
    const parsed = new URL(url)
    return parsed.username !== "" || parsed.password !== "" || parsed.search !== ""
  } catch {
    return false
  }
}

/** Absolute http(s) URLs inside free text (an SDK error message, a stderr line). */
const urlPattern = /\bhttps?:\/\/[^\s"'<>`]+/gi

/** Shorter values are not replaced as bare text: `?v=1` must not turn every `1` into `***`. */
const minimumSecretLength = 4

/** The bare values of `url` that are secret: user, password, query values (raw and decoded). */
const secretsOf = (url: string | undefined): ReadonlyArray<string> => {
  if (url === undefined) return []
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return []
  }
  const values = [parsed.username, parsed.password, ...parsed.searchParams.values()]
  const raw = parsed.search
    .slice(1)
    .split("&")
    .map((pair) => pair.slice(pair.indexOf("=") + 1))
  const decoded = [parsed.username, parsed.password].map((value) => {
    try {
      return decodeURIComponent(value)
    } catch {
      return value
    }
  })
  return [...new Set([...values, ...raw, ...decoded])]
    .filter((value) => value.length >= minimumSecretLength)
    .sort((a, b) => b.length - a.length)
}

/**
 * `text` with every URL in it redacted (`redactUrl`), and every secret value of `serverUrl`
 * replaced even where it appears without its URL (an SDK echoing a token).
 */
export const redactText = (text: string, serverUrl?: string): string => {
  let result = text.replace(urlPattern, (match) => {
    // Trailing punctuation belongs to the sentence, not the URL.
    const trailing = /[).,;:!?\]]+$/.exec(match)?.[0] ?? ""
    const url = match.slice(0, match.length - trailing.length)
    // A URL without secrets is shown exactly as written (a log's `url` is copied by people and tools).
    return hasSecrets(url) ? redactUrl(url) + trailing : match
  })
  for (const secret of secretsOf(serverUrl)) result = result.split(secret).join(mask)
  return result
}
