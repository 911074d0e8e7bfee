import { Threads as Module } from "@aide/kernel/threads"
import { Effect } from "effect"
import { describe, expect } from "../EffectVitest.js"
import type { contractIt } from "./ContractTest.js"
import { at, conversation, later, text } from "./ThreadsSupport.js"

const { Threads } = Module

/** The family list of `threadsContract`: order, summaries, pages and an exact total. */
export const threadsListContract = (it: ReturnType<typeof contractIt<Module.Threads>>) => {
  describe("list", () => {
    it.effect("lists root threads only, most recently updated family first", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "old", 2)
        yield* later
        yield* conversation(threads, "middle", 2)
        yield* later
        yield* conversation(threads, "new", 2)
        yield* later
        yield* threads.fork("old", "m2")
        const page = yield* threads.list({ page: 0, perPage: 10 })
        // The fork is the latest change, so the "old" family comes first; its branch is not a row.
        expect(page.threads.map((thread) => thread.id)).toEqual(["old", "new", "middle"])
        expect(page).toMatchObject({ total: 3, page: 0, perPage: 10, hasMore: false })
      }),
    )

    it.effect("summarises each family: root title and createdAt, latest update, active thread, all ids", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 4)
        yield* threads.setTitle("root", "Root title")
        yield* later
        const first = yield* threads.fork("root", "m3")
        yield* later
        const second = yield* threads.fork("root", "m2")
        yield* later
        yield* threads.saveMessage(first.thread.id, text("b1", "user", "continue the first branch"))

        const [summary] = (yield* threads.list({ page: 0, perPage: 10 })).threads
        expect(summary).toEqual({
          id: "root",
          title: "Root title",
          createdAt: at(0),
          updatedAt: at(3),
          activeThreadId: first.thread.id,
          threadIds: ["root", first.thread.id, second.thread.id],
        })

        yield* later
        yield* threads.saveMessage("root", text("m5", "user", "back on the root"))
        const [after] = (yield* threads.list({ page: 0, perPage: 10 })).threads
        expect(after).toMatchObject({ updatedAt: at(4), activeThreadId: "root" })
      }),
    )

    it.effect("a fresh fork is the family's active thread", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 2)
        yield* later
        const branch = yield* threads.fork("root", "m2")
        const [summary] = (yield* threads.list({ page: 0, perPage: 10 })).threads
        expect(summary).toMatchObject({ activeThreadId: branch.thread.id, updatedAt: at(1) })
      }),
    )

    it.effect("pages are 0-based; total counts roots; hasMore tells whether a next page exists", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        for (const id of ["t1", "t2", "t3", "t4", "t5"]) {
          yield* conversation(threads, id, 2)
          yield* threads.fork(id, "m2")
          yield* later
        }
        const ids = (page: { readonly threads: ReadonlyArray<{ readonly id: string }> }) =>
          page.threads.map((thread) => thread.id)

        const first = yield* threads.list({ page: 0, perPage: 2 })
        expect(ids(first)).toEqual(["t5", "t4"])
        expect(first).toMatchObject({ total: 5, page: 0, perPage: 2, hasMore: true })
        const second = yield* threads.list({ page: 1, perPage: 2 })
        expect(ids(second)).toEqual(["t3", "t2"])
        expect(second).toMatchObject({ total: 5, page: 1, hasMore: true })
        const last = yield* threads.list({ page: 2, perPage: 2 })
        expect(ids(last)).toEqual(["t1"])
        expect(last).toMatchObject({ total: 5, page: 2, hasMore: false })
        expect(last.threads[0]?.threadIds).toHaveLength(2)
        const beyond = yield* threads.list({ page: 7, perPage: 2 })
        expect(beyond).toMatchObject({ threads: [], total: 5, page: 7, hasMore: false })
        const exact = yield* threads.list({ page: 0, perPage: 5 })
        expect(exact).toMatchObject({ total: 5, hasMore: false })
        expect(ids(exact)).toEqual(["t5", "t4", "t3", "t2", "t1"])
      }),
    )

    it.effect("perPage false lists every root on page 0", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        for (const id of ["t1", "t2", "t3"]) {
          yield* threads.ensure(id)
          yield* later
        }
        const all = yield* threads.list({ page: 3, perPage: false })
        expect(all.threads.map((thread) => thread.id)).toEqual(["t3", "t2", "t1"])
        expect(all).toMatchObject({ total: 3, page: 0, perPage: false, hasMore: false })
      }),
    )

    it.effect("total stays exact through ensure, forks and deletes", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const total = Effect.map(threads.list({ page: 0, perPage: 1 }), (page) => page.total)
        yield* conversation(threads, "a", 2)
        yield* conversation(threads, "b", 2)
        yield* threads.ensure("a")
        expect(yield* total).toBe(2)
        const branch = yield* threads.fork("a", "m2")
        yield* threads.fork(branch.thread.id, "m1")
        expect(yield* total).toBe(2)
        yield* threads.delete(branch.thread.id)
        expect(yield* total).toBe(2)
        yield* threads.delete("a")
        expect(yield* total).toBe(1)
        yield* threads.ensure("c")
        expect(yield* total).toBe(2)
      }),
    )

    it.effect("an empty store lists nothing", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        expect(yield* threads.list({ page: 0, perPage: 20 })).toEqual({
          threads: [],
          total: 0,
          page: 0,
          perPage: 20,
          hasMore: false,
        })
      }),
    )
  })
}
