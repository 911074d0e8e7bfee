import { Effect, Layer, Option } from "effect"
import { MemoryStore, type WorkingDocument } from "./MemoryStore.js"

/**
 * `MemoryStore` (working memory) in this process's memory. A write is compare-and-set on the
 * version without yielding, so of two writers of one version exactly one wins, as in SQL.
 */
export const make = Effect.sync(() => {
  const current = new Map<string, WorkingDocument>()
  const versions = new Map<string, ReadonlyArray<WorkingDocument>>()

  return MemoryStore.of({
    readWorking: (scope) => Effect.sync(() => Option.fromNullable(current.get(scope))),
    writeWorking: (scope, content, expectedVersion, at, keepVersions) =>
      Effect.sync(() => {
        if ((current.get(scope)?.version ?? 0) !== expectedVersion) return Option.none()
        const document: WorkingDocument = { content, version: expectedVersion + 1, updatedAt: at }
        current.set(scope, document)
        const kept = [document, ...(versions.get(scope) ?? [])].filter(
          (version) => version.version > document.version - keepVersions,
        )
        versions.set(scope, kept)
        return Option.some(document)
      }),
    workingHistory: (scope) => Effect.sync(() => versions.get(scope) ?? []),
  })
})

export const layer: Layer.Layer<MemoryStore> = Layer.effect(MemoryStore, make)
