// @ts-check
/**
 * `fetch_page`: reads a web page as plain text. The worked example of a compartment-sandboxed
 * tool: standard JavaScript only, no Node built-ins, no `process`, no clock. Its one capability
 * is `context.fetch`, the brokered fetch Aide grants because the manifest declares
 * `permissions.network`; the broker refuses every host that is not declared there.
 */
import { htmlToText } from "./html.js"

/** The most text a call returns (the rest is cut, and `truncated` says so). */
export const MAX_TEXT = 20_000

// Types through the `@import` tag: SES refuses source text that looks like an import expression,
// even inside a comment, so this file names no type that way.
/** @import { ToolDefinition } from "@aide/plugin" */
/** @typedef {{ url: string }} Input */
/** @typedef {{ url: string, status: number, title: string, text: string, truncated: boolean }} Output */

/**
 * @param {unknown} value
 * @returns {URL}
 */
const pageUrl = (value) => {
  if (typeof value !== "string" || !URL.canParse(value)) throw new Error("fetch_page: url must be an absolute URL")
  const url = new URL(value)
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Error(`fetch_page: only http(s) pages can be read, not ${url.protocol} URLs`)
  }
  // The broker speaks https only; the hosts worth reading all serve it.
  if (url.protocol === "http:") url.protocol = "https:"
  url.hash = ""
  return url
}

/** @param {string} contentType */
const kindOf = (contentType) => {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? ""
  if (type === "" || type === "text/html" || type === "application/xhtml+xml") return "html"
  if (type.startsWith("text/") || type === "application/json" || type.endsWith("+json") || type.endsWith("+xml")) {
    return "text"
  }
  return null
}

/** @type {ToolDefinition<Input, Output>} */
const fetchPage = {
  id: "fetch_page",
  name: "Fetch page",
  description:
    "Reads a web page and returns its title and text (HTML stripped, at most 20,000 characters). Only the hosts the plugin declares can be reached.",
  parameters: {
    type: "object",
    properties: { url: { type: "string", description: "The page's absolute http(s) URL" } },
    required: ["url"],
    additionalProperties: false,
  },
  execute: async (input, context) => {
    const url = pageUrl(input?.url)
    const fetch = context.fetch
    if (fetch === undefined) throw new Error("fetch_page: no network access was granted to this plugin")
    /** @type {Response} */
    let response
    try {
      response = await fetch(url.href, { signal: context.signal, headers: { accept: "text/html, text/*;q=0.9" } })
    } catch (error) {
      throw new Error(`fetch_page: could not fetch ${url.href}: ${error instanceof Error ? error.message : error}`)
    }
    if (!response.ok) {
      await response.body?.cancel()
      throw new Error(`fetch_page: ${url.href} answered ${response.status} ${response.statusText}`.trim())
    }
    const kind = kindOf(response.headers.get("content-type") ?? "")
    if (kind === null) {
      await response.body?.cancel()
      throw new Error(`fetch_page: ${url.href} is not a text page (${response.headers.get("content-type")})`)
    }
    const raw = await response.text()
    const page = kind === "html" ? htmlToText(raw) : { title: "", text: raw.trim() }
    const truncated = page.text.length > MAX_TEXT
    return {
      url: response.url || url.href,
      status: response.status,
      title: page.title,
      text: truncated ? page.text.slice(0, MAX_TEXT) : page.text,
      truncated,
    }
  },
}

export default [fetchPage]
