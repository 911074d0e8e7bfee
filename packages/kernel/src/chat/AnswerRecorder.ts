import type { UIMessageChunk } from "ai"
import { Clock, Effect } from "effect"
import type { StoredMessage } from "../threads/Threads.js"
import { messageOf } from "./ChatMessages.js"
import type { AssistantMetadata } from "./ChatModel.js"
import { RunCut } from "./ModelStream.js"
import { record, settle } from "./PartialAnswer.js"
import * as RunBounds from "./RunBounds.js"

/**
 * What a run has sent to its clients: counted against the answer limit, kept compact, and saved
 * as a checkpoint every `checkpointMillis` so that a process killed mid-stream keeps what its
 * clients were shown. The final save of the run replaces the checkpoint.
 */
export const make = (options: {
  /** Publishes chunks as the next events of the run's stream, handed to its followers at once. */
  readonly publishAll: (chunks: ReadonlyArray<UIMessageChunk>) => Effect.Effect<void>
  readonly save: (message: StoredMessage) => Effect.Effect<void, unknown>
  /** The message a resumed run continues: a rebuilt message starts from its parts. */
  readonly continued: StoredMessage | undefined
  readonly metadata: AssistantMetadata
  readonly bounds: RunBounds.RunBounds
  readonly checkpointMillis: number
  readonly startedAt: number
}) => {
  const sent: Array<UIMessageChunk> = []
  let bytes = 0
  let checkpointedAt = options.startedAt

  /**
   * Sends `chunks` (what one read of the model brought) as one batch. Plain code per chunk, one
   * Effect per batch: a chunk that would take the answer over its limit is not sent, nor is any
   * after it, and the run is cut (`RunCut`) once those before it went out.
   */
  const relayAll = (chunks: ReadonlyArray<UIMessageChunk>): Effect.Effect<void, RunCut> =>
    Effect.suspend(() => {
      let accepted = chunks.length
      for (let index = 0; index < chunks.length; index++) {
        const chunk = chunks[index]!
        bytes += RunBounds.chunkBytes(chunk)
        if (bytes > options.bounds.maxAnswerBytes) {
          accepted = index
          break
        }
        record(sent, chunk)
      }
      const publish = options.publishAll(accepted === chunks.length ? chunks : chunks.slice(0, accepted))
      return accepted === chunks.length
        ? publish
        : Effect.zipRight(publish, Effect.fail(new RunCut({ reason: "max-answer-bytes" })))
    })

  /** The message as a client that read every sent chunk has it. */
  const rebuild = Effect.suspend(() => messageOf(sent, options.continued))

  /** Saves the answer so far, marked `partial` and settled (never `streaming`), when it is due. */
  const checkpoint = Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (now - checkpointedAt < options.checkpointMillis) return Effect.void
    checkpointedAt = now
    return Effect.gen(function* () {
      const partial = yield* rebuild
      if (partial === undefined || partial.parts.length === 0) return
      yield* options.save(
        settle(
          { id: partial.id, role: "assistant", parts: partial.parts, metadata: { ...options.metadata, partial: true } },
          { keepApprovals: false },
        ),
      )
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("chat: saving a checkpoint failed", cause)))
  })

  return { relayAll, rebuild, checkpoint, bytes: () => bytes }
}

export type AnswerRecorder = ReturnType<typeof make>
