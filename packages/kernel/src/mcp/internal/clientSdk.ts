// The parts of the MCP SDK's client Aide uses, in one module so that they load together, by
// `import()` (ClientSdk.ts), on the first connection or OAuth step.
export { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
export { Client } from "@modelcontextprotocol/sdk/client/index.js"
export { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js"
export { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
export { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
