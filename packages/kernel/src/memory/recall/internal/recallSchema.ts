import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../../../storage/SqlMigrations.js"
import { schema as threads } from "../../../threads/threadsSchema.js"

/**
 * Migration 0014: the recall index. `recall_entries` gives every stored message (forked copies
 * too: they are rows of their own) a stable integer id; the full-text index and the embeddings
 * are keyed by it. Triggers on `messages` keep it in sync in the writer's own transaction, so
 * deleting a thread (which deletes its messages and its branches') empties every index without
 * application code, and a message rewritten mid-stream is re-indexed and loses its stale vector.
 * The searchable text is the message's text parts, extracted in SQL from the `parts` JSON.
 */
export const semanticRecallTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({ pg: () => postgres, orElse: () => sqlite })
})

// An explicit INTEGER PRIMARY KEY, not the messages' implicit rowid: VACUUM may renumber that.
const sqlite = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE recall_entries (
    entry_id INTEGER PRIMARY KEY,
    thread_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    UNIQUE (thread_id, message_id)
  )`
  yield* sql`CREATE TABLE recall_embeddings (
    entry_id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    vector BLOB NOT NULL
  )`
  // Contentless: the text lives in `messages` already; contentless_delete (SQLite ≥ 3.43) lets
  // the triggers delete by rowid.
  yield* sql.unsafe(`CREATE VIRTUAL TABLE recall_fts USING fts5(
    text, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`)
  // Invalid JSON indexes as '' rather than failing the message's write.
  const text = (parts: string) => `COALESCE((SELECT group_concat(json_extract(p.value, '$.text'), ' ')
      FROM json_each(CASE WHEN json_valid(${parts}) AND json_type(${parts}) = 'array' THEN ${parts} ELSE '[]' END) p
      WHERE json_extract(p.value, '$.type') = 'text'), '')`
  const entryOf = (row: string) =>
    `(SELECT entry_id FROM recall_entries WHERE thread_id = ${row}.thread_id AND message_id = ${row}.id)`
  const forget = (row: string) => `
    DELETE FROM recall_fts WHERE rowid = ${entryOf(row)};
    DELETE FROM recall_embeddings WHERE entry_id = ${entryOf(row)};`
  yield* sql.unsafe(`CREATE TRIGGER messages_recall_inserted AFTER INSERT ON messages BEGIN
    INSERT INTO recall_entries (thread_id, message_id) VALUES (NEW.thread_id, NEW.id);
    INSERT INTO recall_fts (rowid, text) VALUES (${entryOf("NEW")}, ${text("NEW.parts")});
  END`)
  yield* sql.unsafe(`CREATE TRIGGER messages_recall_updated AFTER UPDATE OF parts ON messages
    WHEN OLD.parts IS NOT NEW.parts BEGIN
    ${forget("OLD")}
    INSERT INTO recall_fts (rowid, text) VALUES (${entryOf("OLD")}, ${text("NEW.parts")});
  END`)
  yield* sql.unsafe(`CREATE TRIGGER messages_recall_deleted AFTER DELETE ON messages BEGIN
    ${forget("OLD")}
    DELETE FROM recall_entries WHERE thread_id = OLD.thread_id AND message_id = OLD.id;
  END`)
  // Backfill what was written before this migration.
  yield* sql`INSERT INTO recall_entries (thread_id, message_id) SELECT thread_id, id FROM messages`
  yield* sql.unsafe(`INSERT INTO recall_fts (rowid, text)
    SELECT e.entry_id, ${text("m.parts")} FROM recall_entries e
    JOIN messages m ON m.thread_id = e.thread_id AND m.id = e.message_id`)
})

// A tsvector column with a GIN index; 'english' stems like SQLite's porter tokenizer.
const postgres = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE recall_entries (
    entry_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    thread_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    document TSVECTOR NOT NULL,
    UNIQUE (thread_id, message_id)
  )`
  yield* sql`CREATE INDEX recall_entries_document ON recall_entries USING GIN (document)`
  yield* sql`CREATE TABLE recall_embeddings (
    entry_id BIGINT PRIMARY KEY REFERENCES recall_entries (entry_id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    vector BYTEA NOT NULL
  )`
  // Invalid JSON indexes as '' rather than failing the message's write.
  yield* sql.unsafe(`CREATE FUNCTION recall_text(parts TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $body$
    BEGIN
      RETURN COALESCE((SELECT string_agg(p->>'text', ' ') FROM jsonb_array_elements(parts::jsonb) p
                       WHERE p->>'type' = 'text'), '');
    EXCEPTION WHEN others THEN RETURN '';
    END
  $body$`)
  // An update replaces the entry: its embedding goes with it (cascade) and is made again.
  yield* sql.unsafe(`CREATE FUNCTION messages_recall_change() RETURNS trigger LANGUAGE plpgsql AS $body$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        DELETE FROM recall_entries WHERE thread_id = OLD.thread_id AND message_id = OLD.id;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        INSERT INTO recall_entries (thread_id, message_id, document)
        VALUES (NEW.thread_id, NEW.id, to_tsvector('english', recall_text(NEW.parts)));
      END IF;
      RETURN NULL;
    END
  $body$`)
  yield* sql`CREATE TRIGGER messages_recall_inserted AFTER INSERT ON messages
             FOR EACH ROW EXECUTE FUNCTION messages_recall_change()`
  yield* sql`CREATE TRIGGER messages_recall_updated AFTER UPDATE OF parts ON messages
             FOR EACH ROW WHEN (OLD.parts IS DISTINCT FROM NEW.parts) EXECUTE FUNCTION messages_recall_change()`
  yield* sql`CREATE TRIGGER messages_recall_deleted AFTER DELETE ON messages
             FOR EACH ROW EXECUTE FUNCTION messages_recall_change()`
  yield* sql`INSERT INTO recall_entries (thread_id, message_id, document)
             SELECT thread_id, id, to_tsvector('english', recall_text(parts)) FROM messages`
})

/** The tables of `SqlRecallIndex`; requires threads (its triggers on `messages` keep the index in sync). */
export const schema: Schema = {
  name: "aide.recall",
  requires: [threads],
  migrations: [{ id: 14, name: "semantic_recall", up: semanticRecallTables, legacyId: 14 }],
}
