import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** An authorization in flight, as stored under its `state`. */
export interface PendingAuthorization {
  readonly serverId: string
  readonly serverUrl: string
  readonly codeVerifier: string | null
  readonly expiresAt: Date
}

/**
 * What `McpOAuth` keeps in the database. Client information and tokens are opaque JSON (the
 * SDK's objects, stored unchanged as it asks) and read back only for the server URL they were
 * obtained for: changing a server's URL starts over. `mcpOAuthStoreContract` of
 * `@aide/testing/effect` checks the rules stated on each method.
 */
export class McpOAuthStore extends Context.Tag("@aide/kernel/McpOAuthStore")<
  McpOAuthStore,
  {
    /** What was saved for `serverId` under this very `serverUrl`; undefined when nothing was, or for another URL. */
    readonly clientInformation: (serverId: string, serverUrl: string) => Effect.Effect<unknown, StorageError>
    /**
     * Stores `value` unchanged (read back equal) for the server and URL. Saving either value
     * for another URL drops what the server had for its old URL.
     */
    readonly saveClientInformation: (
      serverId: string,
      serverUrl: string,
      value: unknown,
    ) => Effect.Effect<void, StorageError>
    /** As `clientInformation`, for the tokens. */
    readonly tokens: (serverId: string, serverUrl: string) => Effect.Effect<unknown, StorageError>
    /** As `saveClientInformation`, for the tokens. */
    readonly saveTokens: (serverId: string, serverUrl: string, value: unknown) => Effect.Effect<void, StorageError>
    /** Drops the registration and tokens (`all`), or only one of them. */
    readonly clear: (serverId: string, what: "all" | "client" | "tokens") => Effect.Effect<void, StorageError>
    /** Records an authorization URL handed out; expired ones are pruned on the way. */
    readonly addPending: (state: string, pending: PendingAuthorization) => Effect.Effect<void, StorageError>
    /**
     * Removes and returns the authorization of `state`, equal to what was added: a state is good
     * for one callback only (taken again: none).
     */
    readonly takePending: (state: string) => Effect.Effect<Option.Option<PendingAuthorization>, StorageError>
    /** Forgets every authorization in flight of a server: `takePending` of its states answers none. */
    readonly dropPending: (serverId: string) => Effect.Effect<void, StorageError>
  }
>() {}
