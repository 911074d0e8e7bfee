import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { AuthStore, SessionRow } from "../src/auth/AuthStore.js"
import * as SessionList from "../src/auth/SessionList.js"

type Store = AuthStore["Type"]

const row = (id: string, expiresAt = "2030-01-01T00:00:00.000Z"): SessionRow => ({
  id,
  createdAt: "2026-01-01T00:00:00.000Z",
  expiresAt,
  userAgent: "test",
  ip: "127.0.0.1",
})

/** A store holding `sessions` in memory, counting the list queries it answers. */
const memoryStore = (sessions: Array<SessionRow>) => {
  const counts = { lists: 0 }
  const store = {
    listActiveSessions: (now: string) =>
      Effect.sync(() => {
        counts.lists++
        return sessions.filter((session) => session.expiresAt > now)
      }),
    createSession: (session: SessionRow) =>
      Effect.sync(() => {
        sessions.push(session)
        return true
      }),
    revokeSession: (id: string) =>
      Effect.sync(() => {
        const at = sessions.findIndex((session) => session.id === id)
        if (at !== -1) sessions.splice(at, 1)
        return at !== -1
      }),
    credentials: Effect.succeed(Option.none()),
  } as unknown as Store
  return { store, counts }
}

const t0 = "2026-06-01T00:00:00.000Z"
const later = (ms: number) => new Date(Date.parse(t0) + ms).toISOString()
const ids = (rows: ReadonlyArray<SessionRow>) => rows.map((session) => session.id)

describe("the cached session list", () => {
  it.effect("is read from the database once, then served from memory", () =>
    Effect.gen(function* () {
      const { store, counts } = memoryStore([row("a")])
      const cached = SessionList.cached(store)
      expect(ids(yield* cached.listActiveSessions(t0))).toEqual(["a"])
      expect(ids(yield* cached.listActiveSessions(later(10)))).toEqual(["a"])
      expect(counts.lists).toBe(1)
    }),
  )

  it.effect("a session written by this process shows at once: a write drops the list", () =>
    Effect.gen(function* () {
      const { store, counts } = memoryStore([row("a")])
      const cached = SessionList.cached(store)
      yield* cached.listActiveSessions(t0)
      yield* cached.createSession(row("b"), "hash", 0)
      expect(ids(yield* cached.listActiveSessions(later(1)))).toEqual(["a", "b"])
      yield* cached.revokeSession("a", later(2))
      expect(ids(yield* cached.listActiveSessions(later(3)))).toEqual(["b"])
      expect(counts.lists).toBe(3)
    }),
  )

  it.effect("an expired session leaves the list without a write", () =>
    Effect.gen(function* () {
      const { store } = memoryStore([row("a", later(100)), row("b")])
      const cached = SessionList.cached(store)
      expect(ids(yield* cached.listActiveSessions(t0))).toEqual(["a", "b"])
      expect(ids(yield* cached.listActiveSessions(later(100)))).toEqual(["b"])
    }),
  )

  it.effect("a change made by another process (a replica) shows once the list is older than its max age", () =>
    Effect.gen(function* () {
      const sessions = [row("a")]
      const { store } = memoryStore(sessions)
      const cached = SessionList.cached(store, 1000)
      yield* cached.listActiveSessions(t0)
      sessions.push(row("elsewhere"))
      expect(ids(yield* cached.listActiveSessions(later(999)))).toEqual(["a"])
      expect(ids(yield* cached.listActiveSessions(later(1000)))).toEqual(["a", "elsewhere"])
    }),
  )
})
