import { Context, type Effect } from "effect"
import type { StorageError } from "../../storage/StorageError.js"

/** One provider's connection as stored: its values sealed by `ConnectionCipher`, never in clear. */
export interface StoredConnection {
  readonly provider: string
  readonly sealed: string
  readonly updatedAt: Date
}

/**
 * Where `ProviderConnections` keeps the owner's connections: opaque sealed text per provider
 * id. The store never sees a key in clear. `connectionStoreContract` of `@aide/testing/effect`
 * checks the rules stated on each method.
 */
export class ConnectionStore extends Context.Tag("@aide/kernel/ConnectionStore")<
  ConnectionStore,
  {
    /** Every stored connection, by provider id. */
    readonly list: Effect.Effect<ReadonlyArray<StoredConnection>, StorageError>
    /** Stores `sealed` for the provider (replacing what it had), `updatedAt` now. */
    readonly put: (provider: string, sealed: string) => Effect.Effect<StoredConnection, StorageError>
    /** Drops the provider's connection: whether there was one. */
    readonly remove: (provider: string) => Effect.Effect<boolean, StorageError>
  }
>() {}
