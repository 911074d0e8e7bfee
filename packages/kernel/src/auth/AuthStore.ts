import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** A session as stored: a device that owns one refresh-token chain. */
export interface SessionRow {
  readonly id: string
  readonly createdAt: string
  readonly expiresAt: string
  readonly userAgent: string
  readonly ip: string
}

export interface RefreshTokenRow {
  readonly sessionId: string
  readonly expiresAt: string
  readonly rotatedAt: string | null
}

/** The owner's password hash and its credential generation (bumped by every password change). */
export interface Credentials {
  readonly hash: string
  readonly generation: number
}

/**
 * Persistence of the owner's credentials, sessions and refresh tokens. Timestamps are ISO 8601
 * strings (they compare correctly as text in every dialect). Every method that decides a race
 * (setup, session creation, password change, rotation, revocation) is atomic, and the ones that
 * depend on the password take the credential generation the caller verified against: the
 * database, not the caller, decides whether the password changed meanwhile (docs/auth.md).
 */
export class AuthStore extends Context.Tag("@aide/kernel/AuthStore")<
  AuthStore,
  {
    readonly credentials: Effect.Effect<Option.Option<Credentials>, StorageError>
    /** Stores the first password (generation 0); false when one exists already (setup raced or repeated). */
    readonly createOwner: (hash: string, now: string) => Effect.Effect<boolean, StorageError>
    /**
     * If the credential generation is still `generation`: replaces the password, bumps the
     * generation, revokes every session and creates the caller's new one, in one transaction.
     * Returns the ids revoked, or none when the generation moved (another change won).
     */
    readonly replacePassword: (input: {
      readonly hash: string
      readonly now: string
      readonly generation: number
      readonly session: SessionRow
      readonly refreshTokenHash: string
    }) => Effect.Effect<Option.Option<ReadonlyArray<string>>, StorageError>
    /**
     * Inserts a session and its first refresh token if the credential generation is still
     * `generation`; false (nothing inserted) when the password changed since it was verified.
     */
    readonly createSession: (
      session: SessionRow,
      refreshTokenHash: string,
      generation: number,
    ) => Effect.Effect<boolean, StorageError>
    /**
     * Marks the refresh token rotated if it is unrotated, unexpired and its session is live,
     * then stores its successor and renews the session's expiry, in one transaction.
     * Returns the session id, or none when the token could not be used.
     */
    readonly rotateRefreshToken: (input: {
      readonly hash: string
      readonly nextHash: string
      readonly now: string
      readonly expiresAt: string
    }) => Effect.Effect<Option.Option<string>, StorageError>
    readonly findRefreshToken: (hash: string) => Effect.Effect<Option.Option<RefreshTokenRow>, StorageError>
    readonly isSessionActive: (id: string, now: string) => Effect.Effect<boolean, StorageError>
    /** Active (unrevoked, unexpired) sessions, newest first. */
    readonly listActiveSessions: (now: string) => Effect.Effect<ReadonlyArray<SessionRow>, StorageError>
    /** Revokes one active session; false when there is none with that id. */
    readonly revokeSession: (id: string, now: string) => Effect.Effect<boolean, StorageError>
    /** Revokes every active session; returns the ids revoked. */
    readonly revokeAllSessions: (now: string) => Effect.Effect<ReadonlyArray<string>, StorageError>
    /** Deletes sessions (and their tokens) that expired or were revoked before `before`. */
    readonly purgeSessions: (before: string) => Effect.Effect<number, StorageError>
  }
>() {}
