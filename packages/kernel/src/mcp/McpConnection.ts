import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Duration, Effect, Runtime, type Scope } from "effect"
import type { McpServerConfig } from "../config/ConfigModel.js"
import { redactText } from "../net/UrlRedaction.js"
import { ToolExecutionError } from "../tools/ToolRegistry.js"
import * as ClientSdk from "./ClientSdk.js"
import { McpAuthorizationPending, McpConnectError } from "./McpErrors.js"
import {
  describeCallError,
  describeConnectError,
  lastLine,
  millis,
  outputOf,
  seconds,
  suggestsLegacySse,
  textOf,
} from "./McpMessages.js"
import type { McpOAuth } from "./McpOAuth.js"
import { ensureExited } from "./ProcessExit.js"
import { httpTarget } from "./StaticHeaders.js"
import { guardedFetch } from "./UrlGuard.js"
import { isDirectory, workingDirectory } from "./WorkingDirectory.js"

/** How one connection is made and bounded. */
export interface ConnectOptions {
  /** The host environment; only the variables named in a server's `env` reach its process. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Working directory of stdio servers without a `cwd` of their own. */
  readonly cwd: string
  readonly connectTimeout: Duration.Duration
  readonly requestTimeout: Duration.Duration
  readonly oauth: McpOAuth["Type"]
}

/** A live MCP client; closed with the scope it was opened in. */
export interface McpConnection {
  /** The server's tools now (refreshed on `notifications/tools/list_changed`). */
  readonly tools: () => ReadonlyArray<Tool>
  /** Calls tool `name`; failures and `isError` results are `ToolExecutionError`s. */
  readonly callTool: (name: string, input: unknown) => Effect.Effect<unknown, ToolExecutionError>
  /** Completes with a reason when the connection drops (the child exited, the stream closed). */
  readonly closed: Effect.Effect<string>
  /** The child process of a stdio server. */
  readonly pid: number | undefined
}

const clientInfo = { name: "aide", version: "0.1.0" }
/** Enough of a child's stderr to explain why it died. */
const stderrTailBytes = 2048

/**
 * Opens a connection to `config` (stdio or HTTP), initializes it and lists its tools, all
 * within `connectTimeout`. Closing the scope closes the client; a stdio child is then stopped
 * (stdin closed, SIGTERM, SIGKILL) and waited for, so no process outlives its server.
 */
export const connect = Effect.fn("McpConnection.connect")(function* (
  id: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Effect.fn.Return<McpConnection, McpConnectError | McpAuthorizationPending, Scope.Scope> {
  const sdk = yield* ClientSdk.load
  const runtime = yield* Effect.runtime<never>()
  const closed = yield* Deferred.make<string>()
  let tools: ReadonlyArray<Tool> = []
  let stderr = ""
  let authUrl: string | undefined
  let connected: Client | undefined
  const closedClients = new WeakSet<Client>()

  const newClient = () => {
    const client = new sdk.Client(clientInfo, {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (error, next) => {
            if (error === null && next !== null) tools = next
          },
        },
      },
    })
    // Only the client that connected ends the connection: a failed streamable HTTP attempt
    // closes its own client before SSE is tried.
    client.onclose = () => {
      closedClients.add(client)
      if (client === connected) Deferred.unsafeDone(closed, Effect.succeed("connection closed"))
    }
    client.onerror = (error) =>
      Runtime.runFork(runtime)(
        Effect.logDebug(`MCP transport error: ${redactText(String(error), config.url)}`).pipe(
          Effect.annotateLogs({ mcp: id }),
        ),
      )
    return client
  }

  const failWith = (error: unknown) => {
    if (error instanceof McpConnectError) return error
    if (error instanceof sdk.UnauthorizedError && authUrl !== undefined) return new McpAuthorizationPending({ authUrl })
    const message = describeConnectError(sdk, error, config, { timeout: options.connectTimeout, stderr: () => stderr })
    // SDK and fetch errors may quote the URL (`…includes credentials: https://u:p@…`).
    return new McpConnectError({ message: redactText(message, config.url) })
  }

  /** Connects `client` over `transport`; the scope closes both, whatever happens. */
  const open = (client: Client, transport: Transport, pid: () => number | null) =>
    Effect.gen(function* () {
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          const child = pid()
          await client.close().catch(() => undefined)
          if (child !== null) await ensureExited(child)
        }),
      )
      yield* Effect.tryPromise({
        try: (signal) => client.connect(transport, { signal, timeout: millis(options.connectTimeout) }),
        catch: (error) => error,
      })
    })

  let client: Client
  let pid: number | undefined
  const connecting = Effect.gen(function* () {
    if (config.command !== undefined) {
      const forwarded: Record<string, string> = {}
      for (const name of config.env ?? []) {
        const value = options.env[name]
        if (value !== undefined) forwarded[name] = value
      }
      const cwd = workingDirectory(config.cwd, options.cwd)
      if (!isDirectory(cwd)) return yield* new McpConnectError({ message: `working directory not found: ${cwd}` })
      const transport = new sdk.StdioClientTransport({
        command: config.command,
        args: [...(config.args ?? [])],
        env: forwarded,
        // Never Aide's own working directory: `npx` there would resolve packages against Aide's
        // node_modules (under `pnpm start`: "mcp-server-everything: not found").
        cwd,
        // Piped, not inherited: a chatty server must not write into our stdout/stderr.
        stderr: "pipe",
      })
      transport.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8")
        stderr = (stderr + text).slice(-stderrTailBytes)
        Runtime.runFork(runtime)(
          Effect.logDebug(text.trimEnd()).pipe(Effect.annotateLogs({ mcp: id, stream: "stderr" })),
        )
      })
      client = newClient()
      yield* open(client, transport, () => transport.pid)
      pid = transport.pid ?? undefined
    } else {
      const target = httpTarget(config.url!, config.headers)
      const url = target.url
      // Static headers through `fetch`, not `requestInit`: the SDK also merges `requestInit` into
      // its OAuth requests, which go to another origin (StaticHeaders.ts).
      let auth: {
        authProvider?: ReturnType<McpOAuth["Type"]["provider"]>
        fetch: typeof fetch
      } = {
        // Guarded like plugins' fetch: the server's own kind of address only (a local server
        // stays reachable, a public one cannot lead to the private network), each address
        // checked and pinned (no DNS rebinding), redirects re-checked; headers for its origin only.
        fetch: guardedFetch(url.href, { headers: target.headers }),
      }
      if (config.oauth === true) {
        auth = yield* Effect.try({
          try: () => ({
            authProvider: options.oauth.provider({ id, url: url.href }, (next) => {
              authUrl = next.href
            }),
            fetch: options.oauth.fetchFor(url.href, target.headers),
          }),
          catch: (error) => error,
        })
      }
      client = newClient()
      const first = yield* Effect.either(open(client, new sdk.StreamableHTTPClientTransport(url, auth), () => null))
      if (first._tag === "Left") {
        if (!suggestsLegacySse(sdk, first.left)) return yield* Effect.fail(first.left)
        yield* Effect.logDebug("streamable HTTP refused, trying SSE").pipe(Effect.annotateLogs({ mcp: id }))
        client = newClient()
        // When SSE fails as well, the streamable HTTP answer is the more telling one.
        yield* open(client, new sdk.SSEClientTransport(url, auth), () => null).pipe(Effect.mapError(() => first.left))
      }
    }
    tools = yield* listAllTools(client, options.connectTimeout)
    connected = client
    if (closedClients.has(client)) Deferred.unsafeDone(closed, Effect.succeed("connection closed"))
  })

  yield* connecting.pipe(
    Effect.mapError(failWith),
    Effect.timeoutFail({
      duration: options.connectTimeout,
      onTimeout: () =>
        new McpConnectError({ message: `connection timed out after ${seconds(options.connectTimeout)}` }),
    }),
  )

  const callTool = (name: string, input: unknown) =>
    Effect.tryPromise({
      try: (signal) =>
        client.callTool(
          { name, arguments: typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {} },
          undefined,
          { signal, timeout: millis(options.requestTimeout) },
        ) as Promise<CallToolResult>,
      catch: (error) =>
        new ToolExecutionError({
          message: redactText(describeCallError(sdk, error, name, options.requestTimeout), config.url),
        }),
    }).pipe(
      Effect.flatMap((result) =>
        result.isError === true
          ? Effect.fail(new ToolExecutionError({ message: textOf(result) || `tool ${name} failed` }))
          : Effect.succeed(outputOf(result)),
      ),
      Effect.withSpan("McpConnection.callTool", { attributes: { server: id, tool: name } }),
    )

  const exitReason = Effect.map(Deferred.await(closed), (reason) => {
    const line = lastLine(stderr)
    return config.command === undefined ? reason : redactText(`server exited${line === undefined ? "" : `: ${line}`}`)
  })

  return { tools: () => tools, callTool, closed: exitReason, pid }
})

/** Every page of `tools/list`. */
const listAllTools = (client: Client, timeout: Duration.Duration) =>
  Effect.tryPromise({
    try: async (signal) => {
      const all: Array<Tool> = []
      let cursor: string | undefined
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          signal,
          timeout: millis(timeout),
        })
        all.push(...page.tools)
        cursor = page.nextCursor
      } while (cursor !== undefined)
      return all
    },
    catch: (error) => error,
  })
