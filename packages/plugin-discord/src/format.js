// @ts-check
/**
 * Markdown (what the assistant writes) to Discord's markdown. Discord renders most of it as is
 * (bold, italic, strikethrough, inline code, fenced code blocks, quotes, lists, `#`–`###`
 * headings, masked links); what differs is converted, outside code only:
 * - `__text__` is bold in Markdown but underline on Discord → `**text**`;
 * - `####`–`######` headings, which Discord shows as text → bold lines;
 * - images `![alt](url)` → links; tables (which Discord does not draw) → a code block, so the
 *   columns stay aligned.
 * Code blocks are kept byte for byte. Mentions are never parsed (`allowed_mentions: { parse: [] }`
 * on every message), so an `@everyone` in an answer pings nobody.
 */
import { splitMessage } from "@aide/plugin"

/** Discord's limit on a message's `content`. */
export const MESSAGE_LIMIT = 2000

/** @param {string} line */
const inline = (line) => {
  // Split on inline code spans so nothing inside backticks is touched.
  return line
    .split(/(`[^`\n]*`)/)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part
            .replace(/(?<![\w_])__([^_\n]+?)__(?![\w_])/g, "**$1**")
            .replace(/!\[([^\]\n]*)\]\(([^)\s]+)\)/g, "[$1]($2)"),
    )
    .join("")
}

/**
 * @param {string} markdown
 * @returns {string}
 */
export const toDiscordMarkdown = (markdown) => {
  /** @type {string[]} */
  const out = []
  let fence = false
  let table = false
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      if (table) {
        out.push("```")
        table = false
      }
      fence = !fence
      out.push(line)
      continue
    }
    if (fence) {
      out.push(line)
      continue
    }
    const isTableRow = /^\s*\|.*\|\s*$/.test(line)
    if (isTableRow && !table) {
      out.push("```")
      table = true
    } else if (!isTableRow && table) {
      out.push("```")
      table = false
    }
    if (table) {
      out.push(line)
      continue
    }
    const deep = /^#{4,6}\s+(.*)$/.exec(line)
    out.push(deep === null ? inline(line) : `**${inline(deep[1] ?? "")}**`)
  }
  if (table) out.push("```")
  return out.join("\n")
}

/**
 * Markdown to the contents of the messages that carry it, each at most `limit` characters:
 * converted first (the conversion may add characters), then split on line and fence boundaries.
 * @param {string} markdown
 * @param {number} [limit]
 */
export const toDiscordMessages = (markdown, limit = MESSAGE_LIMIT) => splitMessage(toDiscordMarkdown(markdown), limit)
