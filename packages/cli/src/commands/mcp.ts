import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import { connectLoggedIn } from "../Session.js"

/** A line on standard error: standard output carries MCP messages only. */
const log = (message: string) => process.stderr.write(`aide mcp: ${message}\n`)

const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number; method: string } =>
  "method" in message && "id" in message

export const mcp: Command = {
  name: "mcp",
  summary: "bridge an MCP client on stdio to the server's /mcp (for desktop apps)",
  usage: `aide mcp [--url <url>]

Speaks MCP on standard input and output and forwards every message to the logged-in server's
Streamable HTTP endpoint /mcp, with the credentials of \`aide login\` (refreshed as needed).
Desktop apps that only start local processes (Claude Desktop, VS Code, Cursor) run it as their
MCP server: docs/mcp-server.md has their config snippets. The server must have /mcp on
(aide config set mcpServer.enabled true). Logs go to standard error.`,
  run: async (argv) => {
    const { values } = parse(argv, {})
    const { url, client } = connectLoggedIn(values.url)
    // The Bearer of the stored session on every request; a refused one is refreshed once
    // (the refresh token rotates in the credentials file, shared with the other commands).
    const authorizedFetch = async (input: string | URL, init?: RequestInit) => {
      const attempt = async () => {
        const tokens = await client.auth.tokens()
        const headers = new Headers(init?.headers)
        if (tokens !== null) headers.set("authorization", `Bearer ${tokens.token}`)
        return fetch(input, { ...init, headers })
      }
      const response = await attempt()
      if (response.status !== 401) return response
      try {
        await client.auth.refresh()
      } catch {
        log("the session ended: run aide login")
        return response
      }
      return attempt()
    }
    // Loaded here, not at the top: every other command (`aide start` holds the server in this
    // process) would otherwise carry the MCP SDK and zod in memory (~9 MiB) without using them.
    const [{ StreamableHTTPClientTransport }, { StdioServerTransport }] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
    ])
    const remote = new StreamableHTTPClientTransport(new URL("/mcp", `${url}/`), { fetch: authorizedFetch })
    const local = new StdioServerTransport()
    const done = new Promise<number>((resolve) => {
      local.onclose = () => {
        // The app closed our stdin: its session ends with us.
        remote
          .terminateSession()
          .catch(() => undefined)
          .then(() => remote.close())
          .finally(() => resolve(0))
      }
    })
    local.onmessage = (message) => {
      remote.send(message).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error)
        log(reason)
        // The app waits for an answer to each request: it gets the failure as one.
        if (isRequest(message)) {
          local
            .send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: `aide mcp: ${reason}` } })
            .catch(() => undefined)
        }
      })
    }
    // The SDK's clients handle a response at once but a notification a tick later: a request's
    // last progress notifications read in one chunk with its response would find its progress
    // handler gone. A response therefore goes out in a write of its own, after what preceded it.
    let written = Promise.resolve()
    remote.onmessage = (message) => {
      const isResponse = "id" in message && !("method" in message)
      written = written
        .then(() => (isResponse ? new Promise<void>((resolve) => setTimeout(resolve, 5)) : undefined))
        .then(() => local.send(message))
        .catch((error: unknown) => {
          log(String(error))
        })
    }
    remote.onerror = (error) => log(error.message)
    local.onerror = (error) => log(error.message)
    await remote.start()
    await local.start()
    // The SDK's stdio transport does not watch for the end of its input: the app closing it is our end.
    process.stdin.once("end", () => {
      local.close().catch(() => undefined)
    })
    return done
  },
}
