import { bothDialects } from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { describe, expect, type Vitest } from "@effect/vitest"
import { Chunk, Clock, Effect, Layer, type Scope, TestClock } from "effect"
import { type Channel, ChannelDeliveryError } from "../src/channels/Channel.js"
import * as ChannelRegistry from "../src/channels/ChannelRegistry.js"
import * as Ids from "../src/ids/Ids.js"
import * as DeliveringInbox from "../src/inbox/DeliveringInbox.js"
import { Inbox } from "../src/inbox/Inbox.js"
import { InboxStore } from "../src/inbox/InboxStore.js"
import * as SqlInboxStore from "../src/inbox/SqlInboxStore.js"

type Services = SqlClient.SqlClient | ChannelRegistry.ChannelRegistry | Ids.Ids

/** Every test starts from an empty inbox at time 0 (the suite shares one database and one TestClock). */
const reset = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM inbox_messages`
  yield* TestClock.setTime(0)
})

/** An inbox living in the test's scope: closing the scope is stopping the server. */
const startInbox = (options?: DeliveringInbox.DeliveryOptions) =>
  Effect.flatMap(SqlInboxStore.make, (store) =>
    DeliveringInbox.make(options).pipe(Effect.provideService(InboxStore, store)),
  )

const at = (millis: number) => new Date(millis)

/** Real time passes (the database answers) while the TestClock stands still. */
const breathe = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

/** Polls `check` until it holds, for up to 10 s of real time (background fibers and the database need some). */
const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, what: string) =>
  Effect.gen(function* () {
    const deadline = performance.now() + 10_000
    while (performance.now() < deadline) {
      if (yield* check) return
      yield* breathe
    }
    throw new Error(`timed out waiting for: ${what}`)
  })

/** Waits until `sleepers` fibers sleep until `millis`, then moves the clock there. */
const advanceTo = (millis: number, sleepers = 1) =>
  Effect.gen(function* () {
    yield* eventually(
      Effect.map(
        TestClock.sleeps(),
        (sleeps) => Chunk.size(Chunk.filter(sleeps, (wake) => wake === millis)) >= sleepers,
      ),
      `${sleepers} sleep(s) until ${millis}`,
    )
    yield* TestClock.setTime(millis)
  })

interface TestChannel {
  readonly channel: Channel
  /** Clock times of every `send`. */
  readonly calls: Array<number>
  readonly sent: Array<{ readonly subject: string; readonly body: string; readonly threadId: string | null }>
}

/** A channel failing its first `failures` sends (Infinity: always); `hang` never answers. */
const testChannel = (
  key: string,
  behaviour: { readonly failures?: number; readonly hang?: boolean; readonly notifies?: boolean } = {},
): TestChannel => {
  const calls: Array<number> = []
  const sent: TestChannel["sent"] = []
  const channel: Channel = {
    key,
    displayName: `Test ${key}`,
    supportsNotifications: behaviour.notifies ?? true,
    send: (message) =>
      Effect.gen(function* () {
        calls.push(yield* Clock.currentTimeMillis)
        if (behaviour.hang) return yield* Effect.never
        if (calls.length <= (behaviour.failures ?? 0)) {
          return yield* new ChannelDeliveryError({ channel: key, message: `boom ${calls.length}` })
        }
        sent.push(message)
      }),
  }
  return { channel, calls, sent }
}

const statusOf = (inbox: Inbox["Type"], id: string) => Effect.map(inbox.get(id), (message) => message.status)

const awaitStatus = (inbox: Inbox["Type"], id: string, status: string) =>
  eventually(
    Effect.map(statusOf(inbox, id), (current) => current === status),
    `status ${status}`,
  )

const deliveryColumns = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      readonly attempts: number
      readonly lastError: string | null
      readonly leaseOwner: string | null
    }>`SELECT delivery_attempts AS "attempts", last_error AS "lastError", lease_owner AS "leaseOwner"
       FROM inbox_messages WHERE id = ${id}`,
  ).pipe(Effect.map((rows) => ({ ...rows[0]!, attempts: Number(rows[0]!.attempts) })))

const scoped = <A, E>(effect: Effect.Effect<A, E, Services | Scope.Scope>) => Effect.scoped(effect)

const suite = (it: Vitest.MethodsNonLive<Services>) => {
  describe("the web inbox", () => {
    it.effect("a message for the web inbox is stored as sent, unread and active", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const inbox = yield* startInbox()
          yield* TestClock.adjust("2 seconds")
          const message = yield* inbox.create({ subject: "Hello", body: "**hi**", destination: "web" })
          expect(message).toEqual({
            id: expect.stringMatching(/^[0-9a-f-]{36}$/),
            subject: "Hello",
            body: "**hi**",
            threadId: null,
            destination: "web",
            status: "sent",
            read: false,
            createdAt: at(2000),
            archivedAt: null,
          })
          expect(yield* inbox.get(message.id)).toEqual(message)
          const withThread = yield* inbox.create({ subject: "S", body: "B", threadId: "t1", destination: "web" })
          expect(withThread.threadId).toBe("t1")
        }),
      ),
    )

    it.effect("lists active messages newest first, archived ones on request", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const inbox = yield* startInbox()
          const first = yield* inbox.create({ subject: "1", body: "", destination: "web" })
          yield* TestClock.adjust("1 second")
          const second = yield* inbox.create({ subject: "2", body: "", destination: "web" })
          // Same millisecond: creation order still decides.
          const third = yield* inbox.create({ subject: "3", body: "", destination: "web" })
          const ids = (messages: ReadonlyArray<{ readonly id: string }>) => messages.map((message) => message.id)
          expect(ids(yield* inbox.list())).toEqual([third.id, second.id, first.id])
          expect(yield* inbox.list({ archived: true })).toEqual([])

          yield* inbox.update(second.id, { archived: true })
          expect(ids(yield* inbox.list())).toEqual([third.id, first.id])
          expect(ids(yield* inbox.list({ archived: false }))).toEqual([third.id, first.id])
          expect(ids(yield* inbox.list({ archived: true }))).toEqual([second.id])
        }),
      ),
    )

    it.effect("archiving sets archivedAt once; unarchiving clears it", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const inbox = yield* startInbox()
          const message = yield* inbox.create({ subject: "S", body: "B", destination: "web" })
          yield* TestClock.adjust("10 seconds")
          const archived = yield* inbox.update(message.id, { archived: true })
          expect(archived).toEqual({ ...message, archivedAt: at(10_000) })
          yield* TestClock.adjust("10 seconds")
          // Archiving again keeps the original time.
          expect((yield* inbox.update(message.id, { archived: true })).archivedAt).toEqual(at(10_000))
          const active = yield* inbox.update(message.id, { archived: false })
          expect(active).toEqual(message)
          yield* TestClock.adjust("1 second")
          expect((yield* inbox.update(message.id, { archived: true })).archivedAt).toEqual(at(21_000))
        }),
      ),
    )

    it.effect("read is set and cleared; an empty patch changes nothing", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const inbox = yield* startInbox()
          const message = yield* inbox.create({ subject: "S", body: "B", destination: "web" })
          expect(yield* inbox.update(message.id, { read: true })).toEqual({ ...message, read: true })
          expect(yield* inbox.update(message.id, {})).toEqual({ ...message, read: true })
          const both = yield* inbox.update(message.id, { read: false, archived: true })
          expect(both).toEqual({ ...message, read: false, archivedAt: at(0) })
        }),
      ),
    )

    it.effect("delete removes the message for good", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const inbox = yield* startInbox()
          const message = yield* inbox.create({ subject: "S", body: "B", destination: "web" })
          yield* inbox.delete(message.id)
          expect(yield* inbox.list()).toEqual([])
          expect(yield* Effect.flip(inbox.get(message.id))).toMatchObject({
            _tag: "InboxMessageNotFound",
            messageId: message.id,
          })
        }),
      ),
    )

    it.effect("get, update and delete of an unknown id fail with InboxMessageNotFound", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const inbox = yield* startInbox()
          const notFound = { _tag: "InboxMessageNotFound", messageId: "nope" }
          expect(yield* Effect.flip(inbox.get("nope"))).toMatchObject(notFound)
          expect(yield* Effect.flip(inbox.update("nope", { read: true }))).toMatchObject(notFound)
          expect(yield* Effect.flip(inbox.update("nope", {}))).toMatchObject(notFound)
          expect(yield* Effect.flip(inbox.delete("nope"))).toMatchObject(notFound)
        }),
      ),
    )
  })

  describe("channel delivery", () => {
    it.effect("a channel message is pending, then sent once the channel took it", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const test = testChannel("chat")
          yield* ChannelRegistry.register(test.channel)
          const inbox = yield* startInbox()
          const message = yield* inbox.create({
            subject: "Report",
            body: "# Done",
            threadId: "t9",
            destination: "chat",
          })
          expect(message.status).toBe("pending")
          yield* awaitStatus(inbox, message.id, "sent")
          expect(test.sent).toEqual([{ subject: "Report", body: "# Done", threadId: "t9" }])
          expect(yield* deliveryColumns(message.id)).toEqual({ attempts: 1, lastError: null, leaseOwner: null })
          // Still readable in the web inbox.
          expect((yield* inbox.list()).map((listed) => listed.id)).toEqual([message.id])
        }),
      ),
    )

    it.effect("failed attempts are retried after 1 s, 5 s and 25 s, then the message is failed", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const test = testChannel("flaky", { failures: Number.POSITIVE_INFINITY })
          yield* ChannelRegistry.register(test.channel)
          const inbox = yield* startInbox()
          const message = yield* inbox.create({ subject: "S", body: "B", destination: "flaky" })
          yield* advanceTo(1_000)
          yield* advanceTo(6_000)
          expect(yield* statusOf(inbox, message.id)).toBe("pending")
          yield* advanceTo(31_000)
          yield* awaitStatus(inbox, message.id, "failed")
          expect(test.calls).toEqual([0, 1_000, 6_000, 31_000])
          expect(yield* deliveryColumns(message.id)).toEqual({ attempts: 4, lastError: "boom 4", leaseOwner: null })
          // Nothing is lost: the message stays in the web inbox.
          expect(yield* inbox.get(message.id)).toMatchObject({ subject: "S", status: "failed", archivedAt: null })
        }),
      ),
    )

    it.effect("a retry that succeeds makes the message sent", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const test = testChannel("flaky", { failures: 2 })
          yield* ChannelRegistry.register(test.channel)
          const inbox = yield* startInbox()
          const message = yield* inbox.create({ subject: "S", body: "B", destination: "flaky" })
          yield* advanceTo(1_000)
          yield* advanceTo(6_000)
          yield* awaitStatus(inbox, message.id, "sent")
          expect(test.calls).toEqual([0, 1_000, 6_000])
        }),
      ),
    )

    it.effect("an unregistered channel or one without notifications fails after the retries", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          yield* ChannelRegistry.register(testChannel("mute", { notifies: false }).channel)
          const inbox = yield* startInbox({ attempts: 2 })
          const unknown = yield* inbox.create({ subject: "S", body: "B", destination: "nowhere" })
          const mute = yield* inbox.create({ subject: "S", body: "B", destination: "mute" })
          yield* advanceTo(1_000, 2)
          yield* awaitStatus(inbox, unknown.id, "failed")
          yield* awaitStatus(inbox, mute.id, "failed")
          expect((yield* deliveryColumns(unknown.id)).lastError).toBe("channel is not registered")
          expect((yield* deliveryColumns(mute.id)).lastError).toBe("channel does not support notifications")
        }),
      ),
    )

    it.effect("a channel that throws or dies counts as a failed attempt", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const base = { displayName: "Broken", supportsNotifications: true }
          yield* ChannelRegistry.register({
            ...base,
            key: "throws",
            send: () => {
              throw new Error("plugin bug")
            },
          })
          yield* ChannelRegistry.register({ ...base, key: "dies", send: () => Effect.die("plugin bug") })
          const inbox = yield* startInbox({ attempts: 1 })
          const throws = yield* inbox.create({ subject: "S", body: "B", destination: "throws" })
          const dies = yield* inbox.create({ subject: "S", body: "B", destination: "dies" })
          yield* awaitStatus(inbox, throws.id, "failed")
          yield* awaitStatus(inbox, dies.id, "failed")
          expect((yield* deliveryColumns(throws.id)).lastError).toBe("channel crashed")
        }),
      ),
    )

    it.effect("a channel that never answers times out and counts as a failed attempt", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const test = testChannel("slow", { hang: true })
          yield* ChannelRegistry.register(test.channel)
          const inbox = yield* startInbox({ attempts: 1, attemptTimeout: "10 seconds" })
          const message = yield* inbox.create({ subject: "S", body: "B", destination: "slow" })
          yield* advanceTo(10_000)
          yield* awaitStatus(inbox, message.id, "failed")
          expect((yield* deliveryColumns(message.id)).lastError).toBe("no answer within 10s")
        }),
      ),
    )

    it.effect("deleting a pending message stops its delivery", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const test = testChannel("flaky", { failures: Number.POSITIVE_INFINITY })
          yield* ChannelRegistry.register(test.channel)
          const inbox = yield* startInbox()
          const message = yield* inbox.create({ subject: "S", body: "B", destination: "flaky" })
          yield* eventually(
            Effect.sync(() => test.calls.length === 1),
            "the first attempt",
          )
          yield* advanceTo(1_000)
          yield* eventually(
            Effect.sync(() => test.calls.length === 2),
            "the second attempt",
          )
          yield* inbox.delete(message.id)
          yield* TestClock.adjust("10 minutes")
          yield* breathe
          expect(test.calls).toHaveLength(2)
        }),
      ),
    )
  })

  describe("restarts", () => {
    it.effect("a delivery interrupted by a shutdown is taken up again at the next start", () =>
      Effect.gen(function* () {
        yield* reset
        const id = yield* scoped(
          Effect.gen(function* () {
            const hanging = testChannel("chat", { hang: true })
            yield* ChannelRegistry.register(hanging.channel)
            const inbox = yield* startInbox()
            const message = yield* inbox.create({ subject: "S", body: "B", destination: "chat" })
            yield* eventually(
              Effect.sync(() => hanging.calls.length === 1),
              "the first attempt",
            )
            return message.id
          }),
        )
        // The shutdown handed the lease back.
        expect(yield* deliveryColumns(id)).toMatchObject({ attempts: 1, leaseOwner: null })

        yield* scoped(
          Effect.gen(function* () {
            const working = testChannel("chat")
            yield* ChannelRegistry.register(working.channel)
            const inbox = yield* startInbox()
            expect(yield* statusOf(inbox, id)).toBe("pending")
            yield* awaitStatus(inbox, id, "sent")
            expect(working.sent).toHaveLength(1)
          }),
        )
      }),
    )

    it.effect("after a crash, a pending message is delivered once its lease ran out", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const sql = yield* SqlClient.SqlClient
          // As a crashed process leaves it: pending, leased for two more minutes.
          yield* sql`INSERT INTO inbox_messages
            (id, seq, subject, body, thread_id, destination, status, is_read, created_at, lease_owner, lease_until)
            VALUES ('crashed', 1, 'S', 'B', NULL, 'chat', 'pending', 0, ${at(0).toISOString()}, 'gone',
                    ${at(120_000).toISOString()})`
          const test = testChannel("chat")
          yield* ChannelRegistry.register(test.channel)
          const inbox = yield* startInbox()
          yield* advanceTo(60_000)
          yield* breathe
          expect(test.calls).toEqual([])
          yield* advanceTo(120_000)
          yield* awaitStatus(inbox, "crashed", "sent")
          expect(test.calls).toEqual([120_000])
        }),
      ),
    )

    it.effect("two inboxes on one database deliver a message once", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const test = testChannel("chat")
          yield* ChannelRegistry.register(test.channel)
          const sql = yield* SqlClient.SqlClient
          for (const id of ["a", "b", "c"]) {
            yield* sql`INSERT INTO inbox_messages
              (id, seq, subject, body, thread_id, destination, status, is_read, created_at)
              VALUES (${id}, 1, 'S', 'B', NULL, 'chat', 'pending', 0, ${at(0).toISOString()})`
          }
          const [one] = yield* Effect.all([startInbox(), startInbox()], { concurrency: "unbounded" })
          for (const id of ["a", "b", "c"]) yield* awaitStatus(one, id, "sent")
          yield* breathe
          expect(test.sent).toHaveLength(3)
        }),
      ),
    )
  })

  describe("destinations", () => {
    it.effect("Web Inbox first, then the keys of registered channels that notify", () =>
      scoped(
        Effect.gen(function* () {
          yield* reset
          const inbox = yield* startInbox()
          expect(yield* inbox.destinations).toEqual(["Web Inbox"])
          yield* scoped(
            Effect.gen(function* () {
              yield* ChannelRegistry.register(testChannel("telegram").channel)
              yield* ChannelRegistry.register(testChannel("webhook-only", { notifies: false }).channel)
              expect(yield* inbox.destinations).toEqual(["Web Inbox", "telegram"])
              expect(yield* inbox.resolveDestination("Web Inbox")).toBe("web")
              expect(yield* inbox.resolveDestination("telegram")).toBe("telegram")
              expect(yield* Effect.flip(inbox.resolveDestination("webhook-only"))).toMatchObject({
                _tag: "UnknownDestination",
              })
              expect(yield* Effect.flip(inbox.resolveDestination("web"))).toMatchObject({ _tag: "UnknownDestination" })
            }),
          )
          // Released with its scope.
          expect(yield* inbox.destinations).toEqual(["Web Inbox"])
        }),
      ),
    )
  })
}

bothDialects("SqlInbox", Layer.mergeAll(ChannelRegistry.layer, Ids.layer), suite)
