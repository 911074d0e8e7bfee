import { Cause, Clock, Duration, Effect, FiberMap, Layer, Option, Schedule, type Scope } from "effect"
import { ChannelDeliveryError } from "../channels/Channel.js"
import { ChannelRegistry } from "../channels/ChannelRegistry.js"
import { Ids } from "../ids/Ids.js"
import * as KernelMetrics from "../metrics/KernelMetrics.js"
import * as Leases from "../replicas/Leases.js"
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
import { InboxStore } from "./InboxStore.js"

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

/**
 * The inbox's logic over an `InboxStore`. Channel deliveries run in fibers of the layer's scope
 * (a `FiberMap` keyed by message id). A delivery first claims its message with a lease, renewed
 * before every attempt, so one process delivers a message even with several replicas on one
 * store. Closing the scope interrupts the deliveries and hands their leases back; a sweep — at
 * start, then every `sweepInterval` — takes up pending messages without a live lease, so
 * deliveries survive restarts and crashes. All waiting is on Effect's `Clock`.
 */
export const make = (
  options: DeliveryOptions = {},
): Effect.Effect<Inbox["Type"], never, InboxStore | ChannelRegistry | Ids | Scope.Scope> =>
  Effect.gen(function* () {
    const store = yield* InboxStore
    const registry = yield* ChannelRegistry
    const ids = yield* Ids
    const attempts = Math.max(1, options.attempts ?? defaults.attempts)
    const backoff = Duration.decode(options.backoff ?? defaults.backoff)
    const factor = options.factor ?? defaults.factor
    const attemptTimeout = Duration.decode(options.attemptTimeout ?? defaults.attemptTimeout)
    const sweepInterval = options.sweepInterval ?? defaults.sweepInterval
    /** Wait before attempt `n` (2, 3…): backoff × factor^(n − 2). */
    const delayBefore = (attempt: number) => Duration.times(backoff, factor ** (attempt - 2))
    // Outlasts the longest gap between two renewals (a timed-out attempt plus the longest wait).
    const lease = Duration.sum(Duration.sum(attemptTimeout, delayBefore(Math.max(2, attempts))), Duration.minutes(1))

    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const leaseFrom = (start: Date) => new Date(start.getTime() + Duration.toMillis(lease))
    const fibers = yield* FiberMap.make<string>()

    const claim = (id: string, owner: string) => Effect.flatMap(now, (at) => store.claim(id, owner, at, leaseFrom(at)))
    const renew = (id: string, owner: string) => Effect.flatMap(now, (at) => store.renew(id, owner, leaseFrom(at)))
    const release = (id: string, owner: string) => Effect.ignore(store.release(id, owner))

    /** One attempt: the channel must be registered and able to notify; defects and slowness count as failures. */
    const attempt = (message: InboxMessage) =>
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
              yield* store.finish(id, owner, "sent", null)
              KernelMetrics.countInboxDelivery("sent")
              return
            }
            lastError = result.left.message
            yield* Effect.logWarning(`inbox: delivery attempt ${n}/${attempts} failed`).pipe(
              Effect.annotateLogs({ messageId: id, channel: message.destination, error: lastError }),
            )
          }
          yield* store.finish(id, owner, "failed", lastError)
          KernelMetrics.countInboxDelivery("failed")
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
      for (const id of yield* store.pendingUnleased(yield* now, sweepBatch)) yield* startDelivery(id)
    }).pipe(Effect.catchAllCause((cause) => Effect.logError("inbox: sweep of pending deliveries failed", cause)))

    // One sweeping replica is enough (deliveries are leased per message anyway); a new holder sweeps at once.
    yield* Leases.forkGuarded("inbox-sweep", Effect.repeat(sweep, Schedule.spaced(sweepInterval)))

    const notFound = (id: string) => () => Effect.fail(new InboxMessageNotFound({ messageId: id }))

    const create = Effect.fn("Inbox.create")(function* (input: NewInboxMessage) {
      const status: InboxStatus = input.destination === webDestination ? "sent" : "pending"
      const message = yield* store.insert({
        id: yield* ids.uuid,
        subject: input.subject,
        body: input.body,
        threadId: input.threadId ?? null,
        destination: input.destination,
        status,
        createdAt: yield* now,
      })
      if (status === "pending") yield* startDelivery(message.id)
      return message
    })

    const list = (options?: { readonly archived?: boolean }) => store.list(options?.archived === true)

    const get = (id: string) =>
      Effect.flatMap(store.get(id), Option.match({ onNone: notFound(id), onSome: Effect.succeed }))

    const update = (id: string, patch: InboxPatch) =>
      Effect.flatMap(now, (at) => store.update(id, patch, at)).pipe(
        Effect.flatMap(Option.match({ onNone: notFound(id), onSome: Effect.succeed })),
      )

    const delete_ = Effect.fn("Inbox.delete")(function* (id: string) {
      if (!(yield* store.remove(id))) return yield* new InboxMessageNotFound({ messageId: id })
      yield* FiberMap.remove(fibers, id)
    })

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

/** The inbox over the `InboxStore`, delivering through the `ChannelRegistry` (`options`: the retry policy). */
export const layer = (options: DeliveryOptions = {}): Layer.Layer<Inbox, never, InboxStore | ChannelRegistry | Ids> =>
  Layer.scoped(Inbox, make(options))
