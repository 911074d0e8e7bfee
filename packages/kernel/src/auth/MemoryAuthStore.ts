import { Effect, Layer, Option } from "effect"
import { AuthStore, type Credentials, type RefreshTokenRow, type SessionRow } from "./AuthStore.js"

interface Session extends SessionRow {
  readonly revokedAt: string | null
}

interface Token extends RefreshTokenRow {
  readonly createdAt: string
}

/**
 * `AuthStore` in this process's memory, for tests and embedders with no disk: gone when the
 * process ends. Every method runs without yielding, so each is atomic as the SQL store's
 * transactions are.
 */
export const make = Effect.sync(() => {
  let owner: (Credentials & { readonly updatedAt: string }) | undefined
  const sessions = new Map<string, Session>()
  const tokens = new Map<string, Token>()

  const active = (session: Session, now: string) => session.revokedAt === null && session.expiresAt > now
  const insertSession = (session: SessionRow, refreshTokenHash: string) => {
    sessions.set(session.id, { ...session, revokedAt: null })
    tokens.set(refreshTokenHash, {
      sessionId: session.id,
      createdAt: session.createdAt,
      expiresAt: session.expiresAt,
      rotatedAt: null,
    })
  }
  const revokeWhere = (now: string, keep: (session: Session) => boolean) => {
    const revoked: Array<string> = []
    for (const session of sessions.values()) {
      if (session.revokedAt !== null || keep(session)) continue
      sessions.set(session.id, { ...session, revokedAt: now })
      revoked.push(session.id)
    }
    return revoked
  }

  return AuthStore.of({
    credentials: Effect.sync(() =>
      owner === undefined ? Option.none() : Option.some({ hash: owner.hash, generation: owner.generation }),
    ),
    createOwner: (hash, now) =>
      Effect.sync(() => {
        if (owner !== undefined) return false
        owner = { hash, generation: 0, updatedAt: now }
        return true
      }),
    replacePassword: (input) =>
      Effect.sync(() => {
        if (owner === undefined || owner.generation !== input.generation) return Option.none()
        owner = { hash: input.hash, generation: owner.generation + 1, updatedAt: input.now }
        const revoked = revokeWhere(input.now, () => false)
        insertSession(input.session, input.refreshTokenHash)
        return Option.some(revoked)
      }),
    createSession: (session, refreshTokenHash, generation) =>
      Effect.sync(() => {
        if (owner === undefined || owner.generation !== generation) return false
        insertSession(session, refreshTokenHash)
        return true
      }),
    rotateRefreshToken: (input) =>
      Effect.sync(() => {
        const token = tokens.get(input.hash)
        const session = token === undefined ? undefined : sessions.get(token.sessionId)
        if (token === undefined || token.rotatedAt !== null || token.expiresAt <= input.now) return Option.none()
        if (session === undefined || session.revokedAt !== null) return Option.none()
        tokens.set(input.hash, { ...token, rotatedAt: input.now })
        tokens.set(input.nextHash, {
          sessionId: session.id,
          createdAt: input.now,
          expiresAt: input.expiresAt,
          rotatedAt: null,
        })
        sessions.set(session.id, { ...session, expiresAt: input.expiresAt })
        return Option.some(session.id)
      }),
    findRefreshToken: (hash) =>
      Effect.sync(() =>
        Option.map(Option.fromNullable(tokens.get(hash)), (token) => ({
          sessionId: token.sessionId,
          expiresAt: token.expiresAt,
          rotatedAt: token.rotatedAt,
        })),
      ),
    isSessionActive: (id, now) =>
      Effect.sync(() => {
        const session = sessions.get(id)
        return session !== undefined && active(session, now)
      }),
    listActiveSessions: (now) =>
      Effect.sync(() =>
        [...sessions.values()]
          .filter((session) => active(session, now))
          .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt > b.createdAt ? -1 : 1))
          .map(({ revokedAt: _, ...row }) => row),
      ),
    revokeSession: (id, now) =>
      Effect.sync(() => {
        const session = sessions.get(id)
        if (session === undefined || !active(session, now)) return false
        sessions.set(id, { ...session, revokedAt: now })
        return true
      }),
    // Only active sessions: an expired one is already over and must not count as revoked.
    revokeAllSessions: (now) => Effect.sync(() => revokeWhere(now, (session) => session.expiresAt <= now)),
    purgeSessions: (before) =>
      Effect.sync(() => {
        let purged = 0
        for (const session of [...sessions.values()]) {
          const old = session.expiresAt < before || (session.revokedAt !== null && session.revokedAt < before)
          if (!old) continue
          sessions.delete(session.id)
          purged++
          for (const [hash, token] of tokens) if (token.sessionId === session.id) tokens.delete(hash)
        }
        return purged
      }),
  })
})

export const layer: Layer.Layer<AuthStore> = Layer.effect(AuthStore, make)
