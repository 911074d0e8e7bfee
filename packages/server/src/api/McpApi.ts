import { ConfigModel, McpRegistry } from "@aide/kernel"
import { McpServerInput } from "@aide/kernel/internal"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

export const McpServerList = Schema.Struct({ servers: Schema.Array(McpRegistry.McpServerStatus) }).annotations({
  identifier: "McpServerList",
})

const {
  name: _name,
  enabled: _enabled,
  requireApproval: _requireApproval,
  ...configOnly
} = ConfigModel.McpServerConfigFields

/**
 * `201` of `POST /api/mcp-servers`: `{ id, ...config }` as the reference answers (its client reads
 * the id it did not send), plus the state `GET /api/mcp-servers` shows. Header values redacted.
 */
export const McpServerCreated = Schema.Struct({ ...McpRegistry.McpServerStatus.fields, ...configOnly }).annotations({
  identifier: "McpServerCreated",
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
      .addSuccess(McpServerCreated, { status: 201 })
      .addError(BadRequest.Wire)
      .addError(Conflict.Wire)
      .annotate(OpenApi.Summary, "Add an MCP server (convenience over PATCH /api/config)")
      .annotate(
        OpenApi.Description,
        "Not in SPEC: the same change as PATCH /api/config with { mcpServers: { <id>: config } }, " +
          "refused with 409 when the id exists; without an id the server makes one (a UUID). Answers " +
          "{ id, ...config } (header values redacted) with the state GET /api/mcp-servers lists " +
          "(tools: [] while it connects).",
      ),
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "MCP servers: tools, connection errors and pending OAuth authorization (Bearer token)",
  ) {}
