import { Context, type Effect } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/**
 * "One run per thread" across replicas: a replica claims a thread in shared storage before it
 * runs the model there, and keeps its claims alive while its runs go on; a replica that dies
 * stops renewing, and its claims expire. Chat checks its own runs first (in memory), so this is
 * asked only for threads free on this replica. Without the service (one process), chat's own
 * check is the whole story.
 */
export class ThreadClaims extends Context.Tag("@aide/kernel/ThreadClaims")<
  ThreadClaims,
  {
    /** True when the thread is ours now (free, expired, or ours already); false when another replica runs it. */
    readonly claim: (threadId: string) => Effect.Effect<boolean, StorageError>
    /** Frees our claim on the thread (a failure leaves it to expire). */
    readonly release: (threadId: string) => Effect.Effect<void>
    /** True when another replica holds a live claim on the thread. */
    readonly heldElsewhere: (threadId: string) => Effect.Effect<boolean, StorageError>
  }
>() {}
