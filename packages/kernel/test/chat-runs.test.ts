import { bothDialects, chatRunsContract, onSqlDialects } from "@aide/testing/effect"
import { expect } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { ChatRuns } from "../src/chat/ChatRuns.js"
import * as MemoryChatRuns from "../src/chat/MemoryChatRuns.js"
import * as SqlChatRuns from "../src/chat/SqlChatRuns.js"
import * as Ids from "../src/ids/Ids.js"
import * as SqlThreads from "../src/threads/SqlThreads.js"
import { Threads } from "../src/threads/Threads.js"

// The contract every ChatRuns store keeps (exported by @aide/testing for third parties).
onSqlDialects(chatRunsContract, "SqlChatRuns", SqlChatRuns.layer)
chatRunsContract("MemoryChatRuns", MemoryChatRuns.layer)

const paused = (...calls: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const runs = yield* ChatRuns
    yield* (yield* Threads).ensure("thread-1")
    yield* runs.suspend({
      runId: "run-1",
      threadId: "thread-1",
      messageId: "message-1",
      calls: calls.map((toolCallId) => ({ toolCallId, approvalId: `approval-${toolCallId}`, toolName: "probe_tool" })),
    })
    return { runs, threadId: "thread-1", runId: "run-1" }
  })

// SQL only: with threads in the same database, a trigger deletes a thread's runs with it.
bothDialects(
  "SqlChatRuns with SqlThreads",
  Layer.mergeAll(SqlChatRuns.layer, SqlThreads.layer.pipe(Layer.provide(Ids.layer))),
  (it) => {
    it.effect("deleting the thread deletes its runs", () =>
      Effect.gen(function* () {
        const { runs, runId, threadId } = yield* paused("a")
        yield* (yield* Threads).delete(threadId)
        expect(Option.isNone(yield* runs.get(runId))).toBe(true)
      }),
    )
  },
)
