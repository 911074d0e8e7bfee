import { Effect } from "effect"
import type { Principal, Session } from "./AuthModel.js"
import type { AuthStore, SessionRow } from "./AuthStore.js"

type Store = AuthStore["Type"]

/** The store's writes that change which sessions are active, or their rows. */
const sessionWrites = [
  "createOwner",
  "replacePassword",
  "createSession",
  "rotateRefreshToken",
  "revokeSession",
  "revokeAllSessions",
  "purgeSessions",
] as const

/** How long a list read from the database is served: one query a second however busy. */
const defaultMaxAgeMillis = 1000

/**
 * `store` with its list of active sessions (`GET /api/auth/sessions`, the busiest authenticated
 * read) kept in memory: the query through the SQL client cost about as much as the rest of the
 * request. Every session write of this process drops the list once the database has it, and a
 * list read while a write runs is not kept (it may predate the write). Expiry needs no write: the
 * rows are filtered by `now` at each read. A change made by another process on the same
 * database (replicas) shows within `maxAgeMillis`, when the list is read again (docs/auth.md).
 */
export const cached = (store: Store, maxAgeMillis = defaultMaxAgeMillis): Store => {
  let rows: ReadonlyArray<SessionRow> | undefined
  /** When `rows` were read (ms): they are read again after `maxAgeMillis`. */
  let readAt = 0
  /** Bumped when a write starts and when it ends: a read keeps its rows only if it did not move. */
  let writes = 0
  let running = 0

  const write =
    <Args extends ReadonlyArray<unknown>, A, E>(run: (...args: Args) => Effect.Effect<A, E>) =>
    (...args: Args) =>
      Effect.suspend(() => {
        writes++
        running++
        rows = undefined
        return run(...args).pipe(
          Effect.ensuring(
            Effect.sync(() => {
              writes++
              running--
              rows = undefined
            }),
          ),
        )
      })

  const listActiveSessions = (now: string) =>
    Effect.suspend(() => {
      const at = Date.parse(now)
      if (rows !== undefined && at - readAt < maxAgeMillis && at >= readAt) {
        const all = rows
        return Effect.succeed(all.every((row) => row.expiresAt > now) ? all : all.filter((row) => row.expiresAt > now))
      }
      const seen = writes
      return Effect.tap(store.listActiveSessions(now), (listed) => {
        if (writes === seen && running === 0) {
          rows = listed
          readAt = at
        }
      })
    })

  const wrapped: Record<string, unknown> = { ...store, listActiveSessions }
  for (const name of sessionWrites) {
    wrapped[name] = write(store[name] as (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>)
  }
  return wrapped as unknown as Store
}

/** `Auth.listSessions` over `store` (best the `cached` one). */
export const lister = (store: Store, now: Effect.Effect<Date>) => {
  // The same rows (the cached store serves one list a second) give the same answer to the same
  // session: one frozen list shared by its requests, not rebuilt per request (the server renders
  // it once too). Bounded: one entry per session asking, for as long as those rows are served.
  const listed = new WeakMap<ReadonlyArray<SessionRow>, Map<string, ReadonlyArray<Session>>>()

  const forSession = (principal: Principal, rows: ReadonlyArray<SessionRow>): ReadonlyArray<Session> => {
    let bySession = listed.get(rows)
    if (bySession === undefined) {
      bySession = new Map()
      listed.set(rows, bySession)
    }
    const known = bySession.get(principal.sessionId)
    if (known !== undefined) return known
    const sessions: ReadonlyArray<Session> = Object.freeze(
      rows.map(
        (row): Session =>
          Object.freeze({
            id: row.id,
            createdAt: new Date(row.createdAt),
            expiresAt: new Date(row.expiresAt),
            userAgent: row.userAgent,
            ip: row.ip,
            current: row.id === principal.sessionId,
          }),
      ),
    )
    bySession.set(principal.sessionId, sessions)
    return sessions
  }

  // Untraced, in plain combinators: it runs on every `GET /api/auth/sessions`, where a span (and
  // the stack trace Effect.fn captures per call), or a generator, cost about as much as the query.
  return (principal: Principal) =>
    Effect.flatMap(now, (at) =>
      Effect.map(store.listActiveSessions(at.toISOString()), (rows) => forSession(principal, rows)),
    )
}
