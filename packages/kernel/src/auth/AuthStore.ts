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
 *
 * The contract (`authStoreContract` of `@aide/testing/effect` checks each rule): the store reads
 * no clock, every time is the `now` given; of two concurrent calls racing for the same thing
 * (`createOwner`, `rotateRefreshToken` of one token) exactly one wins.
 */
export class AuthStore extends Context.Tag("@aide/kernel/AuthStore")<
  AuthStore,
  {
    /** None before `createOwner`; then the current hash and generation. */
    readonly credentials: Effect.Effect<Option.Option<Credentials>, StorageError>
    /**
     * Stores the first password (generation 0); false when one exists already (setup raced or
     * repeated: of concurrent calls exactly one answers true).
     */
    readonly createOwner: (hash: string, now: string) => Effect.Effect<boolean, StorageError>
    /**
     * If the credential generation is still `generation`: replaces the password, bumps the
     * generation, revokes every session and creates the caller's new one, in one transaction.
     * Returns the ids revoked (the sessions active before, not the new one, which is active
     * after), or none when the generation moved (another change won): then nothing changes.
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
     * `generation`; false (nothing inserted) when the password changed since it was verified
     * (a session verified against generation 0 after a change to 1 is refused).
     */
    readonly createSession: (
      session: SessionRow,
      refreshTokenHash: string,
      generation: number,
    ) => Effect.Effect<boolean, StorageError>
    /**
     * Marks the refresh token rotated if it is unrotated, unexpired and its session is live,
     * then stores its successor and renews the session's expiry, in one transaction: the old
     * token's `rotatedAt` becomes `now`, the session's `expiresAt` becomes `expiresAt`. Returns
     * the session id, or none when the token could not be used (unknown, already rotated: of
     * two concurrent rotations of one token exactly one answers the session).
     */
    readonly rotateRefreshToken: (input: {
      readonly hash: string
      readonly nextHash: string
      readonly now: string
      readonly expiresAt: string
    }) => Effect.Effect<Option.Option<string>, StorageError>
    /** The token by its hash, rotated or not; none when unknown or purged. */
    readonly findRefreshToken: (hash: string) => Effect.Effect<Option.Option<RefreshTokenRow>, StorageError>
    /** Whether the session exists, is not revoked and has not expired at `now`. */
    readonly isSessionActive: (id: string, now: string) => Effect.Effect<boolean, StorageError>
    /** Active (unrevoked, unexpired) sessions, newest first. */
    readonly listActiveSessions: (now: string) => Effect.Effect<ReadonlyArray<SessionRow>, StorageError>
    /** Revokes one active session; false when there is none with that id (e.g. already revoked). */
    readonly revokeSession: (id: string, now: string) => Effect.Effect<boolean, StorageError>
    /** Revokes every active session; returns the ids revoked (expired or revoked ones are not). */
    readonly revokeAllSessions: (now: string) => Effect.Effect<ReadonlyArray<string>, StorageError>
    /**
     * Deletes sessions (and their refresh tokens) that expired or were revoked before `before`;
     * answers how many sessions it deleted.
     */
    readonly purgeSessions: (before: string) => Effect.Effect<number, StorageError>
  }
>() {}
