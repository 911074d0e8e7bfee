import { Cause, Effect, FiberSet, type Scope } from "effect"

/** Jobs of one conversation, the first one running. */
type Pending = Array<Effect.Effect<void, unknown>>

/**
 * Serial work per conversation: jobs of one key run one at a time, in the order they were
 * offered, in fibers of the scope; different keys run side by side. At most `capacity` jobs
 * (the running one included) wait per key. A key without jobs holds no fiber and no memory.
 * Jobs are in memory only: the ones still waiting when the scope closes are dropped.
 */
export const make = (capacity: number): Effect.Effect<ConversationQueues, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fibers = yield* FiberSet.make()
    const queues = new Map<string, Pending>()

    /** Runs the key's jobs until none is left; the check and the removal are one synchronous step. */
    const drain = (key: string, pending: Pending): Effect.Effect<void> =>
      Effect.gen(function* () {
        for (;;) {
          const job = pending[0]!
          yield* job.pipe(
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.interrupt
                : Effect.logError("channels: a conversation job failed", cause).pipe(
                    Effect.annotateLogs({ conversation: key }),
                  ),
            ),
          )
          const more = yield* Effect.sync(() => {
            pending.shift()
            if (pending.length > 0) return true
            queues.delete(key)
            return false
          })
          if (!more) return
        }
      })

    const offer = (key: string, job: Effect.Effect<void, unknown>) =>
      Effect.suspend(() => {
        const pending = queues.get(key)
        if (pending !== undefined) {
          if (pending.length >= capacity) return Effect.succeed(false)
          pending.push(job)
          return Effect.succeed(true)
        }
        const fresh: Pending = [job]
        queues.set(key, fresh)
        return Effect.as(FiberSet.run(fibers, drain(key, fresh)), true)
      })

    return { offer, waiting: (key: string) => Effect.sync(() => queues.get(key)?.length ?? 0) }
  })

export interface ConversationQueues {
  /** Queues `job` behind the key's others (its failures are logged); false when `capacity` jobs wait already. */
  readonly offer: (key: string, job: Effect.Effect<void, unknown>) => Effect.Effect<boolean>
  readonly waiting: (key: string) => Effect.Effect<number>
}
