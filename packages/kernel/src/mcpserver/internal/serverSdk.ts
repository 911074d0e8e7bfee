import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { make } from "../McpSessionServer.js"

/**
 * What serving an MCP session takes (the MCP SDK's server, zod's schemas of every MCP message,
 * the session server over them), loaded together by `import()` on the first MCP request.
 */
export const serverSdk = { WebStandardStreamableHTTPServerTransport, isInitializeRequest, makeSessionServer: make }
