import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import type { Channel } from "../src/channels/Channel.js"
import * as ChannelRegistry from "../src/channels/ChannelRegistry.js"

const channel = (key: string, supportsNotifications = true): Channel => ({
  key,
  displayName: key.toUpperCase(),
  supportsNotifications,
  send: () => Effect.void,
})

describe("ChannelRegistry", () => {
  it.effect("starts empty", () =>
    Effect.gen(function* () {
      const registry = yield* ChannelRegistry.ChannelRegistry
      expect(yield* registry.list).toEqual([])
      expect(yield* registry.get("telegram")).toEqual(Option.none())
    }).pipe(Effect.provide(ChannelRegistry.layer)),
  )

  it.effect("a channel layer registers its channel while it lives and removes it on release", () =>
    Effect.gen(function* () {
      const registry = yield* ChannelRegistry.ChannelRegistry
      const telegram = channel("telegram")
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* Layer.buildWithScope(ChannelRegistry.channel(telegram), yield* Effect.scope)
          yield* ChannelRegistry.register(channel("email", false))
          expect((yield* registry.list).map((registered) => registered.key)).toEqual(["telegram", "email"])
          expect(yield* registry.get("telegram")).toEqual(Option.some(telegram))
        }),
      )
      expect(yield* registry.list).toEqual([])
    }).pipe(Effect.provide(ChannelRegistry.layer)),
  )

  it.effect("a taken or reserved key is a defect", () =>
    Effect.gen(function* () {
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* ChannelRegistry.register(channel("telegram"))
          const again = yield* Effect.exit(ChannelRegistry.register(channel("telegram")))
          expect(Exit.isFailure(again) && Exit.isInterrupted(again) === false).toBe(true)
          // The first registration is intact.
          const registry = yield* ChannelRegistry.ChannelRegistry
          expect((yield* registry.list).map((registered) => registered.key)).toEqual(["telegram"])
        }),
      )
      for (const key of ["web", "Web Inbox"]) {
        const exit = yield* Effect.exit(Effect.scoped(ChannelRegistry.register(channel(key))))
        expect(Exit.isFailure(exit)).toBe(true)
      }
    }).pipe(Effect.provide(ChannelRegistry.layer)),
  )
})
