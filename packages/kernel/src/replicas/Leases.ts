import { Clock, Context, Duration, Effect, Either, Fiber, Layer, Option, Schedule, type Scope } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/**
 * Named leases: what must run on one replica at a time (the scheduler's firing loop, the inbox
 * sweep, a channel's realtime connection) runs only on the replica holding its lease. A holder
 * renews its leases well before they expire; a replica that dies stops renewing, and another
 * takes the lease once it has expired. One process: `layerLocal` (every lease is this
 * process's). Several replicas: `PgLeases.layer` (a row per lease in PostgreSQL).
 */
export class Leases extends Context.Tag("@aide/kernel/Leases")<
  Leases,
  {
    /** This replica's holder id (random per process). */
    readonly holder: string
    /** Takes `name` when free or expired, or renews it when held by us: true when we hold it now. */
    readonly acquire: (name: string) => Effect.Effect<boolean, StorageError>
    /** Hands `name` back (when held by us), so another replica takes it at once. */
    readonly release: (name: string) => Effect.Effect<void, StorageError>
    /** How long a lease lasts without renewal. */
    readonly ttl: Duration.Duration
  }
>() {}

/** One process: every lease is this process's, always. */
export const layerLocal: Layer.Layer<Leases> = Layer.succeed(
  Leases,
  Leases.of({
    holder: "local",
    acquire: () => Effect.succeed(true),
    release: () => Effect.void,
    ttl: Duration.infinity,
  }),
)

/**
 * Runs `effect` only while this replica holds lease `name`: it is tried every third of the
 * lease's time to live, renewed as often while held, and `effect` is interrupted as soon as the
 * lease is lost: another replica holds it, or renewals failed (database unreachable) until it
 * may have expired, when another replica may take it. Ends only when interrupted, handing the lease back.
 */
export const whileHeld = <E, R>(
  name: string,
  effect: Effect.Effect<unknown, E, R>,
): Effect.Effect<never, never, R | Leases> =>
  Effect.gen(function* () {
    const leases = yield* Leases
    if (!Duration.isFinite(leases.ttl)) {
      yield* Effect.ignoreLogged(effect)
      return yield* Effect.never
    }
    const ttlMillis = Duration.toMillis(leases.ttl)
    const everyMillis = Math.max(50, Math.floor(ttlMillis / 3))
    const every = Duration.millis(everyMillis)
    const failed = (error: StorageError) =>
      Effect.logWarning("replicas: lease renewal failed").pipe(
        Effect.annotateLogs({ lease: name, error: error.message }),
      )
    // Held since `takenAt`: run `effect` beside a renewal loop that ends (interrupting it) when
    // the lease is lost: another replica holds it, or renewals failed until it may have expired.
    // One failed renewal (a slow database, a busy event loop) is retried while the lease still runs.
    const hold = (takenAt: number) =>
      Effect.gen(function* () {
        const running = yield* Effect.fork(Effect.ignoreLogged(effect))
        yield* Effect.logInfo("replicas: lease taken").pipe(Effect.annotateLogs({ lease: name }))
        const renewals = Effect.gen(function* () {
          let renewedAt = takenAt
          for (;;) {
            yield* Effect.sleep(every)
            const startedAt = yield* Clock.currentTimeMillis
            const renewed = yield* Effect.either(leases.acquire(name))
            if (Either.isRight(renewed)) {
              if (!renewed.right) return
              renewedAt = startedAt
              continue
            }
            yield* failed(renewed.left)
            const now = yield* Clock.currentTimeMillis
            if (now + everyMillis >= renewedAt + ttlMillis) return
          }
        })
        yield* renewals.pipe(
          Effect.ensuring(Fiber.interrupt(running)),
          // Interrupted (shutdown): hand the lease back so another replica takes it without waiting.
          Effect.onInterrupt(() => Effect.ignore(leases.release(name))),
        )
        yield* Effect.logInfo("replicas: lease lost").pipe(Effect.annotateLogs({ lease: name }))
      })
    const tryAcquire = Effect.gen(function* () {
      const startedAt = yield* Clock.currentTimeMillis
      const taken = yield* leases.acquire(name).pipe(Effect.catchAll((error) => Effect.as(failed(error), false)))
      if (taken) yield* hold(startedAt)
    })
    return yield* tryAcquire.pipe(Effect.repeat(Schedule.spaced(every)), Effect.zipRight(Effect.never))
  })

/** `whileHeld` with `leases` when there are some, else `effect` itself: one process runs everything. */
export const guarded = <E, R>(
  leases: Option.Option<Leases["Type"]>,
  name: string,
  effect: Effect.Effect<unknown, E, R>,
): Effect.Effect<unknown, E, R> =>
  Option.match(leases, {
    onNone: () => effect,
    onSome: (service) => Effect.provideService(whileHeld(name, effect), Leases, service),
  })

/**
 * `guarded` with the `Leases` service of the context, if any, forked in the current scope: the
 * kernel's services run alone unless the host gives them leases (`Kernel.layer`'s `leases`).
 */
export const forkGuarded = <E, R>(
  name: string,
  effect: Effect.Effect<unknown, E, R>,
): Effect.Effect<void, never, R | Scope.Scope> =>
  Effect.flatMap(Effect.serviceOption(Leases), (leases) =>
    Effect.asVoid(Effect.forkScoped(guarded(leases, name, effect))),
  )
