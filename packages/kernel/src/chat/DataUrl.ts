/**
 * File parts travel as data URLs. The model providers decode them only when a request is built,
 * so a malformed one fails every later request of its thread: they are checked on the way in,
 * and stored ones are checked again before they reach a provider.
 */

/** `data:<type>/<subtype>[;param=value]*;base64,<payload>`; the payload is checked apart. */
const dataUrlHead = /^data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[^;,]*)*;base64,/i
/** Standard or URL-safe base64, padded or not; linear, so a 20 MiB payload is checked in ms. */
const base64Payload = /^[A-Za-z0-9+/_-]*={0,2}$/

/** Why `url` is not a base64 data URL with a media type, or undefined when it is one. */
export const dataUrlProblem = (url: string): string | undefined => {
  const head = dataUrlHead.exec(url)
  if (head === null) {
    if (!url.startsWith("data:")) return "is not a data URL"
    if (!url.slice(0, url.indexOf(",") + 1).includes(";base64,")) return "is not base64-encoded (no ;base64)"
    return "has no media type"
  }
  const payload = url.slice(head[0].length)
  if (payload.length === 0) return "has no data"
  if (!base64Payload.test(payload) || payload.replace(/=+$/, "").length % 4 === 1) return "has invalid base64 data"
  return undefined
}
