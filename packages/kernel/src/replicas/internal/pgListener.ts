import type { PgClient } from "@effect/sql-pg"
import { Cause, Deferred, Effect, PubSub, Redacted, Schedule, type Scope, Stream } from "effect"
import { type PgConnection, pg } from "../../storage/internal/pgDriver.js"

interface Notification {
  readonly channel: string
  readonly payload: string
}

/** The driver's message (an `UnknownException` wraps the rejection of a promise). */
const messageOf = (error: unknown): string => {
  const inner = Cause.isUnknownException(error) ? error.error : error
  return inner instanceof Error ? inner.message : "unknown error"
}

/** Ends a connection, whatever state it is in: a failure to end one that is gone is no news. */
const closeQuietly = (connection: PgConnection) => Effect.promise(() => connection.end().catch(() => {}))

/** A connection that ended (killed, the server restarted, the network gone). */
interface Live {
  readonly connection: PgConnection
  readonly ended: Deferred.Deferred<void>
}

/**
 * One `LISTEN` connection per replica, outside the pool, that comes back when it is lost:
 * `@effect/sql-pg`'s own `listen` keeps a dead connection forever, so a replica whose connection
 * was killed would never hear a signal again. On each (re)connection every channel with a
 * subscriber is listened to again; what was sent while it was away is lost (subscribers re-read
 * their source periodically). The loss is logged once, and the return once.
 */
export const make = (
  config: PgClient.PgClientConfig,
): Effect.Effect<{ readonly listen: (channel: string) => Stream.Stream<string> }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const hub = yield* Effect.acquireRelease(PubSub.unbounded<Notification>(), PubSub.shutdown)
    /** Channels with a subscriber, and how many. */
    const channels = new Map<string, number>()
    let live: Live | undefined
    // One statement at a time on the connection: reconnecting and (UN)LISTEN never interleave.
    const lock = yield* Effect.makeSemaphore(1)
    const firstAttempt = yield* Deferred.make<void>()

    const statement = (connection: PgConnection, verb: "LISTEN" | "UNLISTEN", channel: string) =>
      Effect.tryPromise(() => connection.query(`${verb} ${connection.escapeIdentifier(channel)}`))

    const connect = Effect.gen(function* () {
      const ended = yield* Deferred.make<void>()
      const driver = yield* Effect.promise(pg)
      const connection = new driver.Client({
        connectionString: config.url === undefined ? undefined : Redacted.value(config.url),
        host: config.host,
        port: config.port,
        database: config.database,
        user: config.username,
        password: config.password === undefined ? undefined : Redacted.value(config.password),
        ssl: config.ssl,
        application_name: config.applicationName ?? "aide",
        // A peer gone without a word (a network partition) is found out, not waited on forever.
        keepAlive: true,
        connectionTimeoutMillis: 5_000,
      })
      connection.on("notification", ({ channel, payload }) => {
        if (payload !== undefined) hub.unsafeOffer({ channel, payload })
      })
      const end = () => Deferred.unsafeDone(ended, Effect.void)
      connection.on("error", end)
      connection.on("end", end)
      const close = closeQuietly(connection)
      // Closed on any failure or interruption half-way: a connection never leaks from an attempt.
      // The channels are listened to, and the connection published, under the lock: a subscriber
      // added meanwhile is either in `channels` by then or finds `live` set and listens itself.
      yield* Effect.gen(function* () {
        yield* Effect.tryPromise(() => connection.connect())
        yield* Effect.gen(function* () {
          for (const channel of channels.keys()) yield* statement(connection, "LISTEN", channel)
          live = { connection, ended }
        }).pipe(lock.withPermits(1))
      }).pipe(
        Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("no connection within 10 s") }),
        Effect.onError(() => close),
      )
      return { connection, ended } satisfies Live
    })

    let healthy = true
    const lost = (error: unknown) =>
      Effect.suspend(() => {
        if (!healthy) return Effect.void
        healthy = false
        return Effect.logWarning(
          "replicas: the LISTEN connection is lost; reconnecting (signals sent meanwhile are missed)",
        ).pipe(Effect.annotateLogs({ error: messageOf(error) }))
      })

    const loop = Effect.gen(function* () {
      while (true) {
        const current = yield* connect.pipe(
          Effect.tapError((error) => Effect.zipRight(lost(error), Deferred.succeed(firstAttempt, undefined))),
          Effect.retry(Schedule.spaced("1 second")),
        )
        yield* Deferred.succeed(firstAttempt, undefined)
        if (!healthy) {
          healthy = true
          yield* Effect.logInfo("replicas: the LISTEN connection is back")
        }
        yield* Deferred.await(current.ended)
        live = undefined
        yield* closeQuietly(current.connection)
        yield* lost(new Error("the connection ended"))
      }
    }).pipe(
      // The scope closing ends the connection (and no reconnection starts after it).
      Effect.onInterrupt(() =>
        Effect.suspend(() => {
          const current = live
          live = undefined
          return current === undefined ? Effect.void : closeQuietly(current.connection).pipe(Effect.timeoutOption(1000))
        }),
      ),
    )
    yield* Effect.forkScoped(loop)

    /** Listens on a first subscriber's channel now if connected; otherwise the next connection will. */
    const add = (channel: string) =>
      Effect.suspend(() => {
        channels.set(channel, (channels.get(channel) ?? 0) + 1)
        if (channels.get(channel) !== 1 || live === undefined) return Effect.void
        return Effect.ignore(statement(live.connection, "LISTEN", channel))
      }).pipe(lock.withPermits(1))

    const remove = (channel: string) =>
      Effect.suspend(() => {
        const count = (channels.get(channel) ?? 1) - 1
        if (count > 0) return Effect.sync(() => channels.set(channel, count))
        channels.delete(channel)
        return live === undefined ? Effect.void : Effect.ignore(statement(live.connection, "UNLISTEN", channel))
      }).pipe(lock.withPermits(1))

    const listen = (channel: string) =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          // Subscribed to the hub before LISTEN: nothing heard after LISTEN is missed.
          const queue = yield* PubSub.subscribe(hub)
          // A subscriber at start waits for the first connection (made or failed), as a LISTEN would.
          yield* Deferred.await(firstAttempt)
          yield* Effect.acquireRelease(add(channel), () => remove(channel))
          return Stream.fromQueue(queue).pipe(
            Stream.filter((notification) => notification.channel === channel),
            Stream.map((notification) => notification.payload),
          )
        }),
      )

    return { listen }
  })
