import { Context, Duration, Effect, Fiber, FiberMap, Layer, Schema, Stream } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import type { McpServerConfig } from "../config/ConfigModel.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import { type ConnectOptions, connect, type McpConnection } from "./McpConnection.js"
import { McpOAuth } from "./McpOAuth.js"
import { defaultWorkingDirectory } from "./WorkingDirectory.js"

/** A tool of an MCP server as `GET /api/mcp-servers` lists it; `id` is what the model sees. */
export const McpServerTool = Schema.Struct({ id: Schema.String, name: Schema.String, description: Schema.String })

/** SPEC "MCP server": a configured server and its runtime state. */
export const McpServerStatus = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Schema.Literal("stdio", "http"),
  enabled: Schema.Boolean,
  requireApproval: Schema.Boolean,
  tools: Schema.Array(McpServerTool),
  error: Schema.NullOr(Schema.String),
  authUrl: Schema.optional(Schema.String),
}).annotations({ identifier: "McpServer" })
export type McpServerStatus = typeof McpServerStatus.Type

/**
 * The MCP servers of `config.mcpServers`, connected in the background and reconciled live on
 * every config change. Each connected server is a `ToolSource` (`kind: "mcp"`, id = server id)
 * in the `ToolRegistry` for as long as its connection lives.
 *
 * Contract for an implementation (`Kernel.layer({ mcpRegistry })`): the tools it offers chat are
 * the `ToolSource`s it registers in `ToolRegistry` (kind `mcp`), removed when they go away; its
 * Layer must build without waiting on any server (connect in the background); `list` answers
 * `GET /api/mcp/servers` and never fails; `reconnect` of an unknown id does nothing.
 */
export class McpRegistry extends Context.Tag("@aide/kernel/McpRegistry")<
  McpRegistry,
  {
    /** Every configured server, in config order, with its tools or its error. */
    readonly list: Effect.Effect<ReadonlyArray<McpServerStatus>>
    /** Connects `serverId` again (after OAuth completes); no-op for an unknown or disabled server. */
    readonly reconnect: (serverId: string) => Effect.Effect<void>
  }
>() {}

export interface McpRegistryOptions {
  /** The host environment; a server's process gets only the variables its `env` names. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Working directory of stdio servers without a `cwd`; default the user's home directory. */
  readonly cwd?: string
  /**
   * Initialize plus `tools/list` must finish within this; default 30 s (a first `npx -y`
   * downloads the package before the server speaks: ~13 s measured for server-everything).
   */
  readonly connectTimeout?: Duration.DurationInput
  /** Each tool call; cancelled on expiry; default 60 s. */
  readonly requestTimeout?: Duration.DurationInput
}

/** What is known about one server besides its config. */
interface ServerState {
  /** Bumped at each (re)start, so a replaced attempt cannot overwrite its successor's state. */
  readonly generation: number
  readonly connection: McpConnection | undefined
  readonly error: string | null
  readonly authUrl: string | undefined
}

/** A stable text of a config, insensitive to key order, to tell a change from a re-publish. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  )

const isEnabled = (config: McpServerConfig) => config.enabled !== false

export const make = (options: McpRegistryOptions = {}) =>
  Effect.gen(function* () {
    const appConfig = yield* AppConfig
    const tools = yield* ToolRegistry.ToolRegistry
    const oauth = yield* McpOAuth
    const connectOptions: ConnectOptions = {
      env: options.env ?? {},
      cwd: options.cwd ?? defaultWorkingDirectory(),
      connectTimeout: Duration.decode(options.connectTimeout ?? Duration.seconds(30)),
      requestTimeout: Duration.decode(options.requestTimeout ?? Duration.seconds(60)),
      oauth,
    }

    let configs: Readonly<Record<string, McpServerConfig>> = {}
    const states = new Map<string, ServerState>()
    /** The last fiber of each server, finished or not: a restart waits for its predecessor's cleanup. */
    const lastFibers = new Map<string, Fiber.RuntimeFiber<void>>()
    const fibers = yield* FiberMap.make<string, void>()
    // Stopped connections close in the background, outside the FiberMap: shutdown waits for them
    // too, so no child process outlives the registry.
    yield* Effect.addFinalizer(() => Fiber.interruptAll(lastFibers.values()))
    let generations = 0

    const update = (id: string, generation: number, patch: Partial<Omit<ServerState, "generation">>) =>
      Effect.sync(() => {
        const state = states.get(id)
        if (state?.generation === generation) states.set(id, { ...state, ...patch })
      })

    /** One connection's life: connect, register its tools, hold them until it drops or is replaced. */
    const serve = (id: string, config: McpServerConfig, generation: number) =>
      Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* connect(id, config, connectOptions)
          const requireApproval = config.requireApproval ?? true
          const source: ToolRegistry.ToolSource = {
            id,
            kind: "mcp",
            tools: Effect.sync(() =>
              connection.tools().map(
                (tool): ToolRegistry.ToolDefinition => ({
                  name: tool.name,
                  description: tool.description ?? "",
                  inputSchema: tool.inputSchema,
                  requireApproval,
                  execute: (input) => connection.callTool(tool.name, input),
                }),
              ),
            ),
          }
          yield* tools.register(source)
          yield* update(id, generation, { connection, error: null, authUrl: undefined })
          yield* Effect.logInfo(`MCP server connected with ${connection.tools().length} tools`)
          const reason = yield* connection.closed
          yield* Effect.logWarning(`MCP server disconnected: ${reason}`)
          yield* update(id, generation, { connection: undefined, error: reason })
        }),
      ).pipe(
        Effect.catchTags({
          McpConnectError: (error) =>
            Effect.zipRight(
              Effect.logWarning(`MCP server failed to connect: ${error.message}`),
              update(id, generation, { connection: undefined, error: error.message }),
            ),
          McpAuthorizationPending: (pending) =>
            Effect.zipRight(
              Effect.logInfo("MCP server awaits OAuth authorization"),
              update(id, generation, { connection: undefined, error: null, authUrl: pending.authUrl }),
            ),
        }),
        // Replaced or stopped: the state belongs to whoever replaced it.
        Effect.onInterrupt(() => update(id, generation, { connection: undefined })),
        Effect.annotateLogs({ mcp: id }),
      )

    const start = (id: string, config: McpServerConfig) =>
      Effect.gen(function* () {
        const generation = ++generations
        states.set(id, { generation, connection: undefined, error: null, authUrl: undefined })
        const previous = lastFibers.get(id)
        const fiber = yield* FiberMap.run(
          fibers,
          id,
          Effect.zipRight(previous === undefined ? Effect.void : Fiber.await(previous), serve(id, config, generation)),
        )
        lastFibers.set(id, fiber)
      })

    /**
     * Closes the connection in the background; the next `start` of `id` waits for it. Not
     * waited for here: closing a stdio child can take seconds (stdin, SIGTERM after 2 s…), and
     * the config changes queued behind this one must not wait for it.
     */
    const stop = (id: string) =>
      Effect.zipRight(
        Effect.flatMap(FiberMap.get(fibers, id), Fiber.interruptFork).pipe(Effect.ignore),
        Effect.sync(() => {
          const state = states.get(id)
          if (state !== undefined) {
            states.set(id, { generation: ++generations, connection: undefined, error: null, authUrl: undefined })
          }
        }),
      )

    const reconcile = Effect.fn("McpRegistry.reconcile")(function* (next: Readonly<Record<string, McpServerConfig>>) {
      const previous = configs
      configs = next
      for (const id of Object.keys(previous)) {
        if (Object.hasOwn(next, id)) continue
        yield* stop(id)
        states.delete(id)
        yield* oauth.forget(id)
      }
      for (const [id, config] of Object.entries(next)) {
        const before = Object.hasOwn(previous, id) ? previous[id] : undefined
        if (before !== undefined && canonical(before) === canonical(config) && states.has(id)) continue
        if (!isEnabled(config)) {
          yield* stop(id)
          if (!states.has(id)) {
            states.set(id, { generation: ++generations, connection: undefined, error: null, authUrl: undefined })
          }
        } else {
          yield* start(id, config)
        }
      }
    })

    const toolsOf = (id: string, connection: McpConnection | undefined) =>
      (connection?.tools() ?? []).map((tool) => ({
        id: ToolRegistry.toolId({ id, kind: "mcp" }, tool.name),
        name: tool.name,
        description: tool.description ?? "",
      }))

    // Membership follows the config document itself, not the last reconciled one: a server
    // removed or added by a PATCH is (un)listed at once, while its connection state may lag.
    const list = Effect.map(appConfig.get, (document) =>
      Object.entries(document.mcpServers).map(([id, config]): McpServerStatus => {
        const state = states.get(id)
        const enabled = isEnabled(config)
        return {
          id,
          name: config.name ?? id,
          type: config.command === undefined ? "http" : "stdio",
          enabled,
          requireApproval: config.requireApproval ?? true,
          tools: enabled ? toolsOf(id, state?.connection) : [],
          error: enabled ? (state?.error ?? null) : null,
          ...(enabled && state?.authUrl !== undefined ? { authUrl: state.authUrl } : {}),
        }
      }),
    )

    const reconnect = (serverId: string) =>
      Effect.suspend(() => {
        const config = Object.hasOwn(configs, serverId) ? configs[serverId] : undefined
        return config === undefined || !isEnabled(config) ? Effect.void : start(serverId, config)
      })

    // The first reconcile only forks connections: startup never waits for a server.
    yield* reconcile((yield* appConfig.get).mcpServers)
    yield* appConfig.changes.pipe(
      Stream.runForEach((document) => reconcile(document.mcpServers)),
      Effect.forkScoped,
    )

    return McpRegistry.of({ list, reconnect })
  })

/** The registry following `AppConfig`; closing it closes every connection and stops every child. */
export const layer = (
  options: McpRegistryOptions = {},
): Layer.Layer<McpRegistry, never, AppConfig | ToolRegistry.ToolRegistry | McpOAuth> =>
  Layer.scoped(McpRegistry, make(options))
