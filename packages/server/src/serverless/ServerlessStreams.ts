import { StreamHub } from "@aide/kernel"
import { Effect, Layer, Option } from "effect"

/**
 * The stream hub of serverless mode (SPEC "serverless"): a run still streams to the request that
 * started it, but nothing outlives that request, so there is nothing to resume (204) and no
 * stream to report as active (`activeStreamIds: []`). Finished streams are dropped at once: a
 * retention timer would be background work holding the instance.
 */
export const layer: Layer.Layer<StreamHub.StreamHub> = Layer.scoped(
  StreamHub.StreamHub,
  Effect.map(StreamHub.makeMemory({ retention: 0 }), (hub) =>
    StreamHub.StreamHub.of({
      ...hub,
      subscribe: () => Effect.succeed(Option.none()),
      attach: () => Effect.succeed(Option.none()),
      activeThreadIds: Effect.succeed([]),
    }),
  ),
)
