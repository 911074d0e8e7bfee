import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Duration } from "effect"
import type { McpServerConfig } from "../config/ConfigModel.js"
import type { ClientSdk } from "./ClientSdk.js"

/** How MCP answers and failures are worded for the API and the model: plain text, never a stack. */

export const seconds = (duration: Duration.Duration) => Duration.format(duration)
export const millis = (duration: Duration.Duration) => Math.max(1, Math.round(Duration.toMillis(duration)))

/** The last non-empty line of a child's stderr, to append to "server exited". */
export const lastLine = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .at(-1)

const causeCode = (error: unknown): string | undefined => {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause
  return typeof cause?.code === "string" ? cause.code : undefined
}

/** The text `GET /api/mcp-servers` shows for a failed connection attempt. */
export const describeConnectError = (
  sdk: ClientSdk,
  error: unknown,
  config: McpServerConfig,
  context: { readonly timeout: Duration.Duration; readonly stderr: () => string },
): string => {
  const code = (error as { code?: unknown } | undefined)?.code
  if (config.command !== undefined) {
    if (code === "ENOENT") return `command not found: ${config.command}`
    if (code === "EACCES") return `command not executable: ${config.command}`
  }
  if (error instanceof sdk.McpError) {
    if (error.code === sdk.ErrorCode.RequestTimeout) return `connection timed out after ${seconds(context.timeout)}`
    if (error.code === sdk.ErrorCode.ConnectionClosed) {
      const line = lastLine(context.stderr())
      return line === undefined ? "server closed the connection" : `server closed the connection: ${line}`
    }
    return error.message
  }
  if (error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError) {
    const text = error.message
      .replace(/^(Streamable HTTP|SSE) error: /, "")
      .replace(/^Error POSTing to endpoint: /, "")
      .trim()
      .slice(0, 300)
    if (typeof error.code === "number" && error.code > 0) return `HTTP ${error.code}${text === "" ? "" : `: ${text}`}`
    return text
  }
  const host = config.url === undefined ? "" : new URL(config.url).host
  switch (causeCode(error)) {
    case "ECONNREFUSED":
      return `connection refused: ${host}`
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host not found: ${host}`
    case "ECONNRESET":
      return `connection reset: ${host}`
  }
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message
  }
  return String(error)
}

/** A server too old for streamable HTTP answers the POST with one of these; then SSE is tried. */
export const suggestsLegacySse = (sdk: ClientSdk, error: unknown) =>
  error instanceof sdk.StreamableHTTPError && [400, 404, 405].includes(error.code ?? 0)

/** Text of an MCP result's text parts. */
export const textOf = (result: CallToolResult) =>
  result.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("\n")
    .trim()

/**
 * A tool's output for the model, JSON-serialisable: its structured content when it has some,
 * the text when it is all text, else the content parts as they are (images stay base64).
 */
export const outputOf = (result: CallToolResult): unknown => {
  if (result.structuredContent !== undefined) return result.structuredContent
  if ("toolResult" in result) return (result as unknown as { toolResult: unknown }).toolResult
  if (result.content.every((part) => part.type === "text")) return textOf(result)
  return result.content
}

export const describeCallError = (sdk: ClientSdk, error: unknown, name: string, timeout: Duration.Duration) => {
  if (error instanceof sdk.McpError) {
    if (error.code === sdk.ErrorCode.RequestTimeout) return `tool ${name} timed out after ${seconds(timeout)}`
    if (error.code === sdk.ErrorCode.ConnectionClosed) return `the MCP server closed the connection during ${name}`
    return error.message
  }
  return error instanceof Error ? error.message : String(error)
}
