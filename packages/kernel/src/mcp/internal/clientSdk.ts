import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"

/** The parts of the MCP SDK's client Aide uses, loaded together by `import()` (ClientSdk.ts). */
export const clientSdk = {
  auth,
  Client,
  ErrorCode,
  McpError,
  SSEClientTransport,
  SseError,
  StdioClientTransport,
  StreamableHTTPClientTransport,
  StreamableHTTPError,
  UnauthorizedError,
}
