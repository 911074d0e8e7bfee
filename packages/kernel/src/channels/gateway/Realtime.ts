import { Cause, Clock, Duration, Effect } from "effect"
import { causeMessage } from "./internal/causeMessage.js"

/** How a realtime connection is kept up. */
export interface RealtimeOptions {
  /** Wait before the first restart; default 1 second. */
  readonly initialDelay?: Duration.DurationInput
  /** The wait doubles after each short-lived run, up to this; default 5 minutes. */
  readonly maxDelay?: Duration.DurationInput
  /** A run that lasted this long was healthy: the next wait is `initialDelay` again; default 1 minute. */
  readonly healthyAfter?: Duration.DurationInput
}

const realtimeDefaults = {
  initialDelay: Duration.seconds(1),
  maxDelay: Duration.minutes(5),
  healthyAfter: Duration.minutes(1),
} as const

/**
 * Runs `connection` for ever: each time it ends (done, failed or died) it is started again after
 * a wait that doubles from `initialDelay` to `maxDelay`, back to `initialDelay` after a run of at
 * least `healthyAfter`. A clean end waits too: a channel whose `start` returns at once must not
 * spin. All time is Effect's `Clock`. Ends only when interrupted.
 */
export const keepUp = <E>(
  key: string,
  connection: Effect.Effect<void, E>,
  options: RealtimeOptions = {},
): Effect.Effect<never> => {
  const initial = Duration.toMillis(options.initialDelay ?? realtimeDefaults.initialDelay)
  const max = Duration.toMillis(options.maxDelay ?? realtimeDefaults.maxDelay)
  const healthy = Duration.toMillis(options.healthyAfter ?? realtimeDefaults.healthyAfter)
  const loop = (delay: number): Effect.Effect<never> =>
    Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      // Suspended: a channel that throws while building its effect is an ended run too.
      const exit = yield* Effect.exit(Effect.suspend(() => connection))
      const ran = (yield* Clock.currentTimeMillis) - started
      const wait = ran >= healthy ? initial : delay
      if (exit._tag === "Failure") {
        if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt
        yield* Effect.logWarning("channels: realtime connection failed").pipe(
          Effect.annotateLogs({ channel: key, error: causeMessage(exit.cause), restartInMs: wait }),
        )
      } else {
        yield* Effect.logInfo("channels: realtime connection ended").pipe(
          Effect.annotateLogs({ channel: key, restartInMs: wait }),
        )
      }
      yield* Effect.sleep(Duration.millis(wait))
      return yield* loop(Math.min(wait * 2, max))
    })
  return loop(initial)
}
