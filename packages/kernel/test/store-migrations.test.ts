import * as Path from "node:path"
import { createTestDatabase, postgresAvailable, tempDirectory } from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { AuthStore } from "../src/auth/AuthStore.js"
import { ChannelConversations } from "../src/channels/gateway/ChannelConversations.js"
import { ConfigStore } from "../src/config/ConfigStore.js"
import * as Ids from "../src/ids/Ids.js"
import { InboxStore } from "../src/inbox/InboxStore.js"
import { MemoryStore } from "../src/memory/MemoryStore.js"
import * as SqlMemoryStore from "../src/memory/SqlMemoryStore.js"
import * as PostgresStorage from "../src/storage/PostgresStorage.js"
import * as SqliteStorage from "../src/storage/SqliteStorage.js"
import * as SqlStores from "../src/stores/SqlStores.js"
import { Threads } from "../src/threads/Threads.js"
import * as Release01 from "./fixtures/release-0.1/migrations.js"

const at = "2030-01-01T00:00:00.000Z"
const migrationCount = SqlStores.schemas.reduce((count, schema) => count + schema.migrations.length, 0)

/** What release 0.1's stores would have written: one row or more in most tables. */
const release01Rows = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO auth_owner (id, password_hash, created_at, updated_at, credential_generation)
             VALUES (1, 'argon-hash', ${at}, ${at}, 2)`
  yield* sql`INSERT INTO auth_sessions (id, created_at, expires_at, user_agent, ip) VALUES ('s1', ${at}, ${at}, 'ua', '::1')`
  yield* sql`INSERT INTO threads (id, root_id, title, created_at, updated_at, family_updated_at)
             VALUES ('t1', 't1', 'Kept', ${at}, ${at}, ${at})`
  yield* sql`INSERT INTO messages (thread_id, id, seq, role, parts, created_at)
             VALUES ('t1', 'm1', 0, 'user', ${JSON.stringify([{ type: "text", text: "remember the blue door" }])}, ${at})`
  yield* sql`UPDATE app_config SET document = ${'{"assistantName":"Kit"}'} WHERE id = 1`
  yield* sql`INSERT INTO inbox_messages (id, seq, subject, body, destination, status, created_at)
             VALUES ('i1', 1, 'Hello', 'Body', 'inbox', 'delivered', ${at})`
  yield* sql`INSERT INTO chat_runs (id, thread_id, message_id, status, created_at, updated_at)
             VALUES ('r1', 't1', 'm1', 'suspended', ${at}, ${at})`
  yield* sql`INSERT INTO schedule_state (task_id, run_count, cursor_at) VALUES ('heartbeat', 3, ${at})`
  yield* sql`INSERT INTO mcp_oauth_clients (server_id, server_url, updated_at) VALUES ('srv', 'https://mcp.example', ${at})`
  yield* sql`INSERT INTO working_memory (scope, content, version, updated_at) VALUES ('owner', '# Notes', 4, ${at})`
  yield* sql`INSERT INTO channel_conversations (plugin_id, channel_id, conversation_id, thread_id, updated_at)
             VALUES ('tg', 'bot', '42', 't1', ${at})`
})

/** Every row of every table (the migrations tables aside), to compare before and after the upgrade. */
const snapshot = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql.onDialectOrElse({
    pg: () =>
      sql<{ readonly name: string }>`SELECT table_name AS name FROM information_schema.tables
                                     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    orElse: () => sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`,
  })
  const names = tables
    .map((table) => table.name)
    .filter((name) => !name.startsWith("aide_") && !name.startsWith("sqlite_"))
  const rows: Record<string, ReadonlyArray<string>> = {}
  for (const name of names.sort()) {
    const all = yield* sql.unsafe<Record<string, unknown>>(`SELECT * FROM ${name}`)
    rows[name] = all.map((row) => JSON.stringify(row)).sort()
  }
  return rows
})

/** Opens the database as this release does (every store migrating its schema) and reads rows back through them. */
const readThroughStores = Effect.gen(function* () {
  expect(Option.map(yield* (yield* AuthStore).credentials, (c) => c.generation)).toEqual(Option.some(2))
  expect((yield* (yield* Threads).messages("t1")).map((message) => message.id)).toEqual(["m1"])
  expect(yield* (yield* ConfigStore).load).toBe('{"assistantName":"Kit"}')
  expect(Option.map(yield* (yield* InboxStore).get("i1"), (message) => message.subject)).toEqual(Option.some("Hello"))
  expect(Option.map(yield* (yield* MemoryStore).readWorking("owner"), (doc) => doc.version)).toEqual(Option.some(4))
  const conversation = { pluginId: "tg", channelId: "bot", conversationId: "42" }
  expect(yield* (yield* ChannelConversations).threadOf(conversation)).toEqual(Option.some("t1"))
})

const upgrade = (storage: () => Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function* () {
    // Release 0.1: its global migration list, then its stores' rows.
    const before = yield* Effect.gen(function* () {
      yield* Release01.run
      yield* release01Rows
      return yield* snapshot
    }).pipe(Effect.provide(storage()))
    // This release, on the same database.
    const after = yield* Effect.gen(function* () {
      yield* readThroughStores
      const sql = yield* SqlClient.SqlClient
      const recorded = yield* sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM aide_schema_migrations`
      return { rows: yield* snapshot, recorded: Number(recorded[0]?.n) }
    }).pipe(Effect.provide(SqlStores.layer.pipe(Layer.provideMerge(Layer.merge(storage(), Ids.layer)))))
    // Tables added since release 0.1 are created, empty; every other row is kept.
    expect(after.rows).toEqual({
      ...before,
      webhook_replays: [],
      mcp_sessions: [],
      mcp_auth_clients: [],
      mcp_auth_codes: [],
      mcp_auth_grants: [],
      mcp_auth_tokens: [],
      channel_pairings: [],
      channel_senders: [],
      provider_connections: [],
      push_subscriptions: [],
      push_vapid: [],
    })
    expect(Object.keys(before)).toContain("working_memory")
    // Every migration recorded as applied, none run twice (a second CREATE TABLE would have failed).
    expect(after.recorded).toBe(migrationCount)
  })

describe("upgrading a database made by release 0.1 (global aide_migrations)", () => {
  it.scoped("SQLite: every row is kept and readable through the stores", () =>
    Effect.gen(function* () {
      const filename = Path.join(yield* tempDirectory, "aide.db")
      yield* upgrade(() => SqliteStorage.layer({ filename }))
    }),
  )

  it.scoped.skipIf(!postgresAvailable)(
    "PostgreSQL: every row is kept and readable through the stores",
    () =>
      Effect.gen(function* () {
        const database = yield* Effect.acquireRelease(
          Effect.promise(() => createTestDatabase()),
          (db) => Effect.promise(() => db.drop()),
        )
        yield* upgrade(() => PostgresStorage.layer({ url: Redacted.make(database.url), maxConnections: 2 }))
      }),
    60_000,
  )
})

describe("per-store migrations", () => {
  it.scoped.skipIf(!postgresAvailable)(
    "two processes migrating one PostgreSQL database at once both succeed, each step once",
    () =>
      Effect.gen(function* () {
        const database = yield* Effect.acquireRelease(
          Effect.promise(() => createTestDatabase()),
          (db) => Effect.promise(() => db.drop()),
        )
        // Two pools: the once-per-client memo cannot help, only the database's lock can.
        const process = () =>
          SqlStores.ensureMigrated.pipe(
            Effect.provide(PostgresStorage.layer({ url: Redacted.make(database.url), maxConnections: 2 })),
          )
        yield* Effect.all([process(), process(), process()], { concurrency: "unbounded" })
        const rows = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{
            readonly schemaName: string
          }>`SELECT schema_name AS "schemaName" FROM aide_schema_migrations`
        }).pipe(Effect.provide(PostgresStorage.layer({ url: Redacted.make(database.url), maxConnections: 1 })))
        expect(rows).toHaveLength(migrationCount)
      }),
    60_000,
  )

  it.scoped("a store alone creates only its own tables and those it requires", () =>
    Effect.gen(function* () {
      const filename = Path.join(yield* tempDirectory, "aide.db")
      const names = yield* Effect.gen(function* () {
        yield* MemoryStore
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{
          readonly name: string
        }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`
        return rows.map((row) => row.name)
      }).pipe(Effect.provide(SqlMemoryStore.layer.pipe(Layer.provideMerge(SqliteStorage.layer({ filename })))))
      expect(names).toEqual(["aide_schema_migrations", "working_memory", "working_memory_versions"])
    }),
  )
})
