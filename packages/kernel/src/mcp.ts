/**
 * @aide/kernel/mcp — MCP servers as tool sources: McpRegistry, MCP OAuth and its store (loads the MCP SDK).
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as McpErrors from "./mcp/McpErrors.js"
export * as McpOAuth from "./mcp/McpOAuth.js"
export * as McpOAuthStore from "./mcp/McpOAuthStore.js"
export * as McpRegistry from "./mcp/McpRegistry.js"
export * as MemoryMcpOAuthStore from "./mcp/MemoryMcpOAuthStore.js"
export * as SqlMcpOAuthStore from "./mcp/SqlMcpOAuthStore.js"
