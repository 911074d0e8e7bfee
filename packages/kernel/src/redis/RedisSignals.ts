import { Effect, Layer, PubSub, Runtime, Stream } from "effect"
import { ReplicaSignals } from "../replicas/ReplicaSignals.js"
import { RedisConnection } from "./RedisConnection.js"

interface Signal {
  readonly channel: string
  readonly message: string
}

/**
 * `ReplicaSignals` over Redis pub/sub: one subscriber connection per replica, on a pattern
 * covering every channel under the key prefix, fanned out in process. Best effort, like the
 * interface says: while Redis is away a message is delivered on this replica only (the others
 * catch up through their periodic re-reads), and the subscription comes back with the
 * connection (ioredis re-subscribes on reconnect).
 */
export const make = Effect.gen(function* () {
  const redis = yield* RedisConnection
  const runtime = yield* Effect.runtime<never>()
  const hub = yield* Effect.acquireRelease(PubSub.unbounded<Signal>(), PubSub.shutdown)
  const base = `${redis.prefix}signal:`
  const deliver = (signal: Signal) => Runtime.runSync(runtime)(PubSub.publish(hub, signal))

  const subscriber = redis.duplicate(true)
  subscriber.on("pmessage", (_pattern: string, channel: string, message: string) => {
    if (channel.startsWith(base)) deliver({ channel: channel.slice(base.length), message })
  })
  // Not awaited: a replica starting while Redis is away subscribes once it is reachable.
  subscriber.psubscribe(`${base}*`).catch((error: unknown) => redis.failed("signals reach this replica only", error))

  const publish = (channel: string, message: string) =>
    Effect.tryPromise(() => redis.client.publish(base + channel, message)).pipe(
      Effect.catchAll((error) => {
        redis.failed("signals reach this replica only", error.error)
        return Effect.sync(() => deliver({ channel, message }))
      }),
    )

  const subscribe = (channel: string) =>
    Stream.fromPubSub(hub).pipe(
      Stream.filter((signal) => signal.channel === channel),
      Stream.map((signal) => signal.message),
    )

  return ReplicaSignals.of({ publish, subscribe })
})

export const layer: Layer.Layer<ReplicaSignals, never, RedisConnection> = Layer.scoped(ReplicaSignals, make)
