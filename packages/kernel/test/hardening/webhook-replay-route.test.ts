import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { ChannelDeliveryError } from "../../src/channels/Channel.js"
import type { ChannelEndpoint } from "../../src/channels/gateway/ChannelEndpoint.js"
import * as WebhookReplays from "../../src/channels/gateway/WebhookReplays.js"
import * as Webhooks from "../../src/channels/gateway/Webhooks.js"
import * as RateLimiter from "../../src/ratelimit/RateLimiter.js"
import { StorageError } from "../../src/storage/StorageError.js"

/**
 * Issue 32, item 10: the webhook route asks the `WebhookReplays` store once per verified request.
 * Only a valid signature is ever written (a flood without the secret stores nothing), a store that
 * fails answers 503 (the sender retries; never a 500, never accepted unchecked), and a request the
 * channel failed to handle is forgotten so its retry passes.
 */
const secret = "route-secret"
const now = 1_900_000_000

const endpoint = (handle: () => Effect.Effect<null, ChannelDeliveryError>): ChannelEndpoint => ({
  pluginId: "p",
  channelId: "c",
  name: "C",
  webhook: {
    verification: { kind: "hmac-sha256", header: "x-sig", secret: { env: "S" }, timestamp: { header: "x-time" } },
    secret: Effect.succeed(secret),
    handle,
  },
  realtime: null,
  send: null,
  notify: null,
})

const signed = (body: string, signer = secret) => {
  const time = String(now)
  const signature = createHmac("sha256", signer).update(`${time}.${body}`).digest("hex")
  return { method: "POST", headers: { "x-sig": signature, "x-time": time }, body, clientAddress: "1.2.3.4" }
}

/** The route over `replays`, watched: every call to the store is recorded. */
const route = (replays: WebhookReplays.WebhookReplays["Type"]) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now * 1000)
    const limiter = yield* RateLimiter.RateLimiter
    const calls: Array<string> = []
    const watched = WebhookReplays.WebhookReplays.of({
      remember: (entry, at) =>
        Effect.zipRight(
          Effect.sync(() => calls.push("remember")),
          replays.remember(entry, at),
        ),
      forget: (channel, signature) =>
        Effect.zipRight(
          Effect.sync(() => calls.push("forget")),
          replays.forget(channel, signature),
        ),
    })
    const limit = { limit: 1_000, window: Duration.minutes(1) }
    return { calls, webhooks: Webhooks.make(limiter, watched, { rateLimit: limit }) }
  }).pipe(Effect.provide(RateLimiter.layerMemory))

const memory = Effect.flatMap(WebhookReplays.WebhookReplays, route).pipe(Effect.provide(WebhookReplays.layerMemory))

describe("the webhook route and its replay store", () => {
  it.effect("requests without a valid signature never reach the store", () =>
    Effect.gen(function* () {
      const { calls, webhooks } = yield* memory
      const ok = endpoint(() => Effect.succeed(null))
      for (let index = 0; index < 20; index++) {
        const answer = yield* webhooks.serve(ok, signed(`{"n":${index}}`, "wrong-secret"))
        expect(answer.status).toBe(401)
      }
      expect(calls).toEqual([])
      expect((yield* webhooks.serve(ok, signed("{}"))).status).toBe(200)
      expect((yield* webhooks.serve(ok, signed("{}"))).status).toBe(409)
      expect(calls).toEqual(["remember", "remember"])
    }),
  )

  it.effect("a failing store answers 503 and the channel never sees the request", () =>
    Effect.gen(function* () {
      let handled = 0
      const broken = WebhookReplays.WebhookReplays.of({
        remember: () => Effect.fail(new StorageError({ message: "remembering a webhook signature failed" })),
        forget: () => Effect.void,
      })
      const { webhooks } = yield* route(broken)
      const answer = yield* webhooks.serve(
        endpoint(() => Effect.sync(() => void handled++).pipe(Effect.as(null))),
        signed("{}"),
      )
      expect(answer.status).toBe(503)
      expect(JSON.parse(answer.body)).toEqual({ error: "unavailable" })
      expect(handled).toBe(0)
    }),
  )

  it.effect("a request the channel failed to handle is forgotten: its retry is taken", () =>
    Effect.gen(function* () {
      const { calls, webhooks } = yield* memory
      let attempts = 0
      const flaky = endpoint(() =>
        attempts++ === 0
          ? Effect.fail(new ChannelDeliveryError({ channel: "p:c", message: "down" }))
          : Effect.succeed(null),
      )
      expect((yield* webhooks.serve(flaky, signed("{}"))).status).toBe(502)
      expect((yield* webhooks.serve(flaky, signed("{}"))).status).toBe(200)
      expect((yield* webhooks.serve(flaky, signed("{}"))).status).toBe(409)
      expect(calls).toEqual(["remember", "forget", "remember", "remember"])
    }),
  )
})
