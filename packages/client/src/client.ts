import type { UIMessageChunk } from "ai"
import { type ChatStream, chatStream, reconnect, resumableChunks } from "./chatStream.js"
import type { AideError } from "./errors.js"
import { type Fetch, makeHttp } from "./http.js"
import { memoryTokenStore, type TokenStore } from "./tokens.js"
import type * as T from "./types.js"

export interface AideClientOptions {
  /** Where the server is: `http://127.0.0.1:4111` (no trailing `/api`). */
  readonly baseUrl: string
  /** Where tokens are kept; default `memoryTokenStore()`. */
  readonly tokenStore?: TokenStore
  /** A `fetch` to use instead of the global one (tests, a serverless handler, a proxy). */
  readonly fetch?: Fetch
  /** Called once the session is gone: a refresh was refused (expired, revoked, reused). */
  readonly onSessionLost?: (error: AideError) => void
}

/** What `chat.send` takes: `text` is a shorthand for one text part. */
export type SendInput = (
  | { readonly parts: ReadonlyArray<T.ChatPart>; readonly text?: undefined }
  | { readonly text: string; readonly parts?: undefined }
) & {
  readonly threadId?: string
  /** The user message's id (kept in the history); server-generated when omitted. */
  readonly messageId?: string
  readonly signal?: AbortSignal
}

export interface ApproveInput {
  /** The run (`ChatStream.runId`) or the approval id of one tool call (`approval.id`). */
  readonly runId: string
  readonly threadId: string
  readonly toolCallId?: string
  readonly approved: boolean
  readonly messageId?: string
  readonly signal?: AbortSignal
}

const path = (template: string, id: string) => template.replace(":id", encodeURIComponent(id))

/** A client for one Aide server. See docs/client.md for every method. */
export const createAideClient = (options: AideClientOptions) => {
  const tokenStore = options.tokenStore ?? memoryTokenStore()
  const fetchFn: Fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const http = makeHttp({ baseUrl: options.baseUrl, tokenStore, fetch: fetchFn, onSessionLost: options.onSessionLost })
  const { json } = http

  const signIn = async (route: "setup" | "login", password: string) => {
    const tokens = await json<T.TokenPair>(`/api/auth/${route}`, { method: "POST", body: { password }, auth: false })
    await tokenStore.set(tokens)
    return tokens
  }

  const auth = {
    /** `GET /`: whether a password is set up and whether this client is signed in. */
    status: () => json<T.ServiceStatus>("/", { auth: false }),
    /** First run: sets the password and signs in. */
    setup: (password: string) => signIn("setup", password),
    login: (password: string) => signIn("login", password),
    /** Revokes this session and forgets the tokens (even if the server could not be reached). */
    logout: async () => {
      try {
        return await json<T.ResponseOf<"authProtected.logout">>("/api/auth/logout", { method: "POST" })
      } finally {
        await tokenStore.set(null)
      }
    },
    /** Rotates the token pair now (requests also refresh by themselves on a 401). */
    refresh: () => http.refresh(),
    sessions: async () => (await json<T.ResponseOf<"authProtected.listSessions">>("/api/auth/sessions")).sessions,
    revokeSession: async (id: string) => {
      const result = await json<T.ResponseOf<"authProtected.revokeSession">>(path("/api/auth/sessions/:id", id), {
        method: "DELETE",
      })
      if (result.loggedOut) await tokenStore.set(null)
      return result
    },
    revokeAll: async () => {
      const result = await json<T.ResponseOf<"authProtected.revokeAllSessions">>("/api/auth/sessions", {
        method: "DELETE",
      })
      await tokenStore.set(null)
      return result
    },
    /** Every other session ends; this client carries on with the new pair. */
    changePassword: async (currentPassword: string, newPassword: string) => {
      const tokens = await json<T.TokenPair>("/api/auth/change-password", {
        method: "POST",
        body: { currentPassword, newPassword },
      })
      await tokenStore.set(tokens)
      return tokens
    },
    /** The stored token pair, if signed in. */
    tokens: () => tokenStore.get(),
  }

  const chat = {
    /** `POST /api/chat`: the thread and run ids, and the answer's chunks as they stream. */
    send: async (input: SendInput): Promise<ChatStream> => {
      const parts = input.parts ?? [{ type: "text" as const, text: input.text ?? "" }]
      const body: T.ChatBody = {
        parts: [...parts],
        ...(input.threadId === undefined ? {} : { threadId: input.threadId }),
        ...(input.messageId === undefined ? {} : { messageId: input.messageId }),
      }
      const response = await http.send("/api/chat", { method: "POST", body, signal: input.signal })
      return chatStream(http, response, input.threadId, input.signal)
    },
    /** `POST /api/chat/approve`: decides tool calls; the continuation streams back like `send`. */
    approve: async ({ signal, ...input }: ApproveInput): Promise<ChatStream> => {
      const response = await http.send("/api/chat/approve", { method: "POST", body: input, signal })
      return chatStream(http, response, input.threadId, signal)
    },
    /** `POST /api/chat/:threadId/stop`: `true` when a running answer was stopped. */
    stop: async (threadId: string) =>
      (
        await json<T.ResponseOf<"chat.stop">>(path("/api/chat/:id/stop", threadId), {
          method: "POST",
        })
      ).stopped,
    /** `GET /api/chat/:threadId/stream`: the running answer from its start, or `null` when none runs. */
    resume: async (threadId: string, resumeOptions: { readonly signal?: AbortSignal } = {}) => {
      const response = await reconnect(http, threadId, undefined, resumeOptions.signal)
      if (response === undefined) return null
      const chunks = resumableChunks(http, threadId, response, resumeOptions.signal)
      // The replay starts with `start`, whose metadata names the run.
      const first = await chunks.next()
      const runId = first.done ? "" : runIdOf(first.value)
      async function* all(): AsyncGenerator<UIMessageChunk> {
        if (!first.done) yield first.value
        yield* chunks
      }
      return { threadId, runId, chunks: all() } satisfies ChatStream as ChatStream
    },
  }

  const threads = {
    list: (query: T.QueryOf<"threads.list"> = {}) =>
      json<T.ThreadList>("/api/threads", { query: query as Record<string, string | number | boolean> }),
    get: (id: string) => json<T.ThreadDetail>(path("/api/threads/:id", id)),
    /** A new branch with the messages before `messageId`; continue it with `chat.send({ threadId })`. */
    fork: (id: string, messageId: string) =>
      json<T.ForkResult>(path("/api/threads/:id/fork", id), { method: "POST", body: { messageId } }),
    rename: (id: string, title: string | null) =>
      json<T.Thread>(path("/api/threads/:id", id), { method: "PATCH", body: { title } }),
    remove: (id: string) =>
      json<T.ResponseOf<"threads.delete">>(path("/api/threads/:id", id), {
        method: "DELETE",
      }),
  }

  const config = {
    get: () => json<T.AppConfig>("/api/config"),
    /** Deep-merges `patch`; `null` clears (or removes an MCP server). Returns the resolved config. */
    patch: (patch: T.ConfigPatch) => json<T.AppConfig>("/api/config", { method: "PATCH", body: patch }),
  }

  const schedule = {
    list: () => json<T.ScheduleList>("/api/schedule"),
    get: (id: string) => json<T.ScheduledTask>(path("/api/schedule/:id", id)),
    create: (task: T.ScheduledTaskInput) => json<T.ScheduledTask>("/api/schedule", { method: "POST", body: task }),
    update: (id: string, patch: T.ScheduledTaskPatch) =>
      json<T.ScheduledTask>(path("/api/schedule/:id", id), { method: "PATCH", body: patch }),
    remove: (id: string) => json<T.ResponseOf<"schedule.delete">>(path("/api/schedule/:id", id), { method: "DELETE" }),
    destinations: async () =>
      (await json<T.ResponseOf<"scheduleDestinations.list">>("/api/schedule/destinations")).destinations,
    heartbeat: () => json<T.Heartbeat>("/api/schedule/heartbeat"),
    updateHeartbeat: (patch: T.HeartbeatPatch) =>
      json<T.Heartbeat>("/api/schedule/heartbeat", { method: "PATCH", body: patch }),
  }

  const inbox = {
    list: async (query: T.QueryOf<"inbox.list"> = {}) =>
      (await json<T.ResponseOf<"inbox.list">>("/api/inbox", { query })).messages,
    get: (id: string) => json<T.InboxMessage>(path("/api/inbox/:id", id)),
    update: (id: string, patch: T.InboxPatch) =>
      json<T.InboxMessage>(path("/api/inbox/:id", id), { method: "PATCH", body: patch }),
    remove: (id: string) => json<T.ResponseOf<"inbox.delete">>(path("/api/inbox/:id", id), { method: "DELETE" }),
  }

  const memory = {
    working: () => json<T.WorkingMemory>("/api/memory/working"),
    /** Overwrites working memory. */
    setWorking: (content: string) => json<T.WorkingMemory>("/api/memory/working", { method: "PUT", body: { content } }),
    observations: (query: T.QueryOf<"memory.getObservations"> = {}) =>
      json<T.Observations>("/api/memory/observations", { query }),
    record: (query: T.QueryOf<"memory.getRecord"> = {}) => json<T.MemoryRecordView>("/api/memory/record", { query }),
  }

  const push = {
    /** The VAPID public key to subscribe with (`applicationServerKey`). */
    vapidPublicKey: async () =>
      (await json<T.ResponseOf<"push.vapidPublicKey">>("/api/push/vapid-public-key")).publicKey,
    /** Subscribes this browser: the `PushSubscription` (or its `toJSON()`). */
    subscribe: (subscription: T.BodyOf<"push.subscribe">) =>
      json<T.ResponseOf<"push.subscribe">>("/api/push/subscriptions", { method: "POST", body: subscription }),
    unsubscribe: (endpoint: string) =>
      json<T.ResponseOf<"push.unsubscribe">>("/api/push/subscriptions", { method: "DELETE", body: { endpoint } }),
  }

  const pairing = (id: string, code: string, decision: "approve" | "reject") =>
    json<T.Pairing>(`${path("/api/plugins/:id", id)}/pairings/${encodeURIComponent(code)}/${decision}`, {
      method: "POST",
    })
  const plugins = {
    list: async () => (await json<T.ResponseOf<"plugins.list">>("/api/plugins")).plugins,
    /** A channel plugin's pairing requests waiting for the owner, and the senders approved. */
    pairings: (id: string) => json<T.PairingList>(`${path("/api/plugins/:id", id)}/pairings`),
    approvePairing: (id: string, code: string) => pairing(id, code, "approve"),
    rejectPairing: (id: string, code: string) => pairing(id, code, "reject"),
    /** Takes an approved sender off a channel's list. */
    removeSender: (id: string, channelId: string, senderId: string) =>
      json<T.ResponseOf<"plugins.removeSender">>(
        `${path("/api/plugins/:id", id)}/senders/${encodeURIComponent(channelId)}/${encodeURIComponent(senderId)}`,
        { method: "DELETE" },
      ),
  }
  const models = {
    list: async () => (await json<T.ResponseOf<"models.list">>("/api/models")).providers,
    /** The owner's provider connections (values masked) and the providers the environment sets. */
    connections: () => json<T.ResponseOf<"models.connections">>("/api/models/connections"),
    /** Sets a provider's connection (its `envVars` → values); takes effect at once. */
    connect: (provider: string, values: Record<string, string>) =>
      json<T.ResponseOf<"models.connect">>(path("/api/models/connections/:id", provider), {
        method: "PUT",
        body: { values },
      }),
    disconnect: (provider: string) =>
      json<T.ResponseOf<"models.disconnect">>(path("/api/models/connections/:id", provider), { method: "DELETE" }),
    /** Lists the provider's models with the values in use: `{ ok, models, error? }`. */
    test: (provider: string) =>
      json<T.ResponseOf<"models.testConnection">>(path("/api/models/connections/:id/test", provider), {
        method: "POST",
      }),
  }
  const mcpServers = {
    list: async () => (await json<T.ResponseOf<"mcp.list">>("/api/mcp-servers")).servers,
    create: (server: T.NewMcpServer) => json<T.McpServer>("/api/mcp-servers", { method: "POST", body: server }),
  }

  /** MCP clients authorized through OAuth (`/mcp`): the consent screen's calls, list, revoke. */
  const mcpClients = {
    list: async () => (await json<T.ResponseOf<"mcpGrants.listClients">>("/api/mcp/clients")).clients,
    revoke: (id: string) =>
      json<T.ResponseOf<"mcpGrants.revokeClient">>(path("/api/mcp/clients/:id", id), { method: "DELETE" }),
    /** What an authorization request (the query `/oauth/authorize` got) asks the owner to consent to. */
    inspect: (request: string) =>
      json<T.ConsentDetails>("/api/mcp/consent/inspect", { method: "POST", body: { request } }),
    /** Approves (with these tools) or denies; answers where the browser goes next. */
    decide: (request: string, approve: boolean, tools: ReadonlyArray<string>) =>
      json<T.ResponseOf<"mcpGrants.decideConsent">>("/api/mcp/consent", {
        method: "POST",
        body: { request, approve, tools },
      }),
  }

  return {
    auth,
    chat,
    threads,
    config,
    schedule,
    inbox,
    memory,
    push,
    plugins,
    models,
    mcpServers,
    mcpClients,
    baseUrl: options.baseUrl,
  }
}

export type AideClient = ReturnType<typeof createAideClient>

const runIdOf = (chunk: UIMessageChunk): string => {
  const metadata = (chunk as { messageMetadata?: { runId?: unknown } }).messageMetadata
  return typeof metadata?.runId === "string" ? metadata.runId : ""
}
