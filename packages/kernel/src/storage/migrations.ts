import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Clock, Effect } from "effect"
import { channelConversationTables } from "../channels/gateway/channelMigration.js"
import { semanticRecallTables } from "../memory/recall/internal/recallSchema.js"
import { observationalMemoryTables } from "./observationalMemoryMigration.js"

/**
 * Schema migrations, written once for every dialect we support: plain TEXT timestamps
 * (ISO 8601, comparable as text) and no dialect-only types. A migration that needs a
 * dialect-specific statement uses `sql.onDialectOrElse`.
 */
const authTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE auth_owner (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE auth_sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    user_agent TEXT NOT NULL,
    ip TEXT NOT NULL,
    revoked_at TEXT
  )`
  yield* sql`CREATE TABLE auth_refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    rotated_at TEXT
  )`
  yield* sql`CREATE INDEX auth_refresh_tokens_session_id ON auth_refresh_tokens (session_id)`
})

/**
 * Threads and their messages. A branch keeps its root in `root_id`; the root row carries
 * `family_updated_at` (the latest `updated_at` of its family, NULL on branches) so listing
 * families is one ordered scan of a partial index, whatever the number of branches.
 * Messages keep their ids in forked copies, hence the composite key; `seq` orders them.
 */
const threadTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    root_id TEXT NOT NULL,
    parent_id TEXT REFERENCES threads (id) ON DELETE CASCADE,
    fork_message_id TEXT,
    fork_point_index INTEGER,
    title TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    family_updated_at TEXT
  )`
  yield* sql`CREATE INDEX threads_roots_by_activity ON threads (family_updated_at, id) WHERE parent_id IS NULL`
  yield* sql`CREATE INDEX threads_root_id ON threads (root_id)`
  // Partial: roots stay out of it, so the planner cannot pick it for the root listing.
  yield* sql`CREATE INDEX threads_parent_id ON threads (parent_id, fork_message_id) WHERE parent_id IS NOT NULL`
  yield* sql`CREATE TABLE messages (
    thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL,
    metadata TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (thread_id, id)
  )`
  yield* sql`CREATE UNIQUE INDEX messages_thread_seq ON messages (thread_id, seq)`
})

/** The application config: one row, the owner's settings as a JSON document (defaults not included). */
const configTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE app_config (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    document TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  // The row exists from the start, so a PATCH can always lock it (SELECT … FOR UPDATE).
  const now = new Date(yield* Clock.currentTimeMillis).toISOString()
  yield* sql`INSERT INTO app_config (id, document, updated_at) VALUES (1, ${"{}"}, ${now})`
})

/**
 * Inbox messages. `seq` breaks ties of `created_at` (newest first). `is_read` is 0/1 in both
 * dialects. A pending channel delivery is claimed through `lease_owner`/`lease_until`;
 * `delivery_attempts` and `last_error` are kept for the logs and operators. `thread_id` has no
 * foreign key: deleting a thread leaves its messages in the inbox.
 */
const inboxTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE inbox_messages (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    thread_id TEXT,
    destination TEXT NOT NULL,
    status TEXT NOT NULL,
    is_read INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    archived_at TEXT,
    delivery_attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    lease_owner TEXT,
    lease_until TEXT
  )`
  yield* sql`CREATE INDEX inbox_messages_newest ON inbox_messages (created_at, seq)`
  yield* sql`CREATE INDEX inbox_messages_pending ON inbox_messages (lease_until) WHERE status = 'pending'`
})

/**
 * The number of root threads, kept by triggers in the same transaction as the insert or delete:
 * `GET /api/threads` reports it on every page, and COUNT(*) over the roots grows with them
 * (~0.4 ms of SQLite per request at 10,000 roots, ~40% of the request).
 */
const threadRootCount = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE thread_root_count (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    roots INTEGER NOT NULL
  )`
  yield* sql`INSERT INTO thread_root_count (id, roots)
             SELECT 1, COUNT(*) FROM threads WHERE parent_id IS NULL`
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        yield* sql.unsafe(`CREATE FUNCTION thread_root_count_change() RETURNS trigger LANGUAGE plpgsql AS $body$
          BEGIN
            UPDATE thread_root_count SET roots = roots + (CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END) WHERE id = 1;
            RETURN NULL;
          END
        $body$`)
        yield* sql`CREATE TRIGGER threads_root_inserted AFTER INSERT ON threads
                   FOR EACH ROW WHEN (NEW.parent_id IS NULL) EXECUTE FUNCTION thread_root_count_change()`
        yield* sql`CREATE TRIGGER threads_root_deleted AFTER DELETE ON threads
                   FOR EACH ROW WHEN (OLD.parent_id IS NULL) EXECUTE FUNCTION thread_root_count_change()`
      }),
    orElse: () =>
      Effect.gen(function* () {
        yield* sql`CREATE TRIGGER threads_root_inserted AFTER INSERT ON threads WHEN NEW.parent_id IS NULL
                   BEGIN UPDATE thread_root_count SET roots = roots + 1 WHERE id = 1; END`
        yield* sql`CREATE TRIGGER threads_root_deleted AFTER DELETE ON threads WHEN OLD.parent_id IS NULL
                   BEGIN UPDATE thread_root_count SET roots = roots - 1 WHERE id = 1; END`
      }),
  })
})

/**
 * Tool approvals: a run that paused on tool calls needing the owner's decision, and one row per
 * call. Decisions are conditional updates (`approved IS NULL`), so they are final and race-free.
 */
const chatRunTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE chat_runs (
    id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    message_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX chat_runs_suspended ON chat_runs (thread_id) WHERE status = 'suspended'`
  yield* sql`CREATE TABLE chat_run_calls (
    run_id TEXT NOT NULL REFERENCES chat_runs (id) ON DELETE CASCADE,
    tool_call_id TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    seq INTEGER NOT NULL,
    approved INTEGER,
    decided_at TEXT,
    PRIMARY KEY (run_id, tool_call_id)
  )`
})

/**
 * OAuth with remote MCP servers. `mcp_oauth_clients`: per server id, the client registration
 * and tokens (JSON as the MCP SDK hands them over), bound to the server URL they were obtained
 * for. `mcp_oauth_states`: one row per authorization in flight, keyed by the single-use `state`
 * and holding that attempt's PKCE verifier.
 */
const mcpOAuthTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE mcp_oauth_clients (
    server_id TEXT PRIMARY KEY,
    server_url TEXT NOT NULL,
    client_information TEXT,
    tokens TEXT,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE mcp_oauth_states (
    state TEXT PRIMARY KEY,
    server_id TEXT NOT NULL,
    server_url TEXT NOT NULL,
    code_verifier TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX mcp_oauth_states_server_id ON mcp_oauth_states (server_id)`
})

/**
 * The scheduler's runtime state (the tasks themselves live in the config document).
 * `schedule_runs` is the run ledger: one row per task and due time, its primary key being the
 * claim that makes a due time fire at most once across restarts and replicas. `schedule_state`
 * holds per task the run count and the cursor (the latest due time claimed), from which the
 * next due time and the restart catch-up are computed. The heartbeat uses task id `heartbeat`.
 */
const scheduleTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE schedule_runs (
    task_id TEXT NOT NULL,
    due_at TEXT NOT NULL,
    status TEXT NOT NULL,
    claimed_by TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    error TEXT,
    inbox_message_id TEXT,
    PRIMARY KEY (task_id, due_at)
  )`
  yield* sql`CREATE INDEX schedule_runs_running ON schedule_runs (task_id, started_at) WHERE status = 'running'`
  yield* sql`CREATE TABLE schedule_state (
    task_id TEXT PRIMARY KEY,
    run_count INTEGER NOT NULL DEFAULT 0,
    cursor_at TEXT NOT NULL,
    last_run_at TEXT
  )`
})

/**
 * Stored config documents the server could not use (unparseable, nested too deep, invalid),
 * set aside with the reason before anything overwrites them: see docs/operations.md.
 */
const configRejectedTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE config_rejected (
    document TEXT NOT NULL,
    reason TEXT NOT NULL,
    rejected_at TEXT NOT NULL
  )`
})

/**
 * The owner's credential generation, bumped by every password change in the transaction that
 * revokes the sessions; a session is created only under the generation its password was
 * verified against (see docs/auth.md, "Password change and logins in flight").
 */
const credentialGeneration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE auth_owner ADD COLUMN credential_generation INTEGER NOT NULL DEFAULT 0`
})

/**
 * Chat runs stop referencing `threads` by foreign key: the run store and the thread store are
 * separate Tags, and an embedder may keep threads elsewhere (a foreign key would refuse every
 * suspended run there). Deleting a thread held in SQL still deletes its runs, by trigger.
 * SQLite cannot drop a constraint: both tables are rebuilt (`chat_run_calls` first, so dropping
 * the old `chat_runs` cascades into nothing), then renamed, which rewrites the reference.
 */
const chatRunsOwnStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        yield* sql`ALTER TABLE chat_runs DROP CONSTRAINT IF EXISTS chat_runs_thread_id_fkey`
        yield* sql.unsafe(`CREATE FUNCTION chat_runs_thread_deleted() RETURNS trigger LANGUAGE plpgsql AS $body$
          BEGIN
            DELETE FROM chat_runs WHERE thread_id = OLD.id;
            RETURN NULL;
          END
        $body$`)
        yield* sql`CREATE TRIGGER threads_runs_deleted AFTER DELETE ON threads
                   FOR EACH ROW EXECUTE FUNCTION chat_runs_thread_deleted()`
      }),
    orElse: () =>
      Effect.gen(function* () {
        yield* sql`CREATE TABLE chat_runs_next (
          id TEXT PRIMARY KEY,
          thread_id TEXT NOT NULL,
          message_id TEXT NOT NULL,
          status TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        )`
        yield* sql`INSERT INTO chat_runs_next (id, thread_id, message_id, status, created_at, updated_at)
                   SELECT id, thread_id, message_id, status, created_at, updated_at FROM chat_runs`
        yield* sql`CREATE TABLE chat_run_calls_next (
          run_id TEXT NOT NULL REFERENCES chat_runs_next (id) ON DELETE CASCADE,
          tool_call_id TEXT NOT NULL,
          approval_id TEXT NOT NULL,
          tool_name TEXT NOT NULL,
          seq INTEGER NOT NULL,
          approved INTEGER,
          decided_at TEXT,
          PRIMARY KEY (run_id, tool_call_id)
        )`
        yield* sql`INSERT INTO chat_run_calls_next
                   SELECT run_id, tool_call_id, approval_id, tool_name, seq, approved, decided_at FROM chat_run_calls`
        yield* sql`DROP TABLE chat_run_calls`
        yield* sql`DROP TABLE chat_runs`
        yield* sql`ALTER TABLE chat_runs_next RENAME TO chat_runs`
        yield* sql`ALTER TABLE chat_run_calls_next RENAME TO chat_run_calls`
        yield* sql`CREATE INDEX chat_runs_suspended ON chat_runs (thread_id) WHERE status = 'suspended'`
        yield* sql`CREATE TRIGGER threads_runs_deleted AFTER DELETE ON threads
                   BEGIN DELETE FROM chat_runs WHERE thread_id = OLD.id; END`
      }),
  })
})

/**
 * Working memory: one markdown document per scope, versioned (writes are compare-and-set on
 * `version`), and the last versions of each for undoing a bad edit.
 */
const workingMemoryTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE working_memory (
    scope TEXT PRIMARY KEY,
    content TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE working_memory_versions (
    scope TEXT NOT NULL,
    version INTEGER NOT NULL,
    content TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, version)
  )`
})

export const loader = Migrator.fromRecord({
  "0001_auth": authTables,
  "0002_config": configTable,
  "0003_threads": threadTables,
  "0004_inbox": inboxTable,
  "0005_thread_root_count": threadRootCount,
  "0006_chat_runs": chatRunTables,
  "0007_schedule": scheduleTables,
  "0008_mcp_oauth": mcpOAuthTables,
  "0009_config_rejected": configRejectedTable,
  "0010_auth_credential_generation": credentialGeneration,
  "0011_chat_runs_own_store": chatRunsOwnStore,
  "0012_working_memory": workingMemoryTables,
  "0013_observational_memory": observationalMemoryTables,
  "0014_semantic_recall": semanticRecallTables,
  "0015_channel_conversations": channelConversationTables,
})

/** Runs pending migrations; safe to call at every start (applied ones are recorded). */
export const run = Migrator.make({})({ loader, table: "aide_migrations" })
