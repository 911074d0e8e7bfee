import { createRequire } from "node:module"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as AiSdkAgentStep from "../src/chat/AiSdkAgentStep.js"
import * as Chat from "../src/chat/Chat.js"
import * as SqlChatRuns from "../src/chat/SqlChatRuns.js"
import * as StreamHub from "../src/chat/StreamHub.js"
import { TitleGenerator } from "../src/chat/TitleGenerator.js"
import * as AppConfig from "../src/config/AppConfig.js"
import * as Ids from "../src/ids/Ids.js"
import * as Memory from "../src/memory/Memory.js"
import * as SqlObservationStore from "../src/memory/observational/SqlObservationStore.js"
import * as Recall from "../src/memory/recall/Recall.js"
import * as SqlRecallIndex from "../src/memory/recall/SqlRecallIndex.js"
import * as SqlMemoryStore from "../src/memory/SqlMemoryStore.js"
import * as SqlThreads from "../src/threads/SqlThreads.js"
import { type StoredMessage, Threads } from "../src/threads/Threads.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"
import * as Tools from "../src/tools/Tools.js"
import { answer, chunksOf, eventually, modelRegistry, scriptedModel, send, useModel } from "./support/chat.js"
import { tempSqliteStorageLayer } from "./support/files.js"

// What a chat costs in reads of the whole thread (issue 21): a new thread's run never reads it (its
// history is the message it saved; a continued thread's run reads it once), and titling
// and memory take the thread as the run saved it instead of reading it again.

/** Every `messages` read of the kernel's `Threads`, by thread. */
const reads: Array<string> = []
/** Every `tail` read: the thread and how many messages were asked for. */
const tails: Array<readonly [string, number]> = []
/** The messages the title generator was given, per call. */
const titled: Array<ReadonlyArray<StoredMessage>> = []

/**
 * Every SQL statement the process runs, by its text: better-sqlite3's statements, wrapped where
 * they execute (the SqlClient prepares each text once and runs it many times).
 */
const statements: Array<string> = []
// No @types package for better-sqlite3 in the workspace: the one call used here, typed.
const Database = createRequire(import.meta.url)("better-sqlite3") as new (
  filename: string,
) => { prepare(sql: string): object }
const statementPrototype = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1"))
const unwrapped = new Map<string, (...args: Array<unknown>) => unknown>()
for (const name of ["run", "get", "all", "iterate"]) {
  const original = statementPrototype[name] as (...args: Array<unknown>) => unknown
  unwrapped.set(name, original)
  statementPrototype[name] = function (this: { readonly source: string }, ...args: Array<unknown>) {
    statements.push(this.source)
    return original.apply(this, args)
  }
}
afterAll(() => {
  for (const [name, original] of unwrapped) statementPrototype[name] = original
})

/** A statement's first three words: enough to tell them apart. */
const firstWords = (statement: string) => statement.trim().split(/\s+/).slice(0, 3).join(" ")

const countingThreads = Layer.effect(
  Threads,
  Effect.map(SqlThreads.make, (threads) =>
    Threads.of({
      ...threads,
      messages: (id) =>
        Effect.zipRight(
          Effect.sync(() => void reads.push(id)),
          threads.messages(id),
        ),
      tail: (id, last) =>
        Effect.zipRight(
          Effect.sync(() => void tails.push([id, last])),
          threads.tail(id, last),
        ),
    }),
  ),
).pipe(Layer.provide(Ids.layer))

const recordingTitles = Layer.succeed(TitleGenerator, {
  generate: (messages) =>
    Effect.sync(() => {
      titled.push(messages)
      return Option.some("Capitals")
    }),
})

const kernel = Chat.layer({ maxRetries: 0 }).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      StreamHub.layerMemory({ retention: "60 seconds" }),
      recordingTitles,
      Ids.layer,
      Tools.layer.pipe(Layer.provide(ToolRegistry.layer)),
      AiSdkAgentStep.layer,
      SqlChatRuns.layer,
      Memory.layer().pipe(Layer.provide([SqlMemoryStore.layer, SqlObservationStore.layer, Ids.layer])),
      Recall.layer.pipe(Layer.provide(SqlRecallIndex.layer)),
    ),
  ),
  Layer.provideMerge(Layer.mergeAll(countingThreads, AppConfig.layerMemory.pipe(Layer.provideMerge(modelRegistry)))),
  Layer.provideMerge(tempSqliteStorageLayer),
)

describe("the reads of a chat", () => {
  it.effect(
    "a chat on a new thread never reads the thread back (the history is the message it saved; titling and memory get it with the answer); 8 statements before the model call",
    () =>
      Effect.gen(function* () {
        reads.length = 0
        titled.length = 0
        // The statements run before the model is called: what a chat pays before its first delta.
        let beforeModel: ReadonlyArray<string> = []
        const model = scriptedModel(answer("Paris."))
        const doStream = model.doStream.bind(model)
        model.doStream = (options) => {
          beforeModel = statements.slice()
          return doStream(options)
        }
        yield* useModel(model)
        statements.length = 0
        yield* chunksOf(yield* send("t1", "What is the capital of France?"))
        const threads = yield* Threads
        // The model's title comes in the background: once it is there, every after-turn task ran.
        yield* eventually(
          Effect.flatMap(threads.get("t1"), (thread) =>
            thread.title === "Capitals" ? Effect.void : Effect.fail("not titled yet"),
          ),
        )
        // Observational memory (on by default) counted both messages of the turn.
        const memory = yield* Memory.Memory
        yield* eventually(
          Effect.flatMap(memory.record("t1"), (view) =>
            (view.record?.pendingMessageTokens ?? 0) > 0 ? Effect.void : Effect.fail("not counted yet"),
          ),
        )
        // Working memory, the thread (named by the client: looked up, then created), the user's
        // message (one transaction: the thread's times, the message), the observation log (one read).
        expect(beforeModel.map(firstWords)).toEqual([
          "SELECT content, version,",
          "SELECT id, root_id",
          "INSERT INTO threads",
          "BEGIN",
          "UPDATE threads SET",
          "INSERT INTO messages",
          "COMMIT",
          "SELECT r.generation_count AS",
        ])
        expect(reads).toEqual([])
        expect(titled).toHaveLength(1)
        expect(titled[0]!.map((message) => message.role)).toEqual(["user", "assistant"])
        expect(titled[0]!.map((message) => message.id)).toEqual((yield* threads.messages("t1")).map((m) => m.id))
      }).pipe(Effect.provide(kernel)),
  )

  it.effect("a chat on a continued thread reads its newest messages once (Threads.tail), never the whole thread", () =>
    Effect.gen(function* () {
      yield* useModel(scriptedModel(answer("Paris.")))
      yield* chunksOf(yield* send("t2", "What is the capital of France?"))
      const threads = yield* Threads
      yield* eventually(
        Effect.flatMap(threads.get("t2"), (thread) =>
          thread.title === "Capitals" ? Effect.void : Effect.fail("not titled yet"),
        ),
      )
      reads.length = 0
      tails.length = 0
      yield* useModel(scriptedModel(answer("Lyon.")))
      yield* chunksOf(yield* send("t2", "And the second city?"))
      yield* eventually(
        Effect.flatMap(threads.detail("t2"), (detail) =>
          detail.messages.length === 4 ? Effect.void : Effect.fail("not saved yet"),
        ),
      )
      expect(tails).toEqual([["t2", 64]])
      expect(reads).toEqual([])
    }).pipe(Effect.provide(kernel)),
  )
})
