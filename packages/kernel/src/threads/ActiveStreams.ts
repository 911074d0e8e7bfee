import { Context, Effect, Layer } from "effect"

/**
 * Which threads have a chat stream running right now (`activeStreamIds` of GET /api/threads).
 * The chat side provides it (e.g. from its stream hub); without chat, or in serverless mode,
 * `layerNone` answers that nothing is streaming.
 *
 * @example
 * Layer.effect(ActiveStreams, Effect.map(StreamHub, (hub) => ({ threadIds: hub.activeThreadIds })))
 */
export class ActiveStreams extends Context.Tag("@aide/kernel/ActiveStreams")<
  ActiveStreams,
  {
    /** Ids of the threads whose stream is running. */
    readonly threadIds: Effect.Effect<ReadonlyArray<string>>
  }
>() {}

/** Nothing is ever streaming. */
export const layerNone: Layer.Layer<ActiveStreams> = Layer.succeed(ActiveStreams, { threadIds: Effect.succeed([]) })
