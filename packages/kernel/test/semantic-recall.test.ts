import { bothDialects, until } from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, type Vitest } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { queryTerms } from "../src/memory/recall/internal/terms.js"
import { RecallIndex } from "../src/memory/recall/RecallIndex.js"
import { Threads } from "../src/threads/Threads.js"
import { ask, configure, FakeModel, recallKernel, tell, threadId } from "./support/recall.js"

type Services = Layer.Layer.Success<typeof recallKernel>

const userLines = (recalled: string | null) => (recalled ?? "").split("\n").filter((line) => / user: /.test(line))

const suite = (it: Vitest.MethodsNonLive<Services>) => {
  describe("recall before a turn", () => {
    it.effect("a fact told in one thread is in the model request of a chat in another", () =>
      Effect.gen(function* () {
        yield* configure({ enabled: true, topK: 4, messageRange: 1 })
        const a = threadId("a")
        yield* tell(a, "My sister Ingrid moved to Trondheim last spring")
        const recalled = yield* ask(threadId("b"), "Where does Ingrid live now?")
        expect(recalled).toContain("My sister Ingrid moved to Trondheim last spring")
        // Grouped under the thread's title, each line with its date and role.
        expect(recalled).toMatch(/^Conversation "My sister Ingrid moved to Trondheim/)
        expect(recalled).toMatch(/\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] user: My sister Ingrid/)
      }),
    )

    it.effect("messageRange neighbours come with each recalled message", () =>
      Effect.gen(function* () {
        yield* configure({ enabled: true, topK: 1, messageRange: 0 })
        yield* tell(threadId("a"), "The wifi password is marmalade42")
        const alone = yield* ask(threadId("b"), "marmalade42?")
        expect(userLines(alone)).toEqual([expect.stringContaining("user: The wifi password is marmalade42")])
        expect(alone).not.toContain("assistant:")
        yield* configure({ enabled: true, topK: 1, messageRange: 1 })
        yield* tell(threadId("a"), "The door code is 7319kiwi")
        const withNeighbours = yield* ask(threadId("b"), "7319kiwi?")
        expect(withNeighbours).toContain("user: The door code is 7319kiwi")
        expect(withNeighbours).toContain("assistant: Hello from the fake model.")
      }),
    )

    it.effect("at most topK messages are recalled", () =>
      Effect.gen(function* () {
        yield* configure({ enabled: true, topK: 2, messageRange: 0 })
        for (let n = 0; n < 5; n++) yield* tell(threadId("q"), `quokka sighting number ${n}`)
        const recalled = yield* ask(threadId("b"), "any quokka news?")
        expect(userLines(recalled)).toHaveLength(2)
      }),
    )

    it.effect("the current thread and the messages it shares with forks are never recalled", () =>
      Effect.gen(function* () {
        yield* configure({ enabled: true, topK: 4, messageRange: 1 })
        const threads = yield* Threads
        const a = threadId("a")
        yield* tell(a, "pangolin scales are keratin")
        yield* tell(a, "unrelated small talk")
        const [, , third] = yield* threads.messages(a)
        // The branch holds copies of the first two messages, with their ids.
        const { thread: branch } = yield* threads.fork(a, third!.id)
        const shared = "user: pangolin scales are keratin"
        // In the branch, the source's messages it shares are its own history: left out.
        expect((yield* ask(branch.id, "pangolin tongues?")) ?? "").not.toContain(shared)
        // In the source, its own messages and the branch's copies of them are left out.
        expect((yield* ask(a, "pangolin again")) ?? "").not.toContain(shared)
      }),
    )

    it.effect("a deleted thread and its forked branches are gone from every index", () =>
      Effect.gen(function* () {
        yield* configure({ enabled: true, topK: 4, messageRange: 1 })
        const threads = yield* Threads
        const sql = yield* SqlClient.SqlClient
        const a = threadId("a")
        yield* tell(a, "narwhal tusks are teeth")
        const [first] = yield* threads.messages(a)
        const { thread: branch } = yield* threads.fork(a, first!.id)
        yield* tell(branch.id, "narwhal pods migrate")
        expect(userLines(yield* ask(threadId("c"), "narwhal facts?")).length).toBeGreaterThan(0)
        yield* threads.delete(a)
        const after = (yield* ask(threadId("c"), "narwhal?")) ?? ""
        expect(after).not.toContain("tusks")
        expect(after).not.toContain("pods")
        const left = yield* sql<{ n: number | string }>`
          SELECT COUNT(*) AS n FROM recall_entries WHERE thread_id IN (${a}, ${branch.id})`
        expect(Number(left[0]!.n)).toBe(0)
        const hits = yield* (yield* RecallIndex).searchText(["narwhal"], { excludeThreadId: "none", limit: 10 })
        expect(hits.filter((hit) => hit.threadId === a || hit.threadId === branch.id)).toEqual([])
      }),
    )

    it.effect("off by default, and off under the master switch", () =>
      Effect.gen(function* () {
        yield* configure({ enabled: null, topK: null, messageRange: null })
        yield* tell(threadId("a"), "the axolotl is called Kevin")
        expect(yield* ask(threadId("b"), "what is the axolotl called?")).toBeNull()
        yield* configure({ enabled: true }, { enabled: false })
        expect(yield* ask(threadId("b"), "what is the axolotl called?")).toBeNull()
        yield* configure({ enabled: true }, { enabled: true })
        expect(yield* ask(threadId("b"), "what is the axolotl called?")).toContain("Kevin")
      }),
    )
  })

  describe("query safety", () => {
    it.effect("full-text syntax in the owner's words is only words: quotes, *, NEAR, : are harmless", () =>
      Effect.gen(function* () {
        yield* configure({ enabled: true, topK: 4, messageRange: 0 })
        yield* tell(threadId("a"), "the ocelot sleeps in the ceiba tree")
        const recalled = yield* ask(threadId("b"), `"ocelot" NEAR(ocelot* ceiba) text:ocelot -ocelot ^ocelot OR) '`)
        expect(recalled).toContain("the ocelot sleeps in the ceiba tree")
        // Nothing but punctuation: no query at all, so nothing recalled.
        expect(yield* ask(threadId("b"), `" * : ( ) ' ^ - |`)).toBeNull()
      }),
    )
  })

  describe("with an embedder", () => {
    it.effect("a paraphrase sharing no word with the fact is found through its embedding", () =>
      Effect.gen(function* () {
        const server = yield* FakeModel
        server.concepts(["automobile", "car"], ["crimson", "red"])
        const embedder = { embedder: "openai-compatible/fake-embed", topK: 4, messageRange: 0 }
        yield* configure({ enabled: true, ...embedder })
        const a = threadId("a")
        yield* tell(a, "I drive a crimson automobile")
        const sql = yield* SqlClient.SqlClient
        // Embedded in the background after the turn: the answer did not wait for it.
        yield* until(
          Effect.map(
            sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM recall_embeddings v
              JOIN recall_entries e ON e.entry_id = v.entry_id WHERE e.thread_id = ${a}`,
            (rows) => Number(rows[0]!.n) === 2,
          ),
          "the thread's two messages embedded",
        )
        // Full text alone cannot find it: no word in common.
        yield* configure({ enabled: true, embedder: null })
        expect(userLines(yield* ask(threadId("b"), "which red car?"))).not.toContain(expect.stringContaining("crimson"))
        yield* configure({ enabled: true, ...embedder })
        expect(yield* ask(threadId("b"), "which red car?")).toContain("I drive a crimson automobile")
        yield* configure({ enabled: true, embedder: null })
      }),
    )
  })
}

describe("queryTerms", () => {
  it("keeps letters and digits only, lower-cased, without stopwords", () => {
    expect(queryTerms(`What's "NEAR(x* y)" title:Oslo?`)).toEqual(["near", "title", "oslo"])
    expect(queryTerms(`" * : ( ) -`)).toEqual([])
  })
})

bothDialects("Semantic recall", recallKernel, suite, { timeout: 60_000 })
