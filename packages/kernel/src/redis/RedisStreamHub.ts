import { Chunk, Duration, Effect, Fiber, Layer, Option, Schedule, Stream } from "effect"
import type { LiveStream } from "../chat/internal/fanout.js"
import {
  defaultMaxSubscribers,
  defaultMaxSubscribersPerStream,
  defaultWriteBudget,
  makeMemory,
  StreamActive,
  type StreamEvent,
  StreamHub,
  type StreamHubOptions,
  type StreamSink,
  type StreamWriter,
  TooManySubscribers,
} from "../chat/StreamHub.js"
import { RedisConnection } from "./RedisConnection.js"
import * as Keys from "./RedisStreamKeys.js"
import * as StreamMirrors from "./StreamMirrors.js"

export interface RedisStreamHubOptions extends StreamHubOptions {
  /**
   * How long a writer's claim on a thread lasts without renewal (renewed every third of it):
   * a replica that dies mid-run shows as streaming this long at most, then the readers of its
   * stream on other replicas end it (`StreamMirrors`). Default 5 s, like `PgThreadClaims`: the
   * server sets both to `AIDE_LEASE_TTL`, so a dead replica's threads are free together.
   */
  readonly lease?: Duration.DurationInput
}

const maxWindowMs = 250

/**
 * Live chat streams shared by the replicas through Redis. The run's replica keeps the stream
 * in memory too (the in-memory hub): its own response and its reconnecting clients never wait
 * on Redis. Every event also goes to a Redis stream (entry id = event id), kept `retention`
 * after the end, from which other replicas serve resumes (`StreamMirrors`). Redis away: the
 * stream is this replica's only (as with the in-memory hub), logged once.
 */
export const make = (options: RedisStreamHubOptions = {}) =>
  Effect.gen(function* () {
    const redis = yield* RedisConnection
    const local = yield* makeMemory(options)
    const scope = yield* Effect.scope
    const retentionMs = Math.round(Duration.toMillis(Duration.decode(options.retention ?? Duration.seconds(60))))
    const leaseMs = Math.round(Duration.toMillis(Duration.decode(options.lease ?? Duration.seconds(5))))
    const mirrors = yield* StreamMirrors.make(redis, options.writeBudget ?? defaultWriteBudget, maxWindowMs, {
      leaseMs,
      retentionMs,
    })
    const maxPerStream = options.maxSubscribersPerStream ?? defaultMaxSubscribersPerStream
    const maxTotal = options.maxSubscribers ?? defaultMaxSubscribers
    const activeKey = Keys.active(redis.prefix)
    const { client } = redis

    /** Claims the thread in Redis: true taken, false held by another replica, none when Redis is away. */
    const claim = (threadId: string) =>
      Effect.tryPromise(() =>
        client.eval(
          Keys.openScript,
          2,
          activeKey,
          Keys.stream(redis.prefix, threadId),
          threadId,
          leaseMs,
          leaseMs + retentionMs,
        ),
      ).pipe(
        Effect.map((result) => Option.some(result === 1)),
        Effect.catchAll((error) => {
          redis.failed("chat streams cannot be resumed on other replicas", error.error)
          return Effect.succeed(Option.none<boolean>())
        }),
      )

    /** `writer` whose events also go to Redis, in order (one connection, pipelined by ioredis). */
    const mirrored = (threadId: string, writer: StreamWriter) =>
      Effect.gen(function* () {
        const key = Keys.stream(redis.prefix, threadId)
        let count = 0
        // One failed write and the Redis copy has a gap: it is given up (its readers end there).
        let healthy = true
        const failed = (error: unknown) => {
          healthy = false
          redis.failed("chat streams cannot be resumed on other replicas", error)
        }
        const renew = Effect.tryPromise(() =>
          client.eval(Keys.renewScript, 2, activeKey, key, threadId, leaseMs, leaseMs + retentionMs),
        ).pipe(Effect.catchAll((error) => Effect.sync(() => failed(error.error))))
        const renewal = yield* Effect.forkIn(
          Effect.interruptible(Effect.repeat(Effect.delay(renew, leaseMs / 3), Schedule.forever)),
          scope,
        )
        const send = (chunks: ReadonlyArray<unknown>) => {
          if (!healthy || chunks.length === 0) return
          const pipeline = client.pipeline()
          for (const chunk of chunks) pipeline.xadd(key, Keys.eventId(++count), "c", JSON.stringify(chunk ?? null))
          pipeline.exec().then((results) => {
            const error = results?.find(([failure]) => failure !== null)?.[0]
            if (error) failed(error)
          }, failed)
        }
        const finish = Effect.suspend(() => {
          const end = Effect.tryPromise(() =>
            client
              .multi()
              .xadd(key, Keys.endId(count), "end", "1")
              .pexpire(key, retentionMs)
              .zrem(activeKey, threadId)
              .exec(),
          ).pipe(Effect.catchAll((error) => Effect.sync(() => failed(error.error))))
          return writer.finish.pipe(
            Effect.zipRight(Fiber.interrupt(renewal)),
            // A gap-free copy gets its end; a broken one still drops its claim.
            Effect.zipRight(healthy ? end : Effect.ignore(Effect.tryPromise(() => client.zrem(activeKey, threadId)))),
          )
        })
        return {
          publish: (chunk: unknown) =>
            Effect.zipRight(
              writer.publish(chunk),
              Effect.sync(() => send([chunk])),
            ),
          publishAll: (chunks: ReadonlyArray<unknown>) =>
            Effect.zipRight(
              writer.publishAll(chunks),
              Effect.sync(() => send(chunks)),
            ),
          finish,
        } satisfies StreamWriter
      })

    const open = (threadId: string) =>
      Effect.gen(function* () {
        // Here first: a run of this replica holds the Redis lease too, and must not lose it.
        if (yield* local.isActive(threadId)) return yield* new StreamActive({ threadId })
        const claimed = yield* claim(threadId)
        if (Option.isSome(claimed) && !claimed.value) return yield* new StreamActive({ threadId })
        const writer = yield* local.open(threadId)
        return Option.isNone(claimed) ? writer : yield* mirrored(threadId, writer)
      })

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

    /**
     * A client may have read event n from the run's replica a moment before Redis (or this
     * replica's mirror) has it: wait for it (a second at most), or the resume would start over.
     */
    const caughtUp = (live: LiveStream, afterEventId: number | undefined) =>
      afterEventId === undefined
        ? Effect.void
        : Effect.sleep(Duration.millis(5)).pipe(
            Effect.repeat({ until: () => live.finished || live.events.length >= afterEventId, times: 200 }),
            Effect.when(() => !live.finished && live.events.length < afterEventId),
            Effect.asVoid,
          )

    /**
     * A run of this replica: served from memory. Otherwise Redis's copy, which is the latest run
     * of the thread wherever it ran (a finished one kept here may be older); this replica's
     * memory again when Redis has none (or is away).
     */
    const route = <A, E>(
      threadId: string,
      afterEventId: number | undefined,
      here: Effect.Effect<Option.Option<A>, E>,
      remote: (live: LiveStream) => Effect.Effect<Option.Option<A>, E>,
    ) =>
      Effect.flatMap(local.isActive(threadId), (running) =>
        running
          ? here
          : Effect.flatMap(mirrors.find(threadId, afterEventId), (mirror) =>
              Option.isSome(mirror)
                ? Effect.zipRight(caughtUp(mirror.value, afterEventId), remote(mirror.value))
                : here,
            ),
      )

    const subscribe = (threadId: string, afterEventId?: number) =>
      route(threadId, afterEventId, local.subscribe(threadId, afterEventId), (live) =>
        Effect.succeed(Option.some(followStream(live, afterEventId))),
      )

    const attach = (threadId: string, sink: StreamSink, afterEventId?: number) =>
      route(threadId, afterEventId, local.attach(threadId, sink, afterEventId), (live) => {
        if (!live.finished && live.attachedCount >= maxPerStream) {
          return Effect.fail(new TooManySubscribers({ threadId, scope: "stream", limit: maxPerStream }))
        }
        if (!live.finished && mirrors.fanout.subscribers >= maxTotal) {
          return Effect.fail(new TooManySubscribers({ threadId, scope: "hub", limit: maxTotal }))
        }
        return Effect.succeed(Option.some(live.attach(sink, afterEventId, true)))
      })

    const activeThreadIds = Effect.tryPromise(
      () => client.eval(Keys.activeScript, 1, activeKey) as Promise<Array<string>>,
    ).pipe(
      // Streams opened while Redis was away are this replica's only: listed here all the same.
      Effect.zipWith(local.activeThreadIds, (shared, own) => [...new Set([...shared, ...own])]),
      Effect.catchAll((error) => {
        redis.failed("activeStreamIds lists this replica's streams only", error)
        return local.activeThreadIds
      }),
    )

    const isActive = (threadId: string) =>
      Effect.flatMap(local.isActive(threadId), (here) =>
        here
          ? Effect.succeed(true)
          : Effect.tryPromise(() => client.eval(Keys.isActiveScript, 1, activeKey, threadId)).pipe(
              Effect.map((found) => found === 1),
              Effect.orElseSucceed(() => false),
            ),
      )

    const subscriberCount = (threadId?: string) =>
      Effect.map(local.subscriberCount(threadId), (here) => here + mirrors.subscriberCount(threadId))

    return StreamHub.of({
      open,
      subscribe,
      follow: local.follow,
      attach,
      subscriberCount,
      activeThreadIds,
      isActive,
    })
  })

/** The Redis hub: SPEC's 60-second retention and the default caps, or `options`. */
export const layer = (options: RedisStreamHubOptions = {}): Layer.Layer<StreamHub, never, RedisConnection> =>
  Layer.scoped(StreamHub, make(options))
