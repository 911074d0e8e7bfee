import { ObservationStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"
import { observationLogContract } from "./ObservationLogContract.js"
import { at, entry, ids } from "./ObservationSupport.js"

const { ObservationStore } = Module

/**
 * The contract of `ObservationStore` (observational memory): records, the ledger of counted
 * messages, exclusive leased claims with a circuit breaker, compare-and-set commits of
 * observations and reflections, forgetting deleted threads, fork inheritance and daily usage.
 * Run it on your store's Layer (a fresh store per test).
 */
export const observationStoreContract = (name: string, store: Layer.Layer<Module.ObservationStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("a record is created empty once; later ensures return it unchanged", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        expect(yield* memory.record("resource")).toEqual(Option.none())
        const created = yield* memory.ensureRecord("resource", "resource", "rec-1", at(0))
        expect(created).toEqual({
          key: "resource",
          id: "rec-1",
          scope: "resource",
          observationTokenCount: 0,
          generationCount: 0,
          totalTokensObserved: 0,
          lastObservedAt: null,
          updatedAt: at(0),
          claim: null,
          failures: 0,
          pausedUntil: null,
        })
        expect(yield* memory.ensureRecord("resource", "resource", "rec-2", at(5))).toEqual(created)
        expect(yield* memory.record("resource")).toEqual(Option.some(created))
      }),
    )

    it.effect("the latest thread record is the most recently updated one of thread scope", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        expect(yield* memory.latestThreadRecord).toEqual(Option.none())
        yield* memory.ensureRecord("thread:a", "thread", "a", at(0))
        yield* memory.ensureRecord("thread:b", "thread", "b", at(1))
        yield* memory.ensureRecord("resource", "resource", "r", at(2))
        expect(Option.map(yield* memory.latestThreadRecord, (record) => record.key)).toEqual(Option.some("thread:b"))
      }),
    )

    it.effect("ingest counts each message once per thread; a fork's copy counts as pending once", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        yield* memory.ensureRecord("resource", "resource", "r", at(0))
        expect(yield* memory.ingest("resource", [entry("a", "m1", 10, 0), entry("a", "m2", 20, 1)])).toBe(2)
        expect(yield* memory.ingest("resource", [entry("a", "m2", 20, 1), entry("a", "m3", 30, 2)])).toBe(1)
        // The fork "b" copied m1: a row of its own, the same message.
        expect(yield* memory.ingest("resource", [entry("b", "m1", 10, 3)])).toBe(1)
        expect(ids(yield* memory.countedIds("resource", "a"))).toEqual(["m1", "m2", "m3"])
        expect(ids(yield* memory.countedIds("resource", "b"))).toEqual(["m1"])
        expect(ids(yield* memory.observedIds("resource", "a"))).toEqual([])
        expect(yield* memory.pendingTokens("resource")).toBe(60)
      }),
    )

    it.effect("pending entries come oldest first, each message once, up to about maxTokens", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        yield* memory.ensureRecord("resource", "resource", "r", at(0))
        yield* memory.ingest("resource", [entry("a", "m2", 20, 1), entry("a", "m1", 10, 0), entry("a", "m3", 30, 2)])
        yield* memory.ingest("resource", [entry("b", "m1", 10, 3)])
        const pending = (max: number) =>
          Effect.map(memory.pendingEntries("resource", max), (entries) => entries.map((e) => e.messageId))
        expect(yield* pending(1_000)).toEqual(["m1", "m2", "m3"])
        expect(yield* pending(25)).toEqual(["m1", "m2"])
        // At least one, however small the budget.
        expect(yield* pending(1)).toEqual(["m1"])
        expect((yield* memory.pendingEntries("resource", 1))[0]).toEqual(entry("a", "m1", 10, 0))
      }),
    )

    it.effect("a claim is exclusive until released or its lease runs out", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        expect(yield* memory.claim("resource", "observing", "nobody", at(0), at(5))).toBe(false)
        yield* memory.ensureRecord("resource", "resource", "r", at(0))
        expect(yield* memory.claim("resource", "observing", "one", at(0), at(5))).toBe(true)
        expect(yield* memory.claim("resource", "reflecting", "two", at(1), at(6))).toBe(false)
        expect(Option.map(yield* memory.record("resource"), (r) => r.claim)).toEqual(
          Option.some({ kind: "observing", token: "one", until: at(5) }),
        )
        expect(yield* memory.renew("resource", "two", at(10))).toBe(false)
        expect(yield* memory.renew("resource", "one", at(10))).toBe(true)
        expect(yield* memory.claim("resource", "reflecting", "two", at(6), at(12))).toBe(false)
        // The lease ran out: another writer takes over, and the first one's renewal fails.
        expect(yield* memory.claim("resource", "reflecting", "two", at(11), at(20))).toBe(true)
        expect(yield* memory.renew("resource", "one", at(30))).toBe(false)
        // Only the holder gives the claim up.
        yield* memory.release("resource", "one", { failed: false, pauseAfter: 3, pauseUntil: at(0) })
        expect(yield* memory.claim("resource", "observing", "three", at(12), at(20))).toBe(false)
        yield* memory.release("resource", "two", { failed: false, pauseAfter: 3, pauseUntil: at(0) })
        expect(yield* memory.claim("resource", "observing", "three", at(12), at(20))).toBe(true)
        yield* memory.releaseAllClaims
        expect(Option.map(yield* memory.record("resource"), (r) => r.claim)).toEqual(Option.some(null))
      }),
    )

    it.effect("of concurrent claims of one record exactly one wins", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        yield* memory.ensureRecord("resource", "resource", "r", at(0))
        const won = yield* Effect.all(
          Array.from({ length: 6 }, (_, n) => memory.claim("resource", "observing", `t${n}`, at(0), at(5))),
          { concurrency: "unbounded" },
        )
        expect(won.filter(Boolean)).toHaveLength(1)
      }),
    )

    it.effect("failures open the breaker after pauseAfter of them: no claim until pauseUntil", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        yield* memory.ensureRecord("resource", "resource", "r", at(0))
        const failOnce = (token: string, minute: number) =>
          Effect.zipRight(
            memory.claim("resource", "observing", token, at(minute), at(minute + 1)),
            memory.release("resource", token, { failed: true, pauseAfter: 2, pauseUntil: at(minute + 60) }),
          )
        yield* failOnce("one", 0)
        expect(yield* memory.claim("resource", "observing", "two", at(2), at(3))).toBe(true)
        yield* memory.release("resource", "two", { failed: true, pauseAfter: 2, pauseUntil: at(62) })
        expect(Option.map(yield* memory.record("resource"), (r) => [r.failures, r.pausedUntil])).toEqual(
          Option.some([2, at(62)]),
        )
        expect(yield* memory.claim("resource", "observing", "three", at(61), at(70))).toBe(false)
        expect(yield* memory.claim("resource", "observing", "three", at(63), at(70))).toBe(true)
      }),
    )

    it.effect("usage adds up per day", () =>
      Effect.gen(function* () {
        const memory = yield* ObservationStore
        expect(yield* memory.usage("2030-01-01")).toBe(0)
        yield* memory.addUsage("2030-01-01", 120)
        yield* memory.addUsage("2030-01-01", 30)
        yield* memory.addUsage("2030-01-02", 7)
        expect([yield* memory.usage("2030-01-01"), yield* memory.usage("2030-01-02")]).toEqual([150, 7])
      }),
    )

    observationLogContract(it)
  })
