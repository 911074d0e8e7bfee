import { Effect, Schedule, TestServices } from "effect"

/**
 * Retries `effect` in real time (even under a TestClock) until it succeeds: for waiting on
 * background fibers and the database. Fails with its last error after `timeoutMs` (default 10 s).
 */
export const eventually = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  options: { readonly timeoutMs?: number; readonly intervalMs?: number } = {},
): Effect.Effect<A, E, R> => {
  const interval = options.intervalMs ?? 10
  const attempts = Math.ceil((options.timeoutMs ?? 10_000) / interval)
  return TestServices.provideLive(
    Effect.retry(effect, Schedule.intersect(Schedule.spaced(`${interval} millis`), Schedule.recurs(attempts))),
  )
}

/** `eventually` for a condition: succeeds once `check` is true, else fails saying what it waited for. */
export const until = <E, R>(
  check: Effect.Effect<boolean, E, R>,
  what: string,
  options?: { readonly timeoutMs?: number },
) =>
  eventually(
    Effect.flatMap(check, (holds) => (holds ? Effect.void : Effect.fail(new Error(`timed out waiting for: ${what}`)))),
    options,
  )
