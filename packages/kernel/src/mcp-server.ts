/**
 * @aide/kernel/mcp-server — Aide as an MCP server: who may call it (McpAuthorizer).
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as McpAuthorizer from "./mcpserver/McpAuthorizer.js"
export * as McpEndpoint from "./mcpserver/McpEndpoint.js"
export * as McpGrantStore from "./mcpserver/McpGrantStore.js"
export * as McpGrants from "./mcpserver/McpGrants.js"
export * as McpOAuthRequests from "./mcpserver/McpOAuthRequests.js"
export * as McpSessionStore from "./mcpserver/McpSessionStore.js"
export * as SqlMcpSessionStore from "./mcpserver/SqlMcpSessionStore.js"
