import { Context, type Duration, Effect, Layer, Option, PubSub, Schedule, type Scope, Stream } from "effect"

/**
 * Small messages between the replicas of one deployment: "session revoked", "config changed",
 * "stop the run of thread X", "the approval of call Y was answered". Delivery is best effort
 * (at most once, no history): a subscriber that must not miss a change also re-reads its source
 * now and then (the periodic re-read is the safety net when a message is lost).
 *
 * One process: `layerLocal` (in-process). Several replicas: the Redis Layer (pub/sub) or the
 * PostgreSQL one (`LISTEN/NOTIFY`).
 */
export class ReplicaSignals extends Context.Tag("@aide/kernel/ReplicaSignals")<
  ReplicaSignals,
  {
    /** Sends `message` to every subscriber of `channel` on every replica, this one included. */
    readonly publish: (channel: string, message: string) => Effect.Effect<void>
    /** Messages on `channel` from now on, while the stream is consumed. */
    readonly subscribe: (channel: string) => Stream.Stream<string>
  }
>() {}

interface Signal {
  readonly channel: string
  readonly message: string
}

/** Signals within this process only: the default for one replica. */
export const layerLocal: Layer.Layer<ReplicaSignals> = Layer.scoped(
  ReplicaSignals,
  Effect.gen(function* () {
    const hub = yield* Effect.acquireRelease(PubSub.unbounded<Signal>(), PubSub.shutdown)
    return {
      publish: (channel, message) => Effect.asVoid(PubSub.publish(hub, { channel, message })),
      subscribe: (channel) =>
        Stream.fromPubSub(hub).pipe(
          Stream.filter((signal) => signal.channel === channel),
          Stream.map((signal) => signal.message),
        ),
    }
  }),
)

/**
 * Follows a source the replicas share (a table every replica caches): `reread` runs whenever a
 * replica, this one included, announces a change on `channel`, and every `safetyNet` anyway, so
 * a lost message is made good then. Without `ReplicaSignals` (one process) nothing is followed.
 * Returns the announcement (a no-op without signals).
 */
export const followRereads = (
  channel: string,
  reread: Effect.Effect<void>,
  safetyNet: Duration.DurationInput,
): Effect.Effect<(message: string) => Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const found = yield* Effect.serviceOption(ReplicaSignals)
    if (Option.isNone(found)) return () => Effect.void
    const signals = found.value
    yield* Effect.forkScoped(Stream.runForEach(signals.subscribe(channel), () => reread))
    yield* Effect.forkScoped(Effect.repeat(reread, Schedule.spaced(safetyNet)))
    return (message) => signals.publish(channel, message)
  })
