import type { UIMessage, UIMessageChunk } from "ai"
import { Clock, Effect } from "effect"
import * as KernelMetrics from "../../metrics/KernelMetrics.js"
import type { AnswerRecorder } from "../AnswerRecorder.js"
import { type ModelStream, RunCut } from "../ModelStream.js"
import * as RunBounds from "../RunBounds.js"
import type { StreamWriter } from "../StreamHub.js"

export interface RunLoopSpec {
  readonly model: ModelStream
  /** The head already went over the answer limit: the run is cut before reading on. */
  readonly headCut: boolean
  /** Relays to the hub, bounded, with checkpoints; its head is relayed already. */
  readonly answer: AnswerRecorder
  readonly writer: StreamWriter
  readonly bounds: RunBounds.RunBounds
  readonly startedAt: number
  /** Commits the answer (with `interrupted` when the run ended early). */
  readonly commit: (
    message: UIMessage | undefined,
    interrupted: RunBounds.Interruption | undefined,
  ) => Effect.Effect<void, unknown>
  /** After the commit, before `finish` (titling a new thread). */
  readonly afterCommit: Effect.Effect<void, unknown>
  /** Frees the thread for the next run, once the stream finished. */
  readonly release: Effect.Effect<void>
}

/**
 * The rest of a run once its head went out: relays the model's chunks, holds its `finish` until
 * the answer is committed, so a client that saw `finish` never loses the message whatever
 * happens to the process next, then finishes the stream. A cut or a model failure ends the
 * stream with an `error` chunk and keeps what was sent. Never fails: a defect is logged and
 * told to the client as an `error` chunk.
 */
export const run = (spec: RunLoopSpec): Effect.Effect<void> => {
  const { model, answer, writer, bounds } = spec
  return Effect.gen(function* () {
    yield* Effect.logInfo("chat run started")
    let finish: UIMessageChunk | undefined
    let interrupted: RunBounds.Interruption | undefined
    // A batch at a time (what one read of the model brought): relayed as one write to the
    // clients, before anything of the run's end (commit, titles) can hold it back.
    const relayBatch = (batch: ReadonlyArray<UIMessageChunk>) => {
      const at = batch.findIndex((chunk) => chunk.type === "finish")
      if (at === -1) return answer.relayAll(batch)
      finish = batch[at]
      const others = batch.length === 1 ? [] : batch.filter((chunk) => chunk.type !== "finish")
      return others.length === 0 ? Effect.void : answer.relayAll(others)
    }
    const relayed = yield* Effect.either(
      Effect.gen(function* () {
        if (spec.headCut) return yield* new RunCut({ reason: "max-answer-bytes" })
        while (true) {
          const batch = yield* model.nextBatch
          if (batch === undefined) return
          yield* relayBatch(batch)
          yield* answer.checkpoint
        }
      }),
    )
    // What a client was sent, when the stream broke; what the step built, when it ended.
    let rebuilt: UIMessage | undefined
    if (relayed._tag === "Left") {
      const failure = relayed.left
      if (failure._tag === "RunCut") yield* model.abandon
      interrupted = failure._tag === "RunCut" ? failure.reason : "model-error"
      const errorText = failure._tag === "RunCut" ? RunBounds.cutText(failure.reason, bounds) : failure.message
      yield* writer.publish({ type: "error", errorText })
      rebuilt = yield* answer.rebuild
    }
    yield* model.done
    const outcome = model.outcome()
    // A step that reports no message (one of an embedder's) is stored as its clients built it.
    const responseMessage = relayed._tag === "Left" ? rebuilt : (outcome.responseMessage ?? (yield* answer.rebuild))
    if (interrupted === undefined && outcome.aborted) interrupted = "stopped"
    if (interrupted === "model-error") KernelMetrics.countModelError()
    KernelMetrics.countChatRun(
      interrupted === undefined
        ? "completed"
        : interrupted === "stopped"
          ? "stopped"
          : interrupted === "model-error"
            ? "model_error"
            : "cut",
    )
    yield* spec.commit(responseMessage, interrupted)
    yield* spec.afterCommit
    if (finish !== undefined) yield* writer.publish(finish)
    yield* Effect.logInfo("chat run finished").pipe(
      Effect.annotateLogs({
        durationMs: (yield* Clock.currentTimeMillis) - spec.startedAt,
        finishReason: interrupted ?? outcome.finishReason ?? "unknown",
        inputTokens: outcome.usage?.inputTokens ?? null,
        outputTokens: outcome.usage?.outputTokens ?? null,
        answerBytes: answer.bytes(),
      }),
    )
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.logError("chat run failed", cause).pipe(
        Effect.zipLeft(Effect.sync(() => KernelMetrics.countChatRun("failed"))),
        Effect.zipRight(writer.publish({ type: "error", errorText: "the response could not be completed" })),
      ),
    ),
    Effect.ensuring(Effect.zipRight(writer.finish, spec.release)),
  )
}
