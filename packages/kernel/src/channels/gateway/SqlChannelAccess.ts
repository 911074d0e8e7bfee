import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { orStorageError } from "../../storage/StorageError.js"
import type { ApprovedSender, ChannelConversations, PairingRequest } from "./ChannelConversations.js"

interface PairingRow {
  readonly pluginId: string
  readonly channelId: string
  readonly code: string
  readonly senderId: string
  readonly senderName: string | null
  readonly createdAt: string
  readonly expiresAt: string
}

const toRequest = (row: PairingRow): PairingRequest => ({
  pluginId: row.pluginId,
  channelId: row.channelId,
  code: row.code,
  senderId: row.senderId,
  senderName: row.senderName ?? null,
  createdAt: new Date(row.createdAt),
  expiresAt: new Date(row.expiresAt),
})

const pairingColumns = `plugin_id AS "pluginId", channel_id AS "channelId", code, sender_id AS "senderId",
  sender_name AS "senderName", created_at AS "createdAt", expires_at AS "expiresAt"`

type Access = Pick<
  ChannelConversations["Type"],
  "isApproved" | "requestPairing" | "pairings" | "decidePairing" | "approvedSenders" | "removeSender"
>

/** The access half of `SqlChannelConversations` (tables `channel_pairings`, `channel_senders`). */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.unsafe(pairingColumns)

  const isApproved = (pluginId: string, channelId: string, senderId: string) =>
    sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM channel_senders
      WHERE plugin_id = ${pluginId} AND channel_id = ${channelId} AND sender_id = ${senderId}`.pipe(
      Effect.map((rows) => Number(rows[0]?.n ?? 0) > 0),
      orStorageError("reading a channel's approved senders"),
    )

  // The bound is checked before the insert, so racing replicas may pass it by a few; the unique
  // (plugin, channel, sender) keeps one request per sender whatever the race.
  const requestPairing = (request: PairingRequest, maxPending: number) =>
    Effect.gen(function* () {
      const { pluginId, channelId } = request
      yield* sql`DELETE FROM channel_pairings
        WHERE plugin_id = ${pluginId} AND channel_id = ${channelId} AND expires_at <= ${request.createdAt.toISOString()}`
      const rows = yield* sql<{ readonly senderId: string }>`SELECT sender_id AS "senderId" FROM channel_pairings
        WHERE plugin_id = ${pluginId} AND channel_id = ${channelId}`
      if (rows.some((row) => row.senderId === request.senderId)) return "pending" as const
      if (rows.length >= maxPending) return "full" as const
      const inserted = yield* sql<{ readonly code: string }>`INSERT INTO channel_pairings
        (plugin_id, channel_id, code, sender_id, sender_name, created_at, expires_at)
        VALUES (${pluginId}, ${channelId}, ${request.code}, ${request.senderId}, ${request.senderName},
          ${request.createdAt.toISOString()}, ${request.expiresAt.toISOString()})
        ON CONFLICT DO NOTHING RETURNING code`
      return inserted.length > 0 ? ("created" as const) : ("pending" as const)
    }).pipe(orStorageError("storing a pairing request"))

  const pairings = (pluginId: string, now: Date) =>
    sql<PairingRow>`SELECT ${columns} FROM channel_pairings
      WHERE plugin_id = ${pluginId} AND expires_at > ${now.toISOString()} ORDER BY created_at, code`.pipe(
      Effect.map((rows) => rows.map(toRequest)),
      orStorageError("reading pairing requests"),
    )

  // DELETE … RETURNING decides a race: the request is taken by one caller only.
  const decidePairing = (pluginId: string, code: string, approved: boolean, now: Date) =>
    Effect.gen(function* () {
      const rows = yield* sql<PairingRow>`DELETE FROM channel_pairings
        WHERE plugin_id = ${pluginId} AND code = ${code} AND expires_at > ${now.toISOString()}
        RETURNING ${columns}`
      const row = rows[0]
      if (row === undefined) return Option.none()
      if (approved) {
        yield* sql`INSERT INTO channel_senders (plugin_id, channel_id, sender_id, sender_name, approved_at)
          VALUES (${pluginId}, ${row.channelId}, ${row.senderId}, ${row.senderName}, ${now.toISOString()})
          ON CONFLICT DO NOTHING`
      }
      return Option.some(toRequest(row))
    }).pipe(sql.withTransaction, orStorageError("answering a pairing request"))

  const approvedSenders = (pluginId: string) =>
    sql<Omit<ApprovedSender, "approvedAt"> & { readonly approvedAt: string }>`
      SELECT plugin_id AS "pluginId", channel_id AS "channelId", sender_id AS "senderId",
        sender_name AS "senderName", approved_at AS "approvedAt"
      FROM channel_senders WHERE plugin_id = ${pluginId} ORDER BY approved_at, sender_id`.pipe(
      Effect.map((rows) =>
        rows.map(
          (row): ApprovedSender => ({
            ...row,
            senderName: row.senderName ?? null,
            approvedAt: new Date(row.approvedAt),
          }),
        ),
      ),
      orStorageError("reading approved senders"),
    )

  const removeSender = (pluginId: string, channelId: string, senderId: string) =>
    sql<{ readonly senderId: string }>`DELETE FROM channel_senders
      WHERE plugin_id = ${pluginId} AND channel_id = ${channelId} AND sender_id = ${senderId}
      RETURNING sender_id AS "senderId"`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStorageError("removing an approved sender"),
    )

  const access: Access = { isApproved, requestPairing, pairings, decidePairing, approvedSenders, removeSender }
  return access
})
