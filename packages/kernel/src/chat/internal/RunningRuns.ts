import { Effect, Option, type Scope, Stream } from "effect"
import { ReplicaSignals } from "../../replicas/ReplicaSignals.js"
import { ThreadClaims } from "../../replicas/ThreadClaims.js"
import type { StorageError } from "../../storage/StorageError.js"
import { ChatBusy } from "../ChatErrors.js"
import type { StreamHub } from "../StreamHub.js"

/** A thread claimed for one run: `controller` aborts its model call, `release` frees the thread. */
export interface Claim {
  readonly controller: AbortController
  readonly release: Effect.Effect<void>
}

/** The `ReplicaSignals` channel of "stop the run of thread X" (the message is the thread id). */
export const stopChannel = "chat.stop"

/**
 * The runs going on in this process, one per thread: what makes a second send to a busy thread
 * `ChatBusy`, and what `stop` aborts. The hub's stream covers the rest of the run (a run whose
 * claim was released but whose stream still runs is still busy). With `ThreadClaims` (several
 * replicas) a thread free here is also claimed in shared storage, and `stop` of a thread running
 * on another replica is sent there through `ReplicaSignals`; this replica listens for those.
 */
export const make = (hub: StreamHub["Type"]) =>
  Effect.gen(function* () {
    const running = new Map<string, AbortController>()
    const claims = yield* Effect.serviceOption(ThreadClaims)
    const signals = yield* Effect.serviceOption(ReplicaSignals)

    const stopHere = (threadId: string) => {
      const controller = running.get(threadId)
      if (controller === undefined) return false
      controller.abort()
      return true
    }

    /** Claims the thread, synchronously with the local check: a second claim here sees it busy. */
    const claim = (threadId: string): Effect.Effect<Claim, ChatBusy | StorageError> =>
      Effect.gen(function* () {
        if (running.has(threadId) || (yield* hub.isActive(threadId))) return yield* new ChatBusy({ threadId })
        const controller = new AbortController()
        running.set(threadId, controller)
        const releaseHere = Effect.sync(() => {
          if (running.get(threadId) === controller) running.delete(threadId)
        })
        if (Option.isNone(claims)) return { controller, release: releaseHere }
        const shared = claims.value
        const ours = yield* shared.claim(threadId).pipe(Effect.onError(() => releaseHere))
        if (!ours) {
          yield* releaseHere
          return yield* new ChatBusy({ threadId })
        }
        return { controller, release: Effect.zipRight(releaseHere, shared.release(threadId)) }
      })

    /** Aborts the thread's running generation, here or (signalled) on the replica running it; false when none runs. */
    const stop = (threadId: string): Effect.Effect<boolean> =>
      Effect.gen(function* () {
        if (stopHere(threadId)) return true
        if (Option.isNone(claims) || Option.isNone(signals)) return false
        const elsewhere = yield* claims.value
          .heldElsewhere(threadId)
          .pipe(
            Effect.catchAll((error) =>
              Effect.logWarning("chat: reading a thread claim failed").pipe(
                Effect.annotateLogs({ threadId, error: error.message }),
                Effect.as(false),
              ),
            ),
          )
        if (elsewhere) yield* signals.value.publish(stopChannel, threadId)
        return elsewhere
      })

    /** Stops asked of other replicas reach this one's runs (a signal for a thread not running here is ignored). */
    const listen: Effect.Effect<void, never, Scope.Scope> = Option.match(signals, {
      onNone: () => Effect.void,
      onSome: (service) =>
        Effect.asVoid(
          Effect.forkScoped(Stream.runForEach(service.subscribe(stopChannel), (id) => Effect.sync(() => stopHere(id)))),
        ),
    })
    if (Option.isSome(claims)) yield* listen

    return { claim, stop } as const
  })

export type RunningRuns = Effect.Effect.Success<ReturnType<typeof make>>
