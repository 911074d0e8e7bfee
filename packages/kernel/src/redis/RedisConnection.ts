import { Context, Effect, Layer, Redacted as R, type Redacted, Runtime } from "effect"
import { Redis } from "ioredis"

export interface RedisOptions {
  /** `redis://[:password@]host:6379[/db]` or `rediss://…` (TLS). */
  readonly url: Redacted.Redacted<string>
  /** Prepended to every key and channel, so deployments (or tests) can share one Redis; default `aide:`. */
  readonly keyPrefix?: string
}

/**
 * One Redis connection for commands, shared by the Redis Layers of one replica, and the way to
 * open more (a blocking read or a pub/sub subscriber needs a connection of its own).
 *
 * Commands fail at once while Redis is unreachable (no offline queue, one attempt): every
 * caller has a local fallback (chat answers without cross-replica resume, limits count in this
 * process), which beats requests waiting on a queue. ioredis reconnects by itself.
 */
export class RedisConnection extends Context.Tag("@aide/kernel/RedisConnection")<
  RedisConnection,
  {
    readonly client: Redis
    readonly prefix: string
    /**
     * A new connection, closed with the Layer's scope or by the caller. `queue`: commands sent
     * before it is connected wait for it (a subscriber's SUBSCRIBE), instead of failing.
     */
    readonly duplicate: (queue?: boolean) => Redis
    /** Logs the first failure of an outage (once, not per command); `what` names the fallback. */
    readonly failed: (what: string, error: unknown) => void
  }
>() {}

const connectionOptions = {
  lazyConnect: false,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  // Reconnect quickly, then every 2 s at most, forever: Redis coming back is picked up alone.
  retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2_000),
} as const

/** The message of an error, never the URL (it may hold a password). */
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

export const make = (options: RedisOptions) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const log = (effect: Effect.Effect<void>) => Runtime.runFork(runtime)(effect)
    let down = false
    const failed = (what: string, error: unknown) => {
      if (down) return
      down = true
      log(
        Effect.logWarning(`Redis unreachable: ${what} until it is back`).pipe(
          Effect.annotateLogs({ error: describe(error) }),
        ),
      )
    }
    const opened = new Set<Redis>()
    const open = (queue = false) => {
      const client = new Redis(R.value(options.url), { ...connectionOptions, enableOfflineQueue: queue })
      opened.add(client)
      // Without a listener, ioredis prints every failed reconnect; the outage is logged once by `failed`.
      client.on("error", (error) => failed("working without it", error))
      client.on("end", () => opened.delete(client))
      return client
    }
    const client = open()
    // The first requests find it connected; Redis away at start delays the start by this, no more.
    yield* Effect.async<void>((resume) => {
      if (client.status === "ready") return resume(Effect.void)
      client.once("ready", () => resume(Effect.void))
    }).pipe(Effect.timeout("2 seconds"), Effect.ignore)
    client.on("ready", () => {
      if (!down) return
      down = false
      log(Effect.logInfo("Redis reachable again"))
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const connection of opened) connection.disconnect()
      }),
    )
    return RedisConnection.of({ client, prefix: options.keyPrefix ?? "aide:", duplicate: open, failed })
  })

/** The connection, opened when built (a start with Redis down still succeeds) and closed with its scope. */
export const layer = (options: RedisOptions): Layer.Layer<RedisConnection> =>
  Layer.scoped(RedisConnection, make(options))
