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

/** Where a realtime connection is, for `gateway.endpoints` and the plugin's card. */
export interface ConnectionStatus {
  /** `standby`: another replica holds the connection (or this one waits for its lease). */
  readonly state: "standby" | "connected" | "reconnecting"
  /** Why the last run ended, until a run lasts `healthyAfter`; null when none failed since. */
  readonly reason: string | null
  /** Runs in a row that ended before `healthyAfter`. */
  readonly failures: number
  /** When the state last changed. */
  readonly since: Date
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
  report: (status: ConnectionStatus) => void = () => undefined,
): Effect.Effect<never> => {
  const initial = Duration.toMillis(options.initialDelay ?? realtimeDefaults.initialDelay)
  const max = Duration.toMillis(options.maxDelay ?? realtimeDefaults.maxDelay)
  const healthy = Duration.toMillis(options.healthyAfter ?? realtimeDefaults.healthyAfter)
  let reason: string | null = null
  let failures = 0
  const loop = (delay: number): Effect.Effect<never> =>
    Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      report({ state: "connected", reason, failures, since: new Date(started) })
      // Suspended: a channel that throws while building its effect is an ended run too.
      const exit = yield* Effect.exit(Effect.suspend(() => connection))
      const ended = yield* Clock.currentTimeMillis
      const ran = ended - started
      const wait = ran >= healthy ? initial : delay
      if (ran >= healthy) {
        reason = null
        failures = 0
      }
      if (exit._tag === "Failure") {
        if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt
        reason = causeMessage(exit.cause)
        failures++
        report({ state: "reconnecting", reason, failures, since: new Date(ended) })
        yield* Effect.logWarning("channels: realtime connection failed").pipe(
          Effect.annotateLogs({ channel: key, error: reason, restartInMs: wait }),
        )
      } else {
        if (ran < healthy) failures++
        report({ state: "reconnecting", reason, failures, since: new Date(ended) })
        yield* Effect.logInfo("channels: realtime connection ended").pipe(
          Effect.annotateLogs({ channel: key, restartInMs: wait }),
        )
      }
      yield* Effect.sleep(Duration.millis(wait))
      return yield* loop(Math.min(wait * 2, max))
    })
  return loop(initial)
}
