import { SqlClient } from "@effect/sql"
import { Cause, Clock, Duration, Effect, FiberMap, Layer, Option, Schedule, type Scope } from "effect"
import { ChannelDeliveryError } from "../channels/Channel.js"
import { ChannelRegistry } from "../channels/ChannelRegistry.js"
import { Ids } from "../ids/Ids.js"
import { sqlErrorsAsStorage as orStorageError } from "../storage/StorageError.js"
import {
  Inbox,
  type InboxMessage,
  InboxMessageNotFound,
  type InboxPatch,
  type InboxStatus,
  type NewInboxMessage,
  UnknownDestination,
  webDestination,
  webInboxLabel,
} from "./Inbox.js"

/** How channel deliveries are attempted. */
export interface DeliveryOptions {
  /** Attempts per delivery, the first one included; default 4. */
  readonly attempts?: number
  /** Wait before the first retry; default 1 second. */
  readonly backoff?: Duration.DurationInput
  /** Each further wait is this many times the previous one; default 5 (1 s, 5 s, 25 s). */
  readonly factor?: number
  /** Longest wait for one `send`; a slower channel counts as a failed attempt; default 30 seconds. */
  readonly attemptTimeout?: Duration.DurationInput
  /** How often deliveries left pending by a stopped or crashed process are picked up; default 1 minute. */
  readonly sweepInterval?: Duration.DurationInput
}

export const defaults = {
  attempts: 4,
  backoff: Duration.seconds(1),
  factor: 5,
  attemptTimeout: Duration.seconds(30),
  sweepInterval: Duration.minutes(1),
} as const

/** Pending messages picked up per sweep (the rest wait for the next one). */
const sweepBatch = 100

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

/**
 * `Inbox` over any `SqlClient` dialect. Channel deliveries run in fibers of the layer's scope
 * (a `FiberMap` keyed by message id). A delivery first claims its row with a lease
 * (`lease_owner`, `lease_until`), renewed before every attempt, so one process delivers a
 * message even with several replicas on one database. Closing the scope interrupts the
 * deliveries and hands their leases back; a sweep — at start, then every `sweepInterval` —
 * takes up pending rows without a live lease, so deliveries survive restarts and crashes.
 * All waiting is on Effect's `Clock`.
 */
export const make = (
  options: DeliveryOptions = {},
): Effect.Effect<Inbox["Type"], never, SqlClient.SqlClient | ChannelRegistry | Ids | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const registry = yield* ChannelRegistry
    const ids = yield* Ids
    const columns = sql.literal(messageColumns)
    const attempts = Math.max(1, options.attempts ?? defaults.attempts)
    const backoff = Duration.decode(options.backoff ?? defaults.backoff)
    const factor = options.factor ?? defaults.factor
    const attemptTimeout = Duration.decode(options.attemptTimeout ?? defaults.attemptTimeout)
    const sweepInterval = options.sweepInterval ?? defaults.sweepInterval
    /** Wait before attempt `n` (2, 3…): backoff × factor^(n − 2). */
    const delayBefore = (attempt: number) => Duration.times(backoff, factor ** (attempt - 2))
    // Outlasts the longest gap between two renewals (a timed-out attempt plus the longest wait).
    const lease = Duration.sum(Duration.sum(attemptTimeout, delayBefore(Math.max(2, attempts))), Duration.minutes(1))

    const nowMillis = Clock.currentTimeMillis
    const iso = (millis: number) => new Date(millis).toISOString()
    const fibers = yield* FiberMap.make<string>()

    const claim = (id: string, owner: string) =>
      Effect.gen(function* () {
        const millis = yield* nowMillis
        const rows = yield* sql<MessageRow>`
          UPDATE inbox_messages SET lease_owner = ${owner}, lease_until = ${iso(millis + Duration.toMillis(lease))}
          WHERE id = ${id} AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ${iso(millis)})
          RETURNING ${columns}`
        return Option.fromNullable(rows[0])
      })

    /** Extends the lease and counts the attempt; false when the lease was lost (or the row is gone). */
    const renew = (id: string, owner: string) =>
      Effect.gen(function* () {
        const millis = yield* nowMillis
        const rows = yield* sql<{ readonly id: string }>`
          UPDATE inbox_messages
          SET lease_until = ${iso(millis + Duration.toMillis(lease))}, delivery_attempts = delivery_attempts + 1
          WHERE id = ${id} AND lease_owner = ${owner} AND status = 'pending'
          RETURNING id`
        return rows.length > 0
      })

    const finish = (id: string, owner: string, status: "sent" | "failed", lastError: string | null) =>
      sql`UPDATE inbox_messages
          SET status = ${status}, last_error = ${lastError}, lease_owner = NULL, lease_until = NULL
          WHERE id = ${id} AND lease_owner = ${owner} AND status = 'pending'`

    const release = (id: string, owner: string) =>
      sql`UPDATE inbox_messages SET lease_owner = NULL, lease_until = NULL
          WHERE id = ${id} AND lease_owner = ${owner} AND status = 'pending'`.pipe(Effect.ignore)

    /** One attempt: the channel must be registered and able to notify; defects and slowness count as failures. */
    const attempt = (message: MessageRow) =>
      Effect.gen(function* () {
        const found = yield* registry.get(message.destination)
        if (Option.isNone(found)) {
          return yield* new ChannelDeliveryError({ channel: message.destination, message: "channel is not registered" })
        }
        const channel = found.value
        if (!channel.supportsNotifications) {
          return yield* new ChannelDeliveryError({
            channel: channel.key,
            message: "channel does not support notifications",
          })
        }
        // Suspended: a plugin that throws while building its effect is a failed attempt too.
        yield* Effect.suspend(() =>
          channel.send({ subject: message.subject, body: message.body, threadId: message.threadId }),
        ).pipe(
          Effect.catchAllDefect((cause) =>
            Effect.fail(new ChannelDeliveryError({ channel: channel.key, message: "channel crashed", cause })),
          ),
          Effect.timeoutFail({
            duration: attemptTimeout,
            onTimeout: () =>
              new ChannelDeliveryError({
                channel: channel.key,
                message: `no answer within ${Duration.format(attemptTimeout)}`,
              }),
          }),
        )
      })

    const deliver = (id: string) =>
      Effect.gen(function* () {
        const owner = yield* ids.uuid
        yield* Effect.gen(function* () {
          const claimed = yield* claim(id, owner)
          if (Option.isNone(claimed)) return
          const message = claimed.value
          let lastError = ""
          for (let n = 1; n <= attempts; n++) {
            if (n > 1) yield* Effect.sleep(delayBefore(n))
            if (!(yield* renew(id, owner))) return
            const result = yield* Effect.either(attempt(message))
            if (result._tag === "Right") {
              yield* finish(id, owner, "sent", null)
              return
            }
            lastError = result.left.message
            yield* Effect.logWarning(`inbox: delivery attempt ${n}/${attempts} failed`).pipe(
              Effect.annotateLogs({ messageId: id, channel: message.destination, error: lastError }),
            )
          }
          yield* finish(id, owner, "failed", lastError)
          yield* Effect.logError("inbox: delivery failed; the message stays in the web inbox").pipe(
            Effect.annotateLogs({ messageId: id, channel: message.destination, error: lastError }),
          )
        }).pipe(Effect.onInterrupt(() => release(id, owner)))
      }).pipe(
        // A database failure ends this run; the lease runs out and a later sweep retries.
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logError("inbox: delivery stopped", cause).pipe(Effect.annotateLogs({ messageId: id })),
        ),
      )

    const startDelivery = (id: string) => FiberMap.run(fibers, id, deliver(id), { onlyIfMissing: true })

    const sweep = Effect.gen(function* () {
      const now = iso(yield* nowMillis)
      const rows = yield* sql<{ readonly id: string }>`
        SELECT id FROM inbox_messages
        WHERE status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY created_at, seq
        LIMIT ${sweepBatch}`
      for (const row of rows) yield* startDelivery(row.id)
    }).pipe(Effect.catchAllCause((cause) => Effect.logError("inbox: sweep of pending deliveries failed", cause)))

    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(sweepInterval)))

    const requireRow = (id: string) =>
      Effect.flatMap(sql<MessageRow>`SELECT ${columns} FROM inbox_messages WHERE id = ${id}`, (rows) =>
        rows[0] === undefined ? Effect.fail(new InboxMessageNotFound({ messageId: id })) : Effect.succeed(rows[0]),
      )

    const create = Effect.fn("Inbox.create")(function* (input: NewInboxMessage) {
      const id = yield* ids.uuid
      const at = iso(yield* nowMillis)
      const status: InboxStatus = input.destination === webDestination ? "sent" : "pending"
      const rows = yield* sql<MessageRow>`
        INSERT INTO inbox_messages (id, seq, subject, body, thread_id, destination, status, is_read, created_at)
        VALUES (
          ${id}, (SELECT COALESCE(MAX(seq), 0) + 1 FROM inbox_messages), ${input.subject}, ${input.body},
          ${input.threadId ?? null}, ${input.destination}, ${status}, 0, ${at}
        )
        RETURNING ${columns}`
      if (status === "pending") yield* startDelivery(id)
      return toMessage(rows[0]!)
    }, orStorageError("creating an inbox message"))

    const list = Effect.fn("Inbox.list")(function* (options?: { readonly archived?: boolean }) {
      const filter = options?.archived === true ? sql`archived_at IS NOT NULL` : sql`archived_at IS NULL`
      const rows = yield* sql<MessageRow>`
        SELECT ${columns} FROM inbox_messages WHERE ${filter} ORDER BY created_at DESC, seq DESC`
      return rows.map(toMessage)
    }, orStorageError("listing the inbox"))

    const get = Effect.fn("Inbox.get")(function* (id: string) {
      return toMessage(yield* requireRow(id))
    }, orStorageError("reading an inbox message"))

    const update = Effect.fn("Inbox.update")(function* (id: string, patch: InboxPatch) {
      const at = iso(yield* nowMillis)
      const sets = []
      if (patch.read !== undefined) sets.push(sql`is_read = ${patch.read ? 1 : 0}`)
      if (patch.archived !== undefined) {
        sets.push(patch.archived ? sql`archived_at = COALESCE(archived_at, ${at})` : sql`archived_at = NULL`)
      }
      if (sets.length === 0) return toMessage(yield* requireRow(id))
      const rows = yield* sql<MessageRow>`
        UPDATE inbox_messages SET ${sql.csv(sets)} WHERE id = ${id} RETURNING ${columns}`
      if (rows[0] === undefined) return yield* new InboxMessageNotFound({ messageId: id })
      return toMessage(rows[0])
    }, orStorageError("updating an inbox message"))

    const delete_ = Effect.fn("Inbox.delete")(function* (id: string) {
      const rows = yield* sql<{ readonly id: string }>`DELETE FROM inbox_messages WHERE id = ${id} RETURNING id`
      if (rows.length === 0) return yield* new InboxMessageNotFound({ messageId: id })
      yield* FiberMap.remove(fibers, id)
    }, orStorageError("deleting an inbox message"))

    const destinations = Effect.map(registry.list, (channels) => [
      webInboxLabel,
      ...channels.filter((channel) => channel.supportsNotifications).map((channel) => channel.key),
    ])

    const resolveDestination = (label: string) =>
      Effect.flatMap(destinations, (known) =>
        label === webInboxLabel
          ? Effect.succeed(webDestination)
          : known.includes(label)
            ? Effect.succeed(label)
            : Effect.fail(new UnknownDestination({ destination: label })),
      )

    return Inbox.of({ create, list, get, update, delete: delete_, destinations, resolveDestination })
  })

/** `Inbox` on the kernel's `SqlClient`, delivering through the `ChannelRegistry` with the default policy. */
export const layer: Layer.Layer<Inbox, never, SqlClient.SqlClient | ChannelRegistry | Ids> = Layer.scoped(Inbox, make())

/** `layer` with another delivery policy (tests use short or long delays). */
export const layerWith = (
  options: DeliveryOptions,
): Layer.Layer<Inbox, never, SqlClient.SqlClient | ChannelRegistry | Ids> => Layer.scoped(Inbox, make(options))
