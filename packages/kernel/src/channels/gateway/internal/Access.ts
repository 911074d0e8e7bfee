import { randomInt } from "node:crypto"
import { Clock, Duration, Effect, Option } from "effect"
import type { Sender } from "../ChannelContract.js"
import type { ChannelConversations } from "../ChannelConversations.js"
import { type ChannelEndpoint, channelKey } from "../ChannelEndpoint.js"
import type { PairingNotifier } from "../PairingNotifier.js"

/** How owner-only access is kept (`Kernel.layer({ channelGateway: { access } })`). */
export interface AccessOptions {
  /** How long a pairing request waits for the owner; default 1 hour. */
  readonly pairingTtl?: Duration.DurationInput
  /** Unexpired requests a channel keeps; past it unknown senders are only logged; default 10. */
  readonly maxPendingPairings?: number
  /** An unknown sender is logged at most once in this long; default 1 hour. */
  readonly logEvery?: Duration.DurationInput
}

/** What is checked: a message, or a button press answering an approval (never pairs). */
export interface Knock {
  readonly sender?: Sender | undefined
  readonly group?: boolean | undefined
  readonly mentioned?: boolean | undefined
  readonly kind: "message" | "approval"
}

/** Senders remembered for the log's rate limit: the oldest go first past this. */
const maxRemembered = 1_000

/** No 0/O, 1/I/L: a code read off a screen is typed back right. */
const alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

/** 8 characters of 31: about 40 bits, for a code that lives an hour and names one request. */
export const pairingCode = () => Array.from({ length: 8 }, () => alphabet[randomInt(alphabet.length)]).join("")

/**
 * The gateway's gate: whether a message (or a button press) of an endpoint is let through. A
 * refused one is dropped without a word to the sender (nothing confirms a bot is there); the
 * sender is logged at most once an hour, by id only, never with what they wrote.
 */
export const make = (
  conversations: ChannelConversations["Type"],
  notifier: Option.Option<PairingNotifier["Type"]>,
  options: AccessOptions = {},
) => {
  const ttl = Duration.toMillis(options.pairingTtl ?? Duration.hours(1))
  const logEvery = Duration.toMillis(options.logEvery ?? Duration.hours(1))
  const maxPending = options.maxPendingPairings ?? 10
  const logged = new Map<string, number>()

  const logUnknown = (key: string, senderId: string, reason: string) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const entry = `${key}\n${senderId}`
      const last = logged.get(entry)
      if (last !== undefined && now - last < logEvery) return
      logged.delete(entry)
      logged.set(entry, now)
      if (logged.size > maxRemembered) logged.delete(logged.keys().next().value!)
      yield* Effect.logInfo(`channels: ignored ${reason}`).pipe(Effect.annotateLogs({ channel: key, sender: senderId }))
    })

  const pair = (endpoint: ChannelEndpoint, key: string, sender: Sender) =>
    Effect.gen(function* () {
      const createdAt = new Date(yield* Clock.currentTimeMillis)
      const request = {
        pluginId: endpoint.pluginId,
        channelId: endpoint.channelId,
        code: pairingCode(),
        senderId: sender.id,
        senderName: sender.name ?? null,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + ttl),
      }
      const outcome = yield* conversations.requestPairing(request, maxPending)
      if (outcome !== "created") {
        const why = outcome === "full" ? "a sender (too many pairing requests waiting)" : "a sender (pairing requested)"
        return yield* logUnknown(key, sender.id, why)
      }
      yield* Effect.logInfo("channels: pairing requested").pipe(
        Effect.annotateLogs({ channel: key, sender: sender.id }),
      )
      if (Option.isSome(notifier)) yield* notifier.value.requested(request, endpoint.name)
    })

  /** true: let it through. Storage failures refuse (logged): the gate fails closed. */
  const admits = (endpoint: ChannelEndpoint, knock: Knock): Effect.Effect<boolean> => {
    const access = endpoint.access
    if (access === undefined || access === null) return Effect.succeed(true)
    const key = channelKey(endpoint.pluginId, endpoint.channelId)
    // A group's chatter not addressed to the assistant is no one's mistake: dropped unlogged.
    if (knock.kind === "message" && knock.group === true && (!access.groups || knock.mentioned !== true)) {
      return Effect.succeed(false)
    }
    const sender = knock.sender
    if (sender === undefined) return Effect.as(logUnknown(key, "(none)", "a message without a sender"), false)
    if (access.allowFrom.includes(sender.id)) return Effect.succeed(true)
    return Effect.gen(function* () {
      if (yield* conversations.isApproved(endpoint.pluginId, endpoint.channelId, sender.id)) return true
      if (access.pairing && knock.kind === "message" && knock.group !== true) yield* pair(endpoint, key, sender)
      else
        yield* logUnknown(
          key,
          sender.id,
          knock.kind === "message" ? "a sender not allowed" : "an approval by a sender not allowed",
        )
      return false
    }).pipe(
      Effect.catchAll((error) =>
        Effect.as(
          Effect.logWarning("channels: the access check failed; the message was dropped").pipe(
            Effect.annotateLogs({ channel: key, error: error.message }),
          ),
          false,
        ),
      ),
    )
  }

  return { admits }
}
