import { FakeModelServer } from "@aide/testing"
import { tempDirectory, testKernel } from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Stream } from "effect"
import { Chat } from "../../src/chat/Chat.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import * as ModelRegistry from "../../src/models/ModelRegistry.js"

/** The fake model server of a suite: chats and embeddings go to it over HTTP. */
export class FakeModel extends Context.Tag("test/recall/FakeModel")<FakeModel, FakeModelServer>() {}

const fakeModel = Layer.scoped(
  FakeModel,
  Effect.acquireRelease(
    Effect.promise(() => FakeModelServer.start()),
    (server) => Effect.promise(() => server.close()),
  ),
)

/**
 * The default kernel on the suite's database (SQLite or PostgreSQL), with the real provider
 * catalogue pointed at the fake model server as `openai-compatible`.
 */
export const recallKernel = Layer.unwrapScoped(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const server = yield* FakeModel
    return testKernel({
      dataDir: yield* tempDirectory,
      storage: Layer.succeed(SqlClient.SqlClient, sql),
      modelRegistry: ModelRegistry.layer({ env: { OPENAI_COMPATIBLE_BASE_URL: server.url } }),
    })
  }),
).pipe(Layer.provideMerge(fakeModel))

/** Sets the operator model to the fake and recall to `semanticRecall` (merged; `null` deletes a key). */
export const configure = (semanticRecall: Record<string, unknown>, memory: Record<string, unknown> = {}) =>
  Effect.flatMap(AppConfig, (config) =>
    config.patch({
      models: { operator: { provider: "openai-compatible", model: "fake-model" } },
      memory: { enabled: true, ...memory, semanticRecall },
    }),
  )

/** Sends `text` in `threadId` and waits for the run to end (the answer committed). */
export const tell = (threadId: string, text: string) =>
  Effect.flatMap(Chat, (chat) => chat.send({ threadId, parts: [{ type: "text", text }] })).pipe(
    Effect.flatMap((run) => Stream.runDrain(run.events)),
  )

/** The recalled section of the system prompt of the last chat request, or null. */
export const lastRecalled = Effect.map(FakeModel, (server) => {
  const system = server.requests.at(-1)?.body.messages.find((message) => message.role === "system")
  const content = typeof system?.content === "string" ? system.content : ""
  return /<recalled_messages>\n([\s\S]*)\n<\/recalled_messages>/.exec(content)?.[1] ?? null
})

/** Sends `text` in `threadId`, returns what recall put in that request. */
export const ask = (threadId: string, text: string) => Effect.zipRight(tell(threadId, text), lastRecalled)

let counter = 0
/** A fresh thread id: the suite's tests share one database. */
export const threadId = (name: string) => `${name}-${++counter}-${Math.random().toString(36).slice(2, 8)}`
