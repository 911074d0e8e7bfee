import { bothDialects } from "@aide/testing/effect"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { ChatRuns } from "../src/chat/ChatRuns.js"
import * as MemoryChatRuns from "../src/chat/MemoryChatRuns.js"
import * as SqlChatRuns from "../src/chat/SqlChatRuns.js"
import * as PushHooks from "../src/push/PushHooks.js"
import { type PushPayload, WebPush } from "../src/push/WebPush.js"

/** A `WebPush` that records what it was asked to push. */
const pushed: Array<PushPayload> = []
const recordingPush = Layer.succeed(
  WebPush,
  WebPush.of({
    publicKey: Effect.succeed("unused"),
    subscribe: () => Effect.void,
    unsubscribe: () => Effect.succeed(false),
    notify: () => Effect.die("the hook pushes in the background only"),
    notifyLater: (payload) => Effect.sync(() => void pushed.push(payload)),
  }),
)

const suspend = (runId: string, ...tools: ReadonlyArray<string>) =>
  Effect.flatMap(ChatRuns, (runs) =>
    runs.suspend({
      runId,
      threadId: `thread of ${runId}`,
      messageId: `message-${runId}`,
      calls: tools.map((toolName, i) => ({ toolCallId: `${runId}-${i}`, approvalId: `a-${runId}-${i}`, toolName })),
    }),
  )

const approvalPushes = <E, R>(store: Layer.Layer<ChatRuns, E, R>) =>
  PushHooks.chatRuns.pipe(Layer.provide(recordingPush), Layer.provideMerge(store))

const rules = (it: { readonly effect: (name: string, test: () => Effect.Effect<void, unknown, ChatRuns>) => void }) => {
  it.effect("a run suspended on its own is pushed once its write is done, naming the tools only", () =>
    Effect.gen(function* () {
      pushed.length = 0
      yield* suspend("run-alone", "probe_delete_file", "probe_delete_file", "probe_send")
      expect(pushed).toEqual([
        {
          title: "3 approvals waiting",
          body: "Allow probe_delete_file, probe_send?",
          url: "/app/chat/thread%20of%20run-alone",
        },
      ])
    }),
  )

  it.effect("inside atomically the push waits for the commit: none while the transaction is open", () =>
    Effect.gen(function* () {
      pushed.length = 0
      const runs = yield* ChatRuns
      const seenInside = yield* runs.atomically(
        Effect.gen(function* () {
          yield* suspend("run-committed", "probe_tool")
          // Nested transactions are the outer one's: still nothing sent.
          yield* runs.atomically(suspend("run-nested", "probe_other"))
          return pushed.length
        }),
      )
      expect(seenInside).toBe(0)
      expect(pushed.map((payload) => payload.body)).toEqual(["Allow probe_tool?", "Allow probe_other?"])
      expect(Option.isSome(yield* runs.get("run-committed"))).toBe(true)
    }),
  )

  it.effect("a transaction rolled back pushes nothing: its run is not there to approve", () =>
    Effect.gen(function* () {
      pushed.length = 0
      const runs = yield* ChatRuns
      const failed = yield* runs
        .atomically(Effect.zipRight(suspend("run-rolled-back", "probe_tool"), Effect.fail("saving the answer failed")))
        .pipe(Effect.flip)
      expect(failed).toBe("saving the answer failed")
      expect(Option.isNone(yield* runs.get("run-rolled-back"))).toBe(true)
      expect(pushed).toEqual([])
      // The next transaction starts with nothing held.
      yield* runs.atomically(suspend("run-after", "probe_tool"))
      expect(pushed).toHaveLength(1)
    }),
  )
}

bothDialects("approval pushes over SqlChatRuns", approvalPushes(SqlChatRuns.layer), rules)
layer(approvalPushes(MemoryChatRuns.layer))("approval pushes over MemoryChatRuns", rules)
