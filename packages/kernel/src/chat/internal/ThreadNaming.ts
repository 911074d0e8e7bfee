import { Effect, FiberSet, Option } from "effect"
import { Threads, type ThreadWindow } from "../../threads/Threads.js"
import { fallbackTitle } from "../ChatMessages.js"
import { TitleGenerator } from "../TitleGenerator.js"

/** Resumes on the next turn of the event loop, once Node has flushed what responses wrote. */
const nextMacrotask = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * Titles of threads: a thread without one gets the first words of its first message at once,
 * and the model's title when it comes. `fibers`: the service's, which the titling outlives the
 * run in.
 */
export const make = (fibers: FiberSet.FiberSet) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const titles = yield* TitleGenerator

    /**
     * Names `threadId` when it has no title yet; the model's title is not waited for. `messages`:
     * the thread as the run saved it (a run has them: no second read of the whole thread).
     */
    const nameThread = (threadId: string, saved: ThreadWindow) =>
      Effect.gen(function* () {
        const thread = yield* threads.get(threadId)
        if (thread.title !== null) return
        // A long untitled thread (its title cleared) is named from its beginning.
        const messages = saved.before === 0 ? saved.messages : yield* saved.all
        yield* threads.setTitle(threadId, fallbackTitle(messages))
        // The model's title replaces the fallback when it comes; it starts on the next turn of the
        // event loop: its setup (several ms of CPU) would otherwise hold back Node's flush of
        // `finish` and `[DONE]`.
        yield* FiberSet.run(
          fibers,
          Effect.zipRight(nextMacrotask, titles.generate(messages)).pipe(
            Effect.flatMap(
              Option.match({ onNone: () => Effect.void, onSome: (title) => threads.setTitle(threadId, title) }),
            ),
            Effect.catchAllCause((cause) => Effect.logWarning("titling the thread failed", cause)),
          ),
        )
      })

    return { nameThread } as const
  })

export type ThreadNaming = Effect.Effect.Success<ReturnType<typeof make>>
