import { randomUUID } from "node:crypto"
import { AppConfig, ConfigModel, McpRegistry } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Schema } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, Conflict } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

/** `POST /api/mcp-servers` with an id already under `mcpServers`. */
class ServerExists extends Schema.TaggedError<ServerExists>()("ServerExists", { id: Schema.String }) {}

export const layer = HttpApiBuilder.group(AideApi, "mcp", (handlers) =>
  Effect.gen(function* () {
    const registry = yield* McpRegistry.McpRegistry
    const config = yield* AppConfig.AppConfig
    return handlers
      .handle("list", () => Effect.map(registry.list, (servers) => ({ servers })))
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const { id: given, ...server } = payload
          // The reference's client sends no id: the server makes one, as the reference does.
          const id = given ?? randomUUID()
          // Inside the config's write lock: two concurrent POSTs of one id cannot both succeed.
          const stored = yield* config.modify((current) =>
            Object.hasOwn(current.mcpServers, id)
              ? Effect.fail(new ServerExists({ id }))
              : Effect.succeed({ mcpServers: { [id]: server } }),
          )
          const servers = yield* registry.list
          const created = servers.find((listed) => listed.id === id)
          // The list follows the config document, so the server is there.
          if (created === undefined) return yield* Effect.dieMessage(`MCP server ${id} missing after creation`)
          const saved = ConfigModel.redactSecrets(stored).mcpServers[id]
          return { ...saved, ...created }
        }).pipe(
          Effect.catchTags({
            ServerExists: (error) => new Conflict({ error: `MCP server ${JSON.stringify(error.id)} already exists` }),
            ConfigValidationError: (error) => new BadRequest({ error: error.problems.join("; ") }),
          }),
          dieOnStorageError,
        ),
      )
  }),
)
