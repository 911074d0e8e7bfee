import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import type { FakeModelServer, RecordedRequest } from "@aide/testing"
import { tempDirectory, testKernel, until } from "@aide/testing/effect"
import type { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import type { Notification, OutgoingMessage } from "../src/channels/gateway/ChannelContract.js"
import { ChannelConversations } from "../src/channels/gateway/ChannelConversations.js"
import type { ChannelEndpoint } from "../src/channels/gateway/ChannelEndpoint.js"
import * as ChannelGateway from "../src/channels/gateway/ChannelGateway.js"
import { Inbox } from "../src/inbox/Inbox.js"
import type { StorageError } from "../src/storage/StorageError.js"
import { Threads } from "../src/threads/Threads.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"
import { type Database, database, dialects, fakeServer } from "./memory/support.js"

/** What an in-test channel was asked to do, in order. */
interface Recorded {
  readonly sent: Array<OutgoingMessage>
  readonly notified: Array<Notification>
}

const recordingEndpoint = (recorded: Recorded, overrides: Partial<ChannelEndpoint> = {}): ChannelEndpoint => ({
  pluginId: "tg",
  channelId: "bot",
  name: "Telegram",
  webhook: null,
  realtime: null,
  send: (message) => Effect.sync(() => void recorded.sent.push(message)),
  notify: (notification) => Effect.sync(() => void recorded.notified.push(notification)),
  ...overrides,
})

const deleted: Array<string> = []
/** A tool the model may call only with the owner's approval. */
const deleteTool = ToolRegistry.source({
  id: "files",
  kind: "plugin",
  tools: Effect.succeed([
    {
      name: "delete",
      description: "Deletes a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
      requireApproval: true,
      execute: (input) => Effect.sync(() => deleted.push((input as { path: string }).path)),
    },
  ]),
})

/** A kernel ("process") on `db` whose model is the fake server's, with the channel registered. */
const kernel = (db: Database, server: FakeModelServer, dataDir: string, endpoint: ChannelEndpoint) =>
  testKernel({
    dataDir,
    storage: db.connect() as Layer.Layer<SqlClient.SqlClient, StorageError>,
    model: createOpenAICompatible({ name: "fake", baseURL: server.url })("fake-model"),
    scheduler: { enabled: false },
    tools: deleteTool,
    channelEndpoints: ChannelGateway.endpoint(endpoint),
  })

const gateway = ChannelGateway.ChannelGateway
const receive = (conversationId: string, text: string) =>
  Effect.flatMap(gateway, (channels) => channels.receive("tg:bot", { conversationId, text }))
const sentCount = (recorded: Recorded, count: number) =>
  until(
    Effect.sync(() => recorded.sent.length >= count),
    `${count} replies`,
  )

describe.each(dialects)("ChannelGateway (%s)", (dialect) => {
  it.live(
    "a conversation gets one thread, kept across a restart; the reply carries the assistant's text",
    () =>
      Effect.gen(function* () {
        const server = yield* fakeServer
        const db = yield* database(dialect)
        const dataDir = yield* tempDirectory
        const recorded: Recorded = { sent: [], notified: [] }
        server.script({ text: "Hello Ada." }, { text: "Welcome back." })
        const first = yield* Effect.gen(function* () {
          yield* receive("chat-1", "Hi, I am Ada")
          yield* sentCount(recorded, 1)
          return yield* Effect.flatMap(ChannelConversations, (store) =>
            store.threadOf({ pluginId: "tg", channelId: "bot", conversationId: "chat-1" }),
          )
        }).pipe(Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded))))
        expect(recorded.sent[0]).toEqual({ conversationId: "chat-1", text: "Hello Ada.", approvals: [] })

        const messages = yield* Effect.gen(function* () {
          yield* receive("chat-1", "It's me again")
          yield* sentCount(recorded, 2)
          return yield* Effect.flatMap(Threads, (threads) => threads.messages(Option.getOrThrow(first)))
        }).pipe(Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded))))
        expect(recorded.sent[1]?.text).toBe("Welcome back.")
        expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"])
      }).pipe(Effect.scoped),
    60_000,
  )

  it.live(
    "a thread the owner deleted: the next message starts a new one",
    () =>
      Effect.gen(function* () {
        const server = yield* fakeServer
        const db = yield* database(dialect)
        const dataDir = yield* tempDirectory
        const recorded: Recorded = { sent: [], notified: [] }
        const threadOf = Effect.flatMap(ChannelConversations, (store) =>
          Effect.map(store.threadOf({ pluginId: "tg", channelId: "bot", conversationId: "c" }), Option.getOrThrow),
        )
        yield* Effect.gen(function* () {
          yield* receive("c", "one")
          yield* sentCount(recorded, 1)
          const before = yield* threadOf
          yield* Effect.flatMap(Threads, (threads) => threads.delete(before))
          yield* receive("c", "two")
          yield* sentCount(recorded, 2)
          const after = yield* threadOf
          expect(after).not.toBe(before)
          const messages = yield* Effect.flatMap(Threads, (threads) => threads.messages(after))
          expect(messages.length).toBe(2)
        }).pipe(Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded))))
      }).pipe(Effect.scoped),
    60_000,
  )

  it.live(
    "approvals round trip through answerApproval, also after a restart",
    () =>
      Effect.gen(function* () {
        const server = yield* fakeServer
        const db = yield* database(dialect)
        const dataDir = yield* tempDirectory
        const recorded: Recorded = { sent: [], notified: [] }
        server.script(
          { text: "Deleting it.", toolCalls: [{ name: "files_delete", arguments: { path: "a.txt" } }] },
          { text: "Deleted a.txt." },
          { toolCalls: [{ name: "files_delete", arguments: { path: "b.txt" } }] },
          { text: "I left b.txt alone." },
        )
        const answer = (approvalId: string, approved: boolean) =>
          Effect.flatMap(gateway, (channels) =>
            channels.answerApproval("tg:bot", { conversationId: "c", approvalId, approved }),
          )
        yield* Effect.gen(function* () {
          yield* receive("c", "delete a.txt")
          yield* sentCount(recorded, 1)
          const paused = recorded.sent[0]!
          expect(paused.text).toBe("Deleting it.")
          expect(paused.approvals).toEqual([
            { approvalId: expect.any(String), toolName: "files_delete", input: { path: "a.txt" } },
          ])
          // Another conversation cannot answer it.
          const foreign = yield* Effect.either(
            Effect.flatMap(gateway, (channels) =>
              channels.answerApproval("tg:bot", {
                conversationId: "other",
                approvalId: paused.approvals[0]!.approvalId,
                approved: true,
              }),
            ),
          )
          expect(Either.isLeft(foreign) && foreign.left._tag).toBe("ApprovalNotFound")
          yield* answer(paused.approvals[0]!.approvalId, true)
          yield* sentCount(recorded, 2)
          expect(recorded.sent[1]).toEqual({ conversationId: "c", text: "Deleted a.txt.", approvals: [] })
          expect(deleted).toContain("a.txt")

          yield* receive("c", "delete b.txt")
          yield* sentCount(recorded, 3)
          expect(recorded.sent[2]?.approvals.length).toBe(1)
        }).pipe(Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded))))

        // A new process: the approval id handed out before still works.
        yield* Effect.gen(function* () {
          yield* answer(recorded.sent[2]!.approvals[0]!.approvalId, false)
          yield* sentCount(recorded, 4)
          expect(recorded.sent[3]?.text).toBe("I left b.txt alone.")
          expect(deleted).not.toContain("b.txt")
        }).pipe(Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded))))
      }).pipe(Effect.scoped),
    60_000,
  )
})

describe("ChannelGateway", () => {
  it.live(
    "messages of one conversation are answered one at a time, in order",
    () =>
      Effect.gen(function* () {
        const server = yield* fakeServer
        const db = yield* database("sqlite")
        const dataDir = yield* tempDirectory
        const recorded: Recorded = { sent: [], notified: [] }
        // Conversations run side by side: each turn answers the request whose last message it names.
        const lastSaid = (said: string) => (request: RecordedRequest) =>
          JSON.stringify(request.body.messages.at(-1)?.content ?? "").includes(said)
        server.script(
          { text: "one", latencyMs: 150, match: lastSaid("first") },
          { text: "two", latencyMs: 10, match: lastSaid("second") },
          { text: "three", latencyMs: 10, match: lastSaid("third") },
          { text: "elsewhere", latencyMs: 10, match: lastSaid("other") },
        )
        yield* Effect.gen(function* () {
          yield* receive("c", "first")
          yield* receive("c", "second")
          yield* receive("c", "third")
          yield* receive("d", "other")
          yield* sentCount(recorded, 4)
        }).pipe(Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded))))
        const inC = recorded.sent.filter((message) => message.conversationId === "c").map((message) => message.text)
        expect(inC).toEqual(["one", "two", "three"])
        // Each request of conversation c saw the answers before it: no two ran at once.
        const userTurns = server.requests
          .map((request) => request.body.messages.filter((message) => message.role === "user").length)
          .filter((count) => count > 1)
        expect(userTurns).toEqual([2, 3])
      }).pipe(Effect.scoped),
    60_000,
  )

  it.live(
    "a channel with notify is a destination (its key), and the inbox delivers to it: pending → sent",
    () =>
      Effect.gen(function* () {
        const server = yield* fakeServer
        const db = yield* database("sqlite")
        const dataDir = yield* tempDirectory
        const recorded: Recorded = { sent: [], notified: [] }
        yield* Effect.gen(function* () {
          const inbox = yield* Inbox
          // "browser": Web Push, always a destination (docs/inbox.md "Browser notifications").
          expect(yield* inbox.destinations).toEqual(["Web Inbox", "browser", "tg:bot"])
          const message = yield* inbox.create({ subject: "Digest", body: "All quiet.", destination: "tg:bot" })
          expect(message.status).toBe("pending")
          yield* until(
            Effect.map(inbox.get(message.id), (current) => current.status === "sent"),
            "the message sent",
          )
          expect(recorded.notified).toEqual([{ subject: "Digest", body: "All quiet.", threadId: null }])
          const listed = yield* Effect.flatMap(gateway, (channels) => channels.endpoints)
          expect(listed).toEqual([
            {
              key: "tg:bot",
              pluginId: "tg",
              channelId: "bot",
              name: "Telegram",
              webhookPath: null,
              realtime: false,
              connection: null,
            },
          ])
        }).pipe(Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded))))
      }).pipe(Effect.scoped),
    60_000,
  )

  it.live(
    "a channel without notify is no destination",
    () =>
      Effect.gen(function* () {
        const server = yield* fakeServer
        const db = yield* database("sqlite")
        const dataDir = yield* tempDirectory
        const recorded: Recorded = { sent: [], notified: [] }
        const destinations = yield* Effect.flatMap(Inbox, (inbox) => inbox.destinations).pipe(
          Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded, { notify: null }))),
        )
        expect(destinations).toEqual(["Web Inbox", "browser"])
      }).pipe(Effect.scoped),
    60_000,
  )

  it.live(
    "an unknown channel and an empty message are refused at once",
    () =>
      Effect.gen(function* () {
        const server = yield* fakeServer
        const db = yield* database("sqlite")
        const dataDir = yield* tempDirectory
        const recorded: Recorded = { sent: [], notified: [] }
        yield* Effect.gen(function* () {
          const channels = yield* gateway
          const unknown = yield* Effect.either(channels.receive("tg:nope", { conversationId: "c", text: "hi" }))
          expect(Either.isLeft(unknown) && unknown.left._tag).toBe("ChannelNotFound")
          const empty = yield* Effect.either(channels.receive("tg:bot", { conversationId: "c", text: " " }))
          expect(Either.isLeft(empty) && empty.left._tag).toBe("InvalidInboundMessage")
          const badFile = yield* Effect.either(
            channels.receive("tg:bot", {
              conversationId: "c",
              text: "look",
              files: [{ mediaType: "image/png", url: "https://example.com/a.png" }],
            }),
          )
          expect(Either.isLeft(badFile) && badFile.left._tag).toBe("InvalidInboundMessage")
        }).pipe(Effect.provide(kernel(db, server, dataDir, recordingEndpoint(recorded))))
      }).pipe(Effect.scoped),
    60_000,
  )
})
