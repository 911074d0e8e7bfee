import { Context, Duration, Effect, Layer, Option, Schema, Stream } from "effect"

/** One SSE event of a chat stream: its id (1, 2, …) and its encoded frame, ready to write. */
export interface StreamFrame {
  readonly id: number
  readonly bytes: Uint8Array
}

/** The producer's side of a live stream. */
export interface StreamWriter {
  /** Appends a chunk (any JSON value) as the next event and sends it to every subscriber. */
  readonly publish: (chunk: unknown) => Effect.Effect<void>
  /** Ends the stream: subscribers complete; the buffer is kept for `retention`, then dropped. */
  readonly finish: Effect.Effect<void>
}

/** A second stream was opened for a thread whose stream is still running. */
export class StreamActive extends Schema.TaggedError<StreamActive>()("StreamActive", {
  threadId: Schema.String,
}) {}

/**
 * Live chat streams, one per thread at a time: buffers every event and fans it out, so a client
 * that reconnects (or a second tab) gets the whole stream, or everything after the last event
 * it saw. Swap the Layer to share streams between replicas.
 */
export class StreamHub extends Context.Tag("@aide/kernel/StreamHub")<
  StreamHub,
  {
    readonly open: (threadId: string) => Effect.Effect<StreamWriter, StreamActive>
    /**
     * The thread's stream from the event after `afterEventId` (from the start when absent):
     * buffered events first, then live ones until it finishes. None when there is no stream
     * (never started, or finished longer than `retention` ago).
     */
    readonly subscribe: (
      threadId: string,
      afterEventId?: number,
    ) => Effect.Effect<Option.Option<Stream.Stream<StreamFrame>>>
    /** Threads whose stream is running now. */
    readonly activeThreadIds: Effect.Effect<ReadonlyArray<string>>
    readonly isActive: (threadId: string) => Effect.Effect<boolean>
  }
>() {}

const encoder = new TextEncoder()

/** `id: N` + `data: <json>`: the AI SDK's UI message stream framing, with event ids. */
export const encodeFrame = (id: number, chunk: unknown): Uint8Array =>
  encoder.encode(`id: ${id}\ndata: ${JSON.stringify(chunk)}\n\n`)

/** The terminator the AI SDK's `DefaultChatTransport` expects after the last chunk. */
export const doneFrame: Uint8Array = encoder.encode("data: [DONE]\n\n")

type Listener = (frame: StreamFrame | null) => void

interface LiveStream {
  readonly frames: Array<StreamFrame>
  readonly listeners: Set<Listener>
  finished: boolean
}

export interface StreamHubOptions {
  /** How long a finished stream stays replayable (SPEC: 60 seconds). */
  readonly retention: Duration.DurationInput
}

/** In-process hub: streams live in this process's memory. */
export const makeMemory = (options: StreamHubOptions) =>
  Effect.gen(function* () {
    const streams = new Map<string, LiveStream>()
    const retention = Duration.decode(options.retention)
    const scope = yield* Effect.scope

    const open = (threadId: string) =>
      Effect.suspend(() => {
        const existing = streams.get(threadId)
        if (existing !== undefined && !existing.finished) return Effect.fail(new StreamActive({ threadId }))
        const live: LiveStream = { frames: [], listeners: new Set(), finished: false }
        streams.set(threadId, live)

        const publish = (chunk: unknown) =>
          Effect.sync(() => {
            if (live.finished) return
            // Encoded once here; every subscriber writes the same bytes.
            const frame: StreamFrame = { id: live.frames.length + 1, bytes: encodeFrame(live.frames.length + 1, chunk) }
            live.frames.push(frame)
            for (const listener of live.listeners) listener(frame)
          })

        const drop = Effect.sleep(retention).pipe(
          Effect.andThen(
            Effect.sync(() => {
              if (streams.get(threadId) === live) streams.delete(threadId)
            }),
          ),
        )

        const finish = Effect.suspend(() => {
          if (live.finished) return Effect.void
          live.finished = true
          for (const listener of live.listeners) listener(null)
          live.listeners.clear()
          // `finish` often runs in a finalizer (uninterruptible): the timer must stay interruptible,
          // or closing the hub would wait out the retention.
          return Effect.asVoid(Effect.forkIn(Effect.interruptible(drop), scope))
        })

        return Effect.succeed<StreamWriter>({ publish, finish })
      })

    const subscribe = (threadId: string, afterEventId = 0) =>
      Effect.sync(() => {
        const live = streams.get(threadId)
        if (live === undefined) return Option.none()
        return Option.some(
          Stream.asyncPush<StreamFrame>((emit) =>
            Effect.acquireRelease(
              // Replay and registration happen in one synchronous step, so no event falls between.
              Effect.sync(() => {
                for (const frame of live.frames) if (frame.id > afterEventId) emit.single(frame)
                if (live.finished) {
                  emit.end()
                  return undefined
                }
                const listener: Listener = (frame) => (frame === null ? emit.end() : emit.single(frame))
                live.listeners.add(listener)
                return listener
              }),
              (listener) =>
                Effect.sync(() => {
                  if (listener !== undefined) live.listeners.delete(listener)
                }),
            ),
          ),
        )
      })

    const activeThreadIds = Effect.sync(() =>
      [...streams.entries()].filter(([, live]) => !live.finished).map(([threadId]) => threadId),
    )

    const isActive = (threadId: string) => Effect.sync(() => streams.get(threadId)?.finished === false)

    return StreamHub.of({ open, subscribe, activeThreadIds, isActive })
  })

/** The in-memory hub with SPEC's 60-second retention (or `options`). */
export const layerMemory = (options: StreamHubOptions = { retention: Duration.seconds(60) }) =>
  Layer.scoped(StreamHub, makeMemory(options))
