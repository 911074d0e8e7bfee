import * as Fs from "node:fs"
import * as Path from "node:path"
import { singleModelRegistry } from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Duration, Effect, Layer, Option, Redacted, Stream } from "effect"
import { describe, expect, it } from "vitest"
import * as AccessTokens from "../src/auth/AccessTokens.js"
import * as Auth from "../src/auth/Auth.js"
import { AuthStore } from "../src/auth/AuthStore.js"
import * as PasswordHasher from "../src/auth/PasswordHasher.js"
import * as SqlAuthStore from "../src/auth/SqlAuthStore.js"
import * as ChannelConversations from "../src/channels/gateway/ChannelConversations.js"
import * as ChannelGateway from "../src/channels/gateway/ChannelGateway.js"
import * as WebhookReplays from "../src/channels/gateway/WebhookReplays.js"
import * as AgentStep from "../src/chat/AgentStep.js"
import * as AiSdkAgentStep from "../src/chat/AiSdkAgentStep.js"
import * as Chat from "../src/chat/Chat.js"
import { ChatRuns } from "../src/chat/ChatRuns.js"
import * as SqlChatRuns from "../src/chat/SqlChatRuns.js"
import * as StreamHub from "../src/chat/StreamHub.js"
import * as TitleGenerator from "../src/chat/TitleGenerator.js"
import * as AppConfig from "../src/config/AppConfig.js"
import * as ConfigStore from "../src/config/ConfigStore.js"
import * as Ids from "../src/ids/Ids.js"
import { Inbox } from "../src/inbox/Inbox.js"
import { InboxStore } from "../src/inbox/InboxStore.js"
import * as SqlInboxStore from "../src/inbox/SqlInboxStore.js"
import * as Kernel from "../src/Kernel.js"
import * as McpOAuth from "../src/mcp/McpOAuth.js"
import { McpOAuthStore } from "../src/mcp/McpOAuthStore.js"
import * as SqlMcpOAuthStore from "../src/mcp/SqlMcpOAuthStore.js"
import * as McpSessionStore from "../src/mcpserver/McpSessionStore.js"
import * as MemoryMcpGrantStore from "../src/mcpserver/MemoryMcpGrantStore.js"
import * as Memory from "../src/memory/Memory.js"
import * as MemoryStore from "../src/memory/MemoryStore.js"
import * as SqlObservationStore from "../src/memory/observational/SqlObservationStore.js"
import * as RecallIndex from "../src/memory/recall/RecallIndex.js"
import * as SqlMemoryStore from "../src/memory/SqlMemoryStore.js"
import * as MemoryConnectionStore from "../src/models/connections/MemoryConnectionStore.js"
import { ModelRegistry } from "../src/models/ModelRegistry.js"
import * as SqlPushStore from "../src/push/SqlPushStore.js"
import * as RateLimiter from "../src/ratelimit/RateLimiter.js"
import * as RunLedger from "../src/scheduler/RunLedger.js"
import * as Scheduler from "../src/scheduler/Scheduler.js"
import * as SqlRunLedger from "../src/scheduler/SqlRunLedger.js"
import * as SqliteStorage from "../src/storage/SqliteStorage.js"
import * as MemoryThreads from "../src/threads/MemoryThreads.js"
import { Threads } from "../src/threads/Threads.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"
import { answer, scriptedModel, usage } from "./support/chat.js"
import { tempDirectory } from "./support/files.js"
import { type Calls, spy } from "./support/recording.js"

/**
 * One test per Tag `Kernel.layer` takes: the implementation given is the one the services use.
 * Each swapped implementation records the calls it receives (`spy`); a service operation must
 * reach it. The kernel's own storage is a file of its own, so a store that was *not* used
 * would leave its data there instead.
 */

/** A SQL store on a database of its own (in memory), not the kernel's. */
const ownDatabase = Layer.orDie(SqliteStorage.layer({ filename: ":memory:" }))

const model = scriptedModel(answer("Hello ", "there"), answer("Second"))
const fixedModels = singleModelRegistry(model)

const client = { userAgent: "vitest", ip: "127.0.0.1" }

/** Runs `body` against `Kernel.layer(options)` on a fresh data directory (SQLite file there). */
const withKernel = <A, E>(
  options: Partial<Kernel.KernelOptions>,
  body: (dataDir: string) => Effect.Effect<A, E, Kernel.KernelServices>,
): Promise<A> =>
  Effect.gen(function* () {
    const dataDir = yield* tempDirectory
    return yield* Effect.provide(
      body(dataDir),
      Kernel.layer({
        dataDir,
        signingSecret: Redacted.make(new Uint8Array(32).fill(3)),
        passwordHasher: PasswordHasher.layerTest,
        titles: TitleGenerator.layerFallback,
        modelRegistry: fixedModels,
        scheduler: { enabled: false },
        chat: { maxRetries: 0 },
        ...options,
      }),
    )
  }).pipe(Effect.scoped, Effect.runPromise)

/** Sends one message and waits for the run to end (its stream drained). */
const runChat = (threadId: string) =>
  Effect.gen(function* () {
    const chat = yield* Chat.Chat
    const run = yield* chat.send({ threadId, parts: [{ type: "text", text: "Hi" }] })
    yield* Stream.runDrain(run.events)
    return run
  })

/** The kernel's own SQLite file, read after the kernel is gone: what reached it. */
const rowsIn = (dataDir: string, table: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // A store replaced never creates its tables (each SQL store migrates its own schema): no rows either.
    const exists = yield* sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ${table}`
    if (exists.length === 0) return 0
    const rows = yield* sql<{ readonly count: number }>`SELECT COUNT(*) AS "count" FROM ${sql(table)}`
    return Number(rows[0]?.count)
  }).pipe(Effect.provide(SqliteClient.layer({ filename: Path.join(dataDir, "aide.db") })), Effect.orDie)

describe("Kernel.layer: every Tag given is the one the services use", () => {
  it("threads: Chat writes to the Threads given (in memory), and nothing reaches SQL", async () => {
    const calls: Calls = []
    const { messages, sqlThreads } = await withKernel(
      {
        threads: spy(Threads, MemoryThreads.layer.pipe(Layer.provide(Ids.layer)), calls),
        recallIndex: RecallIndex.layerEmpty,
      },
      (dataDir) =>
        Effect.gen(function* () {
          yield* runChat("t-1")
          const threads = yield* Threads
          return { messages: yield* threads.messages("t-1"), sqlThreads: yield* rowsIn(dataDir, "threads") }
        }),
    )
    expect(calls).toContain("saveMessage")
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"])
    expect(sqlThreads).toBe(0)
  })

  it("threads in memory with SQL chat runs: a run pauses for approval and resumes (no foreign key between the stores)", async () => {
    let executed = 0
    const deleteTool = ToolRegistry.source({
      id: "files",
      kind: "plugin",
      tools: Effect.succeed([
        {
          name: "delete",
          description: "Deletes a file",
          inputSchema: { type: "object", properties: {} },
          requireApproval: true,
          execute: () => Effect.sync(() => ++executed),
        },
      ]),
    })
    const toolModel = scriptedModel(
      [
        { type: "stream-start", warnings: [] },
        { type: "tool-call", toolCallId: "call-1", toolName: "files_delete", input: "{}" },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
      ],
      answer("Deleted."),
    )
    const messages = await withKernel(
      {
        threads: MemoryThreads.layer.pipe(Layer.provide(Ids.layer)),
        recallIndex: RecallIndex.layerEmpty,
        tools: deleteTool,
        modelRegistry: singleModelRegistry(toolModel),
      },
      () =>
        Effect.gen(function* () {
          const paused = yield* runChat("t-1")
          const chat = yield* Chat.Chat
          const resumed = yield* chat.approve({ runId: paused.runId, threadId: "t-1", approved: true })
          yield* Stream.runDrain(resumed.events)
          return yield* Effect.flatMap(Threads, (threads) => threads.messages("t-1"))
        }),
    )
    expect(executed).toBe(1)
    expect(JSON.stringify(messages.at(-1)?.parts)).toContain("Deleted.")
  })

  it("agentStep: Chat runs its turns through the AgentStep given", async () => {
    const calls: Calls = []
    const messages = await withKernel({ agentStep: spy(AgentStep.AgentStep, AiSdkAgentStep.layer, calls) }, () =>
      Effect.zipRight(
        runChat("t-1"),
        Effect.flatMap(Threads, (threads) => threads.messages("t-1")),
      ),
    )
    expect(calls).toEqual(["run"])
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"])
  })

  it("chatRuns: a second message looks up suspended runs in the ChatRuns given", async () => {
    const calls: Calls = []
    await withKernel({ chatRuns: spy(ChatRuns, SqlChatRuns.layer.pipe(Layer.provide(ownDatabase)), calls) }, () =>
      Effect.zipRight(runChat("t-1"), runChat("t-1")),
    )
    expect(calls).toContain("suspendedIn")
  })

  it("authStore, passwordHasher, accessTokens: Auth.setup goes through the ones given", async () => {
    const store: Calls = []
    const hasher: Calls = []
    const tokens: Calls = []
    const sqlOwner = await withKernel(
      {
        authStore: spy(AuthStore, SqlAuthStore.layer.pipe(Layer.provide(ownDatabase)), store),
        passwordHasher: spy(PasswordHasher.PasswordHasher, PasswordHasher.layerTest, hasher),
        accessTokens: spy(
          AccessTokens.AccessTokens,
          AccessTokens.layer({ secret: Redacted.make(new Uint8Array(32).fill(9)) }),
          tokens,
        ),
      },
      (dataDir) =>
        Effect.gen(function* () {
          const auth = yield* Auth.Auth
          const pair = yield* auth.setup("correct horse battery", client)
          yield* auth.authenticate(pair.token)
          return yield* rowsIn(dataDir, "auth_owner")
        }),
    )
    expect(store).toContain("createOwner")
    expect(hasher).toContain("hash")
    expect(tokens).toEqual(expect.arrayContaining(["issue", "verify"]))
    expect(sqlOwner).toBe(0)
  })

  it("configStore: AppConfig reads and writes the ConfigStore given", async () => {
    const calls: Calls = []
    await withKernel({ configStore: spy(ConfigStore.ConfigStore, ConfigStore.layerMemory, calls) }, () =>
      Effect.flatMap(AppConfig.AppConfig, (config) => config.patch({ timezone: "Europe/Paris" })),
    )
    expect(calls.length).toBeGreaterThanOrEqual(2)
  })

  it("inboxStore: Inbox.create stores in the InboxStore given", async () => {
    const calls: Calls = []
    await withKernel({ inboxStore: spy(InboxStore, SqlInboxStore.layer.pipe(Layer.provide(ownDatabase)), calls) }, () =>
      Effect.flatMap(Inbox, (inbox) => inbox.create({ subject: "s", body: "b", destination: "web" })),
    )
    expect(calls).toContain("insert")
  })

  it("mcpOAuthStore: McpOAuth forgets a server in the McpOAuthStore given", async () => {
    const calls: Calls = []
    await withKernel(
      {
        mcpOAuth: { redirectUrl: "https://aide.example.test/callback" },
        mcpOAuthStore: spy(McpOAuthStore, SqlMcpOAuthStore.layer.pipe(Layer.provide(ownDatabase)), calls),
      },
      () => Effect.flatMap(McpOAuth.McpOAuth, (oauth) => oauth.forget("remote")),
    )
    expect(calls).toEqual(expect.arrayContaining(["clear", "dropPending"]))
  })

  it("streamHub, titles, modelRegistry, ids: a chat run uses the ones given", async () => {
    const hub: Calls = []
    const titles: Calls = []
    const models: Calls = []
    let next = 0
    const ids = Layer.succeed(Ids.Ids, {
      uuid: Effect.sync(() => `id-${++next}`),
      secret: (bytes) => Effect.succeed("s".repeat(bytes)),
    })
    const run = await withKernel(
      {
        streamHub: spy(StreamHub.StreamHub, StreamHub.layerMemory(), hub),
        titles: spy(TitleGenerator.TitleGenerator, TitleGenerator.layerFallback, titles),
        modelRegistry: spy(ModelRegistry, fixedModels, models),
        ids,
      },
      () => runChat("t-1"),
    )
    expect(hub).toContain("open")
    expect(titles).toContain("generate")
    expect(models).toContain("languageModel")
    expect(run.runId).toMatch(/^id-\d+$/)
  })

  it("titles: a TitleGenerator reading the config gets the services' own AppConfig (one instance)", async () => {
    let seen: unknown
    const titles = Layer.effect(
      TitleGenerator.TitleGenerator,
      Effect.map(AppConfig.AppConfig, (config) => {
        seen = config
        return { generate: () => Effect.succeed(Option.none()) }
      }),
    )
    const services = await withKernel({ titles }, () => AppConfig.AppConfig)
    expect(seen).toBe(services)
  })

  it("rateLimiter: the RateLimiter given is the one the kernel provides", async () => {
    const calls: Calls = []
    const decision = await withKernel(
      { rateLimiter: spy(RateLimiter.RateLimiter, RateLimiter.layerMemory, calls) },
      () =>
        Effect.flatMap(RateLimiter.RateLimiter, (limiter) =>
          limiter.consume("k", { limit: 1, window: Duration.minutes(1) }),
        ),
    )
    expect(calls).toEqual(["consume"])
    expect(decision).toMatchObject({ allowed: true })
  })

  it("runLedger: the scheduler keeps task state in the RunLedger given", async () => {
    const calls: Calls = []
    await withKernel(
      { runLedger: spy(RunLedger.RunLedger, SqlRunLedger.layer.pipe(Layer.provide(ownDatabase)), calls) },
      () =>
        Effect.flatMap(Scheduler.Scheduler, (scheduler) =>
          Effect.zipRight(scheduler.create({ name: "Digest", prompt: "Summarise", cron: "0 8 * * *" }), scheduler.list),
        ),
    )
    expect(calls.length).toBeGreaterThan(0)
  })

  it("memoryStore: working memory is kept in the MemoryStore given", async () => {
    const calls: Calls = []
    const content = await withKernel(
      { memoryStore: spy(MemoryStore.MemoryStore, SqlMemoryStore.layer.pipe(Layer.provide(ownDatabase)), calls) },
      () =>
        Effect.gen(function* () {
          yield* (yield* AppConfig.AppConfig).patch({ memory: { workingMemory: { enabled: true } } })
          const memory = yield* Memory.Memory
          yield* memory.editWorkingMemory({ kind: "append", text: "- likes tea" })
          return yield* memory.workingMemory
        }),
    )
    expect(calls).toEqual(expect.arrayContaining(["readWorking", "writeWorking"]))
    expect(content).toBe("- likes tea")
  })

  it("channelConversations: a channel's conversation is bound to its thread in the store given", async () => {
    const calls: Calls = []
    const sent: Array<string> = []
    const bound = await withKernel(
      {
        channelConversations: spy(ChannelConversations.ChannelConversations, ChannelConversations.layerMemory, calls),
        channelEndpoints: ChannelGateway.endpoint({
          pluginId: "tg",
          channelId: "bot",
          name: "Telegram",
          webhook: null,
          realtime: null,
          send: (message) => Effect.sync(() => void sent.push(message.text)),
          notify: null,
        }),
      },
      (dataDir) =>
        Effect.gen(function* () {
          const gateway = yield* ChannelGateway.ChannelGateway
          yield* gateway.receive("tg:bot", { conversationId: "c", text: "Hi" })
          while (sent.length === 0) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
          return yield* rowsIn(dataDir, "channel_conversations")
        }),
    )
    expect(calls).toEqual(expect.arrayContaining(["threadOf", "bind"]))
    expect(bound).toBe(0)
  })

  it("storage: with every store replaced, the kernel never opens its SQLite file", async () => {
    const exists = await withKernel(
      {
        authStore: SqlAuthStore.layer.pipe(Layer.provide(ownDatabase)),
        configStore: ConfigStore.layerMemory,
        threads: MemoryThreads.layer.pipe(Layer.provide(Ids.layer)),
        recallIndex: RecallIndex.layerEmpty,
        chatRuns: SqlChatRuns.layer.pipe(Layer.provide(ownDatabase)),
        inboxStore: SqlInboxStore.layer.pipe(Layer.provide(ownDatabase)),
        mcpOAuthStore: SqlMcpOAuthStore.layer.pipe(Layer.provide(ownDatabase)),
        runLedger: SqlRunLedger.layer.pipe(Layer.provide(ownDatabase)),
        memoryStore: SqlMemoryStore.layer.pipe(Layer.provide(ownDatabase)),
        observationStore: SqlObservationStore.layer.pipe(Layer.provide(ownDatabase)),
        channelConversations: ChannelConversations.layerMemory,
        webhookReplays: WebhookReplays.layerMemory,
        connectionStore: MemoryConnectionStore.layer,
        pushStore: SqlPushStore.layer.pipe(Layer.provide(ownDatabase)),
        mcpSessionStore: McpSessionStore.layerMemory,
        mcpGrantStore: MemoryMcpGrantStore.layer,
      },
      (dataDir) =>
        Effect.gen(function* () {
          yield* runChat("t-1")
          return Fs.existsSync(Path.join(dataDir, "aide.db"))
        }),
    )
    expect(exists).toBe(false)
  })

  it("storage: a SqlClient Aide never migrated works (the stores migrate it)", async () => {
    const isSetup = await Effect.gen(function* () {
      const dataDir = yield* tempDirectory
      const raw = Layer.orDie(SqliteClient.layer({ filename: Path.join(dataDir, "other.db") }))
      return yield* Effect.flatMap(Auth.Auth, (auth) => auth.isSetup).pipe(
        Effect.provide(
          Kernel.layer({
            dataDir,
            storage: raw,
            passwordHasher: PasswordHasher.layerTest,
            signingSecret: Redacted.make(new Uint8Array(32).fill(3)),
            scheduler: { enabled: false },
          }),
        ),
      )
    }).pipe(Effect.scoped, Effect.runPromise)
    expect(isSetup).toBe(false)
  })
})
