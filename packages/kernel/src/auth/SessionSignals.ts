import { Duration, Effect, Option, Schedule, Stream } from "effect"
import { ReplicaSignals } from "../replicas/ReplicaSignals.js"
import type * as ActiveSessions from "./ActiveSessions.js"

/** The channel of revocations: a JSON array of session ids, or `*` for every session. */
export const channel = "aide.sessions.revoked"

/**
 * How long a replica trusts its cache of active sessions when revocations come from other
 * replicas: a revocation message lost (Redis briefly away) is made good within this.
 */
export const safetyNetInterval = Duration.seconds(10)

/**
 * Revocations and the cache of active sessions (`ActiveSessions`). `drop` empties this
 * process's cache of revoked sessions (after the database has the revocation) and, once
 * `follow` ran with a `ReplicaSignals` provided, every other replica's: their next request
 * reads the database. One process without signals: nothing to tell.
 */
export const revocations = (sessions: ReturnType<typeof ActiveSessions.make>) => {
  let announce = (_ids: ReadonlyArray<string> | "all"): Effect.Effect<void> => Effect.void
  const forget = (ids: ReadonlyArray<string> | "all") => (ids === "all" ? sessions.forgetAll() : sessions.forget(ids))

  const drop = (ids: ReadonlyArray<string> | "all") =>
    Effect.suspend(() => {
      forget(ids)
      return announce(ids)
    })

  const follow = Effect.gen(function* () {
    const found = yield* Effect.serviceOption(ReplicaSignals)
    if (Option.isNone(found)) return
    const signals = found.value
    const apply = (message: string) =>
      Effect.sync(() => {
        if (message === "*") return forget("all")
        try {
          const ids: unknown = JSON.parse(message)
          if (Array.isArray(ids)) forget(ids.filter((id): id is string => typeof id === "string"))
        } catch {
          // Not one of ours: a foreign publisher on the channel is ignored.
        }
      })
    yield* Effect.forkScoped(Stream.runForEach(signals.subscribe(channel), apply))
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.sync(() => forget("all")),
        Schedule.spaced(safetyNetInterval),
      ),
    )
    announce = (ids) => signals.publish(channel, ids === "all" ? "*" : JSON.stringify(ids))
  })

  return { drop, follow }
}
