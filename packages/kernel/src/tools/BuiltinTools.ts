import { Clock, Effect, Layer, Schema } from "effect"
import { timeFormat } from "../chat/SystemPrompt.js"
import { AppConfig } from "../config/AppConfig.js"
import { Inbox } from "../inbox/Inbox.js"
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

const NotifyInput = Schema.Struct({
  // A plain filtered string: a transformation would put `$defs` in the JSON Schema, which some providers refuse.
  subject: Schema.String.pipe(
    Schema.filter((subject) => subject.trim() !== "", { message: () => "must not be blank" }),
  ).annotations({ description: "A short subject line" }),
  body: Schema.String.annotations({ description: "The message, in Markdown" }),
  destination: Schema.optional(
    Schema.String.annotations({
      description: "Where to deliver it: 'Web Inbox' (default) or a channel from the schedule destinations",
    }),
  ),
})

/** `notify`: puts a message in the owner's inbox (and its channel, when one is named). */
export const notify = Effect.gen(function* () {
  const inbox = yield* Inbox
  return TypedTool.make({
    name: "notify",
    description:
      "Sends the owner a notification: a message in their inbox, linked to this conversation. Use it for " +
      "things they should see later, not for answering the current message.",
    parameters: NotifyInput,
    execute: (input, context) =>
      Effect.gen(function* () {
        const destination = yield* inbox
          .resolveDestination(input.destination ?? "Web Inbox")
          .pipe(
            Effect.catchTag("UnknownDestination", (error) =>
              Effect.fail(
                new ToolExecutionError({ message: `unknown destination ${JSON.stringify(error.destination)}` }),
              ),
            ),
          )
        const message = yield* inbox
          .create({ subject: input.subject.trim(), body: input.body, threadId: context.threadId, destination })
          .pipe(Effect.mapError(() => new ToolExecutionError({ message: "the inbox could not store the message" })))
        return { id: message.id, status: message.status }
      }),
  })
})

/**
 * The built-in tools, registered as two sources (`time`, `inbox`). Built-ins keep their names as
 * ids (`current_time`, `notify`) and never need approval: they only read or write the owner's own data.
 */
export const layer: Layer.Layer<never, never, ToolRegistry | AppConfig | Inbox> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const registry = yield* ToolRegistry
    const time = yield* currentTime
    const inbox = yield* notify
    yield* registry.register({ id: "time", kind: "builtin", tools: Effect.succeed([time]) })
    yield* registry.register({ id: "inbox", kind: "builtin", tools: Effect.succeed([inbox]) })
  }),
)
