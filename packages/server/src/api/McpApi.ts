import { McpRegistry, McpServerInput } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

export const McpServerList = Schema.Struct({ servers: Schema.Array(McpRegistry.McpServerStatus) }).annotations({
  identifier: "McpServerList",
})

/** SPEC "MCP servers": the configured servers and their state (managed through PATCH /api/config). */
export class McpApi extends HttpApiGroup.make("mcp")
  .add(
    HttpApiEndpoint.get("list", "/api/mcp-servers")
      .addSuccess(McpServerList)
      .annotate(OpenApi.Summary, "List MCP servers with their state and tools"),
  )
  .add(
    HttpApiEndpoint.post("create", "/api/mcp-servers")
      .setPayload(McpServerInput.NewMcpServer)
      .addSuccess(McpRegistry.McpServerStatus, { status: 201 })
      .addError(BadRequest.Wire)
      .addError(Conflict.Wire)
      .annotate(OpenApi.Summary, "Add an MCP server (convenience over PATCH /api/config)")
      .annotate(
        OpenApi.Description,
        "Not in SPEC: the same change as PATCH /api/config with { mcpServers: { <id>: config } }, " +
          "refused with 409 when the id exists. Answers the server as GET /api/mcp-servers lists it " +
          "(tools: [] while it connects).",
      ),
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "MCP servers: tools, connection errors and pending OAuth authorization (Bearer token)",
  ) {}
