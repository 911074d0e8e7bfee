import { ChatRuns as Module } from "@aide/kernel/storage"
import { Effect, Exit, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { ChatRuns } = Module

let runCounter = 0

/** A thread with a run paused on `calls` (tool call ids). */
const paused = (...calls: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const runs = yield* ChatRuns
    const n = ++runCounter
    const threadId = `thread-${n}`
    const runId = `run-${n}`
    yield* runs.suspend({
      runId,
      threadId,
      messageId: `message-${n}`,
      calls: calls.map((toolCallId) => ({ toolCallId, approvalId: `approval-${toolCallId}`, toolName: "probe_tool" })),
    })
    return { runs, threadId, runId }
  })

const failureTag = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error._tag : undefined

/**
 * The contract of `ChatRuns`: decisions final and race-free, one resume, supersede, and
 * `atomically` rolling back. Run it on your store's Layer (a fresh store per test).
 *
 * @example
 * chatRunsContract("MyChatRuns", MyChatRuns.layer)
 */
export const chatRunsContract = (name: string, store: Layer.Layer<Module.ChatRuns, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)
    it.effect("a suspended run keeps its calls, undecided, in order", () =>
      Effect.gen(function* () {
        const { runs, runId, threadId } = yield* paused("b", "a")
        const run = Option.getOrThrow(yield* runs.get(runId))
        expect(run).toMatchObject({ runId, threadId, status: "suspended" })
        expect(run.calls.map((call) => [call.toolCallId, call.approved])).toEqual([
          ["b", null],
          ["a", null],
        ])
        expect((yield* runs.suspendedIn(threadId)).map((suspended) => suspended.runId)).toEqual([runId])
        expect(Option.isNone(yield* runs.get("missing"))).toBe(true)
      }),
    )

    it.effect("a decision is final: the same one again is accepted, another one is a conflict", () =>
      Effect.gen(function* () {
        const { runs, runId } = yield* paused("a", "b")
        const decided = yield* runs.decide(runId, "a", true)
        expect(decided.calls.map((call) => call.approved)).toEqual([true, null])
        expect((yield* runs.decide(runId, "a", true)).calls[0]?.approved).toBe(true)
        expect(failureTag(yield* Effect.exit(runs.decide(runId, "a", false)))).toBe("ToolCallDecided")
        expect(failureTag(yield* Effect.exit(runs.decide(runId, "zzz", false)))).toBe("ToolCallNotFound")
        expect(failureTag(yield* Effect.exit(runs.decide("nope", "a", false)))).toBe("RunNotFound")
      }),
    )

    it.effect("without a tool call id, every undecided call takes the decision", () =>
      Effect.gen(function* () {
        const { runs, runId } = yield* paused("a", "b", "c")
        yield* runs.decide(runId, "b", true)
        const decided = yield* runs.decide(runId, undefined, false)
        expect(decided.calls.map((call) => call.approved)).toEqual([false, true, false])
      }),
    )

    it.effect("a run resumes once, and only when every call is decided, however many try at once", () =>
      Effect.gen(function* () {
        const { runs, runId } = yield* paused("a", "b")
        yield* runs.decide(runId, "a", true)
        expect(yield* runs.claimResume(runId)).toBe(false)
        yield* runs.decide(runId, "b", true)
        const claims = yield* Effect.all(
          Array.from({ length: 8 }, () => runs.claimResume(runId)),
          { concurrency: "unbounded" },
        )
        expect(claims.filter(Boolean)).toHaveLength(1)
        expect(failureTag(yield* Effect.exit(runs.decide(runId, "a", true)))).toBe("RunNotPending")
        expect(Option.getOrThrow(yield* runs.get(runId)).status).toBe("resumed")
      }),
    )

    it.effect("concurrent opposite decisions on one call: exactly one wins", () =>
      Effect.gen(function* () {
        const { runs, runId } = yield* paused("a")
        const exits = yield* Effect.all(
          [true, false, true, false].map((approved) => Effect.exit(runs.decide(runId, "a", approved))),
          { concurrency: "unbounded" },
        )
        const final = Option.getOrThrow(yield* runs.get(runId)).calls[0]?.approved
        for (const [index, exit] of exits.entries()) {
          const approved = index % 2 === 0
          expect(Exit.isSuccess(exit)).toBe(approved === final)
        }
      }),
    )

    it.effect("superseding denies what is undecided and ends the run", () =>
      Effect.gen(function* () {
        const { runs, runId, threadId } = yield* paused("a", "b")
        yield* runs.decide(runId, "a", true)
        yield* runs.supersede(runId)
        const run = Option.getOrThrow(yield* runs.get(runId))
        expect(run.status).toBe("superseded")
        expect(run.calls.map((call) => call.approved)).toEqual([true, false])
        expect(yield* runs.suspendedIn(threadId)).toEqual([])
        expect(yield* runs.claimResume(runId)).toBe(false)
      }),
    )

    it.effect("atomically: a failure rolls back every write", () =>
      Effect.gen(function* () {
        const runs = yield* ChatRuns
        const exit = yield* Effect.exit(
          runs.atomically(
            Effect.zipRight(
              runs.suspend({ runId: "atomic-run", threadId: "atomic-thread", messageId: "m", calls: [] }),
              Effect.fail("boom" as const),
            ),
          ),
        )
        expect(Exit.isFailure(exit)).toBe(true)
        expect(Option.isNone(yield* runs.get("atomic-run"))).toBe(true)
      }),
    )
  })
