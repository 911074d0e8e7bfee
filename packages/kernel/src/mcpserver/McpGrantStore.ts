import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** An OAuth client registered through `/oauth/register` (RFC 7591): a public client, no secret. */
export interface McpClientRow {
  readonly id: string
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
  readonly createdAt: string
}

/** An authorization code, stored as its hash: what the owner consented to, for one exchange. */
export interface McpCodeRow {
  readonly hash: string
  readonly clientId: string
  readonly redirectUri: string
  /** The PKCE S256 challenge (base64url of the verifier's SHA-256). */
  readonly codeChallenge: string
  readonly resource: string
  readonly tools: ReadonlyArray<string>
  readonly createdAt: string
  readonly expiresAt: string
}

/** A code as found again: whether (and into which grant) it was redeemed. */
export interface McpCodeState extends McpCodeRow {
  readonly usedAt: string | null
  readonly grantId: string | null
}

/** One consent of the owner to one client: it owns one refresh-token chain and its access tokens. */
export interface McpGrantRow {
  readonly id: string
  readonly clientId: string
  readonly tools: ReadonlyArray<string>
  readonly resource: string
  readonly createdAt: string
  /** When its refresh token expires (renewed by each rotation). */
  readonly expiresAt: string
}

/** A grant with its client, as the owner sees it listed. */
export interface McpGrantView extends McpGrantRow {
  readonly clientName: string
  readonly redirectUris: ReadonlyArray<string>
}

/** A token hash with what it belongs to. `kind` tells access from refresh tokens. */
export interface McpTokenRow {
  readonly hash: string
  readonly grantId: string
  readonly kind: "access" | "refresh"
  readonly expiresAt: string
}

export interface McpTokenState extends McpTokenRow {
  readonly rotatedAt: string | null
}

/**
 * Persistence of `/mcp`'s OAuth authorization server (docs/mcp-server.md "OAuth"): registered
 * clients, authorization codes, grants and their tokens, every secret stored as its SHA-256
 * only. Timestamps are ISO 8601 strings; the store reads no clock, every time is the `now` given.
 *
 * The contract (`mcpGrantStoreContract` of `@aide/testing/effect` checks each rule): a code is
 * redeemed once (of two concurrent `redeemCode`s of one code exactly one wins), and only while
 * unexpired; a refresh token rotates once, only while unexpired and its grant is live; a revoked
 * grant's tokens authenticate no more; `purge` leaves live rows alone.
 */
export class McpGrantStore extends Context.Tag("@aide/kernel/McpGrantStore")<
  McpGrantStore,
  {
    readonly createClient: (client: McpClientRow) => Effect.Effect<void, StorageError>
    readonly getClient: (id: string) => Effect.Effect<Option.Option<McpClientRow>, StorageError>
    /** How many clients are registered (registration is open: the caller caps it). */
    readonly countClients: Effect.Effect<number, StorageError>
    /** Deletes clients registered before `before` that never got a grant; answers how many. */
    readonly purgeUnusedClients: (before: string) => Effect.Effect<number, StorageError>
    readonly createCode: (code: McpCodeRow) => Effect.Effect<void, StorageError>
    /**
     * In one transaction: marks the code used if it is unused and unexpired at `now`, creates the
     * grant (for the code's client, tools and resource) and its first tokens, and records the
     * grant on the code. None when the code could not be used (unknown, used, expired).
     */
    readonly redeemCode: (input: {
      readonly hash: string
      readonly now: string
      readonly grant: McpGrantRow
      readonly tokens: ReadonlyArray<McpTokenRow>
    }) => Effect.Effect<Option.Option<McpCodeRow>, StorageError>
    /** The code by its hash, used or not; none when unknown or purged. */
    readonly findCode: (hash: string) => Effect.Effect<Option.Option<McpCodeState>, StorageError>
    /**
     * Marks the refresh token rotated if it is unrotated, unexpired and its grant is live, stores
     * the new tokens and renews the grant's expiry to `expiresAt`, in one transaction. Returns
     * the grant, or none when the token could not be used.
     */
    readonly rotateRefreshToken: (input: {
      readonly hash: string
      readonly now: string
      readonly expiresAt: string
      readonly tokens: ReadonlyArray<McpTokenRow>
    }) => Effect.Effect<Option.Option<McpGrantRow>, StorageError>
    /** The token by its hash, rotated or not; none when unknown or purged. */
    readonly findToken: (hash: string) => Effect.Effect<Option.Option<McpTokenState>, StorageError>
    /** The live grant (and its client) of an unexpired access token; none otherwise. */
    readonly authenticate: (accessHash: string, now: string) => Effect.Effect<Option.Option<McpGrantView>, StorageError>
    /** Grants neither revoked nor expired at `now`, newest first. */
    readonly listGrants: (now: string) => Effect.Effect<ReadonlyArray<McpGrantView>, StorageError>
    /** Revokes one live grant (all its tokens with it); false when there is none with that id. */
    readonly revokeGrant: (id: string, now: string) => Effect.Effect<boolean, StorageError>
    /** Deletes codes and tokens expired before `before`, and grants expired or revoked before it. */
    readonly purge: (before: string) => Effect.Effect<void, StorageError>
  }
>() {}
