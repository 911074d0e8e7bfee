import { Context, Duration, Effect, Fiber, Layer, Option, Schedule, type Scope } from "effect"
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
 * lease's time to live, renewed as often while held, and `effect` is interrupted as soon as a
 * renewal fails (lost to another replica, or the database unreachable: past the lease's expiry
 * another replica may already hold it). Ends only when interrupted, handing the lease back.
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
    const every = Duration.millis(Math.max(50, Math.floor(Duration.toMillis(leases.ttl) / 3)))
    const tryAcquire = leases
      .acquire(name)
      .pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("replicas: lease renewal failed").pipe(
            Effect.annotateLogs({ lease: name, error: error.message }),
            Effect.as(false),
          ),
        ),
      )
    // Held: run `effect` beside a renewal loop that ends (interrupting it) when the lease is lost.
    const hold = Effect.gen(function* () {
      const running = yield* Effect.fork(Effect.ignoreLogged(effect))
      yield* Effect.logInfo("replicas: lease taken").pipe(Effect.annotateLogs({ lease: name }))
      yield* Effect.sleep(every).pipe(
        Effect.zipRight(tryAcquire),
        Effect.repeat({ while: (held) => held }),
        Effect.ensuring(Fiber.interrupt(running)),
        // Interrupted (shutdown): hand the lease back so another replica takes it without waiting.
        Effect.onInterrupt(() => Effect.ignore(leases.release(name))),
      )
      yield* Effect.logInfo("replicas: lease lost").pipe(Effect.annotateLogs({ lease: name }))
    })
    return yield* tryAcquire.pipe(
      Effect.flatMap((held) => (held ? hold : Effect.void)),
      Effect.repeat(Schedule.spaced(every)),
      Effect.zipRight(Effect.never),
    )
  })

/**
 * `whileHeld` when a `Leases` service is in the context, else `effect` itself (forever): the
 * kernel's services run alone unless the host gives them leases (`Kernel.layer`'s `leases`).
 */
export const forkGuarded = <E, R>(
  name: string,
  effect: Effect.Effect<unknown, E, R>,
): Effect.Effect<void, never, R | Scope.Scope> =>
  Effect.flatMap(Effect.serviceOption(Leases), (leases) =>
    Option.match(leases, {
      onNone: () => Effect.asVoid(Effect.forkScoped(effect)),
      onSome: (service) =>
        Effect.asVoid(Effect.forkScoped(Effect.provideService(whileHeld(name, effect), Leases, service))),
    }),
  )
