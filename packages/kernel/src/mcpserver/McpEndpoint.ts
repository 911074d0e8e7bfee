import { randomUUID } from "node:crypto"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Context, Duration, Effect, Exit, Layer, Option, Runtime, Schedule } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { bearerToken, McpAuthorizer, type McpPrincipal } from "./McpAuthorizer.js"
import * as McpResources from "./McpResources.js"
import type * as McpSessionServer from "./McpSessionServer.js"
import { McpSessionStore } from "./McpSessionStore.js"
import type { ToolServices } from "./McpToolSpec.js"

export interface McpEndpointOptions {
  /** Largest request body in bytes (413 past it); default 4 MiB. */
  readonly maxBodyBytes?: number
  /**
   * Sessions this process keeps open; past it, the least recently used is closed here (its
   * record stays: its next request restores it). Default 1,000.
   */
  readonly maxLiveSessions?: number
  /** How often subscribed resources are checked for changes; default 2 s. */
  readonly watchInterval?: Duration.DurationInput
  /** Sessions older than this are forgotten (404: the client starts a new one); default 30 days. */
  readonly sessionTtl?: Duration.DurationInput
  /** Browser origins allowed besides the endpoint's own (any other `Origin` gets 403). */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** The version `initialize` reports. */
  readonly version?: string
}

export interface HandleOptions {
  /** The `WWW-Authenticate` of a 401: where an MCP client finds how to authorize (RFC 9728). */
  readonly challenge: string
}

/**
 * Aide as an MCP server over Streamable HTTP: `handle` serves one request of the `/mcp`
 * endpoint as a web `Request` → `Response` (mount it in any HTTP app). Off (404) while the
 * config's `mcpServer.enabled` is; every request is authorized by `McpAuthorizer` (401 with
 * `challenge`). Sessions are kept in `McpSessionStore`: a request for a session this process
 * does not hold (another replica's, or one from before a restart) restores it from its record.
 */
export class McpEndpoint extends Context.Tag("@aide/kernel/McpEndpoint")<
  McpEndpoint,
  { readonly handle: (request: Request, options: HandleOptions) => Promise<Response> }
>() {}

type Services = ToolServices | AppConfig | McpSessionStore | McpAuthorizer

interface Live {
  readonly state: McpSessionServer.SessionState
  readonly key: string
  readonly server: McpServer
  readonly transport: WebStandardStreamableHTTPServerTransport
}

const principalKey = (principal: McpPrincipal) =>
  principal.kind === "owner" ? `owner:${principal.sessionId}` : `client:${principal.grantId}`

const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } })
const rpcError = (status: number, code: number, message: string) =>
  jsonResponse(status, { jsonrpc: "2.0", error: { code, message }, id: null })

class TooLarge extends Error {}

/** The body as text, refused past `limit` bytes without reading the rest. */
const readBounded = async (request: Request, limit: number) => {
  if (Number(request.headers.get("content-length") ?? 0) > limit) throw new TooLarge()
  if (request.body === null) return ""
  const reader = request.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw new TooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

/** A request of this process, replaying what a client sent once (to restore a session elsewhere). */
const internalRequest = (url: string, body: unknown, sessionId?: string) =>
  new Request(url, {
    method: "POST",
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
    },
    body: JSON.stringify(body),
  })

/**
 * The MCP SDK's server and the session server, evaluated on the first MCP request rather than at
 * start: with zod's schemas of every MCP message they hold ~9 MiB of heap (issue 38). Node caches
 * the module: later calls cost a resolved promise.
 */
const serverSdk = () => import("./internal/serverSdk.js").then((module) => module.serverSdk)

export const make = (options: McpEndpointOptions = {}) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<Services>()
    const run: McpSessionServer.Runner = (effect, signal) =>
      Runtime.runPromiseExit(runtime)(effect, signal === undefined ? {} : { signal })
    const config = yield* AppConfig
    const store = yield* McpSessionStore
    const authorizer = yield* McpAuthorizer
    const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024
    const maxLive = Math.max(1, options.maxLiveSessions ?? 1_000)
    const ttl = Duration.decode(options.sessionTtl ?? Duration.days(30))
    const version = options.version ?? "0.0.0"
    const allowedOrigins = new Set(options.allowedOrigins ?? [])
    // Insertion order is recency: a used session is moved to the end.
    const lives = new Map<string, Live>()
    const restoring = new Map<string, Promise<Live | undefined>>()
    let created = 0

    const open = async (
      id: string,
      principal: McpPrincipal,
      subscriptions: ReadonlyArray<string>,
      initialize?: unknown,
    ) => {
      const state: McpSessionServer.SessionState = {
        id,
        principal,
        subscriptions: new Set(subscriptions),
        fingerprints: new Map(),
      }
      const sdk = await serverSdk()
      const transport = new sdk.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        ...(initialize === undefined
          ? {}
          : {
              // Stored before the client learns the id, so any replica can serve its next request.
              onsessioninitialized: async () => {
                const now = new Date()
                const stored = await run(
                  Effect.zipRight(
                    created++ % 100 === 0
                      ? store.deleteBefore(new Date(now.getTime() - Duration.toMillis(ttl)))
                      : Effect.void,
                    store.create({
                      id,
                      principal: principalKey(principal),
                      initialize: JSON.stringify(initialize),
                      subscriptions: [],
                      createdAt: now,
                    }),
                  ),
                )
                if (Exit.isFailure(stored)) throw new Error("the session could not be stored")
              },
            }),
        onsessionclosed: async () => {
          await run(store.delete(id))
        },
      })
      transport.onclose = () => {
        if (lives.get(id)?.transport === transport) lives.delete(id)
      }
      const server = sdk.makeSessionServer(state, run, version)
      await server.connect(transport)
      const live: Live = { state, key: principalKey(principal), server, transport }
      lives.set(id, live)
      while (lives.size > maxLive) {
        const [oldest] = lives.values()
        if (oldest === undefined) break
        lives.delete(oldest.state.id)
        await oldest.server.close().catch(() => undefined)
      }
      return live
    }

    /** The session's server here, restored from its record when this process does not hold it. */
    const find = async (id: string, principal: McpPrincipal, url: string): Promise<Live | undefined> => {
      const live = lives.get(id)
      if (live !== undefined) {
        lives.delete(id)
        lives.set(id, live)
        return live.key === principalKey(principal) ? live : undefined
      }
      const pending = restoring.get(id)
      if (pending !== undefined) {
        const restored = await pending
        return restored?.key === principalKey(principal) ? restored : undefined
      }
      const restore = (async () => {
        const record = await run(store.get(id))
        if (Exit.isFailure(record) || Option.isNone(record.value)) return undefined
        const { value } = record.value
        if (value.principal !== principalKey(principal)) return undefined
        const restored = await open(id, principal, value.subscriptions)
        // The client's own `initialize` and `initialized`, replayed: the server knows its
        // capabilities (elicitation) and protocol version again, without a new handshake.
        const params: unknown = JSON.parse(value.initialize)
        const answer = await restored.transport.handleRequest(
          internalRequest(url, { jsonrpc: "2.0", id: 0, method: "initialize", params }),
        )
        await answer.text()
        await restored.transport.handleRequest(
          internalRequest(url, { jsonrpc: "2.0", method: "notifications/initialized" }, id),
        )
        for (const uri of value.subscriptions) {
          const digest = await run(McpResources.fingerprint(uri))
          if (Exit.isSuccess(digest)) restored.state.fingerprints.set(uri, digest.value)
        }
        return restored
      })().finally(() => restoring.delete(id))
      restoring.set(id, restore)
      return restore
    }

    const handle = async (request: Request, handleOptions: HandleOptions): Promise<Response> => {
      const current = await run(config.get)
      if (Exit.isFailure(current) || !current.value.mcpServer.enabled) return jsonResponse(404, { error: "Not Found" })
      const origin = request.headers.get("origin")
      if (
        origin !== null &&
        origin !== new URL(request.url).origin &&
        !allowedOrigins.has(origin) &&
        !allowedOrigins.has("*")
      ) {
        return jsonResponse(403, { error: "cross-origin request refused" })
      }
      const authorized = await run(authorizer.authorize(bearerToken(request.headers.get("authorization"))))
      if (Exit.isFailure(authorized)) {
        return jsonResponse(
          401,
          { error: "unauthorized" },
          { "www-authenticate": handleOptions.challenge, "cache-control": "no-store" },
        )
      }
      const principal = authorized.value
      let body: unknown
      if (request.method === "POST") {
        try {
          body = JSON.parse(await readBounded(request, maxBodyBytes))
        } catch (error) {
          if (error instanceof TooLarge)
            return jsonResponse(413, { error: `request body too large (limit ${maxBodyBytes} bytes)` })
          return rpcError(400, -32700, "Parse error")
        }
      }
      const sessionId = request.headers.get("mcp-session-id")
      if (sessionId === null) {
        if (request.method !== "POST" || !(await serverSdk()).isInitializeRequest(body)) {
          return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required")
        }
        const live = await open(randomUUID(), principal, [], body.params)
        return live.transport.handleRequest(request, { parsedBody: body })
      }
      const live = /^[\x21-\x7e]{1,100}$/.test(sessionId) ? await find(sessionId, principal, request.url) : undefined
      if (live === undefined) return rpcError(404, -32001, "Session not found")
      return live.transport.handleRequest(request, body === undefined ? {} : { parsedBody: body })
    }

    // Subscribed resources are compared with what their sessions were last told: a change made
    // anywhere (the console, a scheduled run, another replica) reaches them.
    const watch = Effect.gen(function* () {
      const uris = new Set([...lives.values()].flatMap((live) => [...live.state.subscriptions]))
      if (uris.size === 0) return
      const digests = new Map<string, string>()
      for (const uri of uris) digests.set(uri, yield* McpResources.fingerprint(uri))
      for (const live of lives.values()) {
        for (const uri of live.state.subscriptions) {
          const digest = digests.get(uri)
          if (digest === undefined || live.state.fingerprints.get(uri) === digest) continue
          live.state.fingerprints.set(uri, digest)
          yield* Effect.tryPromise(() => live.server.server.sendResourceUpdated({ uri })).pipe(Effect.ignore)
        }
      }
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("mcp: checking subscribed resources failed", cause)))
    yield* Effect.forkScoped(
      Effect.repeat(watch, Schedule.spaced(Duration.decode(options.watchInterval ?? Duration.seconds(2)))),
    )
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => Promise.allSettled([...lives.values()].map((live) => live.server.close()))),
    )
    return McpEndpoint.of({ handle })
  })

/** The endpoint over the kernel's services, an `McpAuthorizer` and the session store. */
export const layer = (options: McpEndpointOptions = {}): Layer.Layer<McpEndpoint, never, Services> =>
  Layer.scoped(McpEndpoint, make(options))
