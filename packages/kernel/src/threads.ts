/**
 * @aide/kernel/threads — threads and their messages: the Threads contract, its SQL and in-memory Layers, ActiveStreams.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as ActiveStreams from "./threads/ActiveStreams.js"
export * as MemoryThreads from "./threads/MemoryThreads.js"
export * as SqlThreads from "./threads/SqlThreads.js"
export * as Threads from "./threads/Threads.js"
