import { Schema } from "effect"
import { field, section } from "./SchemaFields.js"

/**
 * The `mcpServer` section (docs/mcp-server.md): Aide's own MCP endpoint `/mcp`, off by default,
 * and the tools it exposes. Not `mcpServers`: those are the servers Aide connects to.
 */

/** Every tool `/mcp` can expose, each with whether it only reads (the default choice exposes those). */
export const mcpToolKinds = {
  ask: "writes",
  approve: "writes",
  threads_search: "reads",
  memory_read: "reads",
  memory_update: "writes",
  inbox_list: "reads",
  inbox_mark_read: "writes",
  schedule_create: "writes",
  schedule_list: "reads",
  schedule_delete: "writes",
  notify: "writes",
} as const satisfies Record<string, "reads" | "writes">

export type McpToolName = keyof typeof mcpToolKinds
export const mcpToolNames = Object.keys(mcpToolKinds) as ReadonlyArray<McpToolName>

/** The read-only tools: what a fresh install exposes once the endpoint is on. */
export const readOnlyMcpTools = mcpToolNames.filter((name) => mcpToolKinds[name] === "reads")

const McpToolName = Schema.Literal(...mcpToolNames).annotations({
  message: (issue) => `${JSON.stringify(issue.actual)} is not a tool of /mcp (known: ${mcpToolNames.join(", ")})`,
})

export const McpEndpointConfig = section({
  enabled: field(Schema.Boolean, "Whether /mcp answers (otherwise 404); default false"),
  tools: field(
    Schema.Array(McpToolName).pipe(Schema.maxItems(mcpToolNames.length)),
    "The tools MCP clients may see and call; default the read-only ones",
  ),
})
export type McpEndpointConfig = typeof McpEndpointConfig.Type

export const mcpEndpointDefaults: typeof McpEndpointConfig.Encoded = { enabled: false, tools: readOnlyMcpTools }
