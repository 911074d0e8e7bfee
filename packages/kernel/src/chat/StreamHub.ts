import { Chunk, Context, Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import { Fanout, LiveStream } from "./internal/fanout.js"

/**
 * One event of a chat stream: its id (1, 2, …, what a client resumes after) and the chunk it
 * carries (a UI message chunk). How it goes on the wire (SSE, WebSocket…) is the transport's.
 */
export interface StreamEvent {
  readonly id: number
  readonly chunk: unknown
}

/** The producer's side of a live stream. */
export interface StreamWriter {
  /** Appends a chunk (any JSON value) as the next event and sends it to every subscriber. */
  readonly publish: (chunk: unknown) => Effect.Effect<void>
  /**
   * Appends `chunks` as the next events and hands them to the streams that follow the run
   * (`follow`, `subscribe`) now, as one batch, rather than on the next turn of the event loop.
   */
  readonly publishAll: (chunks: ReadonlyArray<unknown>) => Effect.Effect<void>
  /** Ends the stream: subscribers complete; the buffer is kept for `retention`, then dropped. */
  readonly finish: Effect.Effect<void>
}

/**
 * Where an attached subscriber's events go, e.g. straight into an HTTP response. Called
 * synchronously by the hub, in order; must not block.
 */
export interface StreamSink {
  /**
   * The next events, in order. Every sink handed a batch at the same moment gets the very same
   * array, holding the very same event objects (a replay from the start is shared too): a
   * transport encodes each batch once for all its subscribers by keying a cache on it (a WeakMap,
   * so the encoding lives as long as the batch). Implementations of the hub must keep this; sinks
   * must not mutate the array.
   */
  readonly onEvents: (events: ReadonlyArray<StreamEvent>) => void
  /** The stream finished: nothing follows. Not called after the subscriber detached itself. */
  readonly onEnd: () => void
}

/**
 * A follower of one run's stream (the response of the request that started it): chosen when it
 * is made, so a later run of the thread is never mixed in. Not counted against the caps nor
 * coalesced: it gets every batch as it is published.
 */
export interface Following {
  /** The events from the first, as a Stream. */
  readonly events: Stream.Stream<StreamEvent>
  /** The events from the first, into `sink` (the replay synchronously); returns the detach function. */
  readonly attach: (sink: StreamSink) => () => void
}

/** A second stream was opened for a thread whose stream is still running. */
export class StreamActive extends Schema.TaggedError<StreamActive>()("StreamActive", {
  threadId: Schema.String,
}) {}

/** A subscriber refused: the stream (`scope: "stream"`) or the whole hub (`"hub"`) has `limit` already. */
export class TooManySubscribers extends Schema.TaggedError<TooManySubscribers>()("TooManySubscribers", {
  threadId: Schema.String,
  scope: Schema.Literal("stream", "hub"),
  limit: Schema.Number,
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
     * The thread's stream from the event after `afterEventId`: buffered events first, then live
     * ones until it finishes. Without `afterEventId`, from the start, and only while it runs
     * (SPEC: no active stream, 204). With it, a finished stream's rest is served for `retention`
     * (a client finishing the stream it was reading). None when there is nothing to resume.
     */
    readonly subscribe: (
      threadId: string,
      afterEventId?: number,
    ) => Effect.Effect<Option.Option<Stream.Stream<StreamEvent>>>
    /** The thread's running stream from its first event, for the run's own response; none when none runs. */
    readonly follow: (threadId: string) => Effect.Effect<Option.Option<Following>>
    /**
     * `subscribe` for transports: the events go to `sink` (the replay synchronously, before this
     * returns) instead of a Stream, with no fiber or queue per subscriber. Counted against the
     * caps (`TooManySubscribers`), and coalesced when there are many (`writeBudget`). Some holds
     * the function that detaches the sink; call it when the client goes away.
     */
    readonly attach: (
      threadId: string,
      sink: StreamSink,
      afterEventId?: number,
    ) => Effect.Effect<Option.Option<() => void>, TooManySubscribers>
    /** Attached subscribers following a stream now: of `threadId`, or of every stream. */
    readonly subscriberCount: (threadId?: string) => Effect.Effect<number>
    /** Threads whose stream is running now. */
    readonly activeThreadIds: Effect.Effect<ReadonlyArray<string>>
    readonly isActive: (threadId: string) => Effect.Effect<boolean>
  }
>() {}

export interface StreamHubOptions {
  /** How long a finished stream stays resumable with a `Last-Event-ID`; default 60 seconds (SPEC). */
  readonly retention?: Duration.DurationInput
  /** Attached subscribers per stream; default 1,000. */
  readonly maxSubscribersPerStream?: number
  /** Attached subscribers over all streams; default 10,000. */
  readonly maxSubscribers?: number
  /**
   * Writes per second (attached subscribers × batches) past which events are coalesced for
   * attached subscribers, over a window of `subscribers / writeBudget` s, at most 250 ms;
   * default 10,000 (≈ 7 % of a core here). A few subscribers get every event at once.
   */
  readonly writeBudget?: number
}

export const defaultMaxSubscribersPerStream = 1_000
export const defaultMaxSubscribers = 10_000
export const defaultWriteBudget = 10_000
const maxWindowMs = 250

/** In-process hub: streams live in this process's memory. */
export const makeMemory = (options: StreamHubOptions = {}) =>
  Effect.gen(function* () {
    const streams = new Map<string, LiveStream>()
    const fanout = new Fanout(options.writeBudget ?? defaultWriteBudget, maxWindowMs)
    const retention = Duration.decode(options.retention ?? Duration.seconds(60))
    const maxPerStream = options.maxSubscribersPerStream ?? defaultMaxSubscribersPerStream
    const maxTotal = options.maxSubscribers ?? defaultMaxSubscribers
    const scope = yield* Effect.scope

    const open = (threadId: string) =>
      Effect.suspend(() => {
        const existing = streams.get(threadId)
        if (existing !== undefined && !existing.finished) return Effect.fail(new StreamActive({ threadId }))
        const live = new LiveStream(fanout)
        streams.set(threadId, live)

        const drop = Effect.sleep(retention).pipe(
          Effect.andThen(
            Effect.sync(() => {
              if (streams.get(threadId) === live) streams.delete(threadId)
            }),
          ),
        )
        const finish = Effect.suspend(() => {
          if (live.finished) return Effect.void
          live.finish()
          // `finish` often runs in a finalizer (uninterruptible): the timer must stay interruptible,
          // or closing the hub would wait out the retention.
          return Effect.asVoid(Effect.forkIn(Effect.interruptible(drop), scope))
        })
        return Effect.succeed<StreamWriter>({
          publish: (chunk) => Effect.sync(() => live.publish(chunk)),
          publishAll: (chunks) => Effect.sync(() => live.publishAll(chunks)),
          finish,
        })
      })

    const resumable = (threadId: string, afterEventId: number | undefined) => {
      const live = streams.get(threadId)
      return live?.resumable(afterEventId) ? live : undefined
    }

    /** `live`'s events after `afterEventId` as a Stream of a follower. */
    const followStream = (live: LiveStream, afterEventId: number | undefined) =>
      Stream.asyncPush<StreamEvent>((emit) =>
        Effect.acquireRelease(
          Effect.sync(() =>
            live.attach(
              { onEvents: (events) => emit.chunk(Chunk.unsafeFromArray(events)), onEnd: () => emit.end() },
              afterEventId,
              false,
            ),
          ),
          (detach) => Effect.sync(detach),
        ),
      )

    const subscribe = (threadId: string, afterEventId?: number) =>
      Effect.sync(() => {
        // The stream is chosen now: a run that finishes before the Stream is read is still read whole.
        const live = resumable(threadId, afterEventId)
        if (live === undefined) return Option.none()
        return Option.some(followStream(live, afterEventId))
      })

    const follow = (threadId: string) =>
      Effect.sync((): Option.Option<Following> => {
        const live = resumable(threadId, undefined)
        if (live === undefined) return Option.none()
        return Option.some({
          events: followStream(live, undefined),
          attach: (sink) => live.attach(sink, undefined, false),
        })
      })

    const attach = (threadId: string, sink: StreamSink, afterEventId?: number) =>
      Effect.suspend(() => {
        const live = resumable(threadId, afterEventId)
        if (live === undefined) return Effect.succeed(Option.none())
        if (!live.finished && live.attachedCount >= maxPerStream) {
          return Effect.fail(new TooManySubscribers({ threadId, scope: "stream", limit: maxPerStream }))
        }
        if (!live.finished && fanout.subscribers >= maxTotal) {
          return Effect.fail(new TooManySubscribers({ threadId, scope: "hub", limit: maxTotal }))
        }
        return Effect.succeed(Option.some(live.attach(sink, afterEventId, true)))
      })

    const subscriberCount = (threadId?: string) =>
      Effect.sync(() => (threadId === undefined ? fanout.subscribers : (streams.get(threadId)?.attachedCount ?? 0)))

    const activeThreadIds = Effect.sync(() =>
      [...streams.entries()].filter(([, live]) => !live.finished).map(([threadId]) => threadId),
    )

    const isActive = (threadId: string) => Effect.sync(() => streams.get(threadId)?.finished === false)

    return StreamHub.of({ open, subscribe, follow, attach, subscriberCount, activeThreadIds, isActive })
  })

/** The in-memory hub: SPEC's 60-second retention and the default caps, or `options`. */
export const layerMemory = (options: StreamHubOptions = {}) => Layer.scoped(StreamHub, makeMemory(options))
