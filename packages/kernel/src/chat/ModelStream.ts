import type { UIMessageChunk } from "ai"
import { Clock, Data, Duration, Effect, Fiber } from "effect"
import type { AgentStepOutcome, AgentStepRun } from "./AgentStep.js"
import { ChatModelError } from "./ChatErrors.js"
import { errorMessage, isContent } from "./ChatMessages.js"
import { batchedReads } from "./internal/BatchedReader.js"
import * as RunBounds from "./RunBounds.js"

/**
 * One agent step of a run, read as UI message chunks: the step's stream with the run's idle
 * watchdog around it, held until the first content (or a failure) so that a failure before any
 * content can still be an error response.
 */

/** A chunk that carries what a client shows, unlike a part's start (`text-start` is empty). */
const isVisible = (chunk: UIMessageChunk) =>
  isContent(chunk) && chunk.type !== "text-start" && chunk.type !== "reasoning-start"

/** A run cut short by its bounds. */
export class RunCut extends Data.TaggedError("RunCut")<{ readonly reason: "max-answer-bytes" | "idle-timeout" }> {}

export interface ModelCall {
  /** The agent step's stream and report (`AgentStep.run`). */
  readonly step: AgentStepRun
  /** The run's: aborting it ends the step. */
  readonly controller: AbortController
  readonly bounds: RunBounds.RunBounds
}

export interface ModelStream {
  /**
   * The chunks up to and including the first content, and those in hand with it up to the first
   * a client shows (short of `finish`); `ended` when the stream ended within them.
   */
  readonly head: ReadonlyArray<UIMessageChunk>
  readonly ended: boolean
  /**
   * The next chunks after the head: every chunk the data in hand yields (at least one), or
   * undefined once the stream ended (at once when `ended`). Fails as the model's stream breaks
   * or is cut. Read a batch at a time: the per-chunk work of a run is plain code, one Effect per
   * batch, and a batch goes to the clients as one write.
   */
  readonly nextBatch: Effect.Effect<ReadonlyArray<UIMessageChunk> | undefined, ChatModelError | RunCut>
  /** Ends the model call and the SDK's stream: a pending read resolves at once. */
  readonly abandon: Effect.Effect<void>
  /** Stops the idle watchdog (once reading is over). */
  readonly done: Effect.Effect<void>
  /** What the step reported, read once its stream ended; `aborted` filled in from the run's signal. */
  readonly outcome: () => AgentStepOutcome
}

/**
 * Reads the step's stream; fails with `ChatModelError` when it fails (or stays silent) before any
 * content.
 */
export const open = (call: ModelCall) =>
  Effect.gen(function* () {
    const reader = call.step.stream.getReader()
    const outcome = (): AgentStepOutcome => {
      const reported = call.step.outcome?.() ?? {}
      return reported.aborted === undefined ? { ...reported, aborted: call.controller.signal.aborted } : reported
    }
    const abandon = Effect.sync(() => {
      reader.cancel().catch(() => undefined)
      call.controller.abort()
    })

    // A model (or a tool) silent for too long ends the run: nothing else would. One watchdog per
    // call, not a timeout per read (that costs ~20 µs of fibers per relayed chunk).
    // The clock itself (the test clock under test): marking activity is plain code per read.
    const clock = yield* Effect.clock
    let lastActivity = clock.unsafeCurrentTimeMillis()
    let silent = false
    const idleMillis = Duration.toMillis(call.bounds.idleTimeout)
    const watchdog = yield* Effect.fork(
      Effect.gen(function* () {
        while (true) {
          const silentFor = (yield* Clock.currentTimeMillis) - lastActivity
          if (silentFor >= idleMillis) break
          yield* Effect.sleep(idleMillis - silentFor)
        }
        silent = true
        yield* abandon
      }),
    )
    /** After each read: the model is active, unless the watchdog ended the call (a cut, not an end). */
    const afterRead = <A>(read: Effect.Effect<A, ChatModelError>) =>
      Effect.flatMap(read, (value): Effect.Effect<A, RunCut | ChatModelError> => {
        lastActivity = clock.unsafeCurrentTimeMillis()
        return silent ? Effect.fail(new RunCut({ reason: "idle-timeout" })) : Effect.succeed(value)
      })
    const readNext = batchedReads(reader)
    const readBatch = afterRead(
      Effect.tryPromise({
        try: readNext,
        catch: (error) => new ChatModelError({ message: errorMessage(error) }),
      }),
    )
    const done = Fiber.interrupt(watchdog)

    // Hold the response until the model has produced content or failed: a failure before any
    // content is an error response (500), not a stream that carries only an error.
    // The head (up to the first content) in plain code: one Effect for the head, not one per chunk.
    const head: Array<UIMessageChunk> = []
    const readHead = async (): Promise<"ended" | "content" | { readonly failure: string }> => {
      while (true) {
        const next = await reader.read()
        lastActivity = clock.unsafeCurrentTimeMillis()
        if (silent) return { failure: RunBounds.cutText("idle-timeout", call.bounds) }
        if (next.done) return "ended"
        if (next.value.type === "error" && !head.some(isContent)) return { failure: next.value.errorText }
        head.push(next.value)
        if (isContent(next.value)) return "content"
      }
    }
    const headRead = yield* Effect.tryPromise({
      try: readHead,
      catch: (error) => new ChatModelError({ message: errorMessage(error) }),
    }).pipe(Effect.tapError(() => done))
    if (typeof headRead === "object") {
      // A failure before any content: the model is done with, and the request fails.
      yield* done
      if (!silent) yield* Effect.promise(() => reader.cancel())
      return yield* new ChatModelError({ message: headRead.failure })
    }
    const ended = headRead === "ended"
    let carried: ReadonlyArray<UIMessageChunk> = []
    if (!ended) {
      // Up to the first chunk a client shows (the first delta after a `text-start`), not every
      // chunk in hand: the rest of a burst goes in the next write instead of holding this one.
      const inHand = head.some(isVisible) ? [] : yield* Effect.promise(() => readNext.available(isVisible))
      const finishAt = inHand.findIndex((chunk) => chunk.type === "finish")
      const split = finishAt === -1 ? inHand.length : finishAt
      head.push(...inHand.slice(0, split))
      carried = inHand.slice(split)
    }
    const nextBatch = ended
      ? Effect.succeed(undefined)
      : Effect.suspend(() => {
          if (carried.length === 0) return readBatch
          const batch = carried
          carried = []
          return Effect.succeed(batch)
        })
    return { head, ended, nextBatch, abandon, done, outcome } satisfies ModelStream
  })
