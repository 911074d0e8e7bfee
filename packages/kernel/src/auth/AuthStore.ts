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

/**
 * Persistence of the owner's credentials, sessions and refresh tokens. Timestamps are ISO 8601
 * strings (they compare correctly as text in every dialect). Every method that decides a race
 * (setup, rotation, revocation) is a single atomic statement.
 */
export class AuthStore extends Context.Tag("@aide/kernel/AuthStore")<
  AuthStore,
  {
    readonly passwordHash: Effect.Effect<Option.Option<string>, StorageError>
    /** Stores the first password; false when one exists already (setup raced or repeated). */
    readonly createOwner: (hash: string, now: string) => Effect.Effect<boolean, StorageError>
    /** Replaces the password and revokes every session in one transaction; returns the ids revoked. */
    readonly replacePassword: (hash: string, now: string) => Effect.Effect<ReadonlyArray<string>, StorageError>
    /** Inserts a session and its first refresh token together. */
    readonly createSession: (session: SessionRow, refreshTokenHash: string) => Effect.Effect<void, StorageError>
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
