import { Effect, Layer } from "effect"
import { Memory } from "./Memory.js"
import { WorkingMemoryDisabled } from "./MemoryErrors.js"
import { Recall } from "./recall/Recall.js"

/**
 * A `Memory` and a `Recall` that keep and find nothing: for a host with its own memory service
 * (give the model its facts through your own tools), or none. Chat then sends the plain history;
 * working memory reads as off (`GET /api/memory/working` answers as when the config disables it)
 * and refuses edits with `WorkingMemoryDisabled`; nothing is written to the memory stores.
 */
export const memory: Layer.Layer<Memory> = Layer.succeed(
  Memory,
  Memory.of({
    workingMemoryEnabled: Effect.succeed(false),
    workingMemory: Effect.succeed(null),
    setWorkingMemory: () => Effect.fail(new WorkingMemoryDisabled()),
    editWorkingMemory: () => Effect.fail(new WorkingMemoryDisabled()),
    workingMemoryHistory: Effect.succeed([]),
    observationalMemoryEnabled: Effect.succeed(false),
    record: () => Effect.succeed({ record: null, thresholds: null }),
    observations: () => Effect.succeed(null),
    contextFor: (_threadId, history) => Effect.map(history.all, (all) => ({ observations: null, history: all })),
    afterTurn: () => Effect.void,
    forgetThreads: () => Effect.void,
    reflections: () => Effect.succeed([]),
  }),
)

/** A `Recall` that never adds a section and embeds nothing. */
export const recall: Layer.Layer<Recall> = Layer.succeed(
  Recall,
  Recall.of({ forTurn: () => Effect.succeed(null), afterTurn: () => Effect.void }),
)

/**
 * Both, for `Kernel.layer({ memoryLayer: NoMemory.layer })`.
 *
 * @example
 * Kernel.layer({ dataDir, memoryLayer: NoMemory.layer })
 */
export const layer: Layer.Layer<Memory | Recall> = Layer.merge(memory, recall)
