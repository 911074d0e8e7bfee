import { RunLedger as Module } from "@aide/kernel/storage"
import { Effect, type Layer } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { RunLedger } = Module

const base = Date.parse("2030-01-01T00:00:00.000Z")
/** Epoch ms `minutes` after a fixed instant. */
const at = (minutes: number) => base + minutes * 60_000

const tenMinutes = 10 * 60_000

const claimOf = (taskId: string, dueAt: number, overrides: Partial<Module.ClaimRequest> = {}): Module.ClaimRequest => ({
  taskId,
  dueAt,
  status: "running",
  owner: "scheduler-a",
  now: dueAt,
  ...overrides,
})

/**
 * The contract of `RunLedger`: claims decided once, cursors, outcomes, stale and old runs. Run
 * it on your ledger's Layer (a fresh ledger per test).
 *
 * @example
 * runLedgerContract("MyLedger", MyLedger.layer)
 */
export const runLedgerContract = (name: string, store: Layer.Layer<Module.RunLedger, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)
    describe("claim", () => {
      it.effect("a due time is won once: a second claim, even by another scheduler, changes nothing", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          expect(yield* ledger.claim(claimOf("task", at(1)))).toEqual({ claimed: true, runCount: 1 })
          expect(yield* ledger.claim(claimOf("task", at(1), { owner: "scheduler-b", now: at(2) }))).toEqual({
            claimed: false,
          })
          expect(yield* ledger.runs("task")).toEqual([
            { dueAt: at(1), status: "running", error: null, inboxMessageId: null },
          ])
          expect((yield* ledger.states).get("task")).toEqual({ runCount: 1, cursor: at(1) })
        }),
      )

      it.effect("of concurrent claims of one due time exactly one wins", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          const results = yield* Effect.all(
            Array.from({ length: 8 }, (_, n) => ledger.claim(claimOf("task", at(1), { owner: `scheduler-${n}` }))),
            { concurrency: "unbounded" },
          )
          expect(results.filter((result) => result.claimed)).toEqual([{ claimed: true, runCount: 1 }])
          expect((yield* ledger.states).get("task")?.runCount).toBe(1)
        }),
      )

      it.effect("each due time counts one run; a skipped one moves the cursor but does not count", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          expect(yield* ledger.claim(claimOf("task", at(1)))).toEqual({ claimed: true, runCount: 1 })
          expect(yield* ledger.claim(claimOf("task", at(2), { status: "skipped" }))).toEqual({
            claimed: true,
            runCount: 1,
          })
          expect(yield* ledger.claim(claimOf("task", at(3)))).toEqual({ claimed: true, runCount: 2 })
          expect((yield* ledger.states).get("task")).toEqual({ runCount: 2, cursor: at(3) })
          expect((yield* ledger.runs("task")).map((run) => [run.dueAt, run.status])).toEqual([
            [at(3), "running"],
            [at(2), "skipped"],
            [at(1), "running"],
          ])
        }),
      )

      it.effect("an earlier due time claimed late never moves the cursor back", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          yield* ledger.claim(claimOf("task", at(5)))
          expect(yield* ledger.claim(claimOf("task", at(3)))).toEqual({ claimed: true, runCount: 2 })
          expect((yield* ledger.states).get("task")).toEqual({ runCount: 2, cursor: at(5) })
        }),
      )
    })

    describe("states and cursors", () => {
      it.effect("ensureState starts a task at its cursor once; moveCursor moves it, keeping the run count", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          expect((yield* ledger.states).size).toBe(0)
          yield* ledger.ensureState("task", at(1))
          yield* ledger.ensureState("task", at(9))
          expect((yield* ledger.states).get("task")).toEqual({ runCount: 0, cursor: at(1) })
          yield* ledger.claim(claimOf("task", at(2)))
          yield* ledger.moveCursor("task", at(1))
          expect((yield* ledger.states).get("task")).toEqual({ runCount: 1, cursor: at(1) })
          // A task without state gets one.
          yield* ledger.moveCursor("other", at(4))
          expect((yield* ledger.states).get("other")).toEqual({ runCount: 0, cursor: at(4) })
        }),
      )

      it.effect("forgetTask drops the state, not the task's ledger", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          yield* ledger.claim(claimOf("task", at(1)))
          yield* ledger.ensureState("kept", at(1))
          yield* ledger.forgetTask("task")
          expect([...(yield* ledger.states).keys()]).toEqual(["kept"])
          expect(yield* ledger.runs("task")).toHaveLength(1)
        }),
      )
    })

    describe("finish", () => {
      it.effect("records the outcome of the claimed due time only", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          yield* ledger.claim(claimOf("task", at(1)))
          yield* ledger.claim(claimOf("task", at(2)))
          yield* ledger.finish("task", at(1), { status: "succeeded", inboxMessageId: "message-1" }, at(1.5))
          yield* ledger.finish("task", at(2), { status: "failed", error: "the model was down" }, at(2.5))
          expect(yield* ledger.runs("task")).toEqual([
            { dueAt: at(2), status: "failed", error: "the model was down", inboxMessageId: null },
            { dueAt: at(1), status: "succeeded", error: null, inboxMessageId: "message-1" },
          ])
        }),
      )
    })

    describe("running, abandoned and old runs", () => {
      it.effect("runningTaskIds lists tasks with an unfinished run younger than the stale limit", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          yield* ledger.claim(claimOf("fresh", at(20)))
          yield* ledger.claim(claimOf("stale", at(10)))
          yield* ledger.claim(claimOf("done", at(20)))
          yield* ledger.finish("done", at(20), { status: "succeeded" }, at(21))
          expect([...(yield* ledger.runningTaskIds(at(25), tenMinutes))].sort()).toEqual(["fresh"])
          expect([...(yield* ledger.runningTaskIds(at(25), 20 * 60_000))].sort()).toEqual(["fresh", "stale"])
        }),
      )

      it.effect("failAbandoned fails runs left running past the stale limit, and nothing else", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          yield* ledger.claim(claimOf("stale", at(10)))
          yield* ledger.claim(claimOf("fresh", at(20)))
          yield* ledger.failAbandoned(at(20), tenMinutes)
          expect(yield* ledger.runs("stale")).toEqual([
            { dueAt: at(10), status: "failed", error: "abandoned (the process stopped)", inboxMessageId: null },
          ])
          expect((yield* ledger.runs("fresh"))[0]?.status).toBe("running")
          expect([...(yield* ledger.runningTaskIds(at(20), tenMinutes))]).toEqual(["fresh"])
        }),
      )

      it.effect("pruneFinished drops finished runs older than the retention, never a running one", () =>
        Effect.gen(function* () {
          const ledger = yield* RunLedger
          yield* ledger.claim(claimOf("task", at(1)))
          yield* ledger.finish("task", at(1), { status: "succeeded" }, at(1))
          yield* ledger.claim(claimOf("task", at(2)))
          yield* ledger.claim(claimOf("task", at(50)))
          yield* ledger.finish("task", at(50), { status: "succeeded" }, at(50))
          yield* ledger.pruneFinished(at(60), 30 * 60_000)
          expect((yield* ledger.runs("task")).map((run) => [run.dueAt, run.status])).toEqual([
            [at(50), "succeeded"],
            [at(2), "running"],
          ])
        }),
      )
    })
  })
