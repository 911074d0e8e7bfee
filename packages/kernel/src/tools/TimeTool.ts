import { Clock, Effect, Layer, Schema } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { timeFormat } from "../time/TimeFormat.js"
import { ToolExecutionError, ToolRegistry } from "./ToolRegistry.js"
import * as TypedTool from "./TypedTool.js"

const CurrentTimeInput = Schema.Struct({
  timezone: Schema.optional(Schema.String.annotations({ description: "IANA time zone, e.g. Europe/Berlin" })),
})

/** `current_time`: the time now in the configured time zone (or one the model names). */
export const currentTime = Effect.gen(function* () {
  const config = yield* AppConfig
  return TypedTool.make({
    name: "current_time",
    description:
      "Returns the current date and time. Uses the owner's configured time zone unless `timezone` (an IANA name) is given.",
    parameters: CurrentTimeInput,
    execute: (input) =>
      Effect.gen(function* () {
        const timeZone = input.timezone ?? (yield* config.get).timezone
        const now = new Date(yield* Clock.currentTimeMillis)
        const local = yield* Effect.try({
          try: () => timeFormat(timeZone).format(now),
          catch: () => new ToolExecutionError({ message: `unknown time zone ${JSON.stringify(timeZone)}` }),
        })
        return { iso: now.toISOString(), timezone: timeZone, local }
      }),
  })
})

/** Registers `current_time` as the built-in source `time` (never needs approval: it only reads the clock). */
export const layer: Layer.Layer<never, never, ToolRegistry | AppConfig> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const registry = yield* ToolRegistry
    const tool = yield* currentTime
    yield* registry.register({ id: "time", kind: "builtin", tools: Effect.succeed([tool]) })
  }),
)
