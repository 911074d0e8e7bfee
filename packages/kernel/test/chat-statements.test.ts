import { Statement } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as AiSdkAgentStep from "../src/chat/AiSdkAgentStep.js"
import * as Chat from "../src/chat/Chat.js"
import { TitleGenerator } from "../src/chat/TitleGenerator.js"
import * as Memory from "../src/memory/Memory.js"
import { Threads } from "../src/threads/Threads.js"
import { answer, chatKernel, chunksOf, scriptedModel, useModel } from "./support/chat.js"
import { tempSqliteStorageLayer } from "./support/files.js"
import { freshStorageLayer, postgresAvailable } from "./support/postgres.js"

// What a chat turn costs in SQL statements (issue 38): counted through @effect/sql's public
// statement transformer, so the count is the same on every dialect. Transactions' BEGIN and
// COMMIT are not statements of the SqlClient and are not counted here. The bounds are today's
// counts: a change that adds a read or a write to every turn fails here first. What they are
// (bench/README.md, 2026-11-29 "a chat against its floor"): working memory, the thread (a new one
// inserted, a named one read), the suspended runs of a continued thread, its newest messages,
// the observation log (record and chunks in one read), each message (the thread's times and the
// message: two statements in a transaction), the title (a read and the fallback; the model's
// title on a new thread), memory's ledger (the record, the counted ids, one insert, the pending sum).

/** Every statement the SqlClient runs, by its text. */
const statements: Array<string> = []
const counting = Statement.setTransformer((statement) =>
  Effect.sync(() => {
    statements.push(statement.compile()[0])
    return statement
  }),
)

/** The titles the generator was asked for (no model call: the count is the kernel's own). */
let titled = 0
const titles = Layer.succeed(TitleGenerator, {
  generate: () =>
    Effect.sync(() => {
      titled++
      return Option.some("Capitals")
    }),
})

const kernel = (storage: typeof tempSqliteStorageLayer) =>
  chatKernel({}, AiSdkAgentStep.layer, { titles, storage }).pipe(Layer.provideMerge(counting))

const sleep = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

/**
 * The statements of one turn, after-turn work included (titling, memory's ledger): collected
 * until none came for 300 ms of real time — no read of the test's own may count.
 */
const turn = (threadId: string | undefined, text: string, reply: string) =>
  Effect.gen(function* () {
    yield* useModel(scriptedModel(answer(reply)))
    statements.length = 0
    const chat = yield* Chat.Chat
    const run = yield* chat.send({ ...(threadId === undefined ? {} : { threadId }), parts: [{ type: "text", text }] })
    yield* chunksOf(run)
    let seen = -1
    while (seen !== statements.length) {
      seen = statements.length
      yield* sleep(300)
    }
    return { threadId: run.threadId, statements: statements.slice() }
  })

const suite = (storage: typeof tempSqliteStorageLayer) => {
  it.live(
    "a chat turn runs at most 14 statements on a new thread and 13 on a continued one, after-turn work included (20 and 22 before)",
    () =>
      Effect.gen(function* () {
        // A first turn ever creates memory's record: the turns measured are the usual ones.
        yield* turn(undefined, "Hello", "Hi.")
        titled = 0
        const first = yield* turn(undefined, "What is the capital of France?", "Paris.")
        const second = yield* turn(first.threadId, "And the second city?", "Lyon.")

        // What the turns did is all there: both messages each, the title, memory's count.
        const threads = yield* Threads
        expect((yield* threads.messages(first.threadId)).map((message) => message.role)).toEqual([
          "user",
          "assistant",
          "user",
          "assistant",
        ])
        expect((yield* threads.get(first.threadId)).title).toBe("Capitals")
        expect(titled).toBe(1)
        const memory = yield* Memory.Memory
        expect((yield* memory.record(first.threadId)).record?.pendingMessageTokens ?? 0).toBeGreaterThan(0)

        expect(first.statements.length, first.statements.join("\n")).toBeLessThanOrEqual(14)
        expect(second.statements.length, second.statements.join("\n")).toBeLessThanOrEqual(13)
      }).pipe(Effect.provide(kernel(storage))),
    60_000,
  )
}

describe("the statements of a chat turn", () => {
  describe("SQLite", () => suite(tempSqliteStorageLayer))
  describe.runIf(postgresAvailable)("PostgreSQL", () => suite(freshStorageLayer))
})
