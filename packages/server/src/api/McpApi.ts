import { McpRegistry } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Security.js"

export const McpServerList = Schema.Struct({ servers: Schema.Array(McpRegistry.McpServerStatus) }).annotations({
  identifier: "McpServerList",
})

/** SPEC "MCP servers": the configured servers and their state (managed through PATCH /api/config). */
export class McpApi extends HttpApiGroup.make("mcp")
  .add(HttpApiEndpoint.get("list", "/api/mcp-servers").addSuccess(McpServerList))
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "MCP servers: tools, connection errors and pending OAuth authorization (Bearer token)",
  ) {}
