import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schedule, Scope } from "effect"
import * as ChannelRegistry from "../../src/channels/ChannelRegistry.js"
import * as ChannelConversations from "../../src/channels/gateway/ChannelConversations.js"
import type { ChannelEndpoint } from "../../src/channels/gateway/ChannelEndpoint.js"
import * as ChannelGateway from "../../src/channels/gateway/ChannelGateway.js"
import * as WebhookReplays from "../../src/channels/gateway/WebhookReplays.js"
import { Chat } from "../../src/chat/Chat.js"
import * as Ids from "../../src/ids/Ids.js"
import * as RateLimiter from "../../src/ratelimit/RateLimiter.js"
import { Leases } from "../../src/replicas/Leases.js"
import * as PgLeases from "../../src/replicas/PgLeases.js"
import * as MemoryThreads from "../../src/threads/MemoryThreads.js"
import { freshStorageLayer, postgresAvailable } from "../support/postgres.js"

/** A replica's gateway (chat unused), with its own leases on the shared database. */
const gatewayOf = (leases: Leases["Type"]) =>
  ChannelGateway.layer().pipe(
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
      Layer.succeed(Leases, leases),
    ]),
    Layer.provide(Ids.layer),
  )

const eventually = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  check.pipe(
    Effect.repeat({ schedule: Schedule.spaced("25 millis"), until: (ok) => ok }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("condition not reached within 5 s") }),
  )

describe.runIf(postgresAvailable)("a channel's realtime connection across replicas", () => {
  it.scopedLive("runs on one replica at a time and moves when that one shuts down", () =>
    Effect.gen(function* () {
      const connected: Array<string> = []
      let most = 0
      // A long poll that stays open until interrupted, counting who is connected.
      const connection = (who: string) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            connected.push(who)
            most = Math.max(most, connected.length)
          }),
          () => Effect.sync(() => connected.splice(connected.indexOf(who), 1)),
        ).pipe(Effect.zipRight(Effect.never), Effect.scoped)
      const endpoint = (who: string): ChannelEndpoint => ({
        pluginId: "telegram",
        channelId: "bot",
        name: "Telegram",
        webhook: null,
        realtime: connection(who),
        send: null,
        notify: null,
      })
      const replica = (who: string) =>
        Effect.gen(function* () {
          const scope = yield* Scope.make()
          const leases = yield* PgLeases.make({ ttl: "600 millis" }).pipe(Effect.provide(Ids.layer))
          const context = yield* Layer.buildWithScope(gatewayOf(leases), scope)
          const gateway = context.unsafeMap.get(
            ChannelGateway.ChannelGateway.key,
          ) as ChannelGateway.ChannelGateway["Type"]
          yield* Scope.extend(gateway.register(endpoint(who)), scope)
          return scope
        })
      const a = yield* replica("a")
      yield* eventually(Effect.sync(() => connected.length === 1))
      const b = yield* replica("b")
      // B retries every 200 ms while A renews: never two connections.
      yield* Effect.sleep("800 millis")
      expect(connected).toEqual(["a"])
      yield* Scope.close(a, Exit.void)
      yield* eventually(Effect.sync(() => connected.length === 1 && connected[0] === "b"))
      expect(most).toBe(1)
      yield* Scope.close(b, Exit.void)
      expect(connected).toEqual([])
    }).pipe(Effect.provide(freshStorageLayer)),
  )
})
