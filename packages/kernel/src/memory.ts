/**
 * @aide/kernel/memory — memory: working and observational memory (Memory), semantic recall (Recall), their stores and Layers, NoMemory.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as Memory from "./memory/Memory.js"
export * as MemoryErrors from "./memory/MemoryErrors.js"
export * as MemoryRecord from "./memory/MemoryRecord.js"
export * as MemoryStore from "./memory/MemoryStore.js"
export * as MemoryTools from "./memory/MemoryTools.js"
export * as MemoryWorkingStore from "./memory/MemoryWorkingStore.js"
export * as NoMemory from "./memory/NoMemory.js"
export * as MemoryObservationStore from "./memory/observational/MemoryObservationStore.js"
export * as ObservationStore from "./memory/observational/ObservationStore.js"
export * as SqlObservationStore from "./memory/observational/SqlObservationStore.js"
export * as Recall from "./memory/recall/Recall.js"
export * as RecallIndex from "./memory/recall/RecallIndex.js"
export * as SqlRecallIndex from "./memory/recall/SqlRecallIndex.js"
export * as SqlMemoryStore from "./memory/SqlMemoryStore.js"
