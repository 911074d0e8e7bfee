import { Effect, Option, type Scope } from "effect"
import type { Redis } from "ioredis"
import { Fanout, LiveStream } from "../chat/internal/fanout.js"
import type { RedisConnection } from "./RedisConnection.js"
import * as RedisStreamKeys from "./RedisStreamKeys.js"

type Entry = [id: string, fields: Array<string>]

/** Longest a blocking read waits before checking that the writer is still alive (at most a third of its lease). */
const maxBlockMillis = 2_000
const readCount = 500

/** The event that ends the stream of a writer that died, on every replica. */
export const writerLost = {
  type: "error",
  errorText: "The server running this answer stopped; the answer is kept up to its last checkpoint.",
} as const

export interface MirrorTimes {
  /** The writers' lease: a silent stream is checked for a dead writer a third of it apart. */
  readonly leaseMs: number
  /** How long a sealed stream stays in Redis (the hub's retention). */
  readonly retentionMs: number
}

/**
 * Streams of runs on other replicas, followed from their Redis stream into a local
 * `LiveStream` ("mirror"): one blocking reader per stream and replica however many clients
 * follow it here, and the clients get the in-memory hub's behaviour (replay and live events in
 * order, shared batches, coalescing). Event ids are the Redis entry ids (`<n>-0`), so a
 * `Last-Event-ID` means the same event on every replica.
 */
export const make = (redis: RedisConnection["Type"], writeBudget: number, maxWindowMs: number, times: MirrorTimes) =>
  Effect.gen(function* () {
    const blockMillis = Math.max(50, Math.min(maxBlockMillis, Math.floor(times.leaseMs / 3)))
    const scope = yield* Effect.scope
    const fanout = new Fanout(writeBudget, maxWindowMs)
    /** Running remote streams followed by this replica. */
    const running = new Map<string, LiveStream>()
    const loading = yield* Effect.makeSemaphore(1)

    /** Appends `entries` to `live`; false once the stream ended (or cannot be followed: a gap). */
    const append = (live: LiveStream, entries: ReadonlyArray<Entry>) => {
      const chunks: Array<unknown> = []
      let open = true
      for (const [id, fields] of entries) {
        const parsed = RedisStreamKeys.parseEntry(id, fields)
        if (parsed._tag === "Start") continue
        if (parsed._tag === "End") {
          open = false
          break
        }
        // An event lost on its way to Redis (it was away): the rest cannot be numbered right.
        if (parsed.id !== live.events.length + chunks.length + 1) {
          open = false
          break
        }
        chunks.push(parsed.chunk)
      }
      live.publishAll(chunks)
      if (!open) live.finish()
      return open
    }

    const follow = (threadId: string, live: LiveStream, from: string, reader: Redis) =>
      Effect.gen(function* () {
        const key = RedisStreamKeys.stream(redis.prefix, threadId)
        let last = from
        while (true) {
          const read = yield* Effect.promise(
            () =>
              reader.xread("COUNT", readCount, "BLOCK", blockMillis, "STREAMS", key, last) as Promise<Array<
                [string, Array<Entry>]
              > | null>,
          )
          if (read === null) {
            // Nothing for a while: a writer that died leaves its lease to lapse. Its stream is
            // then sealed (by us or another replica) and the next read brings the end.
            if (yield* isRunningRemotely(threadId)) continue
            if ((yield* seal(threadId)) === "sealed") continue
            // Ended meanwhile, or gone: what it has left, then the end.
            const rest = yield* Effect.promise(
              () =>
                reader.xread("COUNT", readCount, "STREAMS", key, last) as Promise<Array<[string, Array<Entry>]> | null>,
            )
            append(live, rest?.[0]?.[1] ?? [])
            return live.finish()
          }
          const entries = read[0]?.[1] ?? []
          if (entries.length === 0) continue
          last = entries[entries.length - 1]![0]
          if (!append(live, entries)) return
        }
      }).pipe(
        Effect.catchAllDefect((error) => Effect.sync(() => redis.failed("streams of other replicas end early", error))),
        Effect.ensuring(
          Effect.sync(() => {
            live.finish()
            if (running.get(threadId) === live) running.delete(threadId)
            reader.disconnect()
          }),
        ),
        Effect.interruptible,
      )

    const isRunningRemotely = (threadId: string) =>
      Effect.tryPromise(() =>
        redis.client.eval(RedisStreamKeys.isActiveScript, 1, RedisStreamKeys.active(redis.prefix), threadId),
      ).pipe(
        Effect.map((found) => found === 1),
        Effect.orElseSucceed(() => false),
      )

    /**
     * Ends the stream of a dead writer (its lease lapsed) with `writerLost`, as the writer's own
     * end would; "alive" while its lease holds, "none" when it has its end already or is gone.
     */
    const seal = (threadId: string) =>
      Effect.tryPromise(() =>
        redis.client.eval(
          RedisStreamKeys.sealScript,
          2,
          RedisStreamKeys.active(redis.prefix),
          RedisStreamKeys.stream(redis.prefix, threadId),
          threadId,
          JSON.stringify(writerLost),
          times.retentionMs,
        ),
      ).pipe(
        Effect.map((result) => (result === 1 ? "sealed" : result === 0 ? "alive" : "none")),
        Effect.orElseSucceed(() => "none" as const),
      )

    /** The stream as Redis holds it now, followed on while it runs; none when Redis has none. */
    const load = (threadId: string) =>
      Effect.gen(function* () {
        const key = RedisStreamKeys.stream(redis.prefix, threadId)
        const read = Effect.tryPromise(() => redis.client.xrange(key, "-", "+") as Promise<Array<Entry>>)
        let entries = yield* read
        if (entries.length === 0) return Option.none<LiveStream>()
        let live = new LiveStream(fanout)
        if (!append(live, entries)) return Option.some(live)
        // A writer that died: its stream is sealed and read again, with its end.
        if (!(yield* isRunningRemotely(threadId)) && (yield* seal(threadId)) === "sealed") {
          entries = yield* read
          live = new LiveStream(fanout)
          if (!append(live, entries)) return Option.some(live)
        }
        if (!(yield* isRunningRemotely(threadId))) {
          live.finish()
          return Option.some(live)
        }
        running.set(threadId, live)
        const from = entries[entries.length - 1]![0]
        yield* Effect.forkIn(follow(threadId, live, from, redis.duplicate(true)), scope)
        return Option.some(live)
      }).pipe(
        Effect.catchAll((error) => {
          redis.failed("streams of other replicas cannot be resumed here", error)
          return Effect.succeed(Option.none<LiveStream>())
        }),
      )

    /** The mirror of `threadId`'s stream on another replica, if it can serve a resume after `afterEventId`. */
    const find = (threadId: string, afterEventId: number | undefined) =>
      loading.withPermits(1)(
        Effect.gen(function* () {
          const known = running.get(threadId)
          const live = known?.resumable(afterEventId) ? Option.some(known) : yield* load(threadId)
          return Option.filter(live, (found) => found.resumable(afterEventId))
        }),
      )

    return {
      find,
      fanout,
      subscriberCount: (threadId?: string) =>
        threadId === undefined ? fanout.subscribers : (running.get(threadId)?.attachedCount ?? 0),
    }
  }) satisfies Effect.Effect<unknown, never, Scope.Scope>
