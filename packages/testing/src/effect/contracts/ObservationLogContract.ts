import { ObservationStore as Module } from "@aide/kernel/storage"
import { Effect, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import type { contractIt } from "./ContractTest.js"
import { at, entry, ids } from "./ObservationSupport.js"

const { ObservationStore } = Module

const chunk = (id: string, threadId: string, messageIds: ReadonlyArray<string>, minutes: number): Module.Chunk => ({
  id,
  threadId,
  messageIds,
  content: `- observed ${messageIds.join(", ")}`,
  tokens: 5,
  createdAt: at(minutes),
})

/** Claims `key`, commits `observed` and returns what the commit covered. */
const observe = (key: string, observed: Module.Chunk) =>
  Effect.gen(function* () {
    const memory = yield* ObservationStore
    expect(yield* memory.claim(key, "observing", `token-${observed.id}`, at(0), at(600))).toBe(true)
    return yield* memory.commitObservation(key, `token-${observed.id}`, observed)
  })

/** The observation log half of `observationStoreContract`: commits, reflections, forgetting, forks. */
export const observationLogContract = (it: ReturnType<typeof contractIt<Module.ObservationStore>>) =>
  describe("the observation log", () => {
    it.effect("an observation commits only under its claim, covers counted messages once, and frees the claim", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        yield* memory.ensureRecord("resource", "resource", "r", at(0))
        yield* memory.ingest("resource", [entry("a", "m1", 10, 0), entry("a", "m2", 20, 1), entry("a", "m3", 30, 2)])
        expect(yield* memory.commitObservation("resource", "unclaimed", chunk("c0", "a", ["m1"], 3))).toEqual(
          Option.none(),
        )
        expect(yield* observe("resource", chunk("c1", "a", ["m1", "m2"], 3))).toEqual(
          Option.some({ coveredTokens: 30 }),
        )
        expect(ids(yield* memory.observedIds("resource", "a"))).toEqual(["m1", "m2"])
        expect(yield* memory.pendingTokens("resource")).toBe(30)
        expect((yield* memory.activeLog("resource")).chunks).toEqual([chunk("c1", "a", ["m1", "m2"], 3)])
        expect(Option.getOrThrow(yield* memory.record("resource"))).toMatchObject({
          observationTokenCount: 5,
          totalTokensObserved: 30,
          lastObservedAt: at(3),
          updatedAt: at(3),
          claim: null,
        })
        // m2 is observed already: only m3 is covered, and the chunk lists only it.
        expect(yield* observe("resource", chunk("c2", "a", ["m2", "m3"], 4))).toEqual(
          Option.some({ coveredTokens: 30 }),
        )
        expect((yield* memory.activeLog("resource")).chunks.map((c) => [c.id, c.messageIds])).toEqual([
          ["c1", ["m1", "m2"]],
          ["c2", ["m3"]],
        ])
        // A fork's copy of an observed message, counted later, is observed too.
        yield* memory.ingest("resource", [entry("b", "m1", 10, 5)])
        expect(ids(yield* memory.observedIds("resource", "b"))).toEqual(["m1"])
        expect(yield* memory.pendingTokens("resource")).toBe(0)
      }),
    )

    it.effect("a reflection replaces exactly the log it read, under its claim", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        yield* memory.ensureRecord("resource", "resource", "r", at(0))
        yield* memory.ingest("resource", [entry("a", "m1", 10, 0), entry("a", "m2", 20, 1)])
        yield* observe("resource", chunk("c1", "a", ["m1"], 2))
        yield* observe("resource", chunk("c2", "a", ["m2"], 3))
        const reflection = (absorbed: ReadonlyArray<string>) => ({
          generation: 1,
          content: "reflected",
          tokens: 7,
          absorbed,
          createdAt: at(4),
        })
        expect(yield* memory.commitReflection("resource", "unclaimed", reflection(["c1", "c2"]))).toBe(false)
        yield* memory.claim("resource", "reflecting", "reflector", at(4), at(600))
        // The log read was out of date: c2 came after.
        expect(yield* memory.commitReflection("resource", "reflector", reflection(["c1"]))).toBe(false)
        yield* memory.claim("resource", "reflecting", "reflector", at(4), at(600))
        expect(yield* memory.commitReflection("resource", "reflector", reflection(["c1", "c2"]))).toBe(true)
        expect(yield* memory.activeLog("resource")).toEqual({
          reflection: { generation: 1, content: "reflected", tokens: 7 },
          chunks: [],
        })
        expect(yield* memory.reflections("resource")).toEqual([{ generation: 1, content: "reflected" }])
        expect(Option.getOrThrow(yield* memory.record("resource"))).toMatchObject({
          generationCount: 1,
          observationTokenCount: 7,
          updatedAt: at(4),
          claim: null,
        })
      }),
    )

    it.effect("forgetting a deleted thread forgets its observations and the reflections that absorbed them", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        yield* memory.ensureRecord("resource", "resource", "r", at(0))
        yield* memory.ingest("resource", [entry("a", "m1", 10, 0), entry("b", "m2", 20, 1)])
        yield* observe("resource", chunk("c1", "a", ["m1"], 2))
        yield* observe("resource", chunk("c2", "b", ["m2"], 3))
        yield* memory.claim("resource", "reflecting", "reflector", at(4), at(600))
        const absorbed = ["c1", "c2"]
        const reflection = { generation: 1, content: "both", tokens: 7, absorbed, createdAt: at(4) }
        expect(yield* memory.commitReflection("resource", "reflector", reflection)).toBe(true)
        expect(yield* memory.forgetOrphans(at(5))).toEqual([])

        yield* memory.forgetThreads(["a"])
        expect(ids(yield* memory.countedIds("resource", "a"))).toEqual([])
        expect(yield* memory.forgetOrphans(at(6))).toEqual(["resource"])
        // The reflection held thread a: it goes, and c2 is back in the active log.
        expect(yield* memory.activeLog("resource")).toEqual({
          reflection: null,
          chunks: [chunk("c2", "b", ["m2"], 3)],
        })
        expect(yield* memory.reflections("resource")).toEqual([])
        expect(Option.getOrThrow(yield* memory.record("resource"))).toMatchObject({
          generationCount: 0,
          observationTokenCount: 5,
          updatedAt: at(6),
        })
        expect(yield* memory.forgetOrphans(at(7))).toEqual([])
      }),
    )

    it.effect("a fork's record inherits the observations whose messages were all copied, once", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        yield* memory.ensureRecord("thread:a", "thread", "a", at(0))
        yield* memory.ingest("thread:a", [entry("a", "m1", 10, 0), entry("a", "m2", 20, 1), entry("a", "m3", 30, 2)])
        yield* observe("thread:a", chunk("c1", "a", ["m1", "m2"], 3))
        yield* observe("thread:a", chunk("c2", "a", ["m3"], 4))
        // The fork b copied m1 and m2, not m3.
        yield* memory.ensureRecord("thread:b", "thread", "b", at(5))
        yield* memory.ingest("thread:b", [entry("b", "m1", 10, 5), entry("b", "m2", 20, 5)])
        let n = 0
        const newId = () => `inherited-${++n}`
        expect(yield* memory.inheritFork("thread:a", "thread:b", "b", newId, at(6))).toBe(1)
        expect((yield* memory.activeLog("thread:b")).chunks).toEqual([
          { ...chunk("c1", "b", ["m1", "m2"], 6), id: "inherited-1" },
        ])
        expect(ids(yield* memory.observedIds("thread:b", "b"))).toEqual(["m1", "m2"])
        expect(yield* memory.pendingTokens("thread:b")).toBe(0)
        expect(Option.getOrThrow(yield* memory.record("thread:b"))).toMatchObject({
          observationTokenCount: 5,
          totalTokensObserved: 30,
          lastObservedAt: at(6),
        })
        // Only into a record with no observation yet.
        expect(yield* memory.inheritFork("thread:a", "thread:b", "b", newId, at(7))).toBe(0)
        expect((yield* memory.activeLog("thread:a")).chunks.map((c) => c.id)).toEqual(["c1", "c2"])
      }),
    )
  })
