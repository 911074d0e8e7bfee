import { Effect, Layer, Schema } from "effect"
import { ToolExecutionError, ToolRegistry } from "../tools/ToolRegistry.js"
import * as TypedTool from "../tools/TypedTool.js"
import { Inbox } from "./Inbox.js"

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

/** Registers `notify` as the built-in source `inbox` (never needs approval: it writes only to the owner's inbox). */
export const layer: Layer.Layer<never, never, ToolRegistry | Inbox> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const registry = yield* ToolRegistry
    const tool = yield* notify
    yield* registry.register({ id: "inbox", kind: "builtin", tools: Effect.succeed([tool]) })
  }),
)
