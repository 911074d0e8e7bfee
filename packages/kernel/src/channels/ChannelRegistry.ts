import { Context, Effect, Layer, Option, type Scope } from "effect"
import type { Channel } from "./Channel.js"

/** Keys a channel may not take: the inbox's own destination and its label. */
export const reservedKeys: ReadonlySet<string> = new Set(["web", "Web Inbox"])

/**
 * The channels currently available. It depends on no feature: channel plugins add themselves
 * (see `channel`), the inbox and the scheduler only read it.
 */
export class ChannelRegistry extends Context.Tag("@aide/kernel/ChannelRegistry")<
  ChannelRegistry,
  {
    /**
     * Adds the channel for the lifetime of the current scope; it is removed when the scope
     * closes. A key that is reserved or already taken is a wiring bug (a defect).
     */
    readonly register: (channel: Channel) => Effect.Effect<void, never, Scope.Scope>
    /** Registered channels, in registration order. */
    readonly list: Effect.Effect<ReadonlyArray<Channel>>
    readonly get: (key: string) => Effect.Effect<Option.Option<Channel>>
  }
>() {}

/** An in-memory registry, empty at first. */
export const make: Effect.Effect<ChannelRegistry["Type"]> = Effect.sync(() => {
  const channels = new Map<string, Channel>()
  const register = (channel: Channel) =>
    Effect.acquireRelease(
      Effect.suspend(() => {
        if (reservedKeys.has(channel.key)) return Effect.dieMessage(`channel key "${channel.key}" is reserved`)
        if (channels.has(channel.key)) return Effect.dieMessage(`channel "${channel.key}" is already registered`)
        channels.set(channel.key, channel)
        return Effect.void
      }),
      () =>
        Effect.sync(() => {
          if (channels.get(channel.key) === channel) channels.delete(channel.key)
        }),
    )
  return ChannelRegistry.of({
    register,
    list: Effect.sync(() => Array.from(channels.values())),
    get: (key) => Effect.sync(() => Option.fromNullable(channels.get(key))),
  })
})

/** The registry with no channels; features add theirs with `channel(...)` layers. */
export const layer: Layer.Layer<ChannelRegistry> = Layer.effect(ChannelRegistry, make)

/** Registers `channel` in the current scope. */
export const register = (channel: Channel): Effect.Effect<void, never, ChannelRegistry | Scope.Scope> =>
  Effect.flatMap(ChannelRegistry, (registry) => registry.register(channel))

/**
 * A Layer contributing a channel: registered while the layer is alive, removed on release.
 *
 * @example
 * const channels = ChannelRegistry.channel(telegram)
 * Kernel.layer({ dataDir, channels })
 */
export const channel = (channel: Channel): Layer.Layer<never, never, ChannelRegistry> =>
  Layer.scopedDiscard(register(channel))
