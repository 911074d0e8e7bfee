import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { Ids } from "../ids/Ids.js"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import type { StorageError } from "../storage/StorageError.js"
import { sqlErrorsAsStorage as orStorageError } from "../storage/StorageError.js"
import { boundedParts } from "../tools/BoundedValue.js"
import { familyPage } from "./internal/familyPage.js"
import {
  type MessageRow,
  type ThreadRow,
  threadColumns,
  toBranchRef,
  toMessage,
  toRecord,
  toSummaries,
} from "./internal/threadRows.js"
import {
  type BranchRef,
  MessageNotFound,
  type StoredMessage,
  ThreadNotFound,
  type ThreadPage,
  Threads,
} from "./Threads.js"
import { schema } from "./threadsSchema.js"

/**
 * `Threads` over any `SqlClient` dialect (SQLite, PostgreSQL). Timestamps are ISO 8601 TEXT taken
 * from Effect's `Clock`; every write that changes a thread also raises its root's
 * `family_updated_at`, which is what the list is ordered by.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const ids = yield* Ids
  const columns = sql.literal(threadColumns)
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

  const findThread = (id: string) =>
    sql<ThreadRow>`SELECT ${columns} FROM threads WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0])),
    )

  const requireThread = (id: string) =>
    Effect.flatMap(findThread(id), (row) =>
      Option.isSome(row) ? Effect.succeed(row.value) : Effect.fail(new ThreadNotFound({ threadId: id })),
    )

  // The family's time only moves forward: a replica with a slower clock must not reorder the list.
  const raiseFamilyTime = (rootId: string, at: string) =>
    sql`UPDATE threads
        SET family_updated_at = CASE WHEN family_updated_at < ${at} THEN ${at} ELSE family_updated_at END
        WHERE id = ${rootId}`

  const ensure = Effect.fn("Threads.ensure")(function* (id: string) {
    // A second pass only when the thread was deleted between the two statements.
    for (;;) {
      const at = yield* now
      const inserted = yield* sql<ThreadRow>`
        INSERT INTO threads (id, root_id, created_at, updated_at, family_updated_at)
        VALUES (${id}, ${id}, ${at}, ${at}, ${at})
        ON CONFLICT (id) DO NOTHING
        RETURNING ${columns}`
      if (inserted[0] !== undefined) return { thread: toRecord(inserted[0]), created: true }
      const existing = yield* findThread(id)
      if (Option.isSome(existing)) return { thread: toRecord(existing.value), created: false }
    }
  }, orStorageError("creating a thread"))

  const get = Effect.fn("Threads.get")(function* (id: string) {
    return toRecord(yield* requireThread(id))
  }, orStorageError("reading a thread"))

  const selectMessages = (threadId: string) =>
    sql<MessageRow>`SELECT id, role, parts, metadata FROM messages WHERE thread_id = ${threadId} ORDER BY seq`.pipe(
      Effect.map((rows) => rows.map(toMessage)),
    )

  const messages = Effect.fn("Threads.messages")(function* (id: string) {
    const found = yield* selectMessages(id)
    if (found.length === 0) yield* requireThread(id)
    return found
  }, orStorageError("reading messages"))

  // Newest first by the (thread_id, seq) index, as far as `last`; the count is the same index's.
  const tail = Effect.fn("Threads.tail")(function* (id: string, last: number) {
    const rows = yield* sql<MessageRow & { readonly total: number | string }>`
      SELECT id, role, parts, metadata,
             (SELECT CAST(COUNT(*) AS INTEGER) FROM messages WHERE thread_id = ${id}) AS "total"
      FROM messages WHERE thread_id = ${id} ORDER BY seq DESC LIMIT ${Math.max(1, Math.floor(last))}`
    if (rows.length === 0) {
      yield* requireThread(id)
      return { messages: [], before: 0 }
    }
    const messages = rows.map(toMessage).reverse()
    return { messages, before: Number(rows[0]!.total) - messages.length }
  }, orStorageError("reading messages"))

  const holding = Effect.fn("Threads.holding")(function* (id: string, messageIds: ReadonlyArray<string>) {
    const found = new Set<string>()
    // Bounded batches: SQLite's and PostgreSQL's limits on bound parameters.
    for (let start = 0; start < messageIds.length; start += 500) {
      const batch = messageIds.slice(start, start + 500)
      const rows = yield* sql<{ readonly id: string }>`
        SELECT id FROM messages WHERE thread_id = ${id} AND ${sql.in("id", batch)}`
      for (const row of rows) found.add(row.id)
    }
    if (found.size === 0) yield* requireThread(id)
    return found as ReadonlySet<string>
  }, orStorageError("reading messages"))

  const saveMessage = Effect.fn("Threads.saveMessage")(function* (threadId: string, message: StoredMessage) {
    const at = yield* now
    // Bounded depth: a part nested past it would fail every later model request of the thread.
    const parts = JSON.stringify(boundedParts(message.parts))
    const metadata = message.metadata === undefined ? null : JSON.stringify(message.metadata)
    yield* sql.withTransaction(
      Effect.gen(function* () {
        // The thread row first: it serialises saves to a thread (no two same `seq`); a root raises its family time.
        const touched = yield* sql<{ readonly rootId: string }>`UPDATE threads SET updated_at = ${at},
          family_updated_at = CASE WHEN root_id = id AND family_updated_at < ${at} THEN ${at} ELSE family_updated_at END
          WHERE id = ${threadId} RETURNING root_id AS "rootId"`
        const rootId = touched[0]?.rootId
        if (rootId === undefined) return yield* new ThreadNotFound({ threadId })
        yield* sql`
          INSERT INTO messages (thread_id, id, seq, role, parts, metadata, created_at)
          VALUES (
            ${threadId}, ${message.id},
            (SELECT COALESCE(MAX(seq), -1) + 1 FROM messages WHERE thread_id = ${threadId}),
            ${message.role}, ${parts}, ${metadata}, ${at}
          )
          ON CONFLICT (thread_id, id) DO UPDATE
          SET role = excluded.role, parts = excluded.parts, metadata = excluded.metadata`
        if (rootId !== threadId) yield* raiseFamilyTime(rootId, at)
      }),
    )
  }, orStorageError("saving a message"))

  const setTitle = Effect.fn("Threads.setTitle")(function* (id: string, title: string | null) {
    const updated = yield* sql<ThreadRow>`UPDATE threads SET title = ${title} WHERE id = ${id} RETURNING ${columns}`
    if (updated[0] === undefined) return yield* new ThreadNotFound({ threadId: id })
    return toRecord(updated[0])
  }, orStorageError("renaming a thread"))

  const list = Effect.fn("Threads.list")(function* (options: {
    readonly page: number
    readonly perPage: number | false
  }) {
    const { perPage } = options
    const page = perPage === false ? 0 : options.page
    const window = perPage === false ? undefined : { limit: perPage, offset: page * perPage }
    const [counted, rows] = yield* Effect.all([
      // Kept by triggers (migration 0005): a COUNT(*) of the roots would grow with them.
      sql<{ readonly total: number }>`SELECT roots AS "total" FROM thread_root_count WHERE id = 1`,
      familyPage(sql, window),
    ])
    const total = Number(counted[0]?.total ?? 0)
    const threads = toSummaries(rows)
    return {
      threads,
      total,
      page,
      perPage,
      hasMore: perPage !== false && (page + 1) * perPage < total,
    } satisfies ThreadPage
  }, orStorageError("listing threads"))

  const branchesOf = (parentId: string) =>
    sql<{ readonly id: string; readonly title: string | null; readonly forkMessageId: string }>`
      SELECT id, title, fork_message_id AS "forkMessageId" FROM threads
      WHERE parent_id = ${parentId} ORDER BY created_at, id`

  const siblingsOf = (thread: ThreadRow) =>
    thread.parentId === null || thread.forkMessageId === null
      ? Effect.succeed([])
      : sql<{ readonly id: string; readonly title: string | null }>`
          SELECT id, title FROM threads
          WHERE parent_id = ${thread.parentId} AND fork_message_id = ${thread.forkMessageId} AND id <> ${thread.id}
          ORDER BY created_at, id`

  const detail = Effect.fn("Threads.detail")(function* (id: string) {
    const thread = yield* requireThread(id)
    const [history, branches, siblings] = yield* Effect.all([selectMessages(id), branchesOf(id), siblingsOf(thread)], {
      concurrency: "unbounded",
    })
    const forks = new Map<string, Array<BranchRef>>()
    for (const branch of branches) {
      const refs = forks.get(branch.forkMessageId) ?? []
      refs.push(toBranchRef(branch))
      forks.set(branch.forkMessageId, refs)
    }
    return {
      thread: {
        id: thread.id,
        title: thread.title,
        createdAt: new Date(thread.createdAt),
        updatedAt: new Date(thread.updatedAt),
      },
      messages: history,
      // fromEntries defines own properties, so even a message id like "__proto__" is a plain key.
      forks: Object.fromEntries(forks),
      forkInfo:
        thread.parentId === null
          ? null
          : {
              sourceThreadId: thread.parentId,
              forkPointIndex: Number(thread.forkPointIndex ?? 0),
              siblings: siblings.map(toBranchRef),
            },
    }
  }, orStorageError("reading a thread"))

  const fork = Effect.fn("Threads.fork")(function* (id: string, messageId: string) {
    const branchId = yield* ids.uuid
    const at = yield* now
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const source = yield* requireThread(id)
        const point = yield* sql<{ readonly seq: number; readonly index: number }>`
          SELECT fork_point.seq AS "seq",
                 (SELECT CAST(COUNT(*) AS INTEGER) FROM messages earlier
                  WHERE earlier.thread_id = fork_point.thread_id AND earlier.seq < fork_point.seq) AS "index"
          FROM messages fork_point
          WHERE fork_point.thread_id = ${id} AND fork_point.id = ${messageId}`
        if (point[0] === undefined) return yield* new MessageNotFound({ threadId: id, messageId })
        const index = Number(point[0].index)
        const branch = yield* sql<ThreadRow>`
          INSERT INTO threads
            (id, root_id, parent_id, fork_message_id, fork_point_index, title, created_at, updated_at, family_updated_at)
          VALUES (${branchId}, ${source.rootId}, ${id}, ${messageId}, ${index}, NULL, ${at}, ${at}, NULL)
          RETURNING ${columns}`
        // Copied inside the database: the rows never travel to the server and back.
        yield* sql`
          INSERT INTO messages (thread_id, id, seq, role, parts, metadata, created_at)
          SELECT ${branchId}, id, seq, role, parts, metadata, created_at FROM messages
          WHERE thread_id = ${id} AND seq < ${point[0].seq}`
        yield* raiseFamilyTime(source.rootId, at)
        return { thread: toRecord(branch[0]!), clonedMessageCount: index }
      }),
    )
  }, orStorageError("forking a thread"))

  const delete_ = Effect.fn("Threads.delete")(function* (id: string) {
    yield* sql.withTransaction(
      Effect.gen(function* () {
        const thread = yield* requireThread(id)
        if (thread.parentId === null) {
          yield* sql`DELETE FROM messages WHERE thread_id IN (SELECT id FROM threads WHERE root_id = ${id})`
          yield* sql`DELETE FROM threads WHERE root_id = ${id}`
          return
        }
        const subtree = sql`WITH RECURSIVE doomed (id) AS (
          SELECT id FROM threads WHERE id = ${id}
          UNION ALL
          SELECT child.id FROM threads child JOIN doomed ON child.parent_id = doomed.id
        )`
        yield* sql`${subtree} DELETE FROM messages WHERE thread_id IN (SELECT id FROM doomed)`
        yield* sql`${subtree} DELETE FROM threads WHERE id IN (SELECT id FROM doomed)`
        // What is left of the family decides its time again.
        yield* sql`UPDATE threads
                   SET family_updated_at = (SELECT MAX(member.updated_at) FROM threads member
                                            WHERE member.root_id = ${thread.rootId})
                   WHERE id = ${thread.rootId}`
      }),
    )
  }, orStorageError("deleting a thread"))

  return Threads.of({
    ensure,
    get,
    messages,
    tail,
    holding,
    saveMessage,
    setTitle,
    list,
    detail,
    fork,
    delete: delete_,
  })
})

/** `Threads` on the kernel's `SqlClient`; branch ids come from `Ids`. */
export const layer: Layer.Layer<Threads, StorageError, SqlClient.SqlClient | Ids> = Layer.effect(
  Threads,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)
