import { Threads as Module } from "@aide/kernel/threads"
import { Effect } from "effect"
import { describe, expect } from "../EffectVitest.js"
import type { contractIt } from "./ContractTest.js"
import { at, conversation, later, messageIds, rowCount, text } from "./ThreadsSupport.js"

const { Threads } = Module

/** The fork and delete half of `threadsContract` (one file per 300 lines). */
export const threadsBranchesContract = (it: ReturnType<typeof contractIt<Module.Threads>>) => {
  describe("fork", () => {
    it.effect("clones the messages before the fork message into a new branch of the same family", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 5)
        yield* later
        const { thread, clonedMessageCount } = yield* threads.fork("root", "m4")
        expect(clonedMessageCount).toBe(3)
        expect(thread).toEqual({
          id: expect.any(String),
          rootId: "root",
          parentId: "root",
          forkMessageId: "m4",
          forkPointIndex: 3,
          title: null,
          createdAt: at(1),
          updatedAt: at(1),
        })
        expect(thread.id).not.toBe("root")
        const source = yield* threads.messages("root")
        const cloned = yield* threads.messages(thread.id)
        expect(cloned).toEqual(source.slice(0, 3))
        expect(messageIds(source)).toEqual(["m1", "m2", "m3", "m4", "m5"])
        expect((yield* threads.get("root")).updatedAt).toEqual(at(0))
      }),
    )

    it.effect("forking at the first message makes an empty branch", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 2)
        const { thread, clonedMessageCount } = yield* threads.fork("root", "m1")
        expect([clonedMessageCount, thread.forkPointIndex]).toEqual([0, 0])
        expect(yield* threads.messages(thread.id)).toEqual([])
      }),
    )

    it.effect("a branch grows on its own: new messages append after the clones, the source is untouched", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 4)
        const { thread } = yield* threads.fork("root", "m3")
        yield* threads.saveMessage(thread.id, text("b1", "user", "another way"))
        yield* threads.saveMessage(thread.id, text("m1", "user", "edited in the branch only"))
        const branch = yield* threads.messages(thread.id)
        expect(messageIds(branch)).toEqual(["m1", "m2", "b1"])
        expect(branch[0]).toEqual(text("m1", "user", "edited in the branch only"))
        expect((yield* threads.messages("root"))[0]).toEqual(text("m1", "user", "message 1"))
        expect(messageIds(yield* threads.messages("root"))).toEqual(["m1", "m2", "m3", "m4"])
      }),
    )

    it.effect("fails with ThreadNotFound or MessageNotFound, creating nothing", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 2)
        yield* conversation(threads, "other", 3)
        expect(yield* Effect.flip(threads.fork("nope", "m1"))).toMatchObject({
          _tag: "ThreadNotFound",
          threadId: "nope",
        })
        expect(yield* Effect.flip(threads.fork("root", "missing"))).toMatchObject({
          _tag: "MessageNotFound",
          threadId: "root",
          messageId: "missing",
        })
        // m3 exists, but in another thread.
        expect(yield* Effect.flip(threads.fork("root", "m3"))).toMatchObject({ _tag: "MessageNotFound" })
        expect(yield* rowCount(threads, "threads")).toBe(2)
        expect(yield* rowCount(threads, "messages")).toBe(5)
      }),
    )

    it.effect("detail shows the branches made at each message and, in a branch, where it came from", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 4)
        const a = yield* threads.fork("root", "m3")
        yield* later
        const b = yield* threads.fork("root", "m3")
        yield* threads.setTitle(b.thread.id, "Second try")
        yield* later
        const c = yield* threads.fork("root", "m2")

        const root = yield* threads.detail("root")
        expect(root.thread).toEqual({ id: "root", title: null, createdAt: at(0), updatedAt: at(0) })
        expect(messageIds(root.messages)).toEqual(["m1", "m2", "m3", "m4"])
        expect(root.forkInfo).toBeNull()
        expect(root.forks).toStrictEqual({
          m3: [{ id: a.thread.id }, { id: b.thread.id, title: "Second try" }],
          m2: [{ id: c.thread.id }],
        })

        const branchA = yield* threads.detail(a.thread.id)
        expect(branchA.thread).toEqual({ id: a.thread.id, title: null, createdAt: at(0), updatedAt: at(0) })
        expect(messageIds(branchA.messages)).toEqual(["m1", "m2"])
        expect(branchA.forks).toStrictEqual({})
        expect(branchA.forkInfo).toStrictEqual({
          sourceThreadId: "root",
          forkPointIndex: 2,
          siblings: [{ id: b.thread.id, title: "Second try" }],
        })
        expect((yield* threads.detail(c.thread.id)).forkInfo).toStrictEqual({
          sourceThreadId: "root",
          forkPointIndex: 1,
          siblings: [],
        })
      }),
    )

    it.effect("a fork of a fork stays in the root's family and points at its own source", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 3)
        const branch = yield* threads.fork("root", "m3")
        yield* threads.saveMessage(branch.thread.id, text("b3", "user", "branch message"))
        yield* threads.saveMessage(branch.thread.id, text("b4", "assistant", "branch answer"))
        yield* later
        const nested = yield* threads.fork(branch.thread.id, "b4")

        expect(nested.clonedMessageCount).toBe(3)
        expect(nested.thread).toMatchObject({ rootId: "root", parentId: branch.thread.id, forkPointIndex: 3 })
        expect(messageIds(yield* threads.messages(nested.thread.id))).toEqual(["m1", "m2", "b3"])
        expect((yield* threads.detail(nested.thread.id)).forkInfo).toStrictEqual({
          sourceThreadId: branch.thread.id,
          forkPointIndex: 3,
          siblings: [],
        })
        expect((yield* threads.detail(branch.thread.id)).forks).toStrictEqual({ b4: [{ id: nested.thread.id }] })
        // Only direct branches show on the root.
        expect((yield* threads.detail("root")).forks).toStrictEqual({ m3: [{ id: branch.thread.id }] })
        const page = yield* threads.list({ page: 0, perPage: 10 })
        expect(page.total).toBe(1)
        expect(page.threads[0]).toMatchObject({
          id: "root",
          activeThreadId: nested.thread.id,
          threadIds: ["root", branch.thread.id, nested.thread.id],
        })
      }),
    )
  })

  describe("delete", () => {
    it.effect("deleting a root removes the whole family and every message", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 3)
        yield* conversation(threads, "kept", 2)
        const branch = yield* threads.fork("root", "m3")
        yield* threads.fork(branch.thread.id, "m2")
        yield* threads.delete("root")
        expect(yield* rowCount(threads, "threads")).toBe(1)
        expect(yield* rowCount(threads, "messages")).toBe(2)
        expect(yield* Effect.flip(threads.get(branch.thread.id))).toMatchObject({ _tag: "ThreadNotFound" })
        expect((yield* threads.list({ page: 0, perPage: 10 })).threads.map((thread) => thread.id)).toEqual(["kept"])
      }),
    )

    it.effect("deleting a branch removes it and its own branches, recursively, and nothing else", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* conversation(threads, "root", 3)
        const keep = yield* threads.fork("root", "m3")
        const doomed = yield* threads.fork("root", "m3")
        yield* threads.saveMessage(doomed.thread.id, text("d1", "user", "doomed"))
        const child = yield* threads.fork(doomed.thread.id, "d1")
        const grandchild = yield* threads.fork(child.thread.id, "m2")
        yield* later
        yield* threads.saveMessage(grandchild.thread.id, text("g1", "user", "latest change"))
        expect((yield* threads.list({ page: 0, perPage: 10 })).threads[0]?.updatedAt).toEqual(at(1))

        yield* threads.delete(doomed.thread.id)

        for (const id of [doomed.thread.id, child.thread.id, grandchild.thread.id]) {
          expect(yield* Effect.flip(threads.get(id))).toMatchObject({ _tag: "ThreadNotFound" })
        }
        // root (3) + keep (2 clones)
        expect(yield* rowCount(threads, "messages")).toBe(5)
        expect((yield* threads.detail("root")).forks).toStrictEqual({ m3: [{ id: keep.thread.id }] })
        expect((yield* threads.detail(keep.thread.id)).forkInfo?.siblings).toEqual([])
        // The family's time is that of what is left.
        expect((yield* threads.list({ page: 0, perPage: 10 })).threads[0]).toMatchObject({
          updatedAt: at(0),
          threadIds: ["root", keep.thread.id],
        })
      }),
    )

    it.effect("fails with ThreadNotFound for an unknown thread", () =>
      Effect.gen(function* () {
        const threads = yield* Threads
        expect(yield* Effect.flip(threads.delete("nope"))).toMatchObject({ _tag: "ThreadNotFound", threadId: "nope" })
      }),
    )
  })
}
