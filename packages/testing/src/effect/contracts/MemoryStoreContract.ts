import { MemoryStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { MemoryStore } = Module
const at = new Date("2030-01-01T00:00:00.000Z")

/**
 * The contract of `MemoryStore` (working memory): versioned compare-and-set writes, the last
 * versions kept. Run it on your store's Layer (a fresh store per test).
 */
export const memoryStoreContract = (name: string, store: Layer.Layer<Module.MemoryStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("the first write is version 1; a write of a version read earlier is refused", () =>
      Effect.gen(function* () {
        const memory = yield* MemoryStore
        expect(yield* memory.readWorking("owner")).toEqual(Option.none())
        const first = yield* memory.writeWorking("owner", "# One", 0, at, 5)
        expect(Option.map(first, (doc) => [doc.version, doc.content])).toEqual(Option.some([1, "# One"]))
        expect(yield* memory.writeWorking("owner", "# Stale", 0, at, 5)).toEqual(Option.none())
        expect(Option.isSome(yield* memory.writeWorking("owner", "# Two", 1, at, 5))).toBe(true)
        expect(Option.map(yield* memory.readWorking("owner"), (doc) => doc.content)).toEqual(Option.some("# Two"))
      }),
    )

    it.effect("of concurrent writes of one version exactly one wins", () =>
      Effect.gen(function* () {
        const memory = yield* MemoryStore
        const results = yield* Effect.all(
          Array.from({ length: 6 }, (_, n) => memory.writeWorking("owner", `# ${n}`, 0, at, 5)),
          { concurrency: "unbounded" },
        )
        expect(results.filter(Option.isSome)).toHaveLength(1)
      }),
    )

    it.effect("keeps the last versions, newest first, per scope", () =>
      Effect.gen(function* () {
        const memory = yield* MemoryStore
        for (let version = 0; version < 4; version++)
          yield* memory.writeWorking("owner", `v${version + 1}`, version, at, 2)
        yield* memory.writeWorking("other", "elsewhere", 0, at, 2)
        expect((yield* memory.workingHistory("owner")).map((doc) => [doc.version, doc.content])).toEqual([
          [4, "v4"],
          [3, "v3"],
        ])
      }),
    )
  })
