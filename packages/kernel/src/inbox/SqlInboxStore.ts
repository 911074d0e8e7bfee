import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../storage/StorageError.js"
import type { InboxMessage, InboxPatch, InboxStatus } from "./Inbox.js"
import { InboxStore, type StoredInboxMessage } from "./InboxStore.js"
import { schema } from "./inboxSchema.js"

interface MessageRow {
  readonly id: string
  readonly subject: string
  readonly body: string
  readonly threadId: string | null
  readonly destination: string
  readonly status: InboxStatus
  readonly isRead: number | boolean
  readonly createdAt: string
  readonly archivedAt: string | null
}

const messageColumns = `id, subject, body, thread_id AS "threadId", destination, status, is_read AS "isRead",
  created_at AS "createdAt", archived_at AS "archivedAt"`

const toMessage = (row: MessageRow): InboxMessage => ({
  id: row.id,
  subject: row.subject,
  body: row.body,
  threadId: row.threadId,
  destination: row.destination,
  status: row.status,
  read: Number(row.isRead) === 1,
  createdAt: new Date(row.createdAt),
  archivedAt: row.archivedAt === null ? null : new Date(row.archivedAt),
})

/** `InboxStore` over any `SqlClient` dialect (table `inbox_messages`; `seq` orders equal times). */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(messageColumns)
  const first = (rows: ReadonlyArray<MessageRow>) => Option.map(Option.fromNullable(rows[0]), toMessage)

  const insert = (message: StoredInboxMessage) =>
    sql<MessageRow>`
      INSERT INTO inbox_messages (id, seq, subject, body, thread_id, destination, status, is_read, created_at)
      VALUES (
        ${message.id}, (SELECT COALESCE(MAX(seq), 0) + 1 FROM inbox_messages), ${message.subject}, ${message.body},
        ${message.threadId}, ${message.destination}, ${message.status}, 0, ${message.createdAt.toISOString()}
      )
      RETURNING ${columns}`.pipe(
      Effect.map((rows) => toMessage(rows[0]!)),
      orStorageError("creating an inbox message"),
    )

  const list = (archived: boolean) =>
    sql<MessageRow>`
      SELECT ${columns} FROM inbox_messages
      WHERE ${archived ? sql`archived_at IS NOT NULL` : sql`archived_at IS NULL`}
      ORDER BY created_at DESC, seq DESC`.pipe(
      Effect.map((rows) => rows.map(toMessage)),
      orStorageError("listing the inbox"),
    )

  const get = (id: string) =>
    sql<MessageRow>`SELECT ${columns} FROM inbox_messages WHERE id = ${id}`.pipe(
      Effect.map(first),
      orStorageError("reading an inbox message"),
    )

  const update = (id: string, patch: InboxPatch, at: Date) => {
    const sets = []
    if (patch.read !== undefined) sets.push(sql`is_read = ${patch.read ? 1 : 0}`)
    if (patch.archived !== undefined) {
      sets.push(
        patch.archived ? sql`archived_at = COALESCE(archived_at, ${at.toISOString()})` : sql`archived_at = NULL`,
      )
    }
    if (sets.length === 0) return get(id)
    return sql<MessageRow>`UPDATE inbox_messages SET ${sql.csv(sets)} WHERE id = ${id} RETURNING ${columns}`.pipe(
      Effect.map(first),
      orStorageError("updating an inbox message"),
    )
  }

  const remove = (id: string) =>
    sql<{ readonly id: string }>`DELETE FROM inbox_messages WHERE id = ${id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStorageError("deleting an inbox message"),
    )

  const claim = (id: string, owner: string, now: Date, until: Date) =>
    sql<MessageRow>`
      UPDATE inbox_messages SET lease_owner = ${owner}, lease_until = ${until.toISOString()}
      WHERE id = ${id} AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now.toISOString()})
      RETURNING ${columns}`.pipe(Effect.map(first), orStorageError("claiming an inbox delivery"))

  const renew = (id: string, owner: string, until: Date) =>
    sql<{ readonly id: string }>`
      UPDATE inbox_messages
      SET lease_until = ${until.toISOString()}, delivery_attempts = delivery_attempts + 1
      WHERE id = ${id} AND lease_owner = ${owner} AND status = 'pending'
      RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStorageError("renewing an inbox delivery"),
    )

  const finish = (id: string, owner: string, status: "sent" | "failed", lastError: string | null) =>
    sql`UPDATE inbox_messages
        SET status = ${status}, last_error = ${lastError}, lease_owner = NULL, lease_until = NULL
        WHERE id = ${id} AND lease_owner = ${owner} AND status = 'pending'`.pipe(
      Effect.asVoid,
      orStorageError("finishing an inbox delivery"),
    )

  const release = (id: string, owner: string) =>
    sql`UPDATE inbox_messages SET lease_owner = NULL, lease_until = NULL
        WHERE id = ${id} AND lease_owner = ${owner} AND status = 'pending'`.pipe(
      Effect.asVoid,
      orStorageError("releasing an inbox delivery"),
    )

  const pendingUnleased = (now: Date, limit: number) =>
    sql<{ readonly id: string }>`
      SELECT id FROM inbox_messages
      WHERE status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now.toISOString()})
      ORDER BY created_at, seq
      LIMIT ${limit}`.pipe(
      Effect.map((rows) => rows.map((row) => row.id)),
      orStorageError("listing pending inbox deliveries"),
    )

  return InboxStore.of({ insert, list, get, update, remove, claim, renew, finish, release, pendingUnleased })
})

/** `InboxStore` on a `SqlClient`, migrated first if it is not yet. */
export const layer: Layer.Layer<InboxStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  InboxStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)
