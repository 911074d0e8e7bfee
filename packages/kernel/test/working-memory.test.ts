import { bothDialects } from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, type Vitest } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as AppConfig from "../src/config/AppConfig.js"
import * as Ids from "../src/ids/Ids.js"
import * as Memory from "../src/memory/Memory.js"
import * as SqlObservationStore from "../src/memory/observational/SqlObservationStore.js"
import * as SqlMemoryStore from "../src/memory/SqlMemoryStore.js"
import * as WorkingMemory from "../src/memory/WorkingMemory.js"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import * as SqlThreads from "../src/threads/SqlThreads.js"

/** Every test starts from no working memory, with it switched on. */
const fresh = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM working_memory`
  yield* sql`DELETE FROM working_memory_versions`
  yield* (yield* AppConfig.AppConfig).patch({ memory: { workingMemory: { enabled: true } } })
  return yield* Memory.Memory
})

const suite = (it: Vitest.MethodsNonLive<Memory.Memory | AppConfig.AppConfig | SqlClient.SqlClient>) => {
  describe("edits", () => {
    it.effect("append adds a line (to an empty document: the text itself)", () =>
      Effect.gen(function* () {
        const memory = yield* fresh
        yield* memory.editWorkingMemory({ kind: "append", text: "- likes tea" })
        yield* memory.editWorkingMemory({ kind: "append", text: "- lives in Oslo" })
        expect(yield* memory.workingMemory).toBe("- likes tea\n- lives in Oslo")
      }),
    )

    it.effect("replace changes one exact occurrence, and refuses an absent or ambiguous one", () =>
      Effect.gen(function* () {
        const memory = yield* fresh
        yield* memory.setWorkingMemory("- likes tea\n- likes tea cakes")
        const ambiguous = yield* Effect.flip(
          memory.editWorkingMemory({ kind: "replace", search: "likes tea", replacement: "likes coffee" }),
        )
        expect(ambiguous.message).toBe("the text to replace occurs more than once: quote more of it")
        const absent = yield* Effect.flip(
          memory.editWorkingMemory({ kind: "replace", search: "Berlin", replacement: "Oslo" }),
        )
        expect(absent.message).toBe("the text to replace is not in working memory")
        yield* memory.editWorkingMemory({ kind: "replace", search: "tea cakes", replacement: "scones" })
        expect(yield* memory.workingMemory).toBe("- likes tea\n- likes scones")
      }),
    )

    it.effect("concurrent appends are all kept: each edit is compare-and-set, retried on a race", () =>
      Effect.gen(function* () {
        const memory = yield* fresh
        const lines = Array.from({ length: 8 }, (_, n) => `- fact ${n}`)
        yield* Effect.forEach(lines, (text) => memory.editWorkingMemory({ kind: "append", text }), {
          concurrency: "unbounded",
        })
        const stored = (yield* memory.workingMemory)!.split("\n")
        expect([...stored].sort()).toEqual([...lines].sort())
      }),
    )

    it.effect("two Memory instances on one database (two processes) lose no edit either", () =>
      Effect.gen(function* () {
        const memory = yield* fresh
        // A second instance: its own semaphore, the same store, as a second server process would be.
        const other = yield* WorkingMemory.make.pipe(
          Effect.provide(SqlMemoryStore.layer),
          Effect.provideService(AppConfig.AppConfig, yield* AppConfig.AppConfig),
        )
        const lines = Array.from({ length: 6 }, (_, n) => `- fact ${n}`)
        yield* Effect.forEach(
          lines,
          (text, n) => (n % 2 === 0 ? memory : other).editWorkingMemory({ kind: "append", text }),
          { concurrency: "unbounded" },
        )
        expect([...(yield* memory.workingMemory)!.split("\n")].sort()).toEqual([...lines].sort())
      }),
    )

    it.effect("an edit that would pass the size limit is refused and changes nothing", () =>
      Effect.gen(function* () {
        const memory = yield* fresh
        yield* memory.setWorkingMemory("x".repeat(WorkingMemory.maxWorkingBytes - 2))
        const refused = yield* Effect.flip(memory.editWorkingMemory({ kind: "append", text: "yy" }))
        expect(refused._tag).toBe("WorkingMemoryTooLarge")
        expect((yield* memory.workingMemory)!.length).toBe(WorkingMemory.maxWorkingBytes - 2)
      }),
    )
  })

  describe("versions", () => {
    it.effect("the last versions are kept, newest first, so a bad edit can be undone", () =>
      Effect.gen(function* () {
        const memory = yield* fresh
        for (let n = 1; n <= WorkingMemory.keptVersions + 3; n++) yield* memory.setWorkingMemory(`version ${n}`)
        const history = yield* memory.workingMemoryHistory
        expect(history).toHaveLength(WorkingMemory.keptVersions)
        expect(history[0]).toMatchObject({
          content: `version ${WorkingMemory.keptVersions + 3}`,
          version: WorkingMemory.keptVersions + 3,
        })
        expect(history.at(-1)).toMatchObject({ content: "version 4", version: 4 })
      }),
    )
  })

  describe("the switch", () => {
    it.effect("disabled: reads are null and writes refused; the document is kept", () =>
      Effect.gen(function* () {
        const memory = yield* fresh
        yield* memory.setWorkingMemory("kept")
        yield* (yield* AppConfig.AppConfig).patch({ memory: { workingMemory: { enabled: false } } })
        expect(yield* memory.workingMemory).toBeNull()
        expect((yield* Effect.flip(memory.setWorkingMemory("new")))._tag).toBe("WorkingMemoryDisabled")
        expect((yield* Effect.flip(memory.editWorkingMemory({ kind: "append", text: "x" })))._tag).toBe(
          "WorkingMemoryDisabled",
        )
        yield* (yield* AppConfig.AppConfig).patch({ memory: { workingMemory: { enabled: true } } })
        expect(yield* memory.workingMemory).toBe("kept")
      }),
    )
  })
}

describe("Memory.applyEdit", () => {
  it("appends after a final newline without adding another", () => {
    expect(WorkingMemory.applyEdit("a\n", { kind: "append", text: "b" })).toBe("a\nb")
  })
})

bothDialects(
  "Memory: working memory",
  Layer.provideMerge(
    Memory.layer(),
    Layer.mergeAll(
      SqlMemoryStore.layer,
      SqlObservationStore.layer,
      SqlThreads.layer.pipe(Layer.provide(Ids.layer)),
      Ids.layer,
      AppConfig.layerMemory.pipe(Layer.provideMerge(ModelRegistry.layer({ env: {} }))),
    ),
  ),
  suite,
)
