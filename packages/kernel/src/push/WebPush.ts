import * as Crypto from "node:crypto"
import { Clock, Context, Duration, Effect, FiberSet, Layer, Schedule, type Scope } from "effect"
import { ChannelDeliveryError } from "../channels/Channel.js"
import { ChannelRegistry } from "../channels/ChannelRegistry.js"
import type { StorageError } from "../storage/StorageError.js"
import { PushSendError, PushSubscriptionInvalid, PushSubscriptionsFull } from "./PushErrors.js"
import { PushStore, type PushSubscription } from "./PushStore.js"
import { type PushSubscriptionInput, validate } from "./PushSubscriptionInput.js"

/** What a notification says: what the inbox shows, never tool inputs or secrets. */
export interface PushPayload {
  readonly title: string
  readonly body: string
  /** Path in the console opened on click, e.g. `/app/inbox`. */
  readonly url: string
}

/** How many subscriptions a push reached, dropped (404/410: gone) and failed. */
export interface PushReport {
  readonly sent: number
  readonly pruned: number
  readonly failed: number
}

export interface WebPushOptions {
  /** VAPID `sub`: a contact for push services (`mailto:` or `https:`); default `mailto:owner@aide.invalid`. */
  readonly subject?: string
  /** Accept `http://` endpoints on loopback addresses (tests playing the push service); default false. */
  readonly allowHttpLoopback?: boolean
  /** Subscriptions kept (the owner's browsers); default 20. */
  readonly maxSubscriptions?: number
  /** Attempts per subscription and push, the first included; default 3. */
  readonly attempts?: number
  /** Wait before the first retry, doubled each time; default 1 second. */
  readonly backoff?: Duration.DurationInput
  /** Longest wait for a push service's answer; default 10 seconds. */
  readonly timeout?: Duration.DurationInput
  /** How long a push service keeps an undelivered notification; default 1 day. */
  readonly ttlSeconds?: number
}

export const defaults = {
  subject: "mailto:owner@aide.invalid",
  maxSubscriptions: 20,
  attempts: 3,
  backoff: Duration.seconds(1),
  timeout: Duration.seconds(10),
  ttlSeconds: 86_400,
} as const

/** The channel key (a task's `destination`) of browser notifications. */
export const channelKey = "browser"
export const channelName = "Browser notifications"

/** Characters of a message body put in a notification (the rest is in the inbox). */
const maxBody = 200

/**
 * Web Push (RFC 8030) to the owner's browsers: VAPID (RFC 8292) signed, payloads encrypted per
 * RFC 8291 (`aes128gcm`), so a push service sees the endpoint and ciphertext only.
 */
export class WebPush extends Context.Tag("@aide/kernel/WebPush")<
  WebPush,
  {
    /** The VAPID public key browsers subscribe with (`applicationServerKey`), base64url. */
    readonly publicKey: Effect.Effect<string, StorageError>
    readonly subscribe: (
      input: PushSubscriptionInput,
    ) => Effect.Effect<void, PushSubscriptionInvalid | PushSubscriptionsFull | StorageError>
    /** False when no subscription has that endpoint. */
    readonly unsubscribe: (endpoint: string) => Effect.Effect<boolean, StorageError>
    /** Pushes to every subscription, retrying each a bounded number of times; gone ones are deleted. */
    readonly notify: (payload: PushPayload) => Effect.Effect<PushReport, StorageError>
    /** `notify` in a background fiber of the service: the caller does not wait, failures are logged. */
    readonly notifyLater: (payload: PushPayload) => Effect.Effect<void>
  }
>() {}

/** A notification's body: plain enough, and short. */
export const shorten = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= maxBody ? flat : `${flat.slice(0, maxBody - 1)}…`
}

/** A fresh VAPID key pair: the raw P-256 public point (65 bytes) and private scalar (32), base64url. */
export const generateVapidKeys = () => {
  const ecdh = Crypto.createECDH("prime256v1")
  ecdh.generateKeys()
  const scalar = ecdh.getPrivateKey()
  return {
    publicKey: ecdh.getPublicKey().toString("base64url"),
    privateKey: Buffer.concat([Buffer.alloc(32 - scalar.byteLength), scalar]).toString("base64url"),
  }
}

// `web-push` (VAPID JWT, RFC 8291 encryption) is loaded at the first push, not at start (~30 ms).
const library = Effect.promise(() => import("web-push").then((module) => module.default))

export const make = (
  options: WebPushOptions = {},
): Effect.Effect<WebPush["Type"], StorageError, PushStore | ChannelRegistry | Scope.Scope> =>
  Effect.gen(function* () {
    const store = yield* PushStore
    const registry = yield* ChannelRegistry
    const subject = options.subject ?? defaults.subject
    const cap = options.maxSubscriptions ?? defaults.maxSubscriptions
    const attempts = Math.max(1, options.attempts ?? defaults.attempts)
    const backoff = options.backoff ?? defaults.backoff
    const timeout = options.timeout ?? defaults.timeout
    const ttl = options.ttlSeconds ?? defaults.ttlSeconds
    // Generated at first start and stored; the private key never leaves the server.
    const keys = yield* store.vapidKeys(generateVapidKeys())
    const fibers = yield* FiberSet.make()
    const webpush = yield* Effect.cached(library)

    const attempt = (subscription: PushSubscription, body: string) =>
      Effect.flatMap(webpush, (webpush) =>
        Effect.tryPromise({
          try: async (signal) => {
            const details = webpush.generateRequestDetails(
              { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
              body,
              {
                vapidDetails: { subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
                TTL: ttl,
                contentEncoding: "aes128gcm",
              },
            )
            const headers: Record<string, string> = {}
            for (const [name, value] of Object.entries(details.headers)) {
              if (name.toLowerCase() !== "content-length") headers[name] = String(value)
            }
            const response = await fetch(details.endpoint, {
              method: "POST",
              headers,
              body: new Uint8Array(details.body as Buffer),
              signal,
              redirect: "manual",
            })
            await response.body?.cancel()
            return response.status
          },
          catch: (cause) =>
            new PushSendError({
              status: 0,
              retryable: true,
              message: cause instanceof Error ? cause.message : String(cause),
            }),
        }),
      ).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => new PushSendError({ status: 0, retryable: true, message: "no answer in time" }),
        }),
        Effect.flatMap((status) =>
          status >= 200 && status < 300
            ? Effect.succeed("sent" as const)
            : status === 404 || status === 410
              ? Effect.succeed("gone" as const)
              : Effect.fail(
                  new PushSendError({
                    status,
                    retryable: status === 429 || status >= 500,
                    message: `push service answered ${status}`,
                  }),
                ),
        ),
      )

    const pushTo = (subscription: PushSubscription, body: string) =>
      attempt(subscription, body).pipe(
        Effect.retry({
          schedule: Schedule.exponential(backoff, 2),
          times: attempts - 1,
          while: (error) => error.retryable,
        }),
        Effect.flatMap((outcome) =>
          outcome === "sent"
            ? Effect.succeed("sent" as const)
            : Effect.as(store.remove(subscription.endpoint), "pruned" as const),
        ),
        Effect.catchTag("PushSendError", (error) =>
          // The endpoint's host only: the full endpoint is the subscription's capability.
          Effect.logWarning("push: delivery failed").pipe(
            Effect.annotateLogs({ host: new URL(subscription.endpoint).host, error: error.message }),
            Effect.as("failed" as const),
          ),
        ),
      )

    const notify = Effect.fn("WebPush.notify")(function* (payload: PushPayload) {
      const body = JSON.stringify({ title: payload.title, body: shorten(payload.body), url: payload.url })
      const outcomes = yield* Effect.forEach(yield* store.list, (subscription) => pushTo(subscription, body), {
        concurrency: 4,
      })
      return {
        sent: outcomes.filter((outcome) => outcome === "sent").length,
        pruned: outcomes.filter((outcome) => outcome === "pruned").length,
        failed: outcomes.filter((outcome) => outcome === "failed").length,
      }
    })

    const notifyLater = (payload: PushPayload) =>
      FiberSet.run(
        fibers,
        notify(payload).pipe(Effect.catchAllCause((cause) => Effect.logError("push: notification failed", cause))),
      ).pipe(Effect.asVoid)

    const subscribe = Effect.fn("WebPush.subscribe")(function* (input: PushSubscriptionInput) {
      const valid = yield* validate(input, options.allowHttpLoopback === true)
      const createdAt = new Date(yield* Clock.currentTimeMillis)
      const result = yield* store.add({ endpoint: valid.endpoint, ...valid.keys, createdAt }, cap)
      if (result === "full") return yield* new PushSubscriptionsFull({ cap })
    })

    // A scheduled task's destination: delivered when at least one browser got it (the inbox
    // retries otherwise, and keeps the message either way).
    yield* registry.register({
      key: channelKey,
      displayName: channelName,
      supportsNotifications: true,
      send: (message) =>
        notify({
          title: message.subject,
          body: message.body,
          url: message.threadId === null ? "/app/inbox" : `/app/chat/${encodeURIComponent(message.threadId)}`,
        }).pipe(
          Effect.mapError(
            (error) => new ChannelDeliveryError({ channel: channelKey, message: error.message, cause: error }),
          ),
          Effect.flatMap((report) =>
            report.sent > 0
              ? Effect.void
              : Effect.fail(
                  new ChannelDeliveryError({
                    channel: channelKey,
                    message:
                      report.pruned + report.failed === 0 ? "no browser is subscribed" : "no browser was reached",
                  }),
                ),
          ),
        ),
    })

    return WebPush.of({
      publicKey: Effect.succeed(keys.publicKey),
      subscribe,
      unsubscribe: store.remove,
      notify,
      notifyLater,
    })
  })

/** Web Push over the `PushStore`, registering the "Browser notifications" channel. */
export const layer = (options: WebPushOptions = {}): Layer.Layer<WebPush, StorageError, PushStore | ChannelRegistry> =>
  Layer.scoped(WebPush, make(options))
