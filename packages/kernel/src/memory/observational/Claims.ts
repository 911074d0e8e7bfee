import { Clock, Duration, Effect, Option, Schedule } from "effect"
import { Ids } from "../../ids/Ids.js"
import { type ClaimKind, ObservationStore, type RecordKey } from "./ObservationStore.js"

/**
 * The claim that makes the observer and the reflector run one at a time per scope, across
 * processes: a lease in the record row, renewed while the work runs, so `isObserving` /
 * `isReflecting` are true exactly while it runs (a crashed process's lease runs out within
 * `lease`, and a process that owns its storage alone clears them at start).
 */
export interface ClaimSettings {
  readonly lease: Duration.Duration
  /** Consecutive failures that open the breaker. */
  readonly pauseAfter: number
  /** The first pause; each further failure doubles it, up to `maxPause`. */
  readonly pause: Duration.Duration
  readonly maxPause: Duration.Duration
}

export const defaultClaimSettings: ClaimSettings = {
  lease: Duration.seconds(30),
  pauseAfter: 3,
  pause: Duration.minutes(1),
  maxPause: Duration.minutes(30),
}

/** What the work under a claim reports: done, or failed (counted by the breaker). */
export type ClaimOutcome = "done" | "failed" | "skipped"

export const make = (settings: ClaimSettings) =>
  Effect.gen(function* () {
    const store = yield* ObservationStore
    const ids = yield* Ids
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const leaseMillis = Duration.toMillis(settings.lease)

    /**
     * Runs `work` under the claim when it can be taken (else returns "skipped"). `work` commits
     * (which gives the claim up) or reports a failure; the claim is given up whatever happens.
     */
    const withClaim = <E, R>(
      key: RecordKey,
      kind: ClaimKind,
      work: (token: string) => Effect.Effect<ClaimOutcome, E, R>,
    ) =>
      Effect.gen(function* () {
        const token = yield* ids.uuid
        const start = yield* now
        const claimed = yield* store.claim(key, kind, token, start, new Date(start.getTime() + leaseMillis))
        if (!claimed) return "skipped" as ClaimOutcome
        const renewing = Effect.flatMap(now, (at) =>
          store.renew(key, token, new Date(at.getTime() + leaseMillis)),
        ).pipe(
          Effect.ignore,
          Effect.repeat(Schedule.spaced(Duration.millis(leaseMillis / 3))),
          Effect.delay(Duration.millis(leaseMillis / 3)),
        )
        const outcome = yield* Effect.raceFirst(work(token), Effect.as(renewing, "done" as ClaimOutcome)).pipe(
          Effect.catchAllCause((cause) =>
            Effect.as(
              Effect.logWarning(`memory: the ${kind === "observing" ? "observer" : "reflector"} failed`, cause),
              "failed" as ClaimOutcome,
            ),
          ),
          // Shutting down: the claim is given up now, not when its lease runs out.
          Effect.onInterrupt(() =>
            store
              .release(key, token, { failed: false, pauseAfter: settings.pauseAfter, pauseUntil: new Date(0) })
              .pipe(Effect.ignore),
          ),
        )
        // The breaker's pause grows with the failures in a row: read them only after one.
        const failures =
          outcome === "failed"
            ? Option.match(yield* store.record(key), { onNone: () => 1, onSome: (r) => r.failures + 1 })
            : 0
        const doublings = Math.max(0, failures - settings.pauseAfter)
        const pauseMillis = Math.min(
          Duration.toMillis(settings.pause) * 2 ** Math.min(doublings, 20),
          Duration.toMillis(settings.maxPause),
        )
        const end = yield* now
        // A commit gave the claim up already; this only matters after a failure or a skip.
        yield* store.release(key, token, {
          failed: outcome === "failed",
          pauseAfter: settings.pauseAfter,
          pauseUntil: new Date(end.getTime() + pauseMillis),
        })
        if (outcome === "failed" && failures >= settings.pauseAfter) {
          yield* Effect.logWarning("memory: paused after repeated failures").pipe(
            Effect.annotateLogs({ key, failures, pauseSeconds: pauseMillis / 1000 }),
          )
        }
        return outcome
      })

    return { withClaim } as const
  })

export type Claims = Effect.Effect.Success<ReturnType<typeof make>>
