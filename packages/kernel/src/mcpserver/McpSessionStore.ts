import { Context, Effect, Layer, Option } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** One MCP session of `/mcp`, as every replica sees it. */
export interface McpSessionRecord {
  /** The `Mcp-Session-Id`: a random UUID. */
  readonly id: string
  /**
   * Who opened it (`owner:<auth session id>`, `client:<grant id>`): a request for it from anyone
   * else is answered as for an unknown session. A session id is never a credential.
   */
  readonly principal: string
  /** The client's `initialize` params as JSON: a replica that did not see them restores the session from them. */
  readonly initialize: string
  /** The resource URIs the client subscribed to. */
  readonly subscriptions: ReadonlyArray<string>
  readonly createdAt: Date
}

/**
 * Where `/mcp` keeps its sessions, shared by every replica (the SQL store on one PostgreSQL
 * database), so a session started on one continues on another and after a restart.
 *
 * The contract (`mcpSessionStoreContract` of `@aide/testing/contracts`): `get` answers what
 * `create` stored, with the latest `setSubscriptions`; `setSubscriptions` and `delete` of an
 * unknown id do nothing; `create` of an existing id replaces nothing (the first one stays);
 * `deleteBefore(date)` removes the sessions created before `date`.
 */
export class McpSessionStore extends Context.Tag("@aide/kernel/McpSessionStore")<
  McpSessionStore,
  {
    readonly create: (record: McpSessionRecord) => Effect.Effect<void, StorageError>
    readonly get: (id: string) => Effect.Effect<Option.Option<McpSessionRecord>, StorageError>
    readonly setSubscriptions: (id: string, uris: ReadonlyArray<string>) => Effect.Effect<void, StorageError>
    readonly delete: (id: string) => Effect.Effect<void, StorageError>
    readonly deleteBefore: (date: Date) => Effect.Effect<void, StorageError>
  }
>() {}

/** In this process only: sessions end with it, and another replica never sees them. */
export const layerMemory: Layer.Layer<McpSessionStore> = Layer.sync(McpSessionStore, () => {
  const sessions = new Map<string, McpSessionRecord>()
  return McpSessionStore.of({
    create: (record) =>
      Effect.sync(() => {
        if (!sessions.has(record.id)) sessions.set(record.id, record)
      }),
    get: (id) => Effect.sync(() => Option.fromNullable(sessions.get(id))),
    setSubscriptions: (id, uris) =>
      Effect.sync(() => {
        const record = sessions.get(id)
        if (record !== undefined) sessions.set(id, { ...record, subscriptions: [...uris] })
      }),
    delete: (id) => Effect.sync(() => void sessions.delete(id)),
    deleteBefore: (date) =>
      Effect.sync(() => {
        for (const [id, record] of sessions) if (record.createdAt < date) sessions.delete(id)
      }),
  })
})
