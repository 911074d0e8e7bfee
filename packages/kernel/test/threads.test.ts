import { SqlClient } from "@effect/sql"
import { describe, expect, layer, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
import * as Ids from "../src/ids/Ids.js"
import * as MemoryThreads from "../src/threads/MemoryThreads.js"
import * as SqlThreads from "../src/threads/SqlThreads.js"
import { type StoredMessage, Threads } from "../src/threads/Threads.js"
import { tempSqliteStorageLayer } from "./support/files.js"
import { freshStorageLayer, postgresAvailable } from "./support/postgres.js"

/** What the suite needs of an implementation besides `Threads`: a fresh start, and its size. */
class Fixture extends Context.Tag("test/ThreadsFixture")<
  Fixture,
  {
    /** Empty threads at time 0 (the suite's tests share one TestClock and one database). */
    readonly reset: Effect.Effect<Threads["Type"], unknown>
    readonly rowCount: (table: "threads" | "messages") => Effect.Effect<number, unknown>
  }
>() {}

const reset = Effect.flatMap(Fixture, (fixture) => fixture.reset)
const rowCount = (table: "threads" | "messages") => Effect.flatMap(Fixture, (fixture) => fixture.rowCount(table))

const sqlFixture = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const threads = yield* Threads
    return {
      reset: Effect.gen(function* () {
        yield* sql`DELETE FROM messages`
        yield* sql`DELETE FROM threads`
        yield* TestClock.setTime(0)
        return threads
      }),
      rowCount: (table) =>
        sql<{ readonly count: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS "count" FROM ${sql(table)}`.pipe(
          Effect.map((rows) => Number(rows[0]?.count)),
        ),
    }
  }),
)

/** A new `MemoryThreads` per test; its size read through the public interface only. */
const memoryFixture = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const ids = yield* Ids.Ids
    let current: Threads["Type"] | undefined
    const everyThread = (threads: Threads["Type"]) =>
      Effect.map(threads.list({ page: 0, perPage: false }), (page) =>
        page.threads.flatMap((family) => family.threadIds),
      )
    return {
      reset: Effect.gen(function* () {
        yield* TestClock.setTime(0)
        current = yield* Effect.provideService(MemoryThreads.make, Ids.Ids, ids)
        return current
      }),
      rowCount: (table) =>
        Effect.gen(function* () {
          const threads = current!
          const all = yield* everyThread(threads)
          if (table === "threads") return all.length
          let messages = 0
          for (const id of all) messages += (yield* threads.messages(id)).length
          return messages
        }),
    }
  }),
)

/** The test clock starts at 1970-01-01T00:00:00Z; each `later` is one second on. */
const later = TestClock.adjust("1 second")
const at = (seconds: number) => new Date(seconds * 1000)

const text = (id: string, role: StoredMessage["role"], body: string): StoredMessage => ({
  id,
  role,
  parts: [{ type: "text", text: body }],
})

/** A root thread with messages m1…mN, alternating user and assistant. */
const conversation = (threads: Threads["Type"], id: string, count: number) =>
  Effect.gen(function* () {
    yield* threads.ensure(id)
    for (let n = 1; n <= count; n++) {
      yield* threads.saveMessage(id, text(`m${n}`, n % 2 === 1 ? "user" : "assistant", `message ${n}`))
    }
    return id
  })

const messageIds = (messages: ReadonlyArray<StoredMessage>) => messages.map((message) => message.id)

const suite = (it: Vitest.MethodsNonLive<Fixture>) => {
  describe("ensure", () => {
    it.effect("creates an empty root thread the first time and returns it unchanged afterwards", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        yield* later
        const first = yield* threads.ensure("t1")
        expect(first).toEqual({
          created: true,
          thread: {
            id: "t1",
            rootId: "t1",
            parentId: null,
            forkMessageId: null,
            forkPointIndex: null,
            title: null,
            createdAt: at(1),
            updatedAt: at(1),
          },
        })
        yield* later
        const second = yield* threads.ensure("t1")
        expect(second).toEqual({ created: false, thread: first.thread })
        expect(yield* threads.messages("t1")).toEqual([])
        expect(yield* threads.get("t1")).toEqual(first.thread)
      }),
    )

    it.effect("get, messages and detail of an unknown thread fail with ThreadNotFound", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        const notFound = { _tag: "ThreadNotFound", threadId: "nope" }
        expect(yield* Effect.flip(threads.get("nope"))).toMatchObject(notFound)
        expect(yield* Effect.flip(threads.messages("nope"))).toMatchObject(notFound)
        expect(yield* Effect.flip(threads.detail("nope"))).toMatchObject(notFound)
      }),
    )
  })

  describe("saveMessage", () => {
    it.effect("appends new messages at the end, in the order they are saved", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        yield* conversation(threads, "t1", 3)
        yield* threads.saveMessage("t1", text("z-last", "user", "fourth"))
        yield* threads.saveMessage("t1", text("a-first-alphabetically", "assistant", "fifth"))
        expect(messageIds(yield* threads.messages("t1"))).toEqual([
          "m1",
          "m2",
          "m3",
          "z-last",
          "a-first-alphabetically",
        ])
      }),
    )

    it.effect("replaces a message with the same id in place, keeping its position", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        yield* conversation(threads, "t1", 3)
        const grown: StoredMessage = {
          id: "m2",
          role: "assistant",
          parts: [
            { type: "text", text: "message 2, grown" },
            { type: "reasoning", text: "thinking" },
          ],
          metadata: { model: "fake" },
        }
        yield* threads.saveMessage("t1", grown)
        const messages = yield* threads.messages("t1")
        expect(messageIds(messages)).toEqual(["m1", "m2", "m3"])
        expect(messages[1]).toEqual(grown)
        yield* threads.saveMessage("t1", text("m4", "user", "after the replacement"))
        expect(messageIds(yield* threads.messages("t1"))).toEqual(["m1", "m2", "m3", "m4"])
      }),
    )

    it.effect("raises the thread's updatedAt", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        yield* threads.ensure("t1")
        yield* later
        yield* threads.saveMessage("t1", text("m1", "user", "hi"))
        expect((yield* threads.get("t1")).updatedAt).toEqual(at(1))
        expect((yield* threads.get("t1")).createdAt).toEqual(at(0))
      }),
    )

    it.effect("fails with ThreadNotFound for an unknown thread and stores nothing", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        const error = yield* Effect.flip(threads.saveMessage("nope", text("m1", "user", "hi")))
        expect(error).toMatchObject({ _tag: "ThreadNotFound", threadId: "nope" })
        expect(yield* rowCount("messages")).toBe(0)
      }),
    )

    it.effect("round-trips arbitrary UI message parts and metadata unchanged", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        yield* threads.ensure("t1")
        const parts = [
          { type: "step-start" },
          { type: "text", text: 'Unicode: ça va? 你好 👋 "quotes" \\ backslash\nnew line', state: "done" },
          { type: "reasoning", text: "", providerMetadata: { anthropic: { signature: "abc" } } },
          {
            type: "tool-weather",
            toolCallId: "call-1",
            state: "output-available",
            input: { city: "Paris", days: 3, metric: true, extra: null },
            output: { forecast: [1.5, -2, 0, 1e21], nested: { deep: [[], {}, [null]] } },
          },
          { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=", filename: "a.png" },
          { type: "source-url", sourceId: "s1", url: "https://example.com/?q=1&r=2" },
          { type: "data-custom", id: "d1", data: { anything: ["goes", 1, false] } },
        ]
        const withMetadata: StoredMessage = { id: "a1", role: "assistant", parts, metadata: { usage: { tokens: 42 } } }
        const nullMetadata: StoredMessage = { id: "a2", role: "assistant", parts: [], metadata: null }
        const system: StoredMessage = { id: "s1", role: "system", parts: [{ type: "text", text: "be brief" }] }
        yield* threads.saveMessage("t1", withMetadata)
        yield* threads.saveMessage("t1", nullMetadata)
        yield* threads.saveMessage("t1", system)
        const messages = yield* threads.messages("t1")
        expect(messages).toStrictEqual([withMetadata, nullMetadata, system])
        expect("metadata" in messages[2]!).toBe(false)
        expect((yield* threads.detail("t1")).messages).toStrictEqual([withMetadata, nullMetadata, system])
      }),
    )
  })

  describe("setTitle", () => {
    it.effect("sets and clears the title without changing updatedAt", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        yield* threads.ensure("t1")
        yield* later
        const titled = yield* threads.setTitle("t1", "Trip to Paris")
        expect(titled).toMatchObject({ id: "t1", title: "Trip to Paris", updatedAt: at(0) })
        expect((yield* threads.get("t1")).title).toBe("Trip to Paris")
        expect((yield* threads.setTitle("t1", null)).title).toBeNull()
        expect((yield* threads.detail("t1")).thread.title).toBeNull()
      }),
    )

    it.effect("fails with ThreadNotFound for an unknown thread", () =>
      Effect.gen(function* () {
        const threads = yield* reset
        expect(yield* Effect.flip(threads.setTitle("nope", "x"))).toMatchObject({ _tag: "ThreadNotFound" })
      }),
    )
  })

  describe("list", () => {
    it.effect("lists root threads only, most recently updated family first", () =>
      Effect.gen(function* () {
        const threads = yield* reset
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
        const threads = yield* reset
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
        const threads = yield* reset
        yield* conversation(threads, "root", 2)
        yield* later
        const branch = yield* threads.fork("root", "m2")
        const [summary] = (yield* threads.list({ page: 0, perPage: 10 })).threads
        expect(summary).toMatchObject({ activeThreadId: branch.thread.id, updatedAt: at(1) })
      }),
    )

    it.effect("pages are 0-based; total counts roots; hasMore tells whether a next page exists", () =>
      Effect.gen(function* () {
        const threads = yield* reset
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
        const threads = yield* reset
        for (const id of ["t1", "t2", "t3"]) {
          yield* threads.ensure(id)
          yield* later
        }
        const all = yield* threads.list({ page: 3, perPage: false })
        expect(all.threads.map((thread) => thread.id)).toEqual(["t3", "t2", "t1"])
        expect(all).toMatchObject({ total: 3, page: 0, perPage: false, hasMore: false })
      }),
    )

    it.effect("total stays exact through ensure, forks and deletes (a counter kept by triggers)", () =>
      Effect.gen(function* () {
        const threads = yield* reset
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
        const threads = yield* reset
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

  describe("fork", () => {
    it.effect("clones the messages before the fork message into a new branch of the same family", () =>
      Effect.gen(function* () {
        const threads = yield* reset
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
        const threads = yield* reset
        yield* conversation(threads, "root", 2)
        const { thread, clonedMessageCount } = yield* threads.fork("root", "m1")
        expect([clonedMessageCount, thread.forkPointIndex]).toEqual([0, 0])
        expect(yield* threads.messages(thread.id)).toEqual([])
      }),
    )

    it.effect("a branch grows on its own: new messages append after the clones, the source is untouched", () =>
      Effect.gen(function* () {
        const threads = yield* reset
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
        const threads = yield* reset
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
        expect(yield* rowCount("threads")).toBe(2)
        expect(yield* rowCount("messages")).toBe(5)
      }),
    )

    it.effect("detail shows the branches made at each message and, in a branch, where it came from", () =>
      Effect.gen(function* () {
        const threads = yield* reset
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
        const threads = yield* reset
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
        const threads = yield* reset
        yield* conversation(threads, "root", 3)
        yield* conversation(threads, "kept", 2)
        const branch = yield* threads.fork("root", "m3")
        yield* threads.fork(branch.thread.id, "m2")
        yield* threads.delete("root")
        expect(yield* rowCount("threads")).toBe(1)
        expect(yield* rowCount("messages")).toBe(2)
        expect(yield* Effect.flip(threads.get(branch.thread.id))).toMatchObject({ _tag: "ThreadNotFound" })
        expect((yield* threads.list({ page: 0, perPage: 10 })).threads.map((thread) => thread.id)).toEqual(["kept"])
      }),
    )

    it.effect("deleting a branch removes it and its own branches, recursively, and nothing else", () =>
      Effect.gen(function* () {
        const threads = yield* reset
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
        expect(yield* rowCount("messages")).toBe(5)
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
        const threads = yield* reset
        expect(yield* Effect.flip(threads.delete("nope"))).toMatchObject({ _tag: "ThreadNotFound", threadId: "nope" })
      }),
    )
  })
}

const threadsLayer = <E>(storage: Layer.Layer<SqlClient.SqlClient, E>) =>
  sqlFixture.pipe(Layer.provide(SqlThreads.layer.pipe(Layer.provide(Ids.layer), Layer.provideMerge(storage))))

// Each group takes its `it` from `layer(...)` (see auth-store.test.ts for why not `it.layer`).
describe("SqlThreads", () => {
  layer(threadsLayer(tempSqliteStorageLayer), { timeout: 30_000 })("SQLite", suite)

  describe.skipIf(!postgresAvailable)("PostgreSQL", () => {
    layer(threadsLayer(freshStorageLayer), { timeout: 60_000 })(suite)
  })
})

describe("MemoryThreads", () => {
  layer(memoryFixture.pipe(Layer.provide(Ids.layer)))("memory", suite)
})
