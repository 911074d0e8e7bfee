// What serving an MCP session takes (the MCP SDK's server, zod's schemas of every MCP message,
// the session server over them), in one module loaded by `import()` on the first MCP request.
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
export { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
export { make as makeSessionServer } from "../McpSessionServer.js"
