import { Effect } from "effect"
import { ChatBusy } from "../ChatErrors.js"
import type { StreamHub } from "../StreamHub.js"

/** A thread claimed for one run: `controller` aborts its model call, `release` frees the thread. */
export interface Claim {
  readonly controller: AbortController
  readonly release: Effect.Effect<void>
}

/**
 * The runs going on in this process, one per thread: what makes a second send to a busy thread
 * `ChatBusy`, and what `stop` aborts. The hub's stream covers the rest of the run (a run whose
 * claim was released but whose stream still runs is still busy).
 */
export const make = (hub: StreamHub["Type"]) => {
  const running = new Map<string, AbortController>()

  /** Claims the thread, synchronously with the check: a second claim sees it busy. */
  const claim = (threadId: string): Effect.Effect<Claim, ChatBusy> =>
    Effect.gen(function* () {
      if (running.has(threadId) || (yield* hub.isActive(threadId))) return yield* new ChatBusy({ threadId })
      const controller = new AbortController()
      running.set(threadId, controller)
      const release = Effect.sync(() => {
        if (running.get(threadId) === controller) running.delete(threadId)
      })
      return { controller, release }
    })

  /** Aborts the thread's running generation; false when none runs. */
  const stop = (threadId: string): Effect.Effect<boolean> =>
    Effect.sync(() => {
      const controller = running.get(threadId)
      if (controller === undefined) return false
      controller.abort()
      return true
    })

  return { claim, stop } as const
}

export type RunningRuns = ReturnType<typeof make>
