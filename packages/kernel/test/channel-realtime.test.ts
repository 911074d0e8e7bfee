import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Layer, TestClock } from "effect"
import { ChannelDeliveryError } from "../src/channels/Channel.js"
import * as ChannelRegistry from "../src/channels/ChannelRegistry.js"
import * as ChannelConversations from "../src/channels/gateway/ChannelConversations.js"
import type { ChannelEndpoint } from "../src/channels/gateway/ChannelEndpoint.js"
import * as ChannelGateway from "../src/channels/gateway/ChannelGateway.js"
import { keepUp } from "../src/channels/gateway/Realtime.js"
import * as WebhookReplays from "../src/channels/gateway/WebhookReplays.js"
import { Chat } from "../src/chat/Chat.js"
import * as Ids from "../src/ids/Ids.js"
import * as RateLimiter from "../src/ratelimit/RateLimiter.js"
import * as MemoryThreads from "../src/threads/MemoryThreads.js"

/** The gateway on in-memory stores; chat is never reached by these tests. */
const gatewayLayer = ChannelGateway.layer().pipe(
  Layer.provide([
    Layer.succeed(
      Chat,
      Chat.of({
        send: () => Effect.dieMessage("unused"),
        approve: () => Effect.dieMessage("unused"),
        stop: () => Effect.succeed(false),
      }),
    ),
    MemoryThreads.layer,
    ChannelConversations.layerMemory,
    ChannelRegistry.layer,
    RateLimiter.layerMemory,
    WebhookReplays.layerMemory,
  ]),
  Layer.provide(Ids.layer),
)

/** A realtime connection that fails at once, noting the (test) time of each start in seconds. */
const failingConnection = (starts: Array<number>) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    starts.push(now / 1000)
    return Effect.fail(new ChannelDeliveryError({ channel: "tg:bot", message: "connection refused" }))
  })

const endpoint = (realtime: ChannelEndpoint["realtime"]): ChannelEndpoint => ({
  pluginId: "tg",
  channelId: "bot",
  name: "Telegram",
  webhook: null,
  realtime,
  send: null,
  notify: null,
})

/** Lets forked fibers run up to their next sleep. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

describe("realtime connections", () => {
  it.scoped("a failing connection is restarted after 1 s, 2 s, 4 s…, while registered", () =>
    Effect.gen(function* () {
      const starts: Array<number> = []
      const gateway = yield* ChannelGateway.ChannelGateway
      yield* gateway.register(endpoint(failingConnection(starts)))
      yield* settle
      for (let second = 0; second < 16; second++) {
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settle
      }
      expect(starts).toEqual([0, 1, 3, 7, 15])
      const listed = yield* gateway.endpoints
      expect(listed[0]).toMatchObject({ key: "tg:bot", realtime: true, webhookPath: null })
      // Shown on the plugin's card: failing, why, how many times in a row, since when.
      expect(listed[0]?.connection).toEqual({
        state: "reconnecting",
        reason: "connection refused",
        failures: 5,
        since: new Date(15_000),
      })
    }).pipe(Effect.provide(gatewayLayer)),
  )

  it.scoped("the wait stops doubling at 5 minutes", () =>
    Effect.gen(function* () {
      const starts: Array<number> = []
      yield* Effect.forkScoped(keepUp("tg:bot", failingConnection(starts)))
      yield* settle
      for (let second = 0; second < 1200; second++) {
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settle
      }
      const waits = starts.slice(1).map((start, index) => start - starts[index]!)
      expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
    }),
  )

  it.scoped("after a long healthy run the wait is 1 s again", () =>
    Effect.gen(function* () {
      const starts: Array<number> = []
      let run = 0
      // Fails at once three times, then holds for 10 minutes before failing.
      const connection = Effect.flatMap(Clock.currentTimeMillis, (now) => {
        starts.push(now / 1000)
        run++
        const failure = new ChannelDeliveryError({ channel: "tg:bot", message: "dropped" })
        return run === 4
          ? Effect.zipRight(Effect.sleep(Duration.minutes(10)), Effect.fail(failure))
          : Effect.fail(failure)
      })
      yield* Effect.forkScoped(keepUp("tg:bot", connection))
      yield* settle
      for (let second = 0; second < 620; second++) {
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settle
      }
      // 0, 1, 3, 7 (held until 607), then 1 s later, and doubling again from there.
      expect(starts).toEqual([0, 1, 3, 7, 608, 610, 614])
    }),
  )

  it.scoped("the status says connected while a run holds, and forgets old failures after a healthy run", () =>
    Effect.gen(function* () {
      const statuses: Array<{ state: string; reason: string | null; failures: number }> = []
      let run = 0
      const connection = Effect.suspend(() => {
        run++
        const failure = new ChannelDeliveryError({ channel: "tg:bot", message: `drop ${run}` })
        return run === 2
          ? Effect.zipRight(Effect.sleep(Duration.minutes(2)), Effect.fail(failure))
          : Effect.fail(failure)
      })
      yield* Effect.forkScoped(
        keepUp("tg:bot", connection, {}, ({ state, reason, failures }) => statuses.push({ state, reason, failures })),
      )
      yield* settle
      for (let second = 0; second < 123; second++) {
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settle
      }
      expect(statuses).toEqual([
        { state: "connected", reason: null, failures: 0 },
        { state: "reconnecting", reason: "drop 1", failures: 1 },
        { state: "connected", reason: "drop 1", failures: 1 },
        { state: "reconnecting", reason: "drop 2", failures: 1 },
        { state: "connected", reason: "drop 2", failures: 1 },
        { state: "reconnecting", reason: "drop 3", failures: 2 },
      ])
    }),
  )

  it.scoped("closing the registration's scope stops the connection", () =>
    Effect.gen(function* () {
      const starts: Array<number> = []
      const gateway = yield* ChannelGateway.ChannelGateway
      yield* Effect.scoped(Effect.zipRight(gateway.register(endpoint(failingConnection(starts))), settle))
      yield* TestClock.adjust(Duration.seconds(10))
      yield* settle
      expect(starts).toEqual([0])
      expect(yield* gateway.endpoints).toEqual([])
    }).pipe(Effect.provide(gatewayLayer)),
  )
})
