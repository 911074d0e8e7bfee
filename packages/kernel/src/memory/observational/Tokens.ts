import { estimateTokenCount } from "tokenx"

/**
 * One token estimator for everything memory counts (messages, observations, prompts): `tokenx`,
 * offline and fast. Every part of a message counts in full — tool inputs and results, file
 * parts — so a large tool result cannot slip under the threshold and overflow the context later.
 */

/** Tokens of a text. */
export const ofText = (text: string): number => (text === "" ? 0 : estimateTokenCount(text))

/** A provider's usual price of one image in a request (OpenAI: 765 for 1024², Anthropic ~1,600). */
const imageTokens = 1_000

/** Per message: role and framing. */
const messageOverhead = 4

const dataUrl = /^data:([^;,]*)(;[^,]*)?,(.*)$/s

/** Tokens of a file part: images at a flat price (never their base64 as text), text decoded. */
const ofFile = (part: { readonly mediaType?: unknown; readonly url?: unknown }): number => {
  const mediaType = typeof part.mediaType === "string" ? part.mediaType : ""
  if (mediaType.startsWith("image/")) return imageTokens
  const url = typeof part.url === "string" ? part.url : ""
  const match = dataUrl.exec(url)
  if (match === null) return ofText(url)
  const isBase64 = (match[2] ?? "").includes(";base64")
  const payload = match[3] ?? ""
  if (mediaType.startsWith("text/") || mediaType === "application/json") {
    const text = isBase64 ? Buffer.from(payload, "base64").toString("utf8") : decodeURIComponent(payload)
    return ofText(text)
  }
  // Other documents (PDF…): providers extract their text; ~1 token per 4 decoded bytes.
  const bytes = isBase64 ? Math.floor((payload.length * 3) / 4) : payload.length
  return Math.ceil(bytes / 4)
}

const ofPart = (part: unknown): number => {
  if (typeof part !== "object" || part === null) return 0
  const typed = part as Record<string, unknown>
  const type = typeof typed.type === "string" ? typed.type : ""
  if (type === "text" || type === "reasoning") return ofText(typeof typed.text === "string" ? typed.text : "")
  if (type === "file") return ofFile(typed)
  if (type === "step-start") return 0
  // Tool calls (input, output, error), sources, data parts: everything they carry, as JSON.
  return ofText(JSON.stringify(part))
}

/** Tokens of a stored message, every part included. */
export const ofMessage = (message: { readonly parts: ReadonlyArray<unknown> }): number =>
  message.parts.reduce<number>((total, part) => total + ofPart(part), messageOverhead)
